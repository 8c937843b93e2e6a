#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Pack a DKMS tarball of kiw: the source DKMS builds from, and the module
# already built for one kernel, in the layout "dkms mktarball" makes. On a
# machine with that kernel and no compiler:
#   dkms ldtarball kiw-<version>-<release>.dkms.tar.gz
#   dkms install -m kiw -v <version> -k <release>
# installs the prebuilt module; for other kernels DKMS builds from the
# source as usual.
#
# Usage: scripts/dkms-tarball.sh RELEASE KIW_KO OUTPUT   ("make dkms-tarball")
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

release=${1:?kernel release}
ko=${2:?kiw.ko}
out=${3:?output tarball}
[ -f "$ko" ] || { echo "dkms-tarball: no module $ko" >&2; exit 1; }
# The module must be for @release: a tarball that lies would install a
# module modprobe refuses.
vermagic=$(modinfo -F vermagic "$ko")
[ "${vermagic%% *}" = "$release" ] ||
	{ echo "dkms-tarball: $ko is for ${vermagic%% *}, not $release" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mod=$tmp/dkms_main_tree/$release/$(uname -m)
mkdir -p "$tmp/dkms_source_tree" "$mod/module" "$mod/log"
# shellcheck disable=SC2046 # the list's entries have no spaces
(cd "$top" && cp -R $(sed -e 's/#.*//' scripts/dkms.files) \
	"$tmp/dkms_source_tree/")
# Without its debug information, as DKMS's own build leaves it (STRIP):
# 0.4 MB instead of 14.
strip -g -o "$mod/module/kiw.ko" "$ko"
echo "kiw.ko built outside DKMS ($(basename "$0"))" > "$mod/log/make.log"
mkdir -p "$(dirname "$out")"
tar -C "$tmp" -czf "$out" .
echo "$out"
