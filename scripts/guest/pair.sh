#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# pair.sh client|server PEER_KERNEL: one end of the two-VM test
# (scripts/vm-pair.sh): kiw on a virtio-net NIC, the other end in another
# VM, on another kernel, at the other end of a QEMU socket. Both VMs run
# this script, each with its role, and emit TAP of their own.
#
#   server  10.77.0.2 (host "b" of lib.sh), kiw_b; serves the client's
#           requests on a control port until it says bye (or 15 minutes
#           pass without one); nfsd runs here
#   client  10.77.0.1 (host "a"), kiw_a; drives the test: it connects to
#           the server's control port (waiting for the other VM to boot)
#           and runs smoke_lib.sh's rping checks (both directions) and
#           dp_lib.sh's perftest checks (either end serving) unchanged:
#           dp_pair, which they call, runs the half of a pair that belongs
#           to the other host there, over the control connection. Then
#           NFSv4.2 over RDMA, nfsd in the server, the mount and fio here.
#
# The control connection is TCP over the same link: busybox nc listens on
# the server, bash's /dev/tcp connects from the client. A request is one
# line, a command and its arguments quoted with printf %q, run by the
# server in its own shell (its state, such as a server started in the
# background, stays for the next request); the answer is a line
# "KIW-PAIR-RC <status> <octets>", then the command's output, that many
# octets (read with head -c: bash reads a socket an octet at a time, and
# rping -v prints every ping's buffer).
. "$KIW_TOP/scripts/guest/smoke_lib.sh"

PAIR_ROLE=${1:?pair.sh: client or server}
PAIR_PEER_KERNEL=${2:?pair.sh: the peer kernel}
PAIR_PORT=7199
# How long the server waits for the client (its VM boots after this one
# and may build kiw first), and for its next request.
PAIR_WAIT=900
# The longest request: a client or a server (dp_pair) and its grace.
PAIR_RPC_LIMIT=$((DP_TIMEOUT + 180))
PAIR_BG_OUT=/tmp/pair_bg.out
PAIR_REQ_OUT=/tmp/pair_req.out
case "$PAIR_ROLE" in
client) PAIR_ME=a PAIR_PEER=b PAIR_MAC=52:54:00:77:00:01 PAIR_IP=$A4 PAIR_PEER_IP=$B4 ;;
server) PAIR_ME=b PAIR_PEER=a PAIR_MAC=52:54:00:77:00:02 PAIR_IP=$B4 PAIR_PEER_IP=$A4 ;;
*) echo "pair.sh: role $PAIR_ROLE is not client or server" >&2; exit 2 ;;
esac
PAIR_DEV=kiw_$PAIR_ME
PAIR_NIC=
# storage_lib.sh: no netns, each host is a VM of its own (st_ns: "").
ST_LAYOUT=pair
# dp_lib.sh's pt_run: the ends share no /tmp, so perftest runs without
# pt_listen_shim.so; its listen race is left to pt_run's repeats.
PT_LISTEN_STATE=

# pair_nic_name: the interface with our MAC.
pair_nic_name() {
	local a
	for a in /sys/class/net/*/address; do
		[ "$(< "$a")" = "$PAIR_MAC" ] || continue
		a=${a%/address}
		echo "${a##*/}"
		return 0
	done
	return 1
}

# pair_nic: virtio_net (a module on 6.1 and 7.2), our NIC addressed and up.
pair_nic() {
	modprobe virtio_net || return 1
	wait_for 10 pair_nic_name || { ip link; return 1; }
	PAIR_NIC=$(pair_nic_name)
	ip addr add "$PAIR_IP/24" dev "$PAIR_NIC" &&
		ip link set "$PAIR_NIC" up
}

pair_dev_add() {
	rdma link add "$PAIR_DEV" type kiw netdev "$PAIR_NIC"
}

# --- the control connection -----------------------------------------------

# pair_listen (server): wait for the client's connection and its hello.
pair_listen() {
	local line
	coproc PAIR_RPC { busybox nc -l -p "$PAIR_PORT"; }
	IFS= read -r -t "$PAIR_WAIT" -u "${PAIR_RPC[0]}" line &&
		[ "$line" = hello ] && return 0
	echo "no hello from the client within $PAIR_WAIT s (got: ${line:-nothing})"
	return 1
}

# pair_connect (client): connect to the server's control port, say hello.
_pair_connect() { exec {PAIR_FD}<>"/dev/tcp/$PAIR_PEER_IP/$PAIR_PORT"; }
pair_connect() {
	wait_for "$PAIR_WAIT" _pair_connect || return 1
	echo hello >&"$PAIR_FD"
}

# pair_serve (server): run the client's requests until it says bye (and
# closes the connection).
PAIR_REQUESTS=0
pair_serve() {
	local line req rc out=${PAIR_RPC[1]}
	while IFS= read -r -t "$PAIR_WAIT" -u "${PAIR_RPC[0]}" line; do
		eval "req=($line)"
		if [ "${req[0]:-}" = bye ]; then
			echo "KIW-PAIR-RC 0 0" >&"$out"
			echo "$PAIR_REQUESTS requests served"
			# nc ends when the client closes its end
			wait_for 30 dp_gone "$PAIR_RPC_PID" || kill "$PAIR_RPC_PID"
			return 0
		fi
		PAIR_REQUESTS=$((PAIR_REQUESTS + 1))
		rc=0
		"${req[@]}" > "$PAIR_REQ_OUT" 2>&1 < /dev/null || rc=$?
		echo "KIW-PAIR-RC $rc $(stat -c %s "$PAIR_REQ_OUT")" >&"$out"
		cat "$PAIR_REQ_OUT" >&"$out"
	done
	echo "the client went away (or was silent for $PAIR_WAIT s) after $PAIR_REQUESTS requests, without a bye"
	return 1
}

# pair_rpc OUT CMD... (client): run CMD in the server; its output in OUT,
# its status returned.
pair_rpc() {
	local out=$1 line rc size
	shift
	printf '%q ' "$@" >&"$PAIR_FD" && echo >&"$PAIR_FD" || return 255
	if IFS= read -r -t "$PAIR_RPC_LIMIT" -u "$PAIR_FD" line &&
	   [[ $line =~ ^KIW-PAIR-RC\ ([0-9]+)\ ([0-9]+)$ ]]; then
		rc=${BASH_REMATCH[1]} size=${BASH_REMATCH[2]}
		head -c "$size" <&"$PAIR_FD" > "$out"
		return "$rc"
	fi
	echo "no answer from the server to: $* (got: ${line:-nothing})" > "$out"
	return 255
}

# pair_on HOST OUT CMD...: run CMD on host a or b (here, or in the server
# over the control connection), its output in OUT.
pair_on() {
	local host=$1 out=$2
	shift 2
	if [ "$host" = "$PAIR_ME" ]; then
		"$@" > "$out" 2>&1
	else
		pair_rpc "$out" "$@"
	fi
}

# pair_peer CMD...: pair_on the other host, its output shown.
pair_peer() {
	local rc=0
	pair_on "$PAIR_PEER" /tmp/pair_peer.out "$@" || rc=$?
	cat /tmp/pair_peer.out
	return "$rc"
}

# --- dp_lib.sh's dp_pair, over two VMs -------------------------------------

# pair_bg CMD...: start a server in the background; pair_bg_wait SECS:
# its output, and its status (killed when it still runs after SECS).
PAIR_BG_PID=
pair_bg() {
	"$@" > "$PAIR_BG_OUT" 2>&1 < /dev/null &
	PAIR_BG_PID=$!
}

pair_bg_wait() {
	local rc=0
	if ! wait_for "$1" dp_gone "$PAIR_BG_PID"; then
		echo "(still running after $1 s: killed)"
		kill "$PAIR_BG_PID" 2> /dev/null
	fi
	wait "$PAIR_BG_PID" || rc=$?
	cat "$PAIR_BG_OUT"
	return "$rc"
}

pair_listening() { ss -Hltn "sport = :$1" | grep -q .; }

# dp_pair NS_S NS_C PORT SERVER_CMD... -- CLIENT_CMD...: as dp_lib.sh's,
# with "a" and "b" the two VMs instead of two netns.
dp_pair() {
	local sns=$1 cns=$2 port=$3 scmd=() src=0 crc=0 grace
	shift 3
	while [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	pair_on "$sns" "$DP_SRV_OUT" pair_bg timeout "$((DP_TIMEOUT + 60))" "${scmd[@]}" ||
		{ cat "$DP_SRV_OUT"; return 1; }
	if ! pair_on "$sns" "$DP_SRV_OUT" wait_for 60 pair_listening "$port"; then
		echo "the server ($sns) did not listen on port $port:"
		pair_on "$sns" "$DP_SRV_OUT" pair_bg_wait 0
		cat "$DP_SRV_OUT"
		return 1
	fi
	pair_on "$cns" "$DP_CLI_OUT" timeout "$((DP_TIMEOUT + 30))" "$@" || crc=$?
	# A client that failed may leave its server waiting for good.
	grace=$((DP_TIMEOUT + 60))
	[ "$crc" = 0 ] || grace=20
	pair_on "$sns" "$DP_SRV_OUT" pair_bg_wait "$grace" || src=$?
	[ "$crc" = 0 ] && [ "$src" = 0 ] && return 0
	echo "client ($cns: $*): status $crc"
	cat "$DP_CLI_OUT"
	echo "server ($sns: ${scmd[*]}): status $src"
	cat "$DP_SRV_OUT"
	return 1
}

# dp_lib.sh's stuck diagnosis looks into two netns; here, this VM.
dp_stuck_diag() {
	rdma -dd res show qp 2>&1
	ss -tinm 2>&1
}

# --- the client's checks ----------------------------------------------------

# perftest across the two kernels, each end serving: the server's
# kernel serves write, read and send latency, the client's send and
# read latency. (Not ib_write_lat: its server writes first, which kiw's
# defaults today refuse without RFC 6581's peer-to-peer mode; it hangs
# kiw to kiw on one kernel too, see smoke_lib.sh.)
pair_perftest() {
	local n=$SMOKE_PT_N peer=$PAIR_PEER_KERNEL me=$KIW_KERNEL
	smoke_serves b
	check "ib_write_bw -R -s 65536 -n $n, $peer serving $me: a message rate" \
		pt_bw ib_write_bw "$n" -s 65536
	check "ib_read_bw -R -s 65536 -n $n, $peer serving $me: a message rate" \
		pt_bw ib_read_bw "$n" -s 65536
	check "ib_send_lat -R -s 8 -n $n, $peer serving $me: a latency" \
		pt_lat ib_send_lat "$n" -s 8
	smoke_serves a
	check "ib_send_bw -R -s 65536 -n $n, $me serving $peer: a message rate" \
		pt_bw ib_send_bw "$n" -s 65536
	check "ib_read_lat -R -s 8 -n $n, $me serving $peer: a latency" \
		pt_lat ib_read_lat "$n" -s 8
	pt_repeated_diag
}

# pair_qps_both: the mount's connection is a QP here and one there.
pair_qps_both() {
	local a b
	a=$(st_qps "$PAIR_DEV") b=$(pair_peer st_qps kiw_b)
	[ "$a" -ge 1 ] && [ "$b" -ge 1 ] && return 0
	echo "$PAIR_DEV: $a QPs, kiw_b: $b QPs (want >= 1 each)"
	return 1
}

pair_nfs() {
	local mb=$SMOKE_NFS_MB peer=$PAIR_PEER_KERNEL me=$KIW_KERNEL
	check "nfsd on $peer: a tmpfs export, RDMA port 20049" \
		pair_peer st_nfsd_up $((mb + 16))
	check "NFSv4.2 on $me: mount -o rdma,port=20049 $ST_B:/" st_nfs_mount 4.2
	check_output "NFSv4.2: the mount is over proto=rdma, port 20049" \
		'(^|,)vers=4\.2,.*proto=rdma,port=20049' st_nfs_opts
	check "NFSv4.2: the connection is a QP on kiw_a ($me) and one on kiw_b ($peer)" \
		pair_qps_both
	check_fio "NFSv4.2: fio writes $mb MiB to $peer, reads it back, crc32c" \
		"nfs-pair" "$mb" --directory="$ST_MNT"
	check "NFSv4.2: umount" st_nfs_umount
	check "nfsd on $peer stopped, export unmounted" pair_peer st_nfsd_down
	check "no PD, CQ, QP, MR or cm_id left here" st_res_gone 60
	check "no PD, CQ, QP, MR or cm_id left on $peer" pair_peer st_res_gone 60
	st_summary
}

pair_bye() { pair_rpc /tmp/pair_bye.out bye; }

# --- both ---------------------------------------------------------------------

pair_teardown() {
	check "rdma link delete $PAIR_DEV: gone" \
		sh -c "rdma link delete $PAIR_DEV && [ ! -e /sys/class/infiniband/$PAIR_DEV ]"
	check "rmmod kiw" kiw_unload
	check_no_output "dmesg: no kernel report" 'Call Trace:|BUG:|WARNING:|Oops' dmesg
}

# pair_setup: the NIC, kiw, the device; fails when any check failed.
pair_setup() {
	local failed=$KIW_TAP_FAILED
	check_sh "virtio-net NIC $PAIR_MAC on $(uname -r): $PAIR_IP/24, up" pair_nic
	check "modprobe kiw" kiw_load
	check "rdma link add $PAIR_DEV type kiw netdev $PAIR_NIC" pair_dev_add
	check "ibv_devinfo -d $PAIR_DEV: iWARP, PORT_ACTIVE" smoke_devinfo "$PAIR_DEV"
	[ "$KIW_TAP_FAILED" = "$failed" ]
}

# pair_ready (server, asked by the client): this end's kernel, and its
# device is ACTIVE.
pair_ready() {
	echo "$KIW_KERNEL $(uname -r), kiw $(< /sys/module/kiw/version)"
	kiw_port_is "$PAIR_DEV" ACTIVE
}

if [ "$PAIR_ROLE" = server ]; then
	tap_plan 9
	pair_setup
	check_sh "the client ($PAIR_PEER_KERNEL, $PAIR_PEER_IP) connected to the control port" \
		pair_listen
	check_sh "served the client's requests until it said bye" pair_serve
	diag "$PAIR_REQUESTS requests served"
	pair_teardown
	tap_done
	exit
fi

# The client. Without a device at either end, nothing after would tell
# more, each check waiting for its timeout: it says bye at once (and the
# plan fails).
tap_plan 30
pair_setup && ready=1 || ready=0
check_sh "connected to the server's control port ($PAIR_PEER_IP:$PAIR_PORT)" \
	pair_connect || ready=0
if [ "$ready" = 1 ]; then
	check_output "the server runs kiw on $PAIR_PEER_KERNEL, kiw_b ACTIVE" \
		"^$PAIR_PEER_KERNEL " pair_peer pair_ready || ready=0
fi
if [ "$ready" = 1 ]; then
	smoke_rping
	pair_perftest
	pair_nfs
fi
check "said bye to the server" pair_bye
[ -z "${PAIR_FD:-}" ] || exec {PAIR_FD}>&-
pair_teardown
tap_done
