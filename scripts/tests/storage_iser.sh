#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=900 siw=yes
#
# storage_iser: iSCSI Extensions for RDMA between two hosts over kiw. Host
# b runs the LIO target (configfs, ib_isert) with a RAM disk LUN behind a
# portal with iSER enabled; host a runs open-iscsi (iscsid, iscsiadm,
# ib_iser): sendtargets discovery and login over iSER, mkfs.ext4, mount,
# fio writes data and reads it back with crc32c verification, unmount,
# fsck, logout. kiw to kiw, then each side against siw. Teardown leaves
# no verbs object behind and kiw unloads.
#
# Both ends are in the initial netns (storage_lib.sh: st_hosts_wire):
# ib_iser and ib_isert always create their rdma_cm ids in init_net. LIO's
# TCP listener on the portal lives in a scratch netns (st_lio_up says why).
# On a kernel without policy routing (the debug kernel) the connection
# goes through lo and ib_iser, which cannot bind a source address, ends up
# on the target's device too: there kiw to kiw runs with both ends on
# kiw_b, and the pairs with siw (which would be siw to siw) are skipped.
#
# Data: 16 MiB kiw to kiw, 8 MiB each way with siw; KIW_LONG=1: 256 MiB
# each, and siw to siw as the baseline
# (arguments "baseline" and "mb=N" ask for the baseline and a size: see
# st_args in storage_lib.sh).
#
# Guest time: 114 s on the debug kernel (kiw to kiw only: see above; make
# vmtest T=storage_iser, shared 2-core host, 2026-11-21).
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/storage_lib.sh"
st_args "$@"

MB=$(st_size_mb 16 256)
MB_SIW=$(st_size_mb 8 256)
MNT=/mnt/iser

# iser_pair TYPE_A TYPE_B MB: the initiator on TYPE_A's device, the
# target on TYPE_B's.
iser_pair() {
	local tag="$1 -> $2" mb=$3 disk
	diag "--- iSER, initiator on $1, target on $2"
	st_dmesg_mark
	check_sh "$tag: ${1}_a on veth-a, ${2}_b on veth-b" st_devs "$1" "$2"
	check "$tag: iSER enabled on portal $ST_B:3260" st_lio_iser 1
	check_output "$tag: sendtargets discovery over iSER finds the target" \
		"^$ST_B:3260,1 $ST_IQN\$" st_iser_discover
	check "$tag: login over iSER" st_iser_login
	check_output "$tag: the session runs on the iser transport" \
		'Iface Transport: iser' st_iser_session
	if st_same_dev; then
		check "$tag: the connection is two QPs on ${2}_b (lo: both ends)" \
			st_qps_b_only 2
	else
		check "$tag: the connection is a QP on both devices" st_qps_both 1
	fi
	check "$tag: the LUN shows up as a SCSI disk" wait_for 60 st_iser_disk_ready
	disk=$(st_iser_disk)
	check "$tag: mkfs.ext4 on ${disk:-the disk}, mount" \
		sh -c "mkfs.ext4 -q -F -E nodiscard $disk && mkdir -p $MNT &&
		       mount $disk $MNT"
	check_fio "$tag: fio writes $mb MiB, reads it back, crc32c" \
		"iser $tag" "$mb" --directory="$MNT"
	check "$tag: umount, and the file system checks clean" \
		sh -c "umount $MNT && e2fsck -fn $disk"
	check "$tag: logout" st_iser_logout
	check "$tag: no session left" wait_for 30 st_iser_gone
	check "$tag: iSER disabled on the portal" st_lio_iser 0
	check "$tag: closed gracefully: no QP error event, no Terminate" \
		st_quiet_since_mark
	check "$tag: no PD, CQ, QP, MR or cm_id left" st_res_gone 30
}

check_sh "hosts a and b on a veth pair, routed over it" st_hosts_wire
check_wire
check "modprobe kiw, siw, configfs" st_load siw
check "a $((MB + 16)) MiB RAM disk for the target" st_ramdisks $((MB + 16))
check "LIO: a LUN on /dev/ram0, portal $ST_B:3260 (TCP in netns lio)" \
	st_lio_up /dev/ram0
check "iscsid runs" st_iscsid_up

iser_pair kiw kiw "$MB"
if st_same_dev; then
	skip "iSER between kiw and siw" "no policy routing in this kernel: both ends would be on siw_b"
else
	iser_pair kiw siw "$MB_SIW"
	iser_pair siw kiw "$MB_SIW"
	if st_baseline; then
		iser_pair siw siw "$MB"
	fi
fi

check "LIO configuration removed" st_lio_down
check_sh "rdma link delete both devices" st_devs_del
check "the veth pair, rules and sysctls removed" st_hosts_wire_down
check "rmmod ib_iser ib_isert siw kiw" sh -c 'pkill -x iscsid; sleep 1
	modprobe -r ib_iser ib_isert siw kiw'
st_summary
tap_done
