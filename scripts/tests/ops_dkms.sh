#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=stock timeout=600
#
# ops_dkms: kiw installed through DKMS on Debian's stock kernel, as a user
# would: DKMS takes the package (dkms.conf, the source, the module), puts
# kiw.ko in the kernel's module tree and runs depmod; then "modprobe kiw"
# loads that file, modinfo explains the module, a device comes up, and
# "dkms remove" takes it all away again.
#
# Compiling kiw under TCG takes 15 minutes or more, so this test installs
# the module that scripts/vm.sh built natively from the same tree for the
# same kernel, packed by scripts/dkms-tarball.sh ("make dkms-tarball") and
# loaded with "dkms ldtarball". ops_dkms_build.sh (KIW_LONG=1) runs
# "make dkms-install", DKMS compiling against the guest kernel's headers.
#
# depmod over the whole stock module tree (4000 modules, xz) takes minutes
# under TCG: the guest's module tree is cut down to the RDMA stack and veth
# first (what those modules need is loaded before), so DKMS's depmod takes
# seconds. Everything is undone at the end.
#
# Guest time: about 35 s on a loaded 2-core host (the build variant: 15-25
# minutes).
. "$KIW_TOP/scripts/guest/lib.sh"

REL=$(uname -r)
VER=$(cat "$KIW_TOP/VERSION")
MODDIR=/lib/modules/$REL
HEADERS=/usr/src/linux-headers-$REL
TREE=/tmp/ops-modtree
BUILD_IN_GUEST=${OPS_DKMS_BUILD:-0}
# For regular expressions: the release has dots and a "+".
RE_MODDIR=$(sed 's/[.+]/\\&/g' <<<"$MODDIR")

# dkms uses <(...), which needs /dev/fd (udev makes it on a real system).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd

# The modules the test needs, loaded from the full tree, and a tree of just
# those for DKMS to install into.
trim_modules() {
	local f rel_path
	modprobe -a veth ib_uverbs rdma_ucm libcrc32c || return 1
	mkdir -p "$TREE"
	for f in $(modprobe -D -a veth ib_uverbs rdma_ucm libcrc32c ib_core |
		   sed -n 's/^insmod \([^ ]*\).*/\1/p' | sort -u); do
		rel_path=${f#"$MODDIR"/}
		mkdir -p "$TREE/$(dirname "$rel_path")"
		cp "$f" "$TREE/$rel_path" || return 1
	done
	cp "$MODDIR"/modules.builtin "$MODDIR"/modules.builtin.modinfo \
		"$MODDIR"/modules.order "$TREE/" &&
	mount --bind "$TREE" "$MODDIR" &&
	# What Debian's linux-headers package adds to the module tree.
	ln -s "$HEADERS" "$MODDIR/build" &&
	depmod -a "$REL" &&
	! modprobe -n kiw 2>/dev/null
}

dkms_prebuilt() {
	"$KIW_TOP/scripts/dkms-tarball.sh" "$REL" \
		"$KIW_TOP/build/$REL/drivers/infiniband/sw/kiw/kiw.ko" \
		/tmp/kiw.dkms.tar.gz &&
	dkms ldtarball /tmp/kiw.dkms.tar.gz &&
	dkms install -m kiw -v "$VER" -k "$REL"
}

dkms_build() {
	make -C "$KIW_TOP" dkms-install KERNELRELEASE="$REL"
}

modinfo_params() {
	local out n
	out=$(modinfo kiw) || return 1
	echo "$out"
	n=$(grep -c '^parm:' <<<"$out")
	# Every parameter says what it does and what its default is.
	[ "$n" = 7 ] && ! grep '^parm:' <<<"$out" | grep -v 'default'
}

host_and_device() {
	kiw_hosts_up && kiw_dev_add a kiw_a veth-a
}

# Whatever a failed run left (dkms costs half a minute: only if needed).
ops_cleanup() {
	rmmod kiw 2>/dev/null
	[ ! -d /var/lib/dkms/kiw ] ||
		dkms remove -m kiw -v "$VER" --all >/dev/null 2>&1
	rm -rf "/usr/src/kiw-$VER" /var/lib/dkms/kiw
	mountpoint -q "$MODDIR" && umount "$MODDIR"
	kiw_hosts_down
	return 0
}
trap 'rc=$?; ops_cleanup; (exit $rc); _kiw_tap_exit' EXIT

tap_plan 19

check "the module tree cut down to the RDMA stack and veth; no kiw in it" \
	trim_modules
if [ "$BUILD_IN_GUEST" = 1 ]; then
	check "make dkms-install: DKMS builds kiw $VER for $REL and installs it" \
		dkms_build
else
	check "dkms ldtarball + dkms install: kiw $VER for $REL" dkms_prebuilt
fi
# What "dkms status" reports as installed (dkms itself takes half a minute
# per command under TCG).
check "DKMS: kiw/$VER is the installed version for $REL" \
	test "$(readlink -f "/var/lib/dkms/kiw/kernel-$REL-$(uname -m)")" = \
	"/var/lib/dkms/kiw/$VER/$REL/$(uname -m)"
check_output "/usr/src/kiw-$VER holds the source DKMS builds from" 'dkms.conf' \
	ls "/usr/src/kiw-$VER"
check_output "modinfo kiw: the module DKMS installed" \
	"^filename: +$RE_MODDIR/updates/dkms/kiw\\.ko" modinfo kiw
check_output "modinfo kiw: version $VER" "^version: +$VER\$" modinfo kiw
check_output "modinfo kiw: license" '^license: +Dual BSD/GPL$' modinfo kiw
check_output "modinfo kiw: description" '^description: +kiw: iWARP' modinfo kiw
check_output "modinfo kiw: author" '^author: +.+' modinfo kiw
check "modinfo kiw: seven parameters, each with its meaning and default" \
	modinfo_params
check "modprobe kiw" modprobe kiw
P=/sys/module/kiw/parameters/rx_softirq_budget
check "rx_softirq_budget: 262145 refused, 262144 and 0 taken, back to 65536" \
	sh -c "! echo 262145 2>/dev/null > $P && [ \$(cat $P) = 65536 ] &&
	       echo 262144 > $P && echo 0 > $P && echo 65536 > $P"
P=/sys/module/kiw/parameters/crc32c_impl
check "crc32c_impl: auto at load, table and crypto taken, tables refused, back to auto" \
	sh -c "cat $P && grep -Eq '^auto: (table|crc32c-.+)\$' $P &&
	       echo table > $P && [ \"\$(cat $P)\" = 'table: table' ] &&
	       echo crypto > $P && grep -Eq '^crypto: crc32c-.+\$' $P &&
	       ! echo tables 2>/dev/null > $P && grep -q '^crypto: ' $P &&
	       echo auto > $P && grep -q '^auto: ' $P"
check_output "the kernel runs version $VER" "^$VER\$" cat /sys/module/kiw/version
check "two hosts; rdma link add kiw_a on veth-a" host_and_device
check_output "ibv_devinfo -d kiw_a: PORT_ACTIVE" 'state:[[:space:]]+PORT_ACTIVE' \
	ibv_devinfo -d kiw_a
check "rdma link delete kiw_a; rmmod kiw" sh -c 'rdma link delete kiw_a && rmmod kiw'
check "dkms remove kiw/$VER --all" dkms remove -m kiw -v "$VER" --all
check_no_output "no kiw left in the module tree" 'kiw' find "$MODDIR" -name 'kiw*'
tap_done
