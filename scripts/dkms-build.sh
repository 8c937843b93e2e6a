#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Build kiw with DKMS for one kernel, as "make dkms-install" would, but in
# a DKMS tree of its own (dkms --dkmstree/--sourcetree), so nothing is
# installed and the system's DKMS state is untouched. It proves that
# dkms.conf accepts the kernel and that the compat probes run under DKMS.
#
# Usage: scripts/dkms-build.sh RELEASE [--root DIR]
#   RELEASE     the kernel release (its headers: /lib/modules/RELEASE/build)
#   --root DIR  run DKMS inside the chroot DIR (the 7.2 build chroot, whose
#               userspace is the one a 7.2 user has)
# Prints the path of the built kiw.ko; exits non-zero if DKMS failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rel=${1:?RELEASE}
root=
[ "${2:-}" != --root ] || root=${3:?DIR}
ver=$(cat "$KIW_TOP/VERSION")
run=()
# In the chroot, with /proc (newer kernels' objtool reads it) mounted in a
# mount namespace of its own, so it goes away however the build ends.
# shellcheck disable=SC2016
[ -z "$root" ] || run=(unshare --mount --propagation private sh -c \
	'r=$1; shift; mount -t proc proc "$r/proc" && exec chroot "$r" "$@"' sh "$root")

# The work area, inside the chroot when there is one.
base=$(mktemp -d "${root:-${TMPDIR:-/tmp}}/kiw-dkms.XXXXXX")
inner=${base#"$root"}
cleanup() { rm -rf "$base"; }
trap cleanup EXIT
mkdir -p "$base/src/kiw-$ver" "$base/dkms"
# shellcheck disable=SC2046 # the list's entries have no spaces
(cd "$KIW_TOP" && cp -R $(sed -e 's/#.*//' scripts/dkms.files) \
	"$base/src/kiw-$ver/")

log=$base/dkms.log
if ! "${run[@]}" dkms build -m kiw -v "$ver" -k "$rel" --dkmstree "$inner/dkms" \
	--sourcetree "$inner/src" > "$log" 2>&1; then
	cat "$log" >&2
	find "$base/dkms" -name make.log -exec tail -n 40 {} + >&2 || true
	kiw_die "dkms build for $rel failed"
fi
ko=$(find "$base/dkms/kiw/$ver/$rel" -name 'kiw.ko*' | head -n 1)
[ -n "$ko" ] || { cat "$log" >&2; kiw_die "dkms build for $rel made no kiw.ko"; }
out=$KIW_TOP/build/dkms/$rel
mkdir -p "$out"
cp "$ko" "$out/"
echo "$out/$(basename "$ko")"
