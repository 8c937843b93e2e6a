#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Build siw_crc.ko: Linux siw from linux-source-6.12, unchanged but for
# three compiled-in settings, as the benchmark's "siw with CRC" peer.
#
# siw's MPA settings are constants (siw_main.c: mpa_crc_required and
# friends are "const bool", not module parameters), so siw never asks for
# CRC and two siw hosts always run without it. This variant asks for it
# (mpa_crc_required = true) and registers the link type "siwcrc" instead
# of "siw", so that it loads next to the stock build and the benchmark
# switches between the two by choosing a device, not by reloading modules:
#   rdma link add siwc_a type siwcrc netdev veth-e
#
# Usage: scripts/bench/build-siw-crc.sh [stock|debug]
# Prints the path of siw_crc.ko (for scripts/vm.sh --ko), built for Debian's
# stock kernel (default) or for the debug kernel, cached under $KIW_CACHE
# keyed by the source, the kernel and this script.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

case "${1:-stock}" in
stock)
	release=$(kiw_stock_release)
	kdir=$(kiw_stock_kdir)
	;;
debug)
	kdirs=$("$KIW_TOP/scripts/debug-kernel.sh" | tail -n 1)
	release=$(cat "$kdirs/release")
	kdir=$kdirs/build
	;;
*)	kiw_die "usage: $0 [stock|debug]" ;;
esac
src=$(kiw_linux_src)
srcver=$(basename "$src")
srcver=${srcver#src-}
out="$KIW_CACHE/siw_crc-$srcver-$release-$(kiw_hash "$0" <(echo "$kdir"))"

# patch FILE SED-EXPR: apply a substitution that must change the file.
patch_one() {
	local f=$1 expr=$2
	cp "$f" "$f.orig"
	sed -i "$expr" "$f"
	! cmp -s "$f" "$f.orig" || kiw_die "siw_crc: '$expr' did not apply to $f"
	rm "$f.orig"
}

build() {
	[ ! -f "$out/siw_crc.ko" ] || return 0
	kiw_log "building siw_crc (siw asking for MPA CRC) against $release"
	rm -rf "$out"
	mkdir -p "$out"
	cp -r "$src/drivers/infiniband/sw/siw/." "$out/"
	patch_one "$out/siw_main.c" \
		's/^const bool mpa_crc_required;/const bool mpa_crc_required = true;/'
	patch_one "$out/siw_main.c" 's/^\t\.type = "siw",/\t.type = "siwcrc",/'
	patch_one "$out/siw_main.c" \
		's/^MODULE_ALIAS_RDMA_LINK("siw");/MODULE_ALIAS_RDMA_LINK("siwcrc");/'
	patch_one "$out/Makefile" 's/CONFIG_RDMA_SIW) += siw\.o/CONFIG_RDMA_SIW) += siw_crc.o/'
	patch_one "$out/Makefile" 's/^siw-y :=/siw_crc-y :=/'
	make -s -C "$kdir" M="$out" CONFIG_RDMA_SIW=m modules >"$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; rm -f "$out/siw_crc.ko"; kiw_die "building siw_crc failed"; }
}
kiw_locked "siw_crc-$release" build
[ -f "$out/siw_crc.ko" ] || kiw_die "no siw_crc.ko in $out"
echo "$out/siw_crc.ko"
