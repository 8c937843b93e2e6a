#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=600 siw=yes
#
# cm_siw: kiw and Linux siw connect through rdma_cm, kiw as initiator and
# as responder, CRC off and on, MPA revision 1 and 2, with peer-to-peer
# mode, a message each way; what cannot work fails cleanly, as the table
# below says.
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
#   siw initiator -> kiw responder
#     crc off/on                          established
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
	if ! cm_server "$sns" -b "$saddr" -p 7030 -d 8 -D -t 20; then
		not_ok "$name: server"
		return
	fi
	cm_client "$cns" -a "$saddr" -p 7030 -d 8 -D -t 20
	[ -z "$swant" ] && kill "$CM_SRV_PID" 2>/dev/null
	cm_server_wait
	# shellcheck disable=SC2086
	check "$name: client" cm_expect "$CM_CLI_OUT" $cwant dup=0
	# shellcheck disable=SC2086
	[ -z "$swant" ] || check "$name: server" cm_expect "$CM_SRV_OUT" $swant dup=0
	[ -z "$re" ] || check_output "$name: kiw's negotiation" "$re" \
		full_op "$KIWDEV"
}

UP="established=1 disconnected=1 pd_bad=0 data_ok=1"

diag "--- kiw (kiw_a) initiates, siw (siw_b) responds"
check "kiw_a on veth-a, siw_b on veth-b" sh -c '
	ip netns exec a rdma link add kiw_a type kiw netdev veth-a &&
	ip netns exec b rdma link add siw_b type siw netdev veth-b'
KIWDEV=kiw_a
for crc in off on required; do
	for rev in 1 2; do
		c=$([ $crc = off ] && echo 0 || echo 1)
		mpa_set kiw_a crc $crc; mpa_set kiw_a rev $rev
		run "kiw -> siw, crc $crc, rev $rev" b $B4 a "$UP" "$UP" \
			"initiator=1 rev=$rev crc=$c tx_markers=0 rx_markers=0"
	done
done
mpa_set kiw_a crc on; mpa_set kiw_a rev 2; mpa_set kiw_a p2p 1
run "kiw -> siw, peer-to-peer" b $B4 a "$UP" "$UP" \
	'initiator=1 rev=2 crc=1 .* rtr=2 hold_tx=0'
mpa_set kiw_a p2p 0; mpa_set kiw_a markers 1
run "kiw -> siw, kiw asks for markers: siw refuses" b $B4 a \
	"rejected=1 established=0" ""
mpa_set kiw_a markers 0

diag "--- siw (siw_a) initiates, kiw (kiw_b) responds"
check "siw_a on veth-a, kiw_b on veth-b" sh -c '
	rdma link delete kiw_a && rdma link delete siw_b &&
	ip netns exec a rdma link add siw_a type siw netdev veth-a &&
	ip netns exec b rdma link add kiw_b type kiw netdev veth-b'
KIWDEV=kiw_b
for crc in off on; do
	c=$([ $crc = off ] && echo 0 || echo 1)
	mpa_set kiw_b crc $crc
	run "siw -> kiw, crc $crc" b $B4 a "$UP" "$UP" \
		"initiator=0 rev=2 crc=$c tx_markers=0 rx_markers=0"
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
tap_done
