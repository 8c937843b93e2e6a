#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Build kiw out of tree against one kernel, in a build directory of its own,
# so builds for several kernels (Debian's stock one, the debug one) and for
# the static checks never overwrite each other's objects.
#
# Usage: scripts/kbuild.sh KDIR BUILD_DIR [extra kbuild arguments...]
# The build directory mirrors the source tree with symlinks; kbuild writes
# its objects there. Modules end up in
#   BUILD_DIR/drivers/infiniband/sw/kiw/kiw.ko and BUILD_DIR/kunit/kiw_kunit.ko
set -euo pipefail
. "$(dirname "$0")/lib.sh"

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
	local kdir_now
	kdir_now=$(realpath "$kdir")
	if [ "$(cat "$build/.kdir" 2>/dev/null)" != "$kdir_now" ]; then
		find "$build" -mindepth 1 -delete
		echo "$kdir_now" > "$build/.kdir"
	fi
	# Refresh the symlink farm: drop old links (keeping objects), link anew.
	find "$build" -type l -delete
	for d in Kbuild drivers include kunit; do
		cp -rs "$KIW_TOP/$d" "$build/"
	done
	make -C "$kdir" M="$build" CONFIG_RDMA_KIW=m "$@"
}
# Two builds in one directory (a "make" and a test run) break each other's
# objects: one at a time.
kiw_locked "kbuild-$(kiw_hash <(echo "$build"))" kbuild "$@"
