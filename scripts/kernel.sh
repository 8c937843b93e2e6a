#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Fetch one of Debian's kernels kiw is tested on, unpacked without installing
# it, and the headers to build kiw against it.
#
# Usage: scripts/kernel.sh ID [--print|--release|--kdir]
#   ID         stock (Debian 12's 6.12 LTS), 6.1 (Debian 12's default kernel)
#              or 7.2 (Debian unstable's newest); see KIW_KERNELS in lib.sh
#   (nothing)  fetch the kernel if needed; print its cache directory
#   --print    only print the cache directory (fetched or not)
#   --release  only print the kernel release (uname -r)
#   --kdir     make the headers ready and print the KDIR to build against
#              (for 7.2, inside a sid chroot: scripts/kbuild.sh builds there)
#   --kdir-print  only print that KDIR (ready or not: test its Makefile)
#
# Every version is discovered, never hard-coded: stock and 6.1 from the
# metapackages installed on the host (linux-headers-6.12-amd64 and
# linux-headers-amd64, scripts/setup-deps.sh), 7.2 from sid's
# linux-image-amd64 (apt lists of our own, lib.sh's kiw_sid_apt). The image
# is the same build as the headers. Cache: $KIW_CACHE/<prefix>-<version>/
#   vmlinuz                      the kernel
#   release                      its release string (uname -r)
#   config                       its configuration
#   mod/lib/modules/<release>/   its modules, with depmod run
# (prefix: stock, kernel-6.1, kernel-7.2). 7.2's headers need a newer glibc
# than the host's: they live in a debootstrap'ed sid chroot,
# $KIW_CACHE/chroot-sid-<headers version>/root, whose root holds
# .kiw-chroot (scripts/kbuild.sh's sign to build inside it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

id=${1:-}
what=${2:-}
case "$what" in ""|--print|--release|--kdir|--kdir-print) ;; *) id= ;; esac

# sid_discover: release, version (the image's) and hversion (the headers')
# of sid's newest amd64 kernel, from the lists; remembered until the lists
# change (apt-cache takes seconds a call on those lists).
sid_discover() {
	local memo=$KIW_SID_APT/discovered lst image
	lst=$(find "$KIW_SID_APT/lists" -maxdepth 1 -name '*_Packages*' | head -n 1)
	if [ -n "$lst" ] && [ "$memo" -nt "$lst" ] &&
	   read -r release version hversion < "$memo" && [ -n "$hversion" ]; then
		return 0
	fi
	image=$(kiw_sid_depends linux-image-amd64 '^linux-image-[0-9]')
	[ -n "$image" ] || kiw_die "no linux-image-<release> in sid's linux-image-amd64"
	release=${image#linux-image-}
	version=$(kiw_sid_version "$image")
	[ -n "$version" ] || kiw_die "no version of $image in sid"
	hversion=$(kiw_sid_version "linux-headers-$release")
	[ -n "$hversion" ] || kiw_die "no linux-headers-$release in sid"
	echo "$release $version $hversion" > "$memo.$$"
	mv "$memo.$$" "$memo"
}

# Discover: release, version (of the image and the headers), the cache
# directory, and the packages to unpack.
case "$id" in
stock|6.1)
	meta=linux-headers-6.12-amd64 prefix=stock
	[ "$id" = stock ] || meta=linux-headers-amd64 prefix=kernel-6.1
	release=$(kiw_meta_release "$meta")
	[ -n "$release" ] || kiw_die "$meta is not installed (run scripts/setup-deps.sh)"
	case "$id:$release" in
	stock:6.12.*|6.1:6.1.*) ;;
	*) kiw_die "$meta names $release, not a $([ "$id" = stock ] && echo 6.12 || echo "$id") kernel" ;;
	esac
	version=$(kiw_pkg_version "linux-headers-$release")
	[ -n "$version" ] || kiw_die "linux-headers-$release is not installed (run scripts/setup-deps.sh)"
	pkgs=("linux-image-$release-unsigned")
	kdir=/usr/src/linux-headers-$release
	;;
7.2)
	kiw_sid_update
	sid_discover
	case "$release" in
	7.2.*) ;;
	*) kiw_die "sid's newest kernel is $release, not 7.2: update KIW_KERNELS (Documentation/testing.rst, \"Adding a kernel\")" ;;
	esac
	prefix=kernel-7.2
	pkgs=("linux-binary-$release" "linux-modules-$release" "linux-base-$release")
	;;
*)
	sed -n '4,15s/^# \{0,1\}//p' "$0" >&2
	exit 2
	;;
esac
out=$KIW_CACHE/$prefix-$version

case "$what" in
--print)   echo "$out"; exit 0 ;;
--release) echo "$release"; exit 0 ;;
esac

# apt-get download, for the host's archive or sid's.
download() {
	if [ "$id" = 7.2 ]; then
		(cd "$out/deb" && kiw_sid_apt apt-get -q download "$@")
	else
		(cd "$out/deb" && apt-get -q download "$@")
	fi >"$out/download.log" 2>&1
}

unpack() {
	local t0 p want=() deb modbase
	[ ! -f "$out/.done" ] || return 0
	t0=$(kiw_now)
	for p in "${pkgs[@]}"; do want+=("$p=$version"); done
	kiw_log "fetching ${want[*]}"
	rm -rf "$out"
	mkdir -p "$out/deb"
	if ! download "${want[@]}"; then
		# The lists may predate this version, or it left the archive:
		# refresh them once.
		if [ "$id" = 7.2 ]; then
			kiw_sid_update --force
		else
			local sudo=
			[ "$(id -u)" = 0 ] || sudo=sudo
			$sudo apt-get -q update >/dev/null 2>&1 || true
		fi
		download "${want[@]}" || { cat "$out/download.log" >&2
			kiw_die "apt-get download ${want[*]} failed (the lists are fresh now: run it again)"; }
	fi
	for deb in "$out"/deb/*.deb; do dpkg -x "$deb" "$out/mod"; done
	rm -rf "$out/deb"
	# usr-merged packages (7.2) put the modules under usr/lib/modules:
	# one layout for every kernel, lib/modules/<release>.
	if [ -d "$out/mod/usr/lib/modules/$release" ] && [ ! -d "$out/mod/lib/modules/$release" ]; then
		mkdir -p "$out/mod/lib"
		mv "$out/mod/usr/lib/modules" "$out/mod/lib/modules"
	fi
	modbase=$out/mod/lib/modules/$release
	for p in "$out/mod/boot/vmlinuz-$release" "$modbase/vmlinuz"; do
		[ ! -f "$p" ] || { cp "$p" "$out/vmlinuz"; break; }
	done
	[ -f "$out/vmlinuz" ] || kiw_die "no vmlinuz in ${pkgs[*]}"
	for p in "$out/mod/boot/config-$release" "$modbase/config"; do
		[ ! -f "$p" ] || { cp "$p" "$out/config"; break; }
	done
	[ -d "$modbase/kernel" ] || kiw_die "no modules in ${pkgs[*]}"
	[ -f "$modbase/modules.builtin" ] || kiw_die "no modules.builtin in ${pkgs[*]}"
	echo "$release" > "$out/release"
	depmod -b "$out/mod" "$release"
	touch "$out/.done"
	kiw_log "kernel $id ($release) fetched and unpacked in $(kiw_since "$t0"): $out"
}

# The sid build chroot for 7.2, keyed by the headers' version.
chroot_dir() { echo "$KIW_CACHE/chroot-sid-$hversion"; }

make_chroot() {
	local dir=$1 t0 inc=gcc,make,libc6-dev,bc,kmod,sparse,linux-headers-$release
	[ ! -f "$dir/.done" ] || return 0
	command -v debootstrap >/dev/null ||
		kiw_die "debootstrap is not installed (run scripts/setup-deps.sh)"
	[ "$(id -u)" = 0 ] || kiw_die "making the sid build chroot needs root (debootstrap)"
	t0=$(kiw_now)
	kiw_log "debootstrapping a sid build chroot with linux-headers-$release into $dir (minutes)"
	rm -rf "$dir"
	mkdir -p "$dir"
	if ! debootstrap --variant=minbase --include="$inc" sid "$dir/root" "$(kiw_mirror)" \
	     >"$dir/debootstrap.log" 2>&1; then
		tail -n 30 "$dir/debootstrap.log" >&2
		kiw_die "debootstrap of the sid chroot failed (log: $dir/debootstrap.log)"
	fi
	[ -f "$dir/root/usr/src/linux-headers-$release/Makefile" ] ||
		kiw_die "no linux-headers-$release in the chroot"
	rm -rf "$dir/root/var/cache/apt/archives/"*.deb
	echo "$release" > "$dir/root/.kiw-chroot"
	touch "$dir/.done"
	kiw_log "sid build chroot made in $(kiw_since "$t0"): $dir/root"
}

# Debian's header packages leave out scripts/checker-valid.sh, which the
# Makefile of kernels since 6.15 runs to decide whether sparse is usable:
# without it, C=2 only warns "sparse is not available" and checks nothing.
# Ours says yes when sparse runs and parses __typeof_unqual__ (what the
# kernel's asks) without an error, so C=2 means sparse again.
# checker_fixup ROOT KDIR: KDIR's Makefile names the source tree's with an
# absolute "include" (a path inside ROOT, the chroot).
checker_fixup() {
	local root=$1 kdir=$2 mk src
	mk=$(sed -n 's/^include //p' "$kdir/Makefile" | head -n 1)
	mk=$root${mk:-${kdir#"$root"}/Makefile}
	grep -q 'scripts/checker-valid.sh' "$mk" 2>/dev/null || return 0
	src=$(dirname "$mk")/scripts
	[ -d "$src" ] || kiw_die "no scripts/ in $(dirname "$mk")"
	# Its scripts/ is a relative symlink (to linux-kbuild-*): stay in ROOT.
	src=$(cd "$src" && pwd -P)
	case "$src/" in "$root"/*) ;; *) kiw_die "$src is outside $root" ;; esac
	[ -e "$src/checker-valid.sh" ] || {
		cat > "$src/checker-valid.sh" <<-'EOF'
		#!/bin/sh
		# Written by kiw's scripts/kernel.sh: Debian's headers lack it.
		# Prints 1 when the checker "$@" runs and parses this without an error.
		command -v "$1" >/dev/null 2>&1 || { echo 0; exit 0; }
		t=$(mktemp --suffix=.c) || { echo 0; exit 0; }
		printf 'int f(const int *p)\n{\n\t__typeof_unqual__(*p) x = *p;\n\treturn x;\n}\n' > "$t"
		if "$@" "$t" 2>&1 | grep -q error; then echo 0; else echo 1; fi
		rm -f "$t"
		EOF
		chmod 755 "$src/checker-valid.sh"
	}
}

if [ "$what" = --kdir-print ]; then
	[ "$id" != 7.2 ] || kdir=$(chroot_dir)/root/usr/src/linux-headers-$release
	echo "$kdir"
	exit 0
fi
if [ "$what" = --kdir ]; then
	if [ "$id" = 7.2 ]; then
		dir=$(chroot_dir)
		if [ ! -f "$dir/.done" ]; then
			kiw_locked "$(basename "$dir")" make_chroot "$dir" ||
				{ kiw_sid_update --force; sid_discover; dir=$(chroot_dir)
				  kiw_locked "$(basename "$dir")" make_chroot "$dir"; }
		fi
		kdir=$dir/root/usr/src/linux-headers-$release
		checker_fixup "$dir/root" "$kdir"
	else
		checker_fixup "" "$kdir"
	fi
	[ -f "$kdir/Makefile" ] || kiw_die "no headers at $kdir"
	echo "$kdir"
	exit 0
fi

kiw_locked "$prefix-$version" unpack
[ -f "$out/.done" ] || kiw_die "unpacking kernel $id failed"
echo "$out"
