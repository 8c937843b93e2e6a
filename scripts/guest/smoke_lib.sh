# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# The body of the smoke tests that run on each of Debian's stock kernels
# (scripts/tests/smoke_61.sh, smoke_612.sh, smoke_72.sh: one file each,
# for its "# kiw-vm: kernel=" header; each sources this and calls
# smoke_run). With kiw's default settings (no MPA or p2p setting is
# touched), on the kernel it boots:
#   - modprobe kiw; two hosts (lib.sh: netns a and b, one veth pair); one
#     device each (rdma link add), iWARP and PORT_ACTIVE in libibverbs;
#   - rping -V at 64 B, 4 KiB and 65000 B, each host serving once, every
#     ping's data line counted;
#   - perftest -R: ib_send_bw, ib_write_bw, ib_read_bw, ib_send_lat,
#     ib_write_lat, ib_read_lat, short runs, the result lines parsed;
#   - NFSv4.2 over RDMA (nfsd in b, the mount in a), fio writing and
#     reading back with crc32c verification;
#   - every verbs object gone, rdma link delete, rmmod kiw.
# A kernel report fails the boot (scripts/vm.sh); the last check looks
# for one in dmesg too, to pin it to this test.
#
# These run on three kernels in CI: short runs, one NFS version. A tool
# that hangs fails its check after SMOKE_TIMEOUT seconds (default 60)
# instead of dp_lib.sh's ten minutes.
# Guest time on 6.12 (make vmtest T=smoke_612, 2026-11-27, host load 12
# on 2 cores): 306 s, 118 s of QEMU CPU, of which 81 s ib_write_lat's
# hang (kiw's defaults then: its server speaks first, RFC 5044 wants p2p).

DP_TIMEOUT=${SMOKE_TIMEOUT:-60}
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/dp_lib.sh"
. "$KIW_TOP/scripts/guest/storage_lib.sh"

SMOKE_RPING_SIZES="64 4096 65000"
SMOKE_RPING_COUNT=10
SMOKE_PT_N=200
SMOKE_NFS_MB=8

# smoke_devinfo DEV: the port is (or soon becomes) ACTIVE, and
# ibv_devinfo sees an iWARP device with an active port.
smoke_devinfo() {
	local out
	wait_for 10 kiw_port_is "$1" ACTIVE
	out=$(ibv_devinfo -d "$1") || return 1
	grep -qE '^[[:space:]]*transport:[[:space:]]+iWARP' <<<"$out" &&
		grep -qE '^[[:space:]]*state:[[:space:]]+PORT_ACTIVE' <<<"$out" &&
		return 0
	echo "$out"
	return 1
}

# smoke_serves SIDE: the server of dp_rping and pt_run is on host SIDE
# (a or b), the client on the other.
smoke_serves() {
	if [ "$1" = a ]; then
		PT_SDEV=kiw_a PT_SNS=a PT_CDEV=kiw_b PT_CNS=b PT_SADDR=$A4
	else
		PT_SDEV=kiw_b PT_SNS=b PT_CDEV=kiw_a PT_CNS=a PT_SADDR=$B4
	fi
}

smoke_rping() {
	local side size
	for side in a b; do
		smoke_serves "$side"
		for size in $SMOKE_RPING_SIZES; do
			check "rping -S $size -C $SMOKE_RPING_COUNT -V, $PT_CDEV to $PT_SDEV, every ping's data" \
				dp_rping "$size" "$SMOKE_RPING_COUNT" counted
		done
	done
	smoke_serves a
}

# perftest: kiw_b (client) against kiw_a (server).
smoke_perftest() {
	local t n=$SMOKE_PT_N
	for t in send write read; do
		check "ib_${t}_bw -R -s 65536 -n $n: $n iterations, a message rate" \
			pt_bw "ib_${t}_bw" "$n" -s 65536
	done
	for t in send write read; do
		check "ib_${t}_lat -R -s 8 -n $n: $n iterations, a latency" \
			pt_lat "ib_${t}_lat" "$n" -s 8
	done
	pt_repeated_diag
}

# NFSv4.2 over RDMA, both hosts in their netns (storage_lib.sh's layout
# "netns": kiw opens a kernel consumer's sockets in its device's netns).
smoke_nfs() {
	local mb=$SMOKE_NFS_MB
	ST_LAYOUT=netns ST_DEV_A=kiw_a ST_DEV_B=kiw_b
	check "nfsd in netns b: a tmpfs export, RDMA port 20049" \
		st_nfsd_up $((mb + 16))
	check "NFSv4.2: mount -o rdma,port=20049 in netns a" st_nfs_mount 4.2
	check_output "NFSv4.2: the mount is over proto=rdma, port 20049" \
		'(^|,)vers=4\.2,.*proto=rdma,port=20049' st_nfs_opts
	check "NFSv4.2: the connection is a QP on kiw_a and one on kiw_b" \
		st_qps_both 1
	check_fio "NFSv4.2: fio writes $mb MiB, reads it back, crc32c" \
		"nfs-smoke" "$mb" --directory="$ST_MNT"
	check "NFSv4.2: umount" st_nfs_umount
	check "nfsd stopped, export unmounted" st_nfsd_down
	check "no PD, CQ, QP, MR or cm_id left" st_res_gone 60
	st_summary
}

smoke_devices_del() {
	rdma link delete kiw_a && rdma link delete kiw_b &&
		kiw_dev_gone kiw_a && kiw_dev_gone kiw_b
}

smoke_unloaded() { [ ! -e /sys/module/kiw ]; }

smoke_run() {
	local problems='Call Trace:|BUG:|WARNING:|Oops'
	tap_plan 29
	check "two hosts: netns a and b joined by veth" kiw_hosts_up
	check "modprobe kiw on $(uname -r)" kiw_load
	check "rdma link add kiw_a (netns a), kiw_b (netns b)" kiw_devices_add
	check "ibv_devinfo -d kiw_a: iWARP, PORT_ACTIVE" smoke_devinfo kiw_a
	check "ibv_devinfo -d kiw_b: iWARP, PORT_ACTIVE" smoke_devinfo kiw_b
	smoke_rping
	smoke_perftest
	smoke_nfs
	check "rdma link delete kiw_a, kiw_b: both gone" smoke_devices_del
	check "rmmod kiw" kiw_unload
	check "kiw is unloaded" smoke_unloaded
	check_no_output "dmesg: no kernel report" "$problems" dmesg
	tap_done
}
