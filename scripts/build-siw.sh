#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Build siw, the in-tree software iWARP driver and kiw's interop peer, out of
# tree against Debian's headers: Debian's stock kernel does not ship it (the
# debug kernel has it as a module already).
#
# Usage: scripts/build-siw.sh
# Prints the path of siw.ko, cached in $KIW_CACHE/siw-<source version>-<release>
# (keyed also by this script). VM tests get it with: scripts/vm.sh --ko PATH
set -euo pipefail
. "$(dirname "$0")/lib.sh"

release=$(kiw_stock_release)
kdir=$(kiw_stock_kdir)
src=$(kiw_linux_src)
srcver=$(basename "$src")
srcver=${srcver#src-}
out="$KIW_CACHE/siw-$srcver-$release-$(kiw_hash "$0")"

build() {
	[ ! -f "$out/siw.ko" ] || return 0
	kiw_log "building siw from linux-source $srcver against $release"
	rm -rf "$out"
	mkdir -p "$out"
	cp -r "$src/drivers/infiniband/sw/siw/." "$out/"
	make -s -C "$kdir" M="$out" CONFIG_RDMA_SIW=m modules >"$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; rm -f "$out/siw.ko"; kiw_die "building siw failed"; }
}
kiw_locked "siw-$release" build
[ -f "$out/siw.ko" ] || kiw_die "no siw.ko in $out"
echo "$out/siw.ko"
