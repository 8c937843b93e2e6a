#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=1200
#
# ops_observe: what an administrator sees of kiw. After each scenario,
# every counter it must move is read with "rdma statistic show link" and
# compared with what happened: a connection with a message each way, a
# rejected connect, an MPA startup that times out and one with a malformed
# Reply (a raw responder), an FPDU with a bad CRC and a Terminate from a
# raw initiator (scripts/guest/mpa_peer.py as a library), and TCP
# retransmissions while the link drops everything for a while. The
# tracepoints, enabled through tracefs, show each kind of event; "rdma res
# show" shows kiw's attributes of live QPs, cm_ids, MRs and CQs (an rping);
# dynamic debug names the device.
#
# Guest time (2 vCPUs under TCG, on a 2-core host running other guests):
# stock kernel 186 s at load average 16.
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"

A4=10.77.0.1 B4=10.77.0.2
PEER_LIB=$KIW_TOP/scripts/guest
TRACE=/sys/kernel/tracing

# all_zero DEV: DEV has 21 counters, every one 0.
all_zero() {
	local line i n=0 w
	line=$(rdma statistic show link "$1/1") || return 1
	read -ra w <<<"$line"
	for ((i = 3; i < ${#w[@]}; i += 2)); do
		[ "${w[i]}" = 0 ] || { echo "$line"; return 1; }
		n=$((n + 1))
	done
	[ "$n" = 21 ] || { echo "$n counters: $line"; return 1; }
}

# traced EVENT REGEX: the trace buffer has EVENT with a line matching REGEX.
traced() {
	grep -E " $1: .*$2" "$TRACE/trace"
}

# A raw MPA initiator toward a kiw_b listener: two connections, Rev 1 with
# CRC. The first sends a Send FPDU with its CRC inverted; the second a
# valid Terminate (DDP layer, tagged buffer, invalid STag). Each prints
# what came back: kiw's Terminate, then the end of the connection.
cat > /tmp/ops_peer.py <<'EOF'
import socket, struct, sys
sys.path.insert(0, sys.argv[1])
import mpa_peer as m

def connect(host, port):
    s = socket.create_connection((host, port), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(m.frame(m.KEY_REQ, c=True, rev=1))
    rep = b""
    while len(rep) < m.HDR_LEN:
        chunk = s.recv(m.HDR_LEN - len(rep))
        if not chunk:
            break
        rep += chunk
    f = m.parse_frame(rep)
    return s, f

def untagged(qn, op, payload):
    # DDP: L, DV 1; RDMAP: RV 1; RsvdULP 0; QN; MSN 1; MO 0.
    return struct.pack(">BBIIII", 0x41, 0x40 | op, 0, qn, 1, 0) + payload

host, port = sys.argv[2], int(sys.argv[3])
s, f = connect(host, port)
bad = bytearray(m.fpdu(untagged(0, 3, b"x" * 8)))
bad[-1] ^= 0xff
s.sendall(bytes(bad))
end, after, data = m.watch_end(s, 5)
print("CRC reply_c=%s end=%s rx=%d" % (f and f["c"], end, len(data)))
s.close()
s, f = connect(host, port)
term = struct.pack(">I", (1 << 28) | (1 << 24))
s.sendall(m.fpdu(untagged(2, 7, term)))
end, after, data = m.watch_end(s, 5)
print("TERM reply_c=%s end=%s rx=%d" % (f and f["c"], end, len(data)))
EOF

tap_plan 45

cm_setup
# One FPDU each way below: client-server mode, no RFC 6581 RTR before it.
mpa_set kiw_a p2p 0
check "tracepoints: all of events/kiw enabled" sh -c "
	echo > $TRACE/trace && echo 1 > $TRACE/events/kiw/enable"
check "dynamic debug: kiw's messages on" sh -c \
	"echo 'module kiw +p' > /proc/dynamic_debug/control"
check_output "hw counters in sysfs too" '^conn_established$' \
	ls /sys/class/infiniband/kiw_a/ports/1/hw_counters
check "all 21 counters start at 0" all_zero kiw_a

diag "--- a connection, a message each way (64 octets: FPDUs of 88)"
cm_server b -b $B4 -p 7301 -D -t 60
cm_client a -a $B4 -p 7301 -D -t 60
cm_server_wait
check "cm_tool: established, data each way" \
	cm_expect "$CM_CLI_OUT" established=1 data_ok=1
check "kiw_a: attempt, established, one FPDU each way" stats_are kiw_a \
	conn_attempts=1 conn_established=1 tx_fpdus=1 rx_fpdus=1 \
	tx_bytes=88 rx_bytes=88 conn_requests=0
check "kiw_b: request, established, one FPDU each way" stats_are kiw_b \
	conn_requests=1 conn_established=1 tx_fpdus=1 rx_fpdus=1 \
	tx_bytes=88 rx_bytes=88 conn_attempts=0
check_output "trace: kiw_cep_state, the initiator's TCP up" \
	'initiator 10\.77\.0\.1:[0-9]+ -> 10\.77\.0\.2:7301: tcp-up: connecting -> await-reply' \
	traced kiw_cep_state
check_output "trace: kiw_mpa_result, Rev 2 with CRC" \
	'kiw_b qp=[0-9]+ 10\.77\.0\.1:[0-9]+ responder rev=2 crc=1 markers tx=0 rx=0' \
	traced kiw_mpa_result
check_output "trace: kiw_qp_state, idle -> rts" 'qp=[0-9]+ idle -> rts' \
	traced kiw_qp_state
check_output "trace: kiw_fpdu_tx, the Send" 'kiw_a qp=[0-9]+ off=0 ulpdu=82 send last qn=0x0 mo=0x0 msn=1' \
	traced kiw_fpdu_tx
check_output "trace: kiw_fpdu_rx, the Send, verdict ok" \
	'kiw_b qp=[0-9]+ off=0 ulpdu=82 send last .* verdict=ok' traced kiw_fpdu_rx
check_output "dynamic debug: the device's name leads kiw's messages" \
	'kiw_b: .*full operation: initiator=0 rev=2 crc=1' dmesg

diag "--- a rejected connect"
cm_server b -b $B4 -p 7302 -r -t 60
cm_client a -a $B4 -p 7302 -t 60
cm_server_wait
check "cm_tool: rejected" cm_expect "$CM_CLI_OUT" rejected=1
check "kiw_a: a reject received" stats_are kiw_a conn_attempts=2 \
	conn_rejects_received=1 conn_established=1
check "kiw_b: a reject sent" stats_are kiw_b conn_requests=2 \
	conn_rejects_sent=1 conn_established=1
check_output "trace: the reject" 'kiw_b .*: reject: request-received -> closed' \
	traced kiw_cep_state

diag "--- MPA startup against a raw responder: silent, then a bad key"
check "kiw_a: startup timeout 1 s" mpa_set kiw_a timeout_ms 1000
printf '%s\n' "silent respond $B4 7303 --silent --wait 4" \
	"badkey respond $B4 7303 --key bad --wait 4" |
	in_b python3 -S "$PEER_LIB/mpa_peer.py" batch > /tmp/resp.out 2>&1 &
peer=$!
# (Python starts slowly in a TCG guest, the more so on the debug kernel.)
check "the raw responder listens" wait_for 180 grep -q LISTENING /tmp/resp.out ||
	kill "$peer" 2>/dev/null
cm_client a -a $B4 -p 7303 -t 20
cp "$CM_CLI_OUT" /tmp/resp.silent
cm_client a -a $B4 -p 7303 -t 20
wait "$peer"
# Covers: MPA-TMO-2
check "the Reply never came: the connect failed (UNREACHABLE)" \
	cm_expect /tmp/resp.silent unreachable=1 established=0
check "kiw_a: a startup timeout, an MPA error" stats_are kiw_a \
	conn_attempts=4 conn_timeouts=1 conn_mpa_errors=1 conn_established=1
check_output "trace: the timeout" 'kiw_a .*: timeout: await-reply -> closed' \
	traced kiw_cep_state

diag "--- a raw initiator: an FPDU with a bad CRC, then a Terminate"
cm_server b -b $B4 -p 7304 -n 2 -t 60
in_a python3 -S /tmp/ops_peer.py "$PEER_LIB" $B4 7304 > /tmp/ops_peer.out 2>&1
cm_server_wait
diag "$(cat /tmp/ops_peer.out)"
# A bad CRC is reported as a Terminate (LLP layer, code 2: the trace
# below) on the still-working outbound half, 28 octets, and only then is
# the connection closed, with a FIN.
# Covers: MPA-CRC-12, MPA-ERR-4, MPA-ERR-7, DDP-ERR-15
check_output "the peer got a Reply with CRC, then kiw's Terminate, then FIN" \
	'^CRC reply_c=1 end=fin rx=28$' cat /tmp/ops_peer.out
check "kiw_b: a CRC error, a Terminate each way" stats_are kiw_b \
	conn_requests=4 conn_established=3 rx_crc_errors=1 \
	tx_terminate_mpa=1 rx_terminate_ddp=1 rx_marker_errors=0 \
	tx_fpdus=2 rx_fpdus=2
check_output "trace: kiw_fpdu_rx, verdict: MPA CRC (code 2)" \
	'kiw_b .* send last .* verdict=mpa/0x0/0x02' traced kiw_fpdu_rx
check_output "trace: kiw_term_tx, layer mpa, code 2" \
	'kiw_b qp=[0-9]+ layer=mpa type=0x0 code=0x02' traced kiw_term_tx
check_output "trace: kiw_term_rx, layer ddp, type 1, code 0" \
	'kiw_b qp=[0-9]+ layer=ddp type=0x1 code=0x00' traced kiw_term_rx
check_output "trace: kiw_qp_state, rts -> terminate" 'kiw_b qp=[0-9]+ rts -> terminate' \
	traced kiw_qp_state

diag "--- rping: rdma res show, and TCP retransmissions"
# (ip netns exec execs rping: $! is rping's pid.)
ip netns exec b rping -s -a $B4 -p 7305 > /tmp/rping_s.out 2>&1 &
rs=$!
sleep 1
ip netns exec a rping -c -a $B4 -p 7305 -S 64 > /tmp/rping_c.out 2>&1 &
rc=$!
qp_up() { rdma -dd res show qp | grep -q 'kiw_a.*drv_state rts.*drv_raddr 10\.77\.0\.2:7305'; }
check "rping connects: kiw_a's QP in rts" wait_for 60 qp_up
rdma -dd res show qp > /tmp/res_qp.out 2>&1
rdma -dd res show cm_id > /tmp/res_cm_id.out 2>&1
rdma -dd res show mr > /tmp/res_mr.out 2>&1
rdma -dd res show cq > /tmp/res_cq.out 2>&1
check_output "rdma res show qp: kiw's state, MPA revision, CRC, markers, addresses" \
	'kiw_a.* drv_state rts .* drv_cm_state connected drv_role initiator drv_laddr 10\.77\.0\.1:[0-9]+ drv_raddr 10\.77\.0\.2:7305 drv_mpa_rev 2 drv_crc on drv_markers_tx 0 drv_markers_rx 0' \
	cat /tmp/res_qp.out
check_output "rdma res show qp: the send side's progress" \
	'kiw_a.* drv_ord [0-9]+ drv_sq_started [0-9]+ drv_sq_completed [0-9]+ drv_orq 0 drv_irq [0-9]+ drv_tx_wait none' \
	cat /tmp/res_qp.out
# sq_started of kiw_a's QP now: rping's client pings on until killed.
sq_started() {
	rdma -dd res show qp |
		sed -n 's/.*kiw_a\/.*drv_sq_started \([0-9]*\) .*/\1/p'
}
sq_moves() {
	local before after
	before=$(sq_started)
	sleep 1
	after=$(sq_started)
	echo "sq_started: $before, a second later $after"
	[ -n "$before" ] && [ -n "$after" ] && [ "$after" -gt "$before" ]
}
check "rdma res show qp: sq_started grows while rping pings" sq_moves
check_output "rdma res show cm_id: the listener" \
	'kiw_b.* state LISTEN .* drv_listen listening drv_backlog [0-9]+' cat /tmp/res_cm_id.out
check_output "rdma res show cm_id: the connection" \
	'kiw_b.* drv_cm_state connected drv_role responder drv_laddr 10\.77\.0\.2:7305' \
	cat /tmp/res_cm_id.out
check_output "rdma res show mr: kind, access" 'kiw_a .* drv_kind user drv_valid 1 drv_access 0x' \
	cat /tmp/res_mr.out
check_output "rdma res show cq: ring size, user" 'kiw_a .* drv_cqe [0-9]+ drv_user 1 drv_armed' \
	cat /tmp/res_cq.out
diag "rdma -dd res show qp:" "$(cat /tmp/res_qp.out)" \
	"rdma -dd res show cm_id:" "$(cat /tmp/res_cm_id.out)" \
	"rdma -dd res show mr:" "$(cat /tmp/res_mr.out)" \
	"rdma -dd res show cq:" "$(cat /tmp/res_cq.out)"
# Everything kiw_a sends is dropped for 1.5 s: TCP retransmits.
check "veth-a drops everything for 1.5 s" sh -c '
	ip netns exec a tc qdisc add dev veth-a root netem loss 100% &&
	sleep 1.5 && ip netns exec a tc qdisc del dev veth-a root'
kill "$rc" 2>/dev/null
wait "$rc" 2>/dev/null
wait_for 20 sh -c "! kill -0 $rs 2>/dev/null" || kill "$rs" 2>/dev/null
wait "$rs" 2>/dev/null
check "kiw_a: the connection's retransmissions counted when it ended" \
	wait_for 20 stats_are kiw_a 'tcp_retransmits=>0'
check "kiw_b: rping's abort reached it as a reset" stats_are kiw_b conn_resets=1
diag "rdma statistic show link kiw_a/1:" "$(rdma statistic show link kiw_a/1)" \
	"rdma statistic show link kiw_b/1:" "$(rdma statistic show link kiw_b/1)"

diag "the first line of each kiw event in the trace:" \
	"$(awk 'match($0, / kiw_[a-z_]+: /) {
		e = substr($0, RSTART, RLENGTH)
		if (!(e in seen)) { seen[e]; print }
	}' "$TRACE/trace")"
check "tracepoints off" sh -c "echo 0 > $TRACE/events/kiw/enable"
check "rdma link delete kiw_a, kiw_b; rmmod kiw" sh -c '
	rdma link delete kiw_a && rdma link delete kiw_b && rmmod kiw'
tap_done
