# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Helpers for the storage tests (scripts/tests/storage_*.sh) and the NFS
# part of the demo: the kernel's RDMA storage consumers over kiw, and over
# siw on one side. Source after lib.sh.
#
# Two hosts, a (initiator, client; 10.77.0.1) and b (target, server;
# 10.77.0.2), joined by a veth pair, in one of two layouts:
#
#   st_hosts_split   a in the initial netns (veth-a), b in netns "b"
#                    (veth-b). For NFS: nfsd, svcrdma and the NFS client
#                    create their rdma_cm ids in the netns of the process
#                    that starts them. The client stays in the initial
#                    netns because siw (the interop peer) opens a kernel
#                    consumer's socket in the netns of the kworker that
#                    connects, which is the initial one (FACTS.md).
#   st_hosts_wire    a and b both in the initial netns, with routing rules
#                    that send traffic between 10.77.0.1 and 10.77.0.2 over
#                    the veth pair instead of loopback. For NVMe-oF and
#                    iSER: nvme-rdma, nvmet-rdma, ib_iser and ib_isert
#                    create their rdma_cm ids in init_net, whoever calls
#                    them, so neither end can live in another netns.
#                    A kernel without policy routing (no
#                    CONFIG_IP_MULTIPLE_TABLES: the debug kernel) cannot
#                    have those rules: layout "loop", where the traffic
#                    between the two addresses goes through lo (see
#                    st_hosts_wire).
#
# Each host has its own RDMA device on its own veth end, and (but in
# layout "loop") every byte between them crosses the veth pair
# (st_wire_check proves it).
#
#   st_dev_add SIDE TYPE      rdma link add TYPE_SIDE (kiw or siw) on veth-SIDE
#   st_dev_del SIDE           delete that side's device (whatever its type)
#   st_fio NAME SIZE_MB ARGS  fio with crc32c verification, several jobs,
#                             mixed block sizes; bandwidth in $ST_FIO_BW
#   st_res_clean              no PD, CQ, QP, MR or cm_id left on any device
#   st_size_mb NORMAL LONG    NORMAL, or LONG when KIW_LONG=1

# check_sh "desc" cmd...: as check, but cmd runs in this shell, so that
# what it sets (devices, fio results) stays set.
check_sh() {
	local desc=$1 rc=0 log=/tmp/st_check.out
	shift
	"$@" > "$log" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		ok "$desc"
		return 0
	fi
	not_ok "$desc"
	diag "command: $*" "exit status: $rc"
	[ ! -s "$log" ] || diag "$(cat "$log")"
	return 1
}

ST_A=10.77.0.1
ST_B=10.77.0.2
ST_LAYOUT=
ST_DEV_A= ST_DEV_B=
ST_FIO_BW=
ST_FIO_LOG=/tmp/st_fio.log
# Results for the closing summary: one "name: numbers" line each.
ST_RESULTS=()

ST_MB= ST_BASELINE=0

# st_args ARGS...: a storage test's arguments (scripts/vm.sh --script FILE
# -- ARGS), for measurements beyond what make check runs:
#   long      the long variant, as KIW_LONG=1
#   baseline  also siw to siw, the baseline kiw is compared with
#   mb=N      N MiB for every fio run that moves data between the hosts
# e.g. scripts/vm.sh --kernel stock --with-siw --mem 2048 \
#        --script scripts/tests/storage_nvme.sh --timeout 3600 -- baseline mb=64
st_args() {
	local a
	for a in "$@"; do
		case "$a" in
		long) KIW_LONG=1 ;;
		baseline) ST_BASELINE=1 ;;
		mb=[1-9]*) ST_MB=${a#mb=} ;;
		*) echo "storage test: unknown argument $a" >&2; exit 2 ;;
		esac
	done
}

st_long() { [ "${KIW_LONG:-0}" = 1 ]; }

# st_baseline: run siw to siw too (KIW_LONG=1 or "baseline").
st_baseline() { st_long || [ "$ST_BASELINE" = 1 ]; }

# st_size_mb DEFAULT LONG: the size of a data run ("mb=N" overrides both).
st_size_mb() {
	if [ -n "$ST_MB" ]; then
		echo "$ST_MB"
	elif st_long; then
		echo "$2"
	else
		echo "$1"
	fi
}

# The netns a side's commands run in ("" is the initial netns). Layout
# "netns" is lib.sh's (kiw_hosts_up: a in netns a, b in netns b), which
# the demo uses: kiw puts a kernel consumer's sockets in the netns of its
# device, so both hosts can live in their own.
st_ns() {
	case "$ST_LAYOUT:$1" in
	split:b|netns:b) echo b ;;
	netns:a) echo a ;;
	*) echo "" ;;
	esac
}

# in_side SIDE cmd...: run cmd in the netns of host SIDE. Only the netns
# changes (not "ip netns exec", which also gives every command its own
# mount namespace): the NFS server's mounts stay visible to the next one.
in_side() {
	local ns
	ns=$(st_ns "$1")
	shift
	if [ -n "$ns" ]; then nsenter --net="/run/netns/$ns" "$@"; else "$@"; fi
}

_st_veth_up() {
	local ns=$1 dev=$2 ip4=$3
	ip ${ns:+-n "$ns"} link set lo up &&
	ip ${ns:+-n "$ns"} addr add "$ip4/24" dev "$dev" &&
	ip ${ns:+-n "$ns"} link set "$dev" up
}

st_hosts_split() {
	ST_LAYOUT=split
	ip netns add b &&
	ip link add veth-a type veth peer name veth-b netns b &&
	_st_veth_up "" veth-a "$ST_A" &&
	_st_veth_up b veth-b "$ST_B"
}

# Both ends in one netns: each address is local, so the kernel would
# deliver 10.77.0.1 -> 10.77.0.2 through loopback. Rules ahead of the local
# table send locally generated traffic to the other address out of the
# right veth end; the receiving end accepts a local source address.
#
# Without policy routing ("ip rule" fails: EAFNOSUPPORT) the connections
# go through lo. A consumer that binds its source address (nvme connect
# -w) still gets host a's device at its end; one that cannot (ib_iser:
# iSCSI's ep_connect has no source address) resolves the target's address
# to the target's device, so both of its ends are on that one device
# (st_same_dev says so).
st_hosts_wire() {
	local i
	ST_LAYOUT=wire
	ip link add veth-a type veth peer name veth-b &&
	_st_veth_up "" veth-a "$ST_A" &&
	_st_veth_up "" veth-b "$ST_B" || return 1
	# In layout "loop" too: rdma_cm resolves the neighbour of the far
	# address on the interface the source is bound to (veth-a), and the
	# ARP request from a local address must be answered.
	ST_SYSCTL_SAVED=$(sysctl -e net.ipv4.conf.{all,default,lo}.{accept_local,rp_filter} |
		tr -d ' ')
	for i in all default lo veth-a veth-b; do
		sysctl -qw "net.ipv4.conf.$i.accept_local=1" \
			"net.ipv4.conf.$i.rp_filter=0" || return 1
	done
	# lo gets a veth's MTU: over lo's 65536, siw sends ULPDUs of its MSS
	# (65483 octets), above the 64768 that RFC 5044 section 3 lets a
	# sender post, and kiw, as it may, refuses them (MPA code 3).
	if ! ip -4 rule show > /dev/null 2>&1; then
		ST_LAYOUT=loop
		ST_LO_MTU=$(cat /sys/class/net/lo/mtu)
		ip link set lo mtu 1500
		return
	fi
	ip rule add pref 100 lookup local &&
	ip rule del pref 0 &&
	ip rule add pref 10 iif lo to "$ST_B" lookup 10 &&
	ip rule add pref 11 iif lo to "$ST_A" lookup 11 &&
	ip route add "$ST_B" dev veth-a src "$ST_A" table 10 &&
	ip route add "$ST_A" dev veth-b src "$ST_B" table 11
}

# st_hosts_wire_down: undo st_hosts_wire (the initial netns is the next
# test's too): the veth pair, the rules, the sysctls.
ST_SYSCTL_SAVED= ST_LO_MTU=
st_hosts_wire_down() {
	local kv
	ip link del veth-a || return 1
	if [ "$ST_LAYOUT" = loop ]; then
		ip link set lo mtu "$ST_LO_MTU" || return 1
	fi
	if [ "$ST_LAYOUT" = wire ]; then
		ip rule del pref 10 && ip rule del pref 11 &&
		ip rule add pref 0 lookup local && ip rule del pref 100 ||
			return 1
	fi
	for kv in $ST_SYSCTL_SAVED; do
		sysctl -qw "$kv" || return 1
	done
}

# st_wire_check: 10.77.0.1 reaches 10.77.0.2 through veth-a (its packet
# counter moves), not through loopback.
st_wire_check() {
	local before after
	before=$(cat /sys/class/net/veth-a/statistics/tx_packets)
	ping -c 2 -W 5 -I "$ST_A" "$ST_B" >/dev/null || return 1
	after=$(cat /sys/class/net/veth-a/statistics/tx_packets)
	[ "$after" -ge $((before + 2)) ] || {
		echo "veth-a sent $((after - before)) packets for 2 pings"
		return 1
	}
	in_side a ip route get "$ST_B" from "$ST_A" | grep -q 'dev veth-a'
}

# check_wire: st_wire_check as a TAP check, a skip in layout "loop".
check_wire() {
	local desc="$ST_A -> $ST_B crosses veth-a"
	if [ "$ST_LAYOUT" = loop ]; then
		skip "$desc" "no policy routing in this kernel (CONFIG_IP_MULTIPLE_TABLES): through lo"
	else
		check "$desc" st_wire_check
	fi
}

# st_same_dev: the consumer's two ends share the target's device (layout
# "loop", a consumer that cannot bind its source address).
st_same_dev() { [ "$ST_LAYOUT" = loop ]; }

# st_load: kiw, siw when the test uses it, and what rdma_cm's user-space
# tools need. configfs carries nvmet and LIO.
st_load() {
	modprobe -a ib_uverbs rdma_ucm kiw nvme_fabrics || return 1
	[ "${1:-}" != siw ] || modprobe siw || return 1
	# siw waits for an RTR in siw_rtr_data_ready(), which lockdep reports
	# (dp_siw.sh): with lockdep, kiw's devices run client-server mode.
	[ "${1:-}" != siw ] || [ ! -e /proc/lockdep ] ||
		echo 0 > /sys/module/kiw/parameters/p2p || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config
}

# "rdma link add" looks the netdev up in sysfs: "ip netns exec" mounts the
# netns's own /sys for it.
st_dev_add() {
	local side=$1 type=$2 name=$2_$1 ns
	ns=$(st_ns "$side")
	${ns:+ip netns exec "$ns"} rdma link add "$name" type "$type" \
		netdev "veth-$side" || return 1
	wait_for 10 kiw_port_is "$name" ACTIVE || return 1
	if [ "$side" = a ]; then ST_DEV_A=$name; else ST_DEV_B=$name; fi
}

st_dev_del() {
	local side=$1 name
	if [ "$side" = a ]; then name=$ST_DEV_A; else name=$ST_DEV_B; fi
	[ -n "$name" ] || return 0
	rdma link delete "$name" || return 1
	if [ "$side" = a ]; then ST_DEV_A=; else ST_DEV_B=; fi
}

st_devs_del() { st_dev_del a && st_dev_del b; }

# st_devs TYPE_A TYPE_B: (re)create the two devices.
st_devs() {
	st_dev_del a && st_dev_del b && st_dev_add a "$1" && st_dev_add b "$2"
}

# st_qps DEV: the number of QPs the device holds now.
st_qps() {
	rdma res show qp | grep -c "^link $1/1 "
}

# st_qps_both N: each host's device holds at least N QPs (the consumer's
# connections run over both devices, not over one device and loopback).
st_qps_both() {
	local a b
	a=$(st_qps "$ST_DEV_A") b=$(st_qps "$ST_DEV_B")
	[ "$a" -ge "$1" ] && [ "$b" -ge "$1" ] || {
		echo "$ST_DEV_A: $a QPs, $ST_DEV_B: $b QPs (want >= $1 each)"
		rdma res show qp
		return 1
	}
}

# st_qps_b_only N: host b's device holds at least N QPs, host a's none.
st_qps_b_only() {
	local a b
	a=$(st_qps "$ST_DEV_A") b=$(st_qps "$ST_DEV_B")
	[ "$a" = 0 ] && [ "$b" -ge "$1" ] || {
		echo "$ST_DEV_A: $a QPs, $ST_DEV_B: $b QPs (want 0 and >= $1)"
		rdma res show qp
		return 1
	}
}

# st_res_clean: no verbs object left on any RDMA device, except the CQs
# of the RDMA core's shared CQ pool (ib_cq_pool_get(): they stay with the
# device until it goes away).
st_res_clean() {
	local out
	out=$(rdma res show) || return 1
	! grep -E ' (pd|qp|mr|cm_id) [1-9]' <<<"$out" || return 1
	out=$(rdma res show cq) || return 1
	! grep -v 'comm \[ib_core\]' <<<"$out" | grep -q .
}

# st_res_gone SECONDS: st_res_clean within SECONDS (consumers free their
# queues in work items); shows what is left otherwise.
st_res_gone() {
	wait_for "$1" st_res_clean && return 0
	rdma res show
	rdma res show qp
	rdma res show cq
	rdma res show cm_id
	return 1
}

# fio needs SysV shared memory; a kernel without it (CONFIG_SYSVIPC off:
# no /proc/sysvipc) gets a shim (sysv_shm_shim.c, built on the host by
# vm.sh into $KIW_GUEST_BIN) preloaded into fio.
ST_FIO_PRELOAD=
st_fio_preload() {
	local so=$KIW_GUEST_BIN/sysv_shm_shim.so
	[ ! -d /proc/sysvipc ] || return 0
	[ -f "$so" ] || { echo "$so is missing"; return 1; }
	ST_FIO_PRELOAD=$so
}

# st_fio NAME SIZE_MB fio-args...: write SIZE_MB in four jobs, random
# offsets, block sizes from 4 KiB to 256 KiB, four I/Os in flight per job,
# then read everything back and check each block's crc32c (fio fails on
# the first bad block). The args name the target: --directory=DIR or
# --filename=DEV (then each job takes its own quarter of the device).
# ST_FIO_BW gets "write W MiB/s, read R MiB/s".
st_fio() {
	local name=$1 mb=$2 per rc=0 w r split=()
	shift 2
	per=$((mb / 4))
	# Block devices: a quarter each. Files: one per job, removed after.
	if [[ " $* " == *" --filename="* ]]; then
		split=(--offset_increment="${per}M")
	else
		split=(--unlink=1)
	fi
	# A file system target must be the one under test, not what is below.
	if [[ " $* " =~ \ --directory=([^ ]*) ]] &&
	   ! mountpoint -q "${BASH_REMATCH[1]}"; then
		echo "${BASH_REMATCH[1]} is not mounted"
		return 1
	fi
	# A block device target must be one (not a file fio would create).
	if [[ " $* " =~ \ --filename=([^ ]*) ]] && [ ! -b "${BASH_REMATCH[1]}" ]; then
		echo "${BASH_REMATCH[1]} is not a block device"
		return 1
	fi
	st_fio_preload || return 1
	${ST_FIO_PRELOAD:+env LD_PRELOAD="$ST_FIO_PRELOAD"} \
	fio --name="$name" --size="${per}M" --numjobs=4 "${split[@]}" \
		--rw=randwrite --bsrange=4k-256k \
		--ioengine=libaio --iodepth=4 --direct=1 \
		--verify=crc32c --verify_fatal=1 --verify_backlog=0 \
		--group_reporting --output-format=normal "$@" \
		> "$ST_FIO_LOG" 2>&1 || rc=$?
	w=$(sed -n 's/^ *WRITE: bw=\([0-9.]*[KMG]i\?B\/s\).*/\1/p' "$ST_FIO_LOG")
	r=$(sed -n 's/^ *READ: bw=\([0-9.]*[KMG]i\?B\/s\).*/\1/p' "$ST_FIO_LOG")
	ST_FIO_BW="write ${w:-?}, read+verify ${r:-?} ($mb MiB)"
	if [ "$rc" != 0 ] || ! grep -q 'err= 0' "$ST_FIO_LOG" ||
	   grep -qiE 'verify.*(fail|bad)|bad magic|crc32c.*wanted' "$ST_FIO_LOG"; then
		tail -n 40 "$ST_FIO_LOG"
		return 1
	fi
	ST_RESULTS+=("$name: $ST_FIO_BW")
}

# st_fio_bg NAME SIZE_MB fio-args...: st_fio in the background, for
# faults injected while it runs; st_fio_wait SECONDS collects it.
ST_FIO_PID=
st_fio_bg() {
	st_fio "$@" > /tmp/st_fio_bg.out 2>&1 &
	ST_FIO_PID=$!
}

# st_fio_wait SECONDS: fio's status (0: every block verified), or 124 if
# it is still running after SECONDS (a hang: it is left where it is).
st_fio_wait() {
	local end=$(( $(date +%s) + $1 )) rc=0
	while kill -0 "$ST_FIO_PID" 2>/dev/null; do
		[ "$(date +%s)" -lt "$end" ] || { echo "fio still running"; return 124; }
		sleep 1
	done
	wait "$ST_FIO_PID" || rc=$?
	tail -n 20 /tmp/st_fio_bg.out
	return "$rc"
}

# st_link_flap SECONDS: veth-a down for SECONDS, then up again.
st_link_flap() {
	in_side a ip link set veth-a down && sleep "$1" &&
	in_side a ip link set veth-a up
}

# check_fio "desc" NAME SIZE_MB fio-args...: st_fio as a TAP check, with
# the bandwidth in the description's diagnostic.
check_fio() {
	local desc=$1
	shift
	if check_sh "$desc" st_fio "$@"; then
		diag "fio $1: $ST_FIO_BW"
	fi
}

st_summary() {
	[ ${#ST_RESULTS[@]} = 0 ] || diag "fio throughput (this guest run):" \
		"${ST_RESULTS[@]}"
}

# st_quiet_since_mark: since st_dmesg_mark, no consumer reported a QP
# error event (nvmet, isert and iser log them; a peer's reset of a
# connection the consumer was closing gracefully shows up so) and kiw
# neither sent nor received a Terminate.
ST_QP_TROUBLE='QP fatal|qp event|QP event|terminat'
st_dmesg_mark() { dmesg -C; }
st_quiet_since_mark() {
	local hits
	hits=$(dmesg | grep -E "$ST_QP_TROUBLE") || true
	[ -z "$hits" ] || { echo "$hits"; return 1; }
}

# ---------------------------------------------------------------------------
# NVMe-oF: nvmet-rdma on b (configfs), nvme-rdma on a (nvme-cli).

ST_NQN=kiwtest
ST_NVMET=/sys/kernel/config/nvmet

# st_ramdisks MB: /dev/ram0 and /dev/ram1 of MB MiB each (brd).
st_ramdisks() {
	[ -b /dev/ram0 ] || modprobe brd rd_nr=2 rd_size=$(($1 * 1024))
}

# st_nvmet_up DEV: subsystem ST_NQN (any host) with DEV as namespace 1.
st_nvmet_up() {
	local s=$ST_NVMET/subsystems/$ST_NQN
	modprobe -a nvmet nvmet_rdma &&
	mkdir "$s" &&
	echo 1 > "$s/attr_allow_any_host" &&
	mkdir "$s/namespaces/1" &&
	echo "$1" > "$s/namespaces/1/device_path" &&
	echo 1 > "$s/namespaces/1/enable"
}

# st_nvmet_port_up / _down: port 1, RDMA, 10.77.0.2:4420, exporting ST_NQN.
st_nvmet_port_up() {
	local p=$ST_NVMET/ports/1
	mkdir "$p" &&
	echo rdma > "$p/addr_trtype" &&
	echo ipv4 > "$p/addr_adrfam" &&
	echo "$ST_B" > "$p/addr_traddr" &&
	echo 4420 > "$p/addr_trsvcid" &&
	ln -s "$ST_NVMET/subsystems/$ST_NQN" "$p/subsystems/$ST_NQN"
}

st_nvmet_port_down() {
	local p=$ST_NVMET/ports/1
	[ -d "$p" ] || return 0
	rm -f "$p/subsystems/$ST_NQN" && rmdir "$p"
}

st_nvmet_down() {
	local s=$ST_NVMET/subsystems/$ST_NQN
	st_nvmet_port_down || return 1
	[ -d "$s" ] || return 0
	echo 0 > "$s/namespaces/1/enable" &&
	rmdir "$s/namespaces/1" && rmdir "$s"
}

st_nvme_connect() {
	modprobe nvme_rdma &&
	nvme connect -t rdma -a "$ST_B" -s 4420 -w "$ST_A" -n "$ST_NQN"
}

# st_nvme_ctrl: the host's controller for ST_NQN (nvmeN), if any.
st_nvme_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] || continue
		[ "$(cat "$c/subsysnqn")" = "$ST_NQN" ] || continue
		basename "$c"
		return 0
	done
	return 1
}

# st_nvme_disk: the block device of ST_NQN's namespace 1 (/dev/nvmeXnY).
st_nvme_disk() {
	local b
	for b in /sys/block/nvme*n*; do
		[ -e "$b/device/subsysnqn" ] || [ -e "$b/device/device/subsysnqn" ] ||
			continue
		[[ $(basename "$b") =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		grep -qx "$ST_NQN" "$b"/device/subsysnqn "$b"/device/device/subsysnqn \
			2>/dev/null || continue
		echo "/dev/$(basename "$b")"
		return 0
	done
	return 1
}

st_nvme_disk_ready() { local d; d=$(st_nvme_disk) && [ -b "$d" ]; }

# st_nvme_transport: "rdma traddr=...,host_traddr=..." of the controller.
st_nvme_transport() {
	local c
	c=$(st_nvme_ctrl) || return 1
	echo "$(cat "/sys/class/nvme/$c/transport") $(cat "/sys/class/nvme/$c/address") $(cat "/sys/class/nvme/$c/state")"
}

st_nvme_disconnect() {
	nvme disconnect -n "$ST_NQN" | grep -E 'disconnected [1-9]'
}

st_nvme_gone() { ! st_nvme_ctrl >/dev/null; }

# ---------------------------------------------------------------------------
# NFS over RDMA: nfsd in host b's netns (st_hosts_split), the client in a.

ST_EXPORT=/srv/kiw
ST_MNT=/mnt/kiw

# st_nfsd_up MB: export a tmpfs of MB MiB (nfsd cannot export the guest's
# overlay root) from netns b, NFSv3 and NFSv4.x, TCP on 2049 and RDMA on
# 20049. nfsd, like rpcbind and mountd, serves the netns it is started
# in; the RDMA listener is made by the process writing the port list, in
# b. NFSv4's grace period and lease are the shortest nfsd allows (10 s).
st_nfsd_up() {
	modprobe -a nfsd rpcrdma || return 1
	mkdir -p "$ST_EXPORT" /run/rpcbind /var/lib/nfs/v4recovery &&
	mount -t tmpfs -o "size=$1m" kiw-export "$ST_EXPORT" || return 1
	in_side b rpcbind || return 1
	in_side b mount -t nfsd nfsd /proc/fs/nfsd || return 1
	in_side b exportfs -o rw,no_root_squash,insecure,no_subtree_check,fsid=0 \
		"*:$ST_EXPORT" || return 1
	in_side b rpc.mountd || return 1
	echo 10 > /proc/fs/nfsd/nfsv4gracetime &&
	echo 10 > /proc/fs/nfsd/nfsv4leasetime &&
	in_side b rpc.nfsd 4 &&
	in_side b sh -c 'echo rdma 20049 > /proc/fs/nfsd/portlist'
}

st_nfsd_down() {
	in_side b rpc.nfsd 0 || return 1
	in_side b exportfs -ua || return 1
	pkill -x rpc.mountd; pkill -x rpcbind
	umount /proc/fs/nfsd && umount "$ST_EXPORT"
}

# st_nfs_mount VERS: mount the export over RDMA (v3: the path; v4: the
# pseudo root, which is the export: fsid=0).
st_nfs_mount() {
	local src=$ST_EXPORT
	case "$1" in 4*) src=/ ;; esac
	mkdir -p "$ST_MNT" &&
	in_side a mount -t nfs -o "rdma,port=20049,vers=$1,nolock" \
		"$ST_B:$src" "$ST_MNT"
}

# st_nfs_xprt: the transport line of the mount's RPC statistics.
st_nfs_xprt() {
	awk -v m="$ST_MNT" '$1 == "device" { on = ($5 == m) }
		on && $1 == "xprt:" { print; exit }' /proc/self/mountstats
}

st_nfs_opts() {
	awk -v m="$ST_MNT" '$2 == m { print $4 }' /proc/mounts
}

st_nfs_umount() { umount "$ST_MNT"; }

# ---------------------------------------------------------------------------
# iSER: LIO (configfs, ib_isert) on b, open-iscsi (iscsid, iscsiadm,
# ib_iser) on a.
#
# LIO keeps an iSCSI/TCP listener on every portal and adds the iSER one
# next to it, on the same address and port. A software iWARP device
# listens through the host's own TCP stack, where that port is taken:
# rdma_listen() fails with EADDRINUSE (siw alike). So the portal is made
# by a process in a scratch netns ("lio", where 10.77.0.2 is a loopback
# address): LIO opens its TCP listener in the netns of the task that
# creates the portal. iSER is then switched on from the initial netns,
# where isert listens (init_net) and where siw, too, opens its listening
# socket (the caller's netns).
#
# The target is configured through configfs directly, as targetcli would
# (a block backstore, a target, its TPG 1 with the portal and LUN 0,
# open access), without targetcli's minute of Python start-up under TCG.

ST_IQN=iqn.2026-11.org.kiw:storage
ST_LIO=/sys/kernel/config/target/iscsi
ST_LIO_BS=/sys/kernel/config/target/core/iblock_0/kiw
ST_LIO_TPG=$ST_LIO/$ST_IQN/tpgt_1

st_lio_up() {
	local tpg=$ST_LIO_TPG a
	modprobe -a target_core_mod target_core_iblock iscsi_target_mod \
		ib_isert || return 1
	mkdir -p "$ST_LIO_BS" &&
	echo "udev_path=$1" > "$ST_LIO_BS/control" &&
	echo 1 > "$ST_LIO_BS/enable" || return 1
	mkdir -p "$tpg" && mkdir "$tpg/lun/lun_0" &&
	ln -s "$ST_LIO_BS" "$tpg/lun/lun_0/kiw" || return 1
	for a in authentication=0 demo_mode_write_protect=0 \
		 generate_node_acls=1 cache_dynamic_acls=1; do
		echo "${a#*=}" > "$tpg/attrib/${a%=*}" || return 1
	done
	ip netns add lio && ip -n lio link set lo up &&
	ip -n lio addr add "$ST_B/32" dev lo &&
	nsenter --net=/run/netns/lio mkdir "$(st_lio_np)" &&
	echo 1 > "$tpg/enable"
}

st_lio_np() { echo "$ST_LIO_TPG/np/$ST_B:3260"; }

# st_lio_iser 1|0: switch the portal's iSER listener on or off.
st_lio_iser() {
	echo "$1" > "$(st_lio_np)/iser" && [ "$(cat "$(st_lio_np)/iser")" = "$1" ]
}

st_lio_down() {
	local tpg=$ST_LIO_TPG
	echo 0 > "$tpg/enable" &&
	rmdir "$(st_lio_np)" &&
	rm "$tpg/lun/lun_0/kiw" && rmdir "$tpg/lun/lun_0" &&
	rmdir "$tpg" "$ST_LIO/$ST_IQN" &&
	rmdir "$ST_LIO_BS" "${ST_LIO_BS%/*}" &&
	ip netns del lio
}

# iscsid in the foreground (-f), in the background: daemonized, it keeps
# its log in SysV shared memory, which the debug kernel does not have. In
# a session of its own (setsid): on SIGTERM it signals its whole process
# group, which would otherwise be the test's.
st_iscsid_up() {
	modprobe -a ib_iser sd_mod || return 1
	if ! pgrep -x iscsid > /dev/null; then
		setsid iscsid -f < /dev/null > /tmp/iscsid.log 2>&1 &
	fi
	wait_for 20 grep -q ISCSIADM_ABSTRACT_NAMESPACE /proc/net/unix || {
		cat /tmp/iscsid.log
		return 1
	}
}

st_iser_discover() {
	iscsiadm -m discovery -t sendtargets -p "$ST_B" -I iser
}

st_iser_login() {
	iscsiadm -m node -T "$ST_IQN" -p "$ST_B" -I iser --login
}

st_iser_logout() {
	iscsiadm -m node -T "$ST_IQN" -p "$ST_B" -I iser --logout
}

# st_iser_session: the session's transport, iface and state.
st_iser_session() {
	iscsiadm -m session -P 1 | grep -E 'Iface (Transport|Name)|Session State'
}

# st_iser_disk: the session's SCSI disk (/dev/sdX).
st_iser_disk() {
	local b
	for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$b" ] || continue
		echo "/dev/$(basename "$b")"
		return 0
	done
	return 1
}

st_iser_disk_ready() { local d; d=$(st_iser_disk) && [ -b "$d" ]; }
st_iser_gone() { ! iscsiadm -m session > /dev/null 2>&1; }
