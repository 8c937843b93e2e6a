#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=900
#
# cm_hostile: raw MPA peers (scripts/guest/mpa_peer.py) against kiw's
# connection manager, as responder and as initiator. Every malformed or
# hostile startup gets the RFC's answer, seen from the peer (a RST at once
# for a malformed frame, code 4; a reject Reply and a FIN for a refused
# one; a RST at the startup timeout for a silent or partial one) and from
# the consumer (no CONNECT_REQUEST for what never was a valid Request; the
# right rdma_cm event on the initiator). 1000 silent connections do not
# keep a well-behaved one out, and the device keeps serving throughout.
#
# Then Full Operation against the raw peer, which frames, checks and
# parses every FPDU itself (markers both ways, CRC on and off): what kiw
# must take (PAD and marker Reserved octets, FPDUPTR low bits, one octet
# per segment, packed FPDUs, an FPDU in the Reply's segment, an MSS of 88)
# and the RFC 5044 section 8 errors (a CRC mismatch, a marker that
# disagrees with ULPDU_Length, a ULPDU_Length above 64768, a missing RTR):
# delivery stops, exactly one Terminate with the LLP codes goes out, then
# a FIN, and the consumer sees the error (a failed completion, a QP fatal
# event, DISCONNECTED). kiw's FPDUs follow the EMSS when the MTU changes
# mid-connection; the responder sends nothing before the initiator's first
# FPDU; peer-to-peer RTR as initiator and as responder. As initiator,
# kiw refuses a valid Reply it cannot take (the responder's ORD above its
# IRD, an RTR type it did not offer) with RFC 6581's Terminate (2/0/6,
# 2/0/7) as the stream's only FPDU, then a FIN.
# Guest time: 313 s and 491 s on the debug kernel (2026-11-21, a shared
# 2-core host with a load of 2 to 3; 686 s with a load of 4), with 300
# half-open connections; 1000 add about 25 s (506 s, load 3 to 4);
# timeout=900 is about three times the first.
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"

PEER="/usr/bin/python3 -S $KIW_TOP/scripts/guest/mpa_peer.py"
SRV=10.77.0.2 LPORT=7100 RPORT=7200
# Startup timeout: long enough for a slow guest's consumer to accept,
# short enough to tell a close at the timeout from an immediate one.
TMO_MS=2500
NOW=1.5			# an immediate close: well before the timeout
TMO="2.3|8"		# a close at the timeout

# peer_section OUT NAME: the lines of case NAME in a batch's output.
peer_section() {
	sed -n "/^CASE $2\$/,/^CASE /p" "$1"
}

peer_result() {
	peer_section "$1" "$2" | grep '^RESULT'
}

# peer_has "desc" "k=v..." RESULT: every k=v is in RESULT.
peer_has() {
	local desc=$1 want=$2 res=$3 kv
	for kv in $want; do
		if ! grep -qw -- "$kv" <<<"$res"; then
			not_ok "$desc"
			diag "want $kv" "got: ${res:-nothing}"
			return 1
		fi
	done
}

# peer_batch NS FILE: play FILE's cases, "NAME|DESC|WANT|MIN|MAX|ARGS" per
# line, with one mpa_peer process in NS (Python starts slowly under TCG);
# each RESULT must hold every k=v of WANT and end within MIN..MAX s.
peer_batch() {
	local ns=$1 cases=$2 out=/tmp/peer_batch.out
	local name desc want min max args res after
	while IFS='|' read -r name desc want min max args; do
		echo "$name $args"
	done < "$cases" | ip netns exec "$ns" $PEER batch > "$out" 2>&1
	while IFS='|' read -r name desc want min max args; do
		res=$(peer_result "$out" "$name")
		peer_has "$desc" "$want" "$res" || continue
		after=$(sed -n 's/.* after=\([0-9.]*\).*/\1/p' <<<"$res")
		if awk -v a="$after" -v lo="$min" -v hi="$max" \
			'BEGIN { exit !(a >= lo && a <= hi) }'; then
			ok "$desc"
		else
			not_ok "$desc"
			diag "ended after ${after}s, expected ${min}-${max}s" "$res"
		fi
	done < "$cases"
}

# lines_ge N PATTERN FILE: FILE has N lines matching PATTERN, or more (a
# function, so that wait_for looks again each time).
lines_ge() {
	[ "$(grep -c -- "$2" "$3")" -ge "$1" ]
}

# responder_cases FILE: raw responders in netns b, "NAME|DESC|WANT|CLIENT
# ARGS|PEER ARGS" per line. For each, kiw_a's cm_tool connects to the
# responder, whose RESULT must hold WANT; the client's output is kept in
# /tmp/resp.NAME, the peer's in /tmp/peer_resp.out.
responder_cases() {
	local cases=$1 out=/tmp/peer_resp.out name desc want cargs pargs n=0
	local pid
	while IFS='|' read -r name desc want cargs pargs; do
		echo "$name respond $SRV $RPORT $pargs"
	done < "$cases" > /tmp/resp.batch
	in_b $PEER batch < /tmp/resp.batch > "$out" 2>&1 &
	pid=$!
	while IFS='|' read -r name desc want cargs pargs; do
		n=$((n + 1))
		wait_for 120 lines_ge "$n" LISTENING "$out"
		# shellcheck disable=SC2086
		cm_client a -a $SRV -p $RPORT -t 30 $cargs
		cp "$CM_CLI_OUT" "/tmp/resp.$name"
		wait_for 60 lines_ge "$n" '^RESULT' "$out"
	done < "$cases"
	wait "$pid"
	while IFS='|' read -r name desc want cargs pargs; do
		peer_has "$desc" "$want" "$(peer_result "$out" "$name")" &&
			ok "$desc: the peer saw $want"
	done < "$cases"
}

# fo_cases FILE: Full Operation against kiw_b, "NAME|DESC|SERVER ARGS|
# SERVER WANT|PEER WANT|PEER ARGS" per line. Each case gets its own
# cm_tool server (port FOPORT + n, one connection), all listening before
# one mpa_peer process plays the raw initiators; then each server's RESULT
# must hold SERVER WANT and the peer's PEER WANT. The servers' deadline
# covers starting them all and the peer's whole batch on a busy host (the
# peer plays the last case minutes after the first server started); once
# the peer is done, each server has 30 s to end.
FOPORT=7300
fo_cases() {
	local cases=$1 out=/tmp/fo.out n=0 name desc sargs swant pwant pargs
	local keep_pid=$CM_SRV_PID keep_out=$CM_SRV_OUT
	local -A pid srv
	: > /tmp/fo.batch
	while IFS='|' read -r name desc sargs swant pwant pargs; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		cm_server b -b $SRV -p $((FOPORT + n)) -n 1 -t 600 $sargs ||
			not_ok "$desc: server $sargs"
		pid[$name]=$CM_SRV_PID srv[$name]=$CM_SRV_OUT
		echo "$name initiate $SRV $((FOPORT + n)) $pargs" >> /tmp/fo.batch
	done < "$cases"
	in_a $PEER batch < /tmp/fo.batch > "$out" 2>&1
	while IFS='|' read -r name desc sargs swant pwant pargs; do
		cm_server_end "${pid[$name]}" "${srv[$name]}" 30
		: > /tmp/fo.why
		# shellcheck disable=SC2086
		if peer_has "$desc: the peer" "$pwant" \
			"$(peer_result "$out" "$name")" &&
		   cm_expect "${srv[$name]}" $swant dup=0 > /tmp/fo.why 2>&1; then
			ok "$desc"
		elif [ -s /tmp/fo.why ]; then
			not_ok "$desc: the consumer"
			diag "$(cat /tmp/fo.why)"
		fi
	done < "$cases"
	CM_SRV_PID=$keep_pid CM_SRV_OUT=$keep_out
}

cm_setup
check "startup timeout ${TMO_MS} ms on both devices" \
	sh -c "echo $TMO_MS > /sys/class/infiniband/kiw_a/mpa/timeout_ms &&
	       echo $TMO_MS > /sys/class/infiniband/kiw_b/mpa/timeout_ms"
# The consumer behind kiw_b: exactly the well-formed Requests reach it.
# It must listen until the flood section, however slow the host: its
# deadline is far, and the test stops waiting for it after the last
# client (cm_server_end).
check_here "rdma_cm server on kiw_b" \
	cm_server b -b $SRV -p $LPORT -n 6 -B 128 -t 3600

cm_section "kiw as responder: malformed, silent, partial, odd, refused Requests"
# Covers: MPA-SU-7, MPA-SU-8, MPA-SU-13, MPA-RR-3, MPA-REV-2, MPA-PD-3
# Covers: MPA-PD-4, MPA-PD-5, MPA-ERR-3, MPA-TMO-1, MPA-TMO-2, MPA-SEC-6
# Covers: MPA-MCR-7, MPA-MCR-9, MPA-CRC-2, MPA-SU-3, MPA-SU-9
cat > /tmp/cases1 <<EOF
key_bad|key with octet 0 changed: RST, nothing sent|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --key bad
key_lower|key in lower case: RST, nothing sent|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --key lower
key_rep|a Reply where the Request belongs: RST|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --key rep
rev0|Rev 0 (RDMA Consortium): RST|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --rev 0
rev3|Rev 3: RST|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --rev 3
rev255|Rev 255: RST|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --rev 255
pd65535|PD_Length 65535, no PD sent: RST|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --pd-len 65535
pd513|PD_Length 513: RST|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --pd 513
pd300|PD_Length 300, more than iw_cm carries: RST|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --pd 300
v2short|Rev 2 with S and a 2-octet PD: RST|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --rev 2 --res 16 --pd 2
extra|octets after the Request, before the Reply: RST|end=rst rx=0|0|$NOW|initiate $SRV $LPORT --extra 8
silent|silent connection: RST at the timeout|end=rst rx=0|$TMO|initiate $SRV $LPORT --truncate 0 --wait 10
hdr10|10 octets of a header, then silence: RST at the timeout|end=rst rx=0|$TMO|initiate $SRV $LPORT --truncate 10 --wait 10
halfpd|header and half its PD, then silence: RST at the timeout|end=rst rx=0|$TMO|initiate $SRV $LPORT --pd 16 --truncate 28 --wait 10
drip|one octet every 0.2 s: the deadline covers the whole frame|end=rst rx=0|$TMO|initiate $SRV $LPORT --drip 0.2 --wait 10
resbits|R and all Res set in a Rev 1 Request: accepted, Res 0 back|end=open frame=rep r=0 s=0 res=0 rev=1 c=1 m=0 pd_len=0|0.9|3|initiate $SRV $LPORT --res 31 -R --wait 1
markers|M=1: accepted (kiw inserts markers), its own M=0|end=open frame=rep r=0 m=0 rev=1|0.9|3|initiate $SRV $LPORT -M --wait 1
p2p_write|Rev 2 peer-to-peer offering Write: A echoed, Write picked, IRD raised|end=open frame=rep r=0 s=1 rev=2 p2p=1 rtr=2 ird=5 ord=1|0.9|3|initiate $SRV $LPORT --rev 2 --v2 3,5,1,2 --wait 1
p2p_send|Rev 2 peer-to-peer offering Send only: a reject Reply, then FIN|end=fin rx=24 frame=rep r=1 rev=2 pd_len=4|0|$NOW|initiate $SRV $LPORT --rev 2 --v2 1,1,1,1
EOF
peer_batch a /tmp/cases1

check "kiw_b requires CRC" mpa_set kiw_b crc required
# Covers: MPA-REJ-1, MPA-REJ-3
cat > /tmp/cases2 <<EOF
crc_off|crc=required, Request C=0: a reject Reply, then FIN|end=fin rx=20 frame=rep r=1 c=1 rev=1 pd_len=0|0|$NOW|initiate $SRV $LPORT
crc_on|crc=required, Request C=1: accepted|end=open frame=rep r=0 c=1|0.9|3|initiate $SRV $LPORT -C --wait 1
EOF
peer_batch a /tmp/cases2
check "kiw_b back to crc=on" mpa_set kiw_b crc on

cm_section "Full Operation: framing kiw takes, and RFC 5044 section 8 errors"
# Messages of 601 octets: one FPDU each (MULPDU 1442), 621 octets of
# ULPDU (3 octets of PAD), long enough to hold a marker wherever it starts.
# kiw_b asks for markers: the peer inserts them; -M: kiw inserts them too.
check "kiw_b asks for markers" mpa_set kiw_b markers 1
# Client-server mode: the responder holds its FPDUs for a client-server
# initiator too (RFC 5044 7.1.2 (4), the "hold" case), as without p2p.
check "kiw_b: no peer-to-peer" mpa_set kiw_b p2p 0
M="-D -m 2 -s 601 -c s"	# the server closes once all went well
G="requests=1 established=1 disconnected=1"
# An error: the message before it is delivered, the one after it not;
# kiw sends one Terminate (layer 2 LLP, type 0 MPA, the RFC 5044 section 8
# code), nothing after it, then closes (FIN); the consumer sees the error.
E="end=fin rx_msgs=1 terms=1 after_term=0 crc_bad=0 mk_bad=0"
# good:   Covers: MPA-MCR-3, MPA-MCR-4, MPA-MK-4, MPA-MK-5, MPA-MK-6
#         Covers: MPA-MK-12, MPA-SU-4, MPA-SU-14, MPA-CRC-11, MPA-IF-1
#         Covers: MPA-IF-8, MPA-FR-1
# odd:    Covers: MPA-FR-5, MPA-MK-2, MPA-MK-3, MPA-FR-8, MPA-RX-4
# packed: Covers: MPA-AL-2, MPA-AL-3
# crc:    Covers: MPA-CRC-12, MPA-CRC-13, MPA-ERR-1, MPA-ERR-4, MPA-ERR-5, MPA-ERR-6
#         Covers: MPA-ERR-7
# ptr:    Covers: MPA-ERR-2
# len:    Covers: MPA-FR-7, MPA-SEC-4
# hold:   Covers: MPA-SU-12
cat > /tmp/fo1 <<EOF
good|markers both ways, CRC: two messages each way, every FPDU checked|$M|$G msgs=2 data_ok=1|end=fin rx_msgs=2 rx_bad=0 crc_bad=0 mk_bad=0 terms=0|--size 601 -C -M --fo send --fo recv --fo send --fo recv
odd|PAD 0xff, marker Reserved 0xffff and FPDUPTR low bits set, one octet per segment: taken|$M|$G msgs=2 data_ok=1|end=fin rx_msgs=2 terms=0|--size 601 -C --fo send+pad+mkres+ptrlow --fo recv --fo send+split --fo recv
packed|two FPDUs in one segment: both taken|$M|$G msgs=2 data_ok=1|end=fin rx_msgs=2 terms=0|--size 601 -C --fo pack:2 --fo recv:2
crc|a CRC mismatch: Terminate 2/0/2|$M|$G msgs=1 data_ok=0 data_fail=1 async=1|$E term=2/0/2|--size 601 -C -M --fo send --fo recv --fo send+crc --fo send
ptr|a marker whose FPDUPTR disagrees with ULPDU_Length (good CRC): Terminate 2/0/3|$M|$G msgs=1 data_ok=0 data_fail=1 async=1|$E term=2/0/3|--size 601 -C --fo send --fo recv --fo send+ptr --fo send
len|ULPDU_Length 65535, above any MULPDU: Terminate 2/0/3|$M|$G msgs=1 data_ok=0 data_fail=1 async=1|$E term=2/0/3|--size 601 -C --fo send --fo recv --fo len:65535 --fo send
hold|the responder sends nothing before the initiator's first FPDU|-D -m 1 -s 601 -e -c s|$G msgs=1 data_ok=1|end=fin early=0 rx_msgs=1 terms=0|--size 601 -C --fo sleep:1 --fo send --fo recv
p2p|Rev 2 peer-to-peer: the Write RTR first, then messages|$M|$G msgs=2 data_ok=1|end=fin rx_msgs=2 terms=0|--size 601 -C --rev 2 --v2 1,1,1,2 --fo rtr --fo send --fo recv --fo send --fo recv
nortr|Rev 2 peer-to-peer without the RTR: Terminate 2/0/7|$M|$G msgs=0 data_ok=0 data_fail=1 async=1|end=fin rx_msgs=0 terms=1 term=2/0/7|--size 601 -C --rev 2 --v2 1,1,1,2 --fo send
EOF
fo_cases /tmp/fo1
check "kiw_b: crc=off, no markers" sh -c 'echo off > /sys/class/infiniband/kiw_b/mpa/crc &&
	echo 0 > /sys/class/infiniband/kiw_b/mpa/markers'
# nocrc:  Covers: MPA-MCR-6, MPA-CRC-7, MPA-FR-6
# mtu:    Covers: MPA-IF-2, MPA-SZ-4, MPA-SZ-5, DDP-LLP-1
cat > /tmp/fo2 <<EOF
nocrc|C=0 both ways: a CRC field of 0xdeadbeef is not checked|$M|$G msgs=2 data_ok=1|end=fin rx_msgs=2 terms=0|--size 601 --fo send+junk --fo recv --fo send+junk --fo recv
mtu|MTU 1500 then 1000: kiw's FPDUs follow the EMSS (MULPDU 1442, then 942)|-D -m 3 -s 4000 -c s|$G msgs=3 data_ok=1|end=fin rx_msgs=3 terms=0 max_ulpdu=1442,942|--size 4000 --fo send --fo recv --fo mtu:b:veth-b:1000 --fo mtu:a:veth-a:1000 --fo send --fo recv --fo phase --fo send --fo recv
EOF
fo_cases /tmp/fo2
check "MTU 1500 again, kiw_b back to crc=on" sh -c '
	ip -n a link set veth-a mtu 1500 && ip -n b link set veth-b mtu 1500 &&
	echo on > /sys/class/infiniband/kiw_b/mpa/crc'

# 1000 are far more than the listener lets wait (256 for a backlog of
# 128): the oldest are closed to make room.
FLOOD=1000
cm_section "$FLOOD half-open connections, and a well-behaved one among them"
# The client's own SYN may wait behind the flood: give kiw_a's side time.
check "kiw_a: startup timeout 10 s" mpa_set kiw_a timeout_ms 10000
in_a $PEER flood $SRV $LPORT -n $FLOOD --wait 30 > /tmp/flood.out 2>&1 &
flood=$!
check "the flood is open" wait_for 120 grep -q OPENED /tmp/flood.out
cm_client a -a $SRV -p $LPORT -t 30
check "a well-behaved client still connects" \
	cm_expect "$CM_CLI_OUT" established=1 disconnected=1 pd_bad=0 dup=0
wait "$flood"
check_output "kiw closed all $FLOOD silent connections" \
	"^RESULT opened=$FLOOD .* open=0\$" cat /tmp/flood.out
diag "$(cat /tmp/flood.out)"

cm_client a -a $SRV -p $LPORT -t 20
check "the device still serves" \
	cm_expect "$CM_CLI_OUT" established=1 disconnected=1 pd_bad=0 dup=0
cm_server_end "$CM_SRV_PID" "$CM_SRV_OUT" 60
CM_SRV_PID=
# Covers: MPA-SEC-6
check "the consumer saw exactly the 6 valid Requests, each once" \
	cm_expect "$CM_SRV_OUT" requests=6 established=6 disconnected=6 dup=0

cm_section "kiw as initiator against a raw responder"
check "kiw_a: startup timeout ${TMO_MS} ms" mpa_set kiw_a timeout_ms $TMO_MS
# The raw responder answers client-server mode (no A): kiw_a asks none.
check "kiw_a: no peer-to-peer" mpa_set kiw_a p2p 0
cat > /tmp/cases3 <<EOF
initinit|Initiator/Initiator (a Request back): RST|end=rst||--key req
badkey|Reply with a bad key: RST|end=rst||--key bad
pdmax|Reply PD_Length 65535: RST|end=rst||--pd-len 65535
reject|reject Reply with 20 octets: FIN|end=fin|-d 20|-R --pd 20 --rev 2 --v2 1,1
silent|silent responder: RST at the timeout|end=rst||--silent --wait 8
good|valid Rev 2 Reply with 20 octets: FIN on disconnect|end=fin|-d 20|--pd 20 --rev 2 --v2 1,1 --wait 3
vanish|a peer that vanishes during the close: FIN, then RST at the timeout|end=fin then=rst||--wait 10 --linger 10
glue|an FPDU in the Reply's segment, then another: both delivered|end=fin rx_msgs=2 crc_bad=0 terms=0|-D -m 2 -s 601|-C --size 601 --glue --fo send --fo recv:2 --fo send
crcr|a CRC mismatch from the responder: Terminate 2/0/2, FIN|end=fin rx_msgs=2 terms=1 term=2/0/2 after_term=0|-D -m 2 -s 601|-C --size 601 --fo recv:2 --fo send+crc
garbage|octets of garbage right behind the Reply: Terminate 2/0/3, FIN|end=fin terms=1 term=2/0/3 after_term=0|-D|-C --glue --fo junk:64
mss|MSS 88 (EMSS 76): MULPDU stays 128, FPDUs span segments|end=fin rx_msgs=1 crc_bad=0 max_ulpdu=128|-D -s 4000|--mss 88 -C --size 4000 --fo recv --fo send
ird|a Reply whose ORD (4) exceeds kiw's IRD (1): Terminate 2/0/6 as the only FPDU, then FIN|end=fin fpdus=1 first=term terms=1 term=2/0/6 after_term=0 crc_bad=0 mk_bad=0 rx_bad=0||-C --rev 2 --v2 1,4 --fo sleep:0
irdmk|the same with M=1: the Terminate carries kiw's markers, the first at offset 0|end=fin fpdus=1 first=term terms=1 term=2/0/6 after_term=0 crc_bad=0 mk_bad=0 rx_bad=0||-M -C --rev 2 --v2 1,4 --fo sleep:0
EOF
responder_cases /tmp/cases3
# Covers: MPA-SU-15, MPA-SU-17, MPA-SU-10, MPA-RR-5, MPA-PD-3, MPA-TMO-2
check "Initiator/Initiator: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.initinit error=1 dup=0
# Covers: MPA-SU-6, MPA-RR-2, MPA-CRC-2, MPA-SU-5
check_output "kiw's Request: key, C=1, Rev 2, S, IRD/ORD 1/1" \
	'^REQUEST .*frame=req m=0 c=1 r=0 s=1 res=0 rev=2 pd_len=4 ird=1 ord=1' \
	peer_section /tmp/peer_resp.out initinit
check "bad key: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.badkey error=1
check "PD_Length 65535: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.pdmax error=1
# Covers: MPA-REJ-2, MPA-PD-6
check "reject: the client got REJECTED with the peer's private data" \
	cm_expect /tmp/resp.reject rejected=1 pd_bad=0
check "silent: the client got UNREACHABLE" \
	cm_expect /tmp/resp.silent unreachable=1
# Covers: MPA-SU-11, MPA-PD-6
check "valid Reply: the client got ESTABLISHED with the private data" \
	cm_expect /tmp/resp.good established=1 pd_bad=0 disconnected=1 dup=0
check_output "kiw's Request carried 20 octets after the IRD/ORD word" \
	'^REQUEST .* pd_len=24 .*pd_ok=1' peer_section /tmp/peer_resp.out good
check "vanishing peer: the client still got its DISCONNECTED" \
	cm_expect /tmp/resp.vanish established=1 disconnected=1 dup=0
# Covers: MPA-SU-1, DDP-ST-1
check "an FPDU in the Reply's segment: the consumer got both messages" \
	cm_expect /tmp/resp.glue established=1 data_ok=1 msgs=2 disconnected=1
# Covers: MPA-CRC-12, MPA-ERR-1, MPA-ERR-5
check "a CRC mismatch: the initiator's consumer sees the error" \
	cm_expect /tmp/resp.crcr established=1 data_ok=0 data_fail=1 async=1 \
	disconnected=1 dup=0
# Covers: MPA-SEC-4
check "garbage after the Reply: the initiator's consumer sees the error" \
	cm_expect /tmp/resp.garbage established=1 data_ok=0 data_fail=1 async=1 \
	disconnected=1 dup=0
# Covers: MPA-SZ-6, MPA-SEC-5
check "MSS 88: the message still arrives, in 128-octet FPDUs" \
	cm_expect /tmp/resp.mss established=1 data_ok=1 msgs=1
check "insufficient IRD: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.ird error=1 established=0 dup=0
check "insufficient IRD, markers: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.irdmk error=1 established=0 dup=0
check "kiw_a asks for peer-to-peer" mpa_set kiw_a p2p 1
cat > /tmp/cases6 <<EOF
p2pi|Rev 2 peer-to-peer: kiw's first FPDU is the zero-length Write RTR|end=fin first=write0 rx_msgs=1 terms=0|-D -s 601|-C --size 601 --rev 2 --v2 1,1,1,2 --fo recv --fo send
p2pbad|a Reply picking a Send RTR kiw did not offer: Terminate 2/0/7 as the only FPDU, then FIN|end=fin fpdus=1 first=term terms=1 term=2/0/7 after_term=0 crc_bad=0 rx_bad=0||-C --rev 2 --v2 1,1,1,1 --fo sleep:0
EOF
responder_cases /tmp/cases6
check "peer-to-peer: the initiator's consumer moved its message" \
	cm_expect /tmp/resp.p2pi established=1 data_ok=1 msgs=1
check "no matching RTR: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.p2pbad error=1 established=0 dup=0
check "kiw_a: no peer-to-peer" mpa_set kiw_a p2p 0
check "kiw_a speaks Rev 1" mpa_set kiw_a rev 1
cat > /tmp/cases4 <<EOF
rev2rep|Rev 2 Reply to a Rev 1 Request: RST|end=rst||--rev 2 --v2 1,1
EOF
responder_cases /tmp/cases4
# Covers: MPA-REV-2
check "Rev 2 Reply to Rev 1: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.rev2rep error=1
cm_client a -a $SRV -p 7999 -t 10
check "no listener at all: REJECTED" cm_expect "$CM_CLI_OUT" rejected=1

check "rdma link delete kiw_a" rdma link delete kiw_a
check "rdma link delete kiw_b" rdma link delete kiw_b
check "rmmod kiw: nothing left behind" kiw_unload
cm_section "done"
tap_done
