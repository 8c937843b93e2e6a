#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=510 siw=yes
#
# cm_siw: kiw and Linux siw connect through rdma_cm, kiw as initiator and
# as responder, CRC off and on, MPA revision 1 and 2; every established
# connection moves three 3000-octet messages each way (several FPDUs
# each), and rping -C 100 -V (RDMA Reads and Writes, data checked) runs
# with kiw as client (CRC off, revision 2) and as server (CRC off and on).
# What cannot work fails cleanly, as the table below says. KIW_LONG=1 adds
# the remaining CRC x revision combinations with kiw as initiator, and
# peer-to-peer mode (see below why not by default).
# Guest time: 171 s on the debug kernel (2026-11-21, make vmtest on the
# shared 2-core host); the timeout is three times that.
#
# siw 6.12 (its settings are compiled in): MPA revision 2 as initiator,
# without peer-to-peer; as responder it takes revision 1 and 2 and echoes
# the Request's bits; it never asks for CRC and uses it when asked; it
# refuses markers both ways (a Request with M: a reject Reply; a Reply
# with M: the connection fails).
#
#   kiw initiator -> siw responder
#     crc off/on/required, rev 1/2, p2p   established (CRC as kiw asks)
#     markers                             REJECTED (siw refuses)
#     rping at rev 1                      siw's server cannot Read: siw
#                                         reports IRD/ORD 0 for a Rev 1
#                                         Request (it sets them only from
#                                         the Rev 2 word), rping accepts
#                                         with what the event says, and
#                                         siw refuses to post the Read
#   siw initiator -> kiw responder
#     crc off/on                          established; kiw (p2p, its
#                                         default) sends without waiting
#                                         for siw's first FPDU
#     crc required                        REJECTED (kiw refuses C=0)
#     kiw rev 1                           siw refuses the Rev 1 Reply
#     kiw markers                         siw refuses the Reply with M
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"

A4=10.77.0.1 B4=10.77.0.2

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw and siw" sh -c 'modprobe ib_uverbs && modprobe rdma_ucm &&
	modprobe kiw && modprobe siw'
check "cm_tool builds" cm_tool_build
check "dynamic debug: kiw's negotiation" sh -c \
	"echo 'module kiw format \"full operation\" +p' > /proc/dynamic_debug/control"

full_op() {
	dmesg -c > /tmp/siw.dmesg
	grep "$1: .*full operation" /tmp/siw.dmesg | tail -n 1 |
		sed 's/.*full operation: //'
}

# run NAME SRV_NS SRV_ADDR CLI_NS WANT_CLIENT WANT_SERVER [FULL_OP_RE]
run() {
	local name=$1 sns=$2 saddr=$3 cns=$4 cwant=$5 swant=$6 re=${7:-}
	if ! cm_server "$sns" -b "$saddr" -p 7030 -d 8 $DATA -t 20; then
		not_ok "$name: server"
		return
	fi
	cm_client "$cns" -a "$saddr" -p 7030 -d 8 $DATA -t 20
	[ -z "$swant" ] && kill "$CM_SRV_PID" 2>/dev/null
	cm_server_wait
	# shellcheck disable=SC2086
	check "$name: client" cm_expect "$CM_CLI_OUT" $cwant dup=0
	# shellcheck disable=SC2086
	[ -z "$swant" ] || check "$name: server" cm_expect "$CM_SRV_OUT" $swant dup=0
	[ -z "$re" ] || check_output "$name: kiw's negotiation" "$re" \
		full_op "$KIWDEV"
}

# Three messages of 3000 octets each way: several FPDUs per message.
DATA="-D -m 3 -s 3000"
UP="established=1 disconnected=1 pd_bad=0 data_ok=1 msgs=3"

# rping_pair NAME SRV_NS ADDR CLI_NS: rping -C 100 -V (RDMA Reads and
# Writes, data checked), the server in SRV_NS.
rping_pair() {
	local name=$1 sns=$2 addr=$3 cns=$4 srv rc=0
	ip netns exec "$sns" timeout 120 rping -s -a "$addr" -p 7040 -C 100 -V \
		> /tmp/rping.srv 2>&1 &
	srv=$!
	if ! wait_for 20 sh -c "ip netns exec $sns ss -Hltn | grep -q ':7040 '"; then
		not_ok "$name: rping server listens"
		kill "$srv" 2>/dev/null
		wait "$srv"
		return
	fi
	ip netns exec "$cns" timeout 120 rping -c -a "$addr" -p 7040 -C 100 -V \
		> /tmp/rping.cli 2>&1 || rc=$?
	wait "$srv" || rc=$((rc + 1000 * $?))
	if [ "$rc" = 0 ]; then
		ok "$name: rping -C 100 -V"
	else
		not_ok "$name: rping -C 100 -V"
		diag "status $rc" "client: $(tail -n 5 /tmp/rping.cli)" \
		     "server: $(tail -n 5 /tmp/rping.srv)"
	fi
}

cm_section "kiw (kiw_a) initiates, siw (siw_b) responds"
check "kiw_a on veth-a, siw_b on veth-b" sh -c '
	ip netns exec a rdma link add kiw_a type kiw netdev veth-a &&
	ip netns exec b rdma link add siw_b type siw netdev veth-b'
KIWDEV=kiw_a
# Peer-to-peer mode (kiw's default) makes siw wait for the RTR in
# siw_rtr_data_ready(), which lockdep reports in this kernel (see below):
# kiw_a runs client-server mode here; dp_tools_siw.sh runs the default
# against siw on the stock kernel.
mpa_set kiw_a p2p 0
# By default CRC off at revision 2 and on at revision 1; KIW_LONG=1: every
# CRC setting at both revisions. rping at revision 2 only (the table).
combos="off:2 on:1"
[ "${KIW_LONG:-0}" = 1 ] && combos="off:1 off:2 on:1 on:2 required:1 required:2"
for cr in $combos; do
	crc=${cr%:*} rev=${cr#*:}
	c=$([ $crc = off ] && echo 0 || echo 1)
	mpa_set kiw_a crc $crc; mpa_set kiw_a rev $rev
	run "kiw -> siw, crc $crc, rev $rev" b $B4 a "$UP" "$UP" \
		"initiator=1 rev=$rev crc=$c tx_markers=0 rx_markers=0"
	[ "$rev" = 1 ] || rping_pair "kiw -> siw, crc $crc, rev $rev" b $B4 a
done
# siw as a peer-to-peer responder waits for the RTR in
# siw_rtr_data_ready(), which takes sk_callback_lock for writing in
# softirq context (through siw_qp_socket_assoc()), while siw's own data
# path reads it with softirqs enabled (siw_qp_llp_data_ready() from
# release_sock()): once siw moved some data in the same boot, lockdep
# reports "inconsistent lock state" in siw (seen 2026-11-21 after the
# rping runs above), and the whole debug boot fails. A siw bug, not
# kiw's: only KIW_LONG=1 runs this case.
mpa_set kiw_a crc on; mpa_set kiw_a rev 2
if [ "${KIW_LONG:-0}" = 1 ]; then
	mpa_set kiw_a p2p 1
	run "kiw -> siw, peer-to-peer" b $B4 a "$UP" "$UP" \
		'initiator=1 rev=2 crc=1 .* rtr=2 hold_tx=0'
fi
mpa_set kiw_a p2p 0; mpa_set kiw_a markers 1
run "kiw -> siw, kiw asks for markers: siw refuses" b $B4 a \
	"rejected=1 established=0" ""
mpa_set kiw_a markers 0

cm_section "siw (siw_a) initiates, kiw (kiw_b) responds"
check "siw_a on veth-a, kiw_b on veth-b" sh -c '
	rdma link delete kiw_a && rdma link delete siw_b &&
	ip netns exec a rdma link add siw_a type siw netdev veth-a &&
	ip netns exec b rdma link add kiw_b type kiw netdev veth-b'
KIWDEV=kiw_b
for crc in off on; do
	c=$([ $crc = off ] && echo 0 || echo 1)
	mpa_set kiw_b crc $crc
	# siw asks for no RTR: kiw's responder (p2p, its default) does
	# not hold its FPDUs back (kiw_cm_hold_tx()).
	run "siw -> kiw, crc $crc" b $B4 a "$UP" "$UP" \
		"initiator=0 rev=2 crc=$c tx_markers=0 rx_markers=0 .* rtr=0 hold_tx=0\$"
	rping_pair "siw -> kiw, crc $crc" b $B4 a
done
mpa_set kiw_b crc required
run "siw -> kiw, kiw requires CRC: kiw refuses" b $B4 a \
	"rejected=1 established=0" ""
mpa_set kiw_b crc on; mpa_set kiw_b rev 1
run "siw -> kiw, kiw speaks Rev 1: siw refuses the Reply" b $B4 a \
	"established=0" "established=1 disconnected=1"
mpa_set kiw_b rev 2; mpa_set kiw_b markers 1
run "siw -> kiw, kiw asks for markers: siw refuses the Reply" b $B4 a \
	"established=0" "established=1 disconnected=1"

check "rdma link delete, rmmod" sh -c 'rdma link delete siw_a &&
	rdma link delete kiw_b && rmmod kiw'
cm_section "done"
tap_done
