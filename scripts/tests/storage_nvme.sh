#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=900 siw=yes
#
# storage_nvme: NVMe over Fabrics on RDMA between two hosts over kiw. The
# target (nvmet-rdma, configured through configfs) exports a RAM disk on
# host b; the host (nvme-rdma, nvme-cli) discovers it, connects, writes
# data with fio and reads it back with crc32c verification, disconnects.
# kiw to kiw, then each side against siw. Teardown leaves no verbs object
# behind and kiw unloads.
#
# Both ends are in the initial netns (storage_lib.sh: st_hosts_wire):
# nvme-rdma and nvmet-rdma always create their rdma_cm ids in init_net.
# On a kernel without policy routing (the debug kernel) the connections go
# through lo (its MTU set to 1500 meanwhile), still from kiw_a (nvme
# connect -w binds the source) to kiw_b.
#
# Data: 16 MiB kiw to kiw, 8 MiB each way with siw; KIW_LONG=1: 256 MiB
# each, and siw to siw as the baseline
# (arguments "baseline" and "mb=N" ask for the baseline and a size: see
# st_args in storage_lib.sh).
#
# Guest time: 255 s on the debug kernel (make vmtest T=storage_nvme, shared
# 2-core host, 2026-11-21); most of it is fio from siw to kiw (150-350
# KiB/s, against 3 MiB/s kiw to kiw).
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/storage_lib.sh"
st_args "$@"

MB=$(st_size_mb 16 256)
MB_SIW=$(st_size_mb 8 256)

# nvme_pair TYPE_A TYPE_B MB: host on TYPE_A's device, target on TYPE_B's.
nvme_pair() {
	local tag="$1 -> $2" mb=$3 disk
	diag "--- NVMe-oF, host on $1, target on $2"
	st_dmesg_mark
	check_sh "$tag: ${1}_a on veth-a, ${2}_b on veth-b" st_devs "$1" "$2"
	check "$tag: nvmet port 1 listens on rdma $ST_B:4420" st_nvmet_port_up
	check_output "$tag: nvme discover lists $ST_NQN over rdma" \
		"subnqn: +$ST_NQN" nvme discover -t rdma -a "$ST_B" -s 4420 -w "$ST_A"
	check "$tag: nvme connect -t rdma" st_nvme_connect
	check "$tag: the namespace shows up as a block device" \
		wait_for 60 st_nvme_disk_ready
	check_output "$tag: the controller is live over rdma, $ST_A -> $ST_B" \
		"^rdma traddr=$ST_B,trsvcid=4420,host_traddr=$ST_A live$" \
		st_nvme_transport
	check "$tag: admin and I/O queues are QPs on both devices" st_qps_both 2
	disk=$(st_nvme_disk)
	check_fio "$tag: fio writes $mb MiB to $disk, reads it back, crc32c" \
		"nvme $tag" "$mb" --filename="${disk:-/nonexistent}"
	check "$tag: nvme disconnect" st_nvme_disconnect
	check "$tag: the controller is gone" wait_for 30 st_nvme_gone
	check "$tag: nvmet port 1 removed" st_nvmet_port_down
	check "$tag: closed gracefully: no QP error event, no Terminate" \
		st_quiet_since_mark
	check "$tag: no PD, CQ, QP, MR or cm_id left" st_res_gone 30
}

check_sh "hosts a and b on a veth pair, routed over it" st_hosts_wire
check_wire
check "modprobe kiw, siw, configfs" st_load siw
check "a $((MB + 8)) MiB RAM disk for the target" st_ramdisks $((MB + 8))
check "nvmet: subsystem $ST_NQN, namespace 1 on /dev/ram0" st_nvmet_up /dev/ram0

nvme_pair kiw kiw "$MB"
nvme_pair kiw siw "$MB_SIW"
nvme_pair siw kiw "$MB_SIW"
if st_baseline; then
	nvme_pair siw siw "$MB"
fi

check "nvmet: subsystem removed" st_nvmet_down
check_sh "rdma link delete both devices" st_devs_del
check "the veth pair, rules and sysctls removed" st_hosts_wire_down
check "rmmod nvme_rdma nvmet_rdma siw kiw" \
	modprobe -r nvme_rdma nvmet_rdma siw kiw
st_summary
tap_done
