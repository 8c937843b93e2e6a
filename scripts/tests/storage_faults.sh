#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=1200
#
# storage_faults: storage over kiw when the network or the target's device
# goes away in the middle of I/O, as it would on hardware.
#
#   link down: veth-a goes down for 4 s while fio writes and verifies.
#     The TCP connections under kiw survive it: the NVMe-oF controller and
#     the NFS mount carry on (or reconnect), and every block still reads
#     back right.
#   the target's device deleted: "rdma link delete kiw_b" while fio runs.
#     The initiator's I/O fails (NVMe-oF: ctrl-loss-tmo 10 s; NFS: a soft
#     mount) within a bounded time; nothing hangs, nothing crashes. Once
#     kiw_b is back the target listens again (nvmet: its port enabled
#     again, as nvmet drops a listener whose device goes away; nfsd:
#     rdma_cm relistens on the new device) and new connections work.
#
# Teardown leaves no verbs object behind and kiw unloads; on the debug
# kernel the harness fails the run on any KASAN, lockdep or kmemleak
# report.
#
# On a kernel without policy routing (the debug kernel) the NVMe-oF
# connections go through lo (storage_lib.sh: st_hosts_wire), so the link
# flap there is a weaker test: the traffic does not cross veth-a.
#
# Default: the NVMe-oF part; KIW_LONG=1 adds the NFS part. Data: 16 MiB
# for a fio run a fault cuts into, 8 MiB after; KIW_LONG=1: 128 and 64 MiB.
# A run a fault cuts into writes at a bounded rate (--rate, about 16 s of
# writing however fast the machine), and the fault checks that fio is
# still running at the moment it strikes: on a fast host an unbounded fio
# had finished before the link went down (CI, 2026-11-21).
#
# Guest time: 183 s on the debug kernel (make vmtest T=storage_faults,
# loaded 2-core host, 2026-11-21); 301 s with the rate-bounded fio runs
# and a load of 3 to 4.
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/storage_lib.sh"
st_args "$@"

MB=$(st_size_mb 8 64)
MB_CUT=$(st_size_mb 16 128)
# Per-job write rate of a run a fault cuts into: four jobs write MB_CUT
# MiB in about 16 s. Reads (the verify pass) are not limited.
CUT_RATE="--rate=,$((MB_CUT * 16))k"

# Data moving on the NVMe namespace: sectors written since connect.
nvme_written() {
	local d
	d=$(st_nvme_disk) || return 1
	[ "$(awk '{ print $7 }' "/sys/block/${d#/dev/}/stat")" -gt 2048 ]
}

nvme_connect_fast() {
	modprobe nvme_rdma &&
	nvme connect -t rdma -a "$ST_B" -s 4420 -w "$ST_A" -n "$ST_NQN" \
		--ctrl-loss-tmo=10 --reconnect-delay=2
}

# fio_running: the background fio has not ended yet.
fio_running() {
	kill -0 "$ST_FIO_PID" 2>/dev/null && return 0
	echo "fio had already ended: the fault would not cut into its I/O"
	return 1
}

# flap_under_fio SECONDS: veth-a down for SECONDS while fio is running
# (checked the moment before), then up again.
flap_under_fio() { fio_running && st_link_flap "$1"; }

# delete_under_fio DEV: rdma link delete DEV while fio is running.
delete_under_fio() { fio_running && rdma link delete "$1"; }

nvmet_port_again() { st_nvmet_port_down && st_nvmet_port_up; }

nvme_live() { st_nvme_transport | grep -q ' live$'; }

# st_fio_ok SECONDS / st_fio_fails SECONDS: the background fio ended well,
# or with an error (not a hang), within SECONDS. In this shell (check_sh):
# only it can wait for its child.
st_fio_ok() { st_fio_wait "$1"; }
st_fio_fails() {
	local rc=0
	st_fio_wait "$1" || rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ]
}

# Data moving on the NFS mount: the server's export fills.
nfs_written() {
	[ "$(df -k --output=used "$ST_EXPORT" | tail -n 1)" -gt 1024 ]
}

nfs_mount_soft() {
	mkdir -p "$ST_MNT" &&
	mount -t nfs -o rdma,port=20049,vers=4.2,soft,timeo=30,retrans=2 \
		"$ST_B:/" "$ST_MNT"
}

diag "=== NVMe-oF (both hosts in the initial netns)"
check_sh "hosts a and b on a veth pair, routed over it" st_hosts_wire
check_wire
check "modprobe kiw, configfs" st_load
check_sh "kiw_a on veth-a, kiw_b on veth-b" st_devs kiw kiw
check "a $((MB_CUT + 8)) MiB RAM disk for the target" st_ramdisks $((MB_CUT + 8))
check "nvmet: subsystem $ST_NQN on /dev/ram0" st_nvmet_up /dev/ram0
check "nvmet: port 1 on $ST_B:4420" st_nvmet_port_up

diag "--- NVMe-oF: veth-a down for 4 s during I/O"
check "connect (ctrl-loss-tmo 10 s, reconnect-delay 2 s)" nvme_connect_fast
check "the namespace shows up" wait_for 60 st_nvme_disk_ready
disk=$(st_nvme_disk)
st_fio_bg "nvme flap" "$MB_CUT" --filename="${disk:-/nonexistent}" "$CUT_RATE"
check "fio is writing" wait_for 60 nvme_written
check "veth-a down for 4 s under running fio, up again" flap_under_fio 4
check_sh "fio finishes and every block reads back right" st_fio_ok 240
check "the controller is live" wait_for 60 nvme_live
check "disconnect" st_nvme_disconnect
check "the controller is gone" wait_for 30 st_nvme_gone

diag "--- NVMe-oF: kiw_b deleted during I/O"
check "connect" nvme_connect_fast
check "the namespace shows up" wait_for 60 st_nvme_disk_ready
disk=$(st_nvme_disk)
st_fio_bg "nvme delete" "$MB_CUT" --filename="${disk:-/nonexistent}" "$CUT_RATE"
check "fio is writing" wait_for 60 nvme_written
check "rdma link delete kiw_b (the target's device) under running fio" \
	delete_under_fio kiw_b
ST_DEV_B=
check_sh "fio ends with I/O errors, within 3 minutes" st_fio_fails 180
check "the host gives the controller up (ctrl-loss-tmo)" wait_for 90 st_nvme_gone
check_sh "kiw_b added again" st_dev_add b kiw
check "nvmet: port 1 enabled again" nvmet_port_again
check "the target listens again" \
	wait_for 60 sh -c "nvme discover -t rdma -a $ST_B -s 4420 -w $ST_A |
		grep -q 'subnqn: *$ST_NQN'"
check "connect again" nvme_connect_fast
check "the namespace shows up" wait_for 60 st_nvme_disk_ready
disk=$(st_nvme_disk)
check_fio "fio writes $MB MiB, reads it back, crc32c" "nvme after" "$MB" \
	--filename="${disk:-/nonexistent}"
check "disconnect" st_nvme_disconnect
check "the controller is gone" wait_for 30 st_nvme_gone
check "nvmet removed" st_nvmet_down
check "no PD, CQ, QP, MR or cm_id left" st_res_gone 60
check_sh "rdma link delete both devices" st_devs_del
check "the veth pair, rules and sysctls removed" st_hosts_wire_down

if st_long; then
	diag "=== NFS over RDMA (the server in netns b)"
	check_sh "host a (initial netns) and b (netns b) on a veth pair" st_hosts_split
	check_sh "kiw_a on veth-a, kiw_b on veth-b in netns b" st_devs kiw kiw
	check "nfsd in netns b, RDMA port 20049" st_nfsd_up $((MB_CUT * 2 + 16))

	diag "--- NFS: veth-a down for 4 s during I/O"
	check "mount -o rdma,vers=4.2 (hard)" st_nfs_mount 4.2
	st_fio_bg "nfs flap" "$MB_CUT" --directory="$ST_MNT" "$CUT_RATE"
	check "fio is writing" wait_for 60 nfs_written
	check "veth-a down for 4 s under running fio, up again" flap_under_fio 4
	check_sh "fio finishes and every block reads back right" st_fio_ok 240
	check "umount" st_nfs_umount

	diag "--- NFS: kiw_b deleted during I/O"
	check "mount -o rdma,vers=4.2,soft,timeo=30,retrans=2" nfs_mount_soft
	st_fio_bg "nfs delete" "$MB_CUT" --directory="$ST_MNT" "$CUT_RATE"
	check "fio is writing" wait_for 60 nfs_written
	check "rdma link delete kiw_b (the server's device) under running fio" \
		delete_under_fio kiw_b
	ST_DEV_B=
	check_sh "fio ends with I/O errors, within 3 minutes" st_fio_fails 180
	check_sh "kiw_b added again" st_dev_add b kiw
	check_fio "the mount works again: fio writes $MB MiB, reads it back" \
		"nfs after" "$MB" --directory="$ST_MNT"
	check "umount" wait_for 60 st_nfs_umount
	check "nfsd stopped" st_nfsd_down
	check "no PD, CQ, QP, MR or cm_id left" st_res_gone 60
	check_sh "rdma link delete both devices" st_devs_del
else
	diag "the NFS part (link down, server's device deleted): KIW_LONG=1"
fi
if st_long; then
	check "rmmod nvme_rdma nvmet_rdma rpcrdma kiw" \
		modprobe -r nvme_rdma nvmet_rdma rpcrdma kiw
else
	check "rmmod nvme_rdma nvmet_rdma kiw" modprobe -r nvme_rdma nvmet_rdma kiw
fi
tap_done
