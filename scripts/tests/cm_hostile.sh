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

# lines_ge FILE REGEX N: FILE has at least N lines matching. For wait_for:
# "wait_for test \"$(grep -c ...)\"" would count once, before waiting.
lines_ge() {
	[ "$(grep -c "$2" "$1")" -ge "$3" ]
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
		wait_for 300 lines_ge "$out" LISTENING "$n"
		# shellcheck disable=SC2086
		cm_client a -a $SRV -p $RPORT -t 30 $cargs
		cp "$CM_CLI_OUT" "/tmp/resp.$name"
		wait_for 60 lines_ge "$out" '^RESULT' "$n"
	done < "$cases"
	wait "$pid"
	while IFS='|' read -r name desc want cargs pargs; do
		peer_has "$desc" "$want" "$(peer_result "$out" "$name")" &&
			ok "$desc: the peer saw $want"
	done < "$cases"
}

cm_setup
check "startup timeout ${TMO_MS} ms on both devices" \
	sh -c "echo $TMO_MS > /sys/class/infiniband/kiw_a/mpa/timeout_ms &&
	       echo $TMO_MS > /sys/class/infiniband/kiw_b/mpa/timeout_ms"
# The consumer behind kiw_b: exactly the well-formed Requests reach it.
check_here "rdma_cm server on kiw_b" \
	cm_server b -b $SRV -p $LPORT -n 6 -B 128 -t 600

diag "--- kiw as responder: malformed, silent, partial, odd, refused Requests"
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
p2p_send|Rev 2 peer-to-peer offering Send only: a reject Reply, then FIN|end=fin frame=rep r=1 rev=2 pd_len=4|0|$NOW|initiate $SRV $LPORT --rev 2 --v2 1,1,1,1
EOF
peer_batch a /tmp/cases1

check "kiw_b requires CRC" mpa_set kiw_b crc required
cat > /tmp/cases2 <<EOF
crc_off|crc=required, Request C=0: a reject Reply, then FIN|end=fin frame=rep r=1 c=1 rev=1 pd_len=0|0|$NOW|initiate $SRV $LPORT
crc_on|crc=required, Request C=1: accepted|end=open frame=rep r=0 c=1|0.9|3|initiate $SRV $LPORT -C --wait 1
EOF
peer_batch a /tmp/cases2
check "kiw_b back to crc=on" mpa_set kiw_b crc on

diag "--- 1000 half-open connections, and a well-behaved one among them"
# The client's own SYN may wait behind the flood: give kiw_a's side time.
check "kiw_a: startup timeout 10 s" mpa_set kiw_a timeout_ms 10000
in_a $PEER flood $SRV $LPORT -n 1000 --wait 30 > /tmp/flood.out 2>&1 &
flood=$!
check "the flood is open" wait_for 120 grep -q OPENED /tmp/flood.out
cm_client a -a $SRV -p $LPORT -t 30
check "a well-behaved client still connects" \
	cm_expect "$CM_CLI_OUT" established=1 disconnected=1 pd_bad=0 dup=0
wait "$flood"
check_output "kiw closed all 1000 silent connections" \
	'^RESULT opened=1000 .* open=0$' cat /tmp/flood.out
diag "$(cat /tmp/flood.out)"

cm_client a -a $SRV -p $LPORT -t 20
check "the device still serves" \
	cm_expect "$CM_CLI_OUT" established=1 disconnected=1 pd_bad=0 dup=0
cm_server_wait
check "the consumer saw exactly the 6 valid Requests, each once" \
	cm_expect "$CM_SRV_OUT" requests=6 established=6 disconnected=6 dup=0

diag "--- kiw as initiator against a raw responder"
check "kiw_a: startup timeout ${TMO_MS} ms" mpa_set kiw_a timeout_ms $TMO_MS
cat > /tmp/cases3 <<EOF
initinit|Initiator/Initiator (a Request back): RST|end=rst||--key req
badkey|Reply with a bad key: RST|end=rst||--key bad
pdmax|Reply PD_Length 65535: RST|end=rst||--pd-len 65535
reject|reject Reply with 20 octets: FIN|end=fin|-d 20|-R --pd 20 --rev 2 --v2 1,1
silent|silent responder: RST at the timeout|end=rst||--silent --wait 8
good|valid Rev 2 Reply with 20 octets: FIN on disconnect|end=fin|-d 20|--pd 20 --rev 2 --v2 1,1 --wait 3
vanish|a peer that vanishes during the close: FIN, then RST at the timeout|end=fin then=rst||--wait 10 --linger 10
EOF
responder_cases /tmp/cases3
check "Initiator/Initiator: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.initinit error=1 dup=0
check_output "kiw's Request: key, C=1, Rev 2, S, IRD/ORD 1/1" \
	'^REQUEST .*frame=req m=0 c=1 r=0 s=1 res=0 rev=2 pd_len=4 ird=1 ord=1' \
	peer_section /tmp/peer_resp.out initinit
check "bad key: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.badkey error=1
check "PD_Length 65535: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.pdmax error=1
check "reject: the client got REJECTED with the peer's private data" \
	cm_expect /tmp/resp.reject rejected=1 pd_bad=0
check "silent: the client got UNREACHABLE" \
	cm_expect /tmp/resp.silent unreachable=1
check "valid Reply: the client got ESTABLISHED with the private data" \
	cm_expect /tmp/resp.good established=1 pd_bad=0 disconnected=1 dup=0
check_output "kiw's Request carried 20 octets after the IRD/ORD word" \
	'^REQUEST .* pd_len=24 .*pd_ok=1' peer_section /tmp/peer_resp.out good
check "vanishing peer: the client still got its DISCONNECTED" \
	cm_expect /tmp/resp.vanish established=1 disconnected=1 dup=0
check "kiw_a speaks Rev 1" mpa_set kiw_a rev 1
cat > /tmp/cases4 <<EOF
rev2rep|Rev 2 Reply to a Rev 1 Request: RST|end=rst||--rev 2 --v2 1,1
EOF
responder_cases /tmp/cases4
check "Rev 2 Reply to Rev 1: the client got CONNECT_ERROR" \
	cm_expect /tmp/resp.rev2rep error=1
cm_client a -a $SRV -p 7999 -t 10
check "no listener at all: REJECTED" cm_expect "$CM_CLI_OUT" rejected=1

check "rdma link delete kiw_a" rdma link delete kiw_a
check "rdma link delete kiw_b" rdma link delete kiw_b
check "rmmod kiw: nothing left behind" kiw_unload
tap_done
