# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Demo: NFS over RDMA on kiw. Host b runs the kernel NFS server with an
# RDMA listener; host a mounts its export over RDMA, writes a file set
# with fio and reads it back with crc32c verification. Both hosts are in
# their own network namespace (10-devices.sh made them and kiw_a, kiw_b).
# Sourced by scripts/guest/demo.sh.

. "$KIW_TOP/scripts/guest/storage_lib.sh"
ST_LAYOUT=netns

nfs_demo_fio() {
	st_fio "nfs-demo" 16 --directory="$ST_MNT" || return 1
	echo "fio: 4 jobs, 4-256 KiB blocks, 16 MiB written and verified:"
	echo "$ST_FIO_BW"
}

# The kernel's QPs, and one on each host's device.
nfs_demo_qps() {
	local out
	out=$(rdma res show qp) || return 1
	echo "$out"
	grep -q '^link kiw_a/1 ' <<<"$out" && grep -q '^link kiw_b/1 ' <<<"$out"
}

demo_section "NFS over RDMA: host b serves, host a mounts over kiw"
demo_quiet "host b: nfsd (NFSv3/v4), a tmpfs export, TCP 2049 and RDMA 20049" \
	st_nfsd_up 48
demo_run "host b: nfsd's listeners" \
	ip netns exec b cat /proc/fs/nfsd/portlist
demo_run "host a: mount -t nfs -o rdma,port=20049,vers=4.2 $ST_B:/ $ST_MNT" \
	st_nfs_mount 4.2
demo_expect "the mount runs over RDMA (proto=rdma in /proc/mounts)" \
	'proto=rdma,port=20049' st_nfs_opts
demo_expect "mountstats: the RPC transport is rdma" 'xprt:[[:space:]]+rdma' \
	st_nfs_xprt
demo_expect "the NFS connection is a QP on kiw_a and on kiw_b" \
	'kiw_b/1 .*comm \[rdma_cm\]' nfs_demo_qps
demo_expect "fio over the mount: data written and read back, crc32c" \
	'read\+verify' nfs_demo_fio
demo_quiet "host a: umount" st_nfs_umount
demo_quiet "host b: nfsd stopped" st_nfsd_down
