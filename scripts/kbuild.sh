#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Build kiw out of tree against one kernel, in a build directory of its own,
# so builds for several kernels (Debian's stock one, the debug one) and for
# the static checks never overwrite each other's objects.
#
# Usage: scripts/kbuild.sh [--clean] KDIR BUILD_DIR [extra kbuild arguments...]
#   --clean  remove every object first, so that every file is compiled (and
#            warns) again
# A KDIR inside a build chroot (7.2's: scripts/kernel.sh 7.2 --kdir) is
# built in that chroot, e.g.
#   scripts/kbuild.sh "$(scripts/kernel.sh 7.2 --kdir)" \
#           build/"$(scripts/kernel.sh 7.2 --release)" modules
# The build directory mirrors the source tree with symlinks; kbuild writes
# its objects there. Modules end up in
#   BUILD_DIR/drivers/infiniband/sw/kiw/kiw.ko and BUILD_DIR/kunit/kiw_kunit.ko
# Every build is made with W=1: kiw must be clean with the extra warnings,
# and with one set of compiler flags everywhere, the static checks' build
# (W=1 C=2, in the same directory) leaves objects the VM tests' build
# (scripts/vm.sh) and "make" can use as they are. (C=2 runs sparse beside
# the compiler and changes no object.)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

clean=0
[ "${1:-}" != --clean ] || { clean=1; shift; }
kdir=${1:?KDIR}
build=${2:?BUILD_DIR}
shift 2
[ -f "$kdir/Makefile" ] || kiw_die "KDIR=$kdir is not a kernel build directory"

mkdir -p "$build"
build=$(realpath "$build")

kbuild() {
	# Objects made against another kernel tree must go: a rebuilt debug
	# kernel keeps its release, and kbuild's dependency files name the old
	# tree's headers, so make would link the stale objects into a module
	# whose structures no longer match the running kernel.
	local kdir_now root
	kdir_now=$(realpath "$kdir")
	if [ "$clean" = 1 ] || [ "$(cat "$build/.kdir" 2>/dev/null)" != "$kdir_now" ]; then
		find "$build" -mindepth 1 -delete
		echo "$kdir_now" > "$build/.kdir"
	fi
	# Refresh the symlink farm: drop old links (keeping objects), link anew.
	find "$build" -type l -delete
	for d in Kbuild VERSION drivers include kunit; do
		cp -rs "$KIW_TOP/$d" "$build/"
	done
	root=$(chroot_of "$kdir_now")
	if [ -z "$root" ]; then
		make -C "$kdir" M="$build" CONFIG_RDMA_KIW=m W=1 "$@"
		return
	fi
	# Headers inside a build chroot (7.2's, scripts/kernel.sh): build
	# there, in a mount namespace of our own that sees the repository and
	# the build directory at their own paths. The namespace, and every
	# mount in it, goes away with its last process, however the build ends.
	[ "$(id -u)" = 0 ] || kiw_die "building in the chroot $root needs root"
	local binds=("$KIW_TOP") b
	case "$build/" in "$KIW_TOP"/*) ;; *) binds+=("$build") ;; esac
	for b in "${binds[@]}"; do mkdir -p "$root$b"; done
	unshare --mount --propagation private -- bash -c '
		set -e
		root=$1 kdir=$2 build=$3 nb=$4
		shift 4
		for b in "${@:1:nb}"; do mount --bind "$b" "$root$b"; done
		shift "$nb"
		mount -t proc proc "$root/proc"
		mount --bind /dev "$root/dev"
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 \
			make -C "$kdir" M="$build" CONFIG_RDMA_KIW=m W=1 "$@"
	' _ "$root" "${kdir_now#"$root"}" "$build" "${#binds[@]}" "${binds[@]}" "$@"
}

# chroot_of DIR: the build chroot (a root holding .kiw-chroot) that DIR is
# in, or nothing.
chroot_of() {
	local d=$1
	while [ "$d" != / ] && [ -n "$d" ]; do
		[ ! -f "$d/.kiw-chroot" ] || { echo "$d"; return; }
		d=$(dirname "$d")
	done
}
# Two builds in one directory (a "make" and a test run) break each other's
# objects: one at a time.
kiw_locked "kbuild-$(kiw_hash <(echo "$build"))" kbuild "$@"
