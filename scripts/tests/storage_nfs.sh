#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=900 siw=yes
#
# storage_nfs: NFS over RDMA between two hosts over kiw. Host b runs the
# kernel NFS server in its own netns (rpcbind, mountd, nfsd, an RDMA
# listener on port 20049 next to TCP 2049) and exports a tmpfs; host a
# mounts it with -o rdma,port=20049 as NFSv3 and NFSv4.2, checks that the
# mount's transport is RDMA, writes data with fio and reads it back with
# crc32c verification, unmounts. kiw to kiw, then each side against siw.
# Teardown leaves no verbs object behind and kiw unloads.
#
# Layout (storage_lib.sh: st_hosts_split): the server in netns b, the
# client in the initial netns, where siw can connect as a client too.
#
# Data: 16 MiB per NFS version kiw to kiw, 8 MiB each way with siw;
# KIW_LONG=1: 256 MiB each, and siw to siw as the baseline
# (arguments "baseline" and "mb=N" ask for the baseline and a size: see
# st_args in storage_lib.sh).
#
# Guest time: 376 s on the debug kernel (make vmtest T=storage_nfs, host
# load 3 on 2 cores, 2026-11-21); 457 s with twice the data. Much of it is
# fio from siw to kiw (165-191 KiB/s, against 0.7-2 MiB/s kiw to kiw).
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/storage_lib.sh"
st_args "$@"

MB=$(st_size_mb 16 256)
MB_SIW=$(st_size_mb 8 256)

# nfs_mount_io TAG VERS MB: mount, check the transport, move MB, unmount.
nfs_mount_io() {
	local tag="$1 NFSv$2" mb=$3
	check "$tag: mount -o rdma,port=20049,vers=$2" st_nfs_mount "$2"
	check_output "$tag: the mount is over proto=rdma, port 20049" \
		"(^|,)vers=$2,.*proto=rdma,port=20049" st_nfs_opts
	check_output "$tag: mountstats: the RPC transport is rdma" \
		'^[[:space:]]*xprt:[[:space:]]+rdma ' st_nfs_xprt
	check "$tag: the client's and the server's QPs are on both devices" \
		st_qps_both 1
	check_fio "$tag: fio writes $mb MiB, reads it back, crc32c" \
		"nfs$2 $1" "$mb" --directory="$ST_MNT"
	check "$tag: umount" st_nfs_umount
}

# nfs_pair TYPE_A TYPE_B: the client on TYPE_A's device, nfsd on TYPE_B's.
nfs_pair() {
	local tag="$1 -> $2"
	diag "--- NFS over RDMA, client on $1, server on $2"
	st_dmesg_mark
	check_sh "$tag: ${1}_a on veth-a, ${2}_b on veth-b in netns b" \
		st_devs "$1" "$2"
	check_output "$tag: nfsd listens on RDMA port 20049 in netns b" \
		'^rdma 20049$' in_side b cat /proc/fs/nfsd/portlist
	shift 2
	while [ $# -ge 2 ]; do
		nfs_mount_io "$tag" "$1" "$2"
		shift 2
	done
	# The server keeps its listeners (cm_ids) while it runs.
	check "$tag: no QP left after the unmounts" wait_for 60 st_no_qps
	check "$tag: closed gracefully: no QP error event, no Terminate" \
		st_quiet_since_mark
}

st_no_qps() { ! rdma res show qp | grep -q .; }

check_sh "host a (initial netns) and b (netns b) on a veth pair" st_hosts_split
check "modprobe kiw, siw" st_load siw
check_sh "kiw_a on veth-a, kiw_b on veth-b in netns b" st_devs kiw kiw
check "nfsd in netns b: rpcbind, mountd, a tmpfs export, RDMA port 20049" \
	st_nfsd_up $((MB + 16))
check_output "nfsd offers NFSv3 and NFSv4.2" '\+3 .*\+4\.2' \
	cat /proc/fs/nfsd/versions

nfs_pair kiw kiw 3 "$MB" 4.2 "$MB"
nfs_pair kiw siw 4.2 "$MB_SIW"
nfs_pair siw kiw 4.2 "$MB_SIW"
if st_baseline; then
	nfs_pair siw siw 3 "$MB" 4.2 "$MB"
fi

check "nfsd stopped, export and nfsd file system unmounted" st_nfsd_down
check "no PD, CQ, QP, MR or cm_id left" st_res_gone 60
check_sh "rdma link delete both devices" st_devs_del
check "rmmod rpcrdma nfsd siw kiw" modprobe -r rpcrdma nfsd siw kiw
st_summary
tap_done
