#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Fetch Debian's stock kernel image (the one users run) matching the installed
# linux-headers-6.12-amd64, and unpack it without installing it.
#
# The result is cached in $KIW_CACHE/stock-<package version>/:
#   vmlinuz                      the kernel
#   release                      its release string (uname -r)
#   mod/lib/modules/<release>/   its modules, with depmod run
# and the directory is printed on stdout.
# Usage: scripts/stock-kernel.sh [--print]   (--print: only print the path)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

release=$(kiw_stock_release)
pkg=linux-image-$release-unsigned
# The image must be the same build as the headers kiw is compiled against.
version=$(kiw_pkg_version "linux-headers-$release")
[ -n "$version" ] || kiw_die "linux-headers-$release is not installed"
out="$KIW_CACHE/stock-$version"
if [ "${1:-}" = --print ] || [ -f "$out/.done" ]; then
	echo "$out"
	exit 0
fi

fetch() { (cd "$out/deb" && apt-get -q download "$pkg=$version") >/dev/null 2>&1; }

unpack() {
	[ ! -f "$out/.done" ] || return 0
	kiw_log "fetching $pkg=$version"
	rm -rf "$out"
	mkdir -p "$out/deb"
	if ! fetch; then
		# The package lists may predate this version: refresh them once.
		local sudo=
		[ "$(id -u)" = 0 ] || sudo=sudo
		$sudo apt-get -q update >/dev/null 2>&1 || true
		fetch || kiw_die "apt-get download $pkg=$version failed"
	fi
	dpkg -x "$out"/deb/*.deb "$out/mod"
	rm -rf "$out/deb"
	cp "$out/mod/boot/vmlinuz-$release" "$out/vmlinuz"
	echo "$release" > "$out/release"
	[ -d "$out/mod/lib/modules/$release/kernel" ] || kiw_die "no modules in $pkg"
	depmod -b "$out/mod" "$release"
	touch "$out/.done"
	kiw_log "stock kernel $release in $out"
}

kiw_locked "stock-$version" unpack
[ -f "$out/.done" ] || kiw_die "unpacking the stock kernel failed"
echo "$out"
