#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=1800
#
# dp_hostile: a raw iWARP peer (scripts/guest/iwarp_peer.py) completes a
# valid MPA exchange with kiw, as initiator and as responder, then sends
# FPDUs that break DDP, RDMAP and MPA rules: invalid, foreign-PD and
# read-only STags, out-of-bounds and wrapping TOs, Read Requests beyond
# IRD or naming bad sources, bad MSN, QN, MO, versions, opcodes, truncated
# headers, a Send with no receive posted, bad CRCs and markers, garbage
# after the Reply. For each the peer checks the Terminate kiw sends (its
# exact layer/type/code, the M/D/R bits and the headers it echoes) and
# that kiw closes; the consumer behind kiw (scripts/guest/iw_target.c)
# checks its async event and completions, and that no octet of its memory
# changed that the peer had no right to write (a valid Write sent right
# behind each bad FPDU must never land). A well-behaved kiw<->kiw
# connection moves messages throughout, and valid cases (markers, PAD,
# CRC off, 1-octet segments, oversized ULPDUs) are accepted.
#
# Guest time: stock kernel 60 s, debug kernel ~150 s (2 vCPUs, TCG).
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"
. "$KIW_TOP/scripts/guest/hostile_lib.sh"

SRV=10.77.0.2 LPORT=7300 RPORT=7400
# What every hostile case shows: one well-formed Terminate, then a FIN;
# the consumer's connection ended and its QP is in error.
T="nterm=1 tq=1 fpdu_ok=1 end=fin"
C="established=1 disconnected=1 qp=ERR"

# hostile_cases NS BATCH_ARGS FILE: play the cases of FILE
# ("NAME|DESC|PEER_WANT|TGT_WANT|SCENARIO [key=value...]") against the
# iw_target server, then check each.
hostile_cases() {
	local ns=$1 file=$2 out=/tmp/peer_$RANDOM.out
	local name desc pwant twant args
	grep -v '^#' "$file" | while IFS='|' read -r name desc pwant twant args; do
		echo "$name initiate $SRV $LPORT $args"
	done > "$out.in"
	peer_batch_run "$ns" "$out.in" "$out"
	name=$(grep -v '^#' "$file" | tail -1 | cut -d'|' -f1)
	hostile_wait_done "$IWT_SRV_OUT" "$name"
	lines_load "$out" "$IWT_SRV_OUT"
	grep -v '^#' "$file" > "$file.cases"
	while IFS='|' read -r name desc pwant twant args; do
		hostile_check "$name" "$desc" "$pwant" "$twant"
	done < "$file.cases"
}

# lines_ge FILE REGEX N: FILE has at least N lines matching (for wait_for,
# which must run the count afresh each time).
lines_ge() {
	[ "$(grep -c "$2" "$1")" -ge "$3" ]
}

# initiator_cases FILE: kiw_a's iw_target client connects to the peer
# listening in netns b; "NAME|DESC|PEER_WANT|TGT_WANT|CLIENT ARGS|SCENARIO".
initiator_cases() {
	local file=$1 out=/tmp/peer_resp.out name desc pwant twant cargs scen
	local n=0 pid
	grep -v '^#' "$file" | while IFS='|' read -r name desc pwant twant cargs scen; do
		echo "$name respond $SRV $RPORT $scen"
	done > "$out.in"
	in_b $PEER batch < "$out.in" > "$out" 2>&1 &
	pid=$!
	grep -v '^#' "$file" > "$file.cases"
	while IFS='|' read -r name desc pwant twant cargs scen; do
		n=$((n + 1))
		wait_for 300 lines_ge "$out" LISTENING "$n"
		# shellcheck disable=SC2086
		in_a "$IWT" client -a $SRV -p $RPORT -c "$name" -t 30 $cargs \
			> "/tmp/cli.$name" 2>&1
		wait_for 60 lines_ge "$out" '^RESULT' "$n"
	done < "$file.cases"
	wait "$pid"
	lines_load "$out" /tmp/cli.*
	while IFS='|' read -r name desc pwant twant cargs scen; do
		hostile_check "$name" "$desc" "$pwant" "$twant"
	done < "$file.cases"
}

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw" kiw_load
check "kiw_a on veth-a, kiw_b on veth-b" kiw_devices_add
# The raw peer speaks client-server mode only (no RFC 6581 RTR), as the
# cases below were written for: neither device runs peer-to-peer mode.
mpa_set kiw_a p2p 0
mpa_set kiw_b p2p 0
check "iw_target builds" iwt_build
check_here "iw_target serves on kiw_b" iwt_server b $SRV $LPORT
iwt_ping_start a $SRV $LPORT
check "a well-behaved kiw_a -> kiw_b connection is up" \
	wait_for 60 grep -q '^ESTABLISHED' "$IWT_PING_OUT"

diag "--- kiw as responder: CRC on, no markers (the defaults)"
cat > /tmp/cases1 <<EOF
# Covers: DDP-SEC-1, MPA-ERR-4
# (the Write lands at its STag and TO, the Send in the receive WR)
# Covers: DDP-CF-2
good|valid Write, Send and Read, then a FIN|term=none end=fin rresp=ok fpdu_ok=1|established=1 disconnected=1 wc_err=none|good
# Covers: DDP-ERR-7, DDP-SEC-7, DDP-ERR-13
# Every case with $T and $C (this one first): kiw's Terminate goes out
# before the FIN, the TCP connection then ends, and the valid Write the
# peer sends right behind the bad FPDU never lands.
# Covers: DDP-ST-2, DDP-LLP-8, DDP-LLP-10
w_stag_key|Write, STag key wrong|term=1/1/0x00 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_ok=0 wc_flush=4 wc_err=none|w_stag_key
# Covers: DDP-ERR-7
w_stag_index|Write, STag index unknown|term=1/1/0x00 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_flush=4|w_stag_index
# Covers: DDP-ERR-11, DDP-SEC-3, DDP-SEC-8
w_foreign_pd|Write to another PD's region|term=1/1/0x02 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_flush=4|w_foreign_pd
# Covers: DDP-ERR-8, DDP-SEC-10
w_readonly|Write to a read-only region|term=0/1/0x02 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_flush=4|w_readonly
w_noremote|Write to a local-only region|term=0/1/0x02 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_flush=4|w_noremote
# Covers: DDP-ERR-9, DDP-SEC-9
w_past_end|Write running 54 octets past the end|term=1/1/0x01 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR|w_past_end
w_before|Write starting 1 octet before the region|term=1/1/0x01 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR|w_before
w_big_region|Write 1 octet longer than the region|term=1/1/0x01 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR|w_big_region
# Covers: DDP-ERR-10
w_to_wrap|Write whose TO + length wraps 2^64|term=1/1/0x03 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR|w_to_wrap
rr_src_stag|Read Request, source STag invalid|term=0/1/0x00 hdrct=mdr echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_flush=4|rr_src_stag
rr_src_foreign|Read Request from another PD's region|term=0/1/0x03 hdrct=mdr echo=1 seglen=1 $T|$C async=ACCESS_ERR|rr_src_foreign
rr_src_noread|Read Request from a region without remote read|term=0/1/0x02 hdrct=mdr echo=1 seglen=1 $T|$C async=ACCESS_ERR|rr_src_noread
rr_src_bounds|Read Request 1 octet beyond the source|term=0/1/0x01 hdrct=mdr echo=1 seglen=1 $T|$C async=ACCESS_ERR|rr_src_bounds
rr_src_wrap|Read Request whose source TO wraps|term=0/1/0x04 hdrct=mdr echo=1 seglen=1 $T|$C async=ACCESS_ERR|rr_src_wrap
# Covers: DDP-ERR-5
rr_long|Read Request message of 32 octets|term=1/2/0x05 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR|rr_long
rr_short|Read Request message of 20 octets|term=0/2/0xff hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR|rr_short
# Covers: DDP-ERR-3
rr_over_ird|IRD + 1 Read Requests at once|term=1/2/0x02 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR|rr_over_ird
# Covers: DDP-ERR-6, DDP-UT-4
send_msn|Send with MSN 7 first|term=1/2/0x03 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_err=LOC_QP_OP wc_flush=3|send_msn
send_msn0|Send with MSN 0 first|term=1/2/0x03 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_err=LOC_QP_OP wc_flush=3|send_msn0
# Covers: DDP-ERR-2
send_qn|Send on QN 3|term=1/2/0x01 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_err=none wc_flush=4|send_qn
send_qn_big|Send on QN 0xffffffff|term=1/2/0x01 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_flush=4|send_qn_big
# Covers: DDP-ERR-4, DDP-UT-5
send_mo|Send starting at MO 4|term=1/2/0x04 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_err=LOC_LEN wc_flush=3|send_mo
# Covers: DDP-ERR-3
send_norecv|Send with no receive posted|term=1/2/0x02 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_ok=0 wc_flush=0 wc_err=none|send_norecv recv=0
# Covers: DDP-ERR-5, DDP-UT-7
send_toolong|Send 1 octet longer than the receive buffer|term=1/2/0x05 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_err=LOC_LEN wc_flush=3|send_toolong
send_inv_bad|Send with Invalidate of a region no peer may invalidate|term=0/1/0x09 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_err=REM_INV_REQ wc_flush=3|send_inv_bad
# Two-segment messages, the second segment breaking continuity
# Covers: DDP-ERR-4
seg_mo_gap|Send, second segment at the wrong MO|term=1/2/0x04 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_err=LOC_LEN wc_flush=3|seg_mo_gap
seg_op_change|Send, second segment with another opcode|term=0/2/0x06 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_err=LOC_QP_OP wc_flush=3|seg_op_change
# Covers: DDP-ERR-6, DDP-UT-4
seg_msn_next|a new Send before the first one's last segment|term=1/2/0x03 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_err=LOC_QP_OP wc_flush=3|seg_msn_next
# Covers: DDP-TG-3
seg_stag_change|Write, second segment with another STag|term=1/1/0x00 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_flush=4|seg_stag_change
# Covers: DDP-TG-5
seg_to_gap|Write, second segment at a TO with a gap|term=1/1/0x01 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_flush=4|seg_to_gap
# (placement stops at the failing segment, not one octet of it lands,
# later FPDUs are dropped, the Terminate echoes its DDP header and length,
# the consumer gets the error)
# Covers: DDP-ERR-12
seg_past_end|Write, second segment running past the region's end|term=1/1/0x01 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_ok=0 wc_flush=4 wc_err=none|seg_past_end
# Covers: DDP-CF-7
ddp_v2_tagged|tagged segment with DDP version 2|term=1/1/0x04 hdrct=- $T|$C async=REQ_ERR wc_flush=4|ddp_v2_tagged
# (DDP version 0 under RDMAP version 1: no mixing of versions)
# Covers: MPA-IOP-4
ddp_v0_untagged|untagged segment with DDP version 0|term=1/2/0x06 hdrct=- $T|$C async=REQ_ERR wc_flush=4|ddp_v0_untagged
rdmap_v2|Send with RDMAP version 2|term=0/2/0x05 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR|rdmap_v2
rdmap_op9|tagged opcode 9|term=0/2/0x06 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR|rdmap_op9
rdmap_write_untagged|an untagged RDMA Write|term=0/2/0x06 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR|rdmap_write_untagged
rdmap_send_qn1|a Send on the Read Request queue|term=0/2/0x06 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR|rdmap_send_qn1
rresp_unsolicited|a Read Response nobody asked for|term=0/2/0x06 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR|rresp_unsolicited
# Covers: MPA-FR-7
trunc_tagged|ULPDU of 10 octets, tagged|term=1/0/0x00 hdrct=- $T|$C async=FATAL wc_flush=4|trunc_tagged
trunc_untagged|ULPDU of 17 octets, untagged|term=1/0/0x00 hdrct=- $T|$C async=FATAL|trunc_untagged
ulpdu_zero|ULPDU_Length 0|term=1/0/0x00 hdrct=- $T|$C async=FATAL|ulpdu_zero
# Covers: MPA-CRC-12, MPA-CRC-13, MPA-ERR-4, MPA-ERR-5, MPA-RX-1
# (nothing of the bad FPDU lands: RFC 5044 section 6)
# (reported with a Terminate, never dropped silently)
# Covers: MPA-ERR-6
# (an LLP fatal error: the consumer gets the QP fatal event and all four
# receives flush with the flush status, none with another; exactly one
# Terminate goes out, with the MPA code)
# Covers: DDP-ST-6, DDP-ST-7, DDP-ERR-1
bad_crc|Write with a bad CRC|term=2/0/0x02 hdrct=- $T|$C async=FATAL wc_ok=0 wc_flush=4 wc_err=none|bad_crc
# (The bad Send never reaches DDP, so it takes no receive WR: all four
# are flushed, none completes with an error, nothing lands in them.)
bad_crc_send|Send with a bad CRC|term=2/0/0x02 hdrct=- $T|$C async=FATAL wc_ok=0 wc_err=none wc_flush=4|bad_crc_send
# Covers: MPA-IF-5
big_ulpdu|a 4014-octet ULPDU, beyond MULPDU: accepted|term=none end=fin fpdu_ok=1|established=1 disconnected=1 async=none|big_ulpdu
# Covers: MPA-FR-5
pad_ff|PAD octets 0xff: ignored|term=none end=fin|established=1 disconnected=1 async=none|pad_ff
# Covers: MPA-AL-3, MPA-FR-8, MPA-RX-4
split|a Write and a Send, one octet per segment|term=none end=fin|established=1 disconnected=1 async=none wc_ok=1|split
# Covers: MPA-TD-2, DDP-ST-4, DDP-LLP-9
half_fin|half an FPDU, then a FIN|term=none end=fin|established=1 disconnected=1 async=none wc_ok=0 wc_flush=4|half_fin
# A Terminate received closes abortively: no Terminate back, a RST
peer_term|the peer terminates: no Terminate back, a RST|term=none end=rst|established=1 disconnected=1 async=ACCESS_ERR wc_ok=0 wc_flush=4|peer_term
EOF
hostile_cases a /tmp/cases1

diag "--- kiw as responder: markers both ways"
check "kiw_b asks for markers" mpa_set kiw_b markers 1
cat > /tmp/cases2 <<EOF
# Covers: MPA-MCR-3, MPA-MK-4, MPA-MK-12, MPA-IF-9
mk_good|valid Write, Send and Read with markers both ways|term=none end=fin rresp=ok fpdu_ok=1|established=1 disconnected=1 wc_err=none|good m=1
# Covers: MPA-ERR-2
mk_ptr|a marker 4 octets off|term=2/0/0x03 hdrct=- $T|$C async=FATAL|mk_ptr m=1
# Covers: MPA-MK-2, MPA-MK-3
mk_lowbits|FPDUPTR low bits and RESERVED set: ignored|term=none end=fin fpdu_ok=1|established=1 disconnected=1 async=none|mk_lowbits m=1
mk_stag|Write with a bad STag, markers both ways|term=1/1/0x00 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR|w_stag_key m=1
mk_split|one octet per segment, markers both ways|term=none end=fin|established=1 disconnected=1 async=none wc_ok=1|split m=1
EOF
hostile_cases a /tmp/cases2
check "kiw_b: no markers, no CRC" sh -c \
	"echo 0 > /sys/class/infiniband/kiw_b/mpa/markers &&
	 echo off > /sys/class/infiniband/kiw_b/mpa/crc"
cat > /tmp/cases3 <<EOF
# Covers: MPA-MCR-6, MPA-CRC-7
crc_ignored|C=0 both ways: a wrong CRC is not checked|term=none end=fin|established=1 disconnected=1 async=none|crc_ignored crc=0
nocrc_stag|C=0 both ways, Write with a bad STag|term=1/1/0x00 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR|w_stag_key crc=0
EOF
hostile_cases a /tmp/cases3
check "kiw_b: CRC on again" mpa_set kiw_b crc on

diag "--- kiw as initiator against a raw responder"
cat > /tmp/cases4 <<EOF
# Covers: MPA-SEC-4
garbage|garbage right behind the Reply|term=2/0/0x02 hdrct=- $T|$C async=FATAL||garbage
rresp_good|valid Read Response|term=none end=fin rreq=ok|established=1 disconnected=1 wc_ok=1 wc_err=none|-R 64|rresp_good
rresp_stag|Read Response to the wrong STag|term=1/1/0x00 hdrct=md echo=1 seglen=1 rreq=ok $T|$C async=ACCESS_ERR wc_err=LOC_PROT|-R 64|rresp_stag
rresp_long|Read Response longer than asked|term=1/1/0x01 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_err=LOC_PROT|-R 64|rresp_long
rresp_to|Read Response at the wrong TO|term=1/1/0x01 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR wc_err=LOC_PROT|-R 64|rresp_to
init_w_stag|Write with a bad STag to the initiator|term=1/1/0x00 hdrct=md echo=1 seglen=1 $T|$C async=ACCESS_ERR||init_w_stag
init_send_msn|Send with MSN 9 to the initiator|term=1/2/0x03 hdrct=md echo=1 seglen=1 $T|$C async=REQ_ERR wc_err=LOC_QP_OP||init_send_msn
EOF
initiator_cases /tmp/cases4

check "the well-behaved connection ends cleanly" iwt_ping_stop
check_output "it moved messages all along, none bad" \
	'^DONE case=ping established=1 .*wc_err=none .* ping_bad=0' \
	cat "$IWT_PING_OUT"
diag "$(grep '^DONE case=ping' "$IWT_PING_OUT")"
pings=$(sed -n 's/.* ping_ok=\([0-9]*\).*/\1/p' "$IWT_PING_OUT")
check "more than 20 echoes" test "${pings:-0}" -gt 20
# The consumer lets go of kiw_b first (unregistering waits for it).
kill "$IWT_SRV_PID" 2>/dev/null
wait "$IWT_SRV_PID" 2>/dev/null
check "rdma link delete kiw_a" rdma link delete kiw_a
check "rdma link delete kiw_b" rdma link delete kiw_b
check "rmmod kiw: nothing left behind" kiw_unload
tap_done
