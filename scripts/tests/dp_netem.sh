#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=600
#
# dp_netem: kiw over a bad link. netem on both veth ends duplicates,
# reorders and drops packets; TCP repairs the stream, and kiw above it
# must deliver exactly what it would on a clean link: no duplicate or
# lost message, no CRC or marker error, no Terminate.
#
#   duplicates and reordering (5% each way, markers both ways and CRC):
#     dp_verify's quick set (RDMA Write, Read and Send up to 1 MiB, every
#     octet and the guard octets around every target checked) is correct,
#     and TCP did receive duplicates (its D-SACKs: the link really was
#     bad). (dp_verify ends its connection abortively, so a reset there is
#     no error.)
#   10% loss from the first SYN on: 8 connections at once set up (MPA
#     Request and Reply lost and retransmitted) and move three messages
#     each way right after, every one intact.
# Guest time: 48 s and 106 s in two runs on the debug kernel (make vmtest,
# shared 2-core host, 2026-11-21; most of it the loss part).
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/dp_lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"

# netem ARGS...: the same netem qdisc on veth-a and veth-b ("off": none).
netem() {
	local side
	for side in a b; do
		ip -n "$side" link show "veth-$side" > /dev/null || return 1
		tc -n "$side" qdisc del dev "veth-$side" root 2> /dev/null
		[ "$1" = off ] && continue
		tc -n "$side" qdisc add dev "veth-$side" root netem "$@" ||
			return 1
	done
}

# dsacks: D-SACKs TCP sent in netns a and b (a duplicate it received).
dsacks() {
	local side n=0 v
	for side in a b; do
		v=$(ip netns exec "$side" nstat -asz TcpExtTCPDSACKOldSent |
			awk '/TCPDSACKOldSent/ { print $2 }')
		n=$((n + ${v:-0}))
	done
	echo "$n D-SACKs sent"
	[ "$n" -gt 0 ]
}

retrans() {
	rdma statistic show link "$1/1" | grep -o 'tcp_retransmits [0-9]*'
}

# retrans_clean DEV: no error or Terminate on DEV, and its TCP
# retransmitted. kiw adds a connection's retransmissions to the counter
# when its endpoint lets go of the socket, once the close is over; under
# loss the server's closes can still be going on when its consumer has
# ended (seen: kiw_b 0 right after the server, kiw_a 8): a minute for them.
retrans_clean() {
	wait_for 60 stats_are "$1" "tcp_retransmits=>0"
	stats_clean "$1" "tcp_retransmits=>0"
}

cm_setup
check "dp_verify builds" dp_verify_build
for dev in kiw_a kiw_b; do
	dp_mpa $dev timeout_ms 60000
	dp_mpa $dev markers 1
done

# Covers: MPA-AL-6, DDP-LLP-11
check "netem both ways: 5% duplicated, 5% reordered" \
	netem delay 2ms duplicate 5% reorder 5% 50%
check "dp_verify -Q, markers both ways and CRC: every case correct" \
	dp_pair b a 7300 "$DP_VERIFY" server -b $B4 -p 7300 -- \
	"$DP_VERIFY" client -a $B4 -p 7300 -Q
diag "$(grep '^RESULT' "$DP_CLI_OUT")"
check "TCP received duplicates" dsacks
check "kiw_a: no CRC or marker error, no Terminate" stats_clean kiw_a
check "kiw_b: no CRC or marker error, no Terminate" stats_clean kiw_b
diag "$(retrans kiw_a) $(retrans kiw_b)"

# Covers: MPA-TD-5
check "netem both ways: 10% loss" netem loss 10%
cm_server b -b $B4 -p 7320 -n 8 -D -m 3 -s 3000 -t 240
cm_client a -a $B4 -p 7320 -n 8 -D -m 3 -s 3000 -t 240
check "8 connections set up through the loss, 3 messages each way each" \
	cm_expect "$CM_CLI_OUT" established=8 data_ok=8 msgs=24 dup=0 \
	data_fail=0 async=0
cm_server_end "$CM_SRV_PID" "$CM_SRV_OUT" 60
check "the server: 8 established, every message intact" \
	cm_expect "$CM_SRV_OUT" established=8 data_ok=8 msgs=24 dup=0 \
	data_fail=0 async=0
check "kiw_a: still no error or Terminate; TCP retransmitted" \
	retrans_clean kiw_a
check "kiw_b: still no error or Terminate; TCP retransmitted" \
	retrans_clean kiw_b
diag "$(retrans kiw_a) $(retrans kiw_b)"

check "netem removed" netem off
check "rdma link delete, rmmod kiw" sh -c 'rdma link delete kiw_a &&
	rdma link delete kiw_b && rmmod kiw'
tap_done
