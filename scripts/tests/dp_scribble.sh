#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=stock timeout=600
#
# dp_scribble: the MPA CRC covers exactly the octets on the wire, even
# when the consumer writes its buffers while kiw sends from them and
# places into them (scripts/guest/scribble_tool.c: a thread on each side
# overwrites the one buffer that is a Send source, a receive target and an
# acknowledgement source at once). What arrives is garbage, as verbs
# allow, but every message and acknowledgement completes, no CRC error is
# seen and no Terminate is sent: kiw copies what it frames and CRCs the
# copy on transmit, and CRCs the skb's octets, not the target, on receive.
# Before that fix (2026-11-21) the CRC run failed within seconds.
#
#   CRC (the default) with 64 KiB messages; CRC and markers both ways with
#   4000-octet messages (FPDUs that span markers). 10 s each.
# Guest time: about 45 s on the stock kernel (make vmtest, shared 2-core
# host, 2026-11-21).
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/dp_lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"

ST=$KIW_GUEST_BIN/scribble_tool

# scribble LABEL PORT SIZE: one run; both sides' RESULT without errors.
scribble() {
	local port=$2 size=$3
	check "$1: every message and acknowledgement completed" \
		dp_pair b a "$port" "$ST" server -b $B4 -p "$port" -s "$size" -t 120 -- \
		"$ST" client -a $B4 -p "$port" -T 10 -s "$size" -t 120
	check_output "$1: the client sent and was acknowledged, no error" \
		'^RESULT role=client msgs=([1-9][0-9]*) acks=\1 errors=0$' \
		cat "$DP_CLI_OUT"
	check_output "$1: the server received and acknowledged, no error" \
		'^RESULT role=server msgs=([1-9][0-9]*) acks=\1 errors=0$' \
		cat "$DP_SRV_OUT"
	diag "$(grep -h '^RESULT' "$DP_CLI_OUT" "$DP_SRV_OUT")"
	check "$1: kiw_a saw no CRC or marker error, no Terminate" \
		stats_clean kiw_a "rx_fpdus=>0"
	check "$1: kiw_b saw no CRC or marker error, no Terminate" \
		stats_clean kiw_b "rx_fpdus=>0"
}

cm_setup
check "CRC on both devices (the default)" \
	sh -c 'grep -qx on /sys/class/infiniband/kiw_a/mpa/crc &&
	       grep -qx on /sys/class/infiniband/kiw_b/mpa/crc'
# Covers: MPA-CRC-5, MPA-CRC-11
scribble "CRC, 64 KiB messages" 7400 65536
for dev in kiw_a kiw_b; do
	dp_mpa $dev markers 1
done
scribble "CRC and markers, 4000-octet messages" 7410 4000

check "rdma link delete, rmmod kiw" sh -c 'rdma link delete kiw_a &&
	rdma link delete kiw_b && rmmod kiw'
tap_done
