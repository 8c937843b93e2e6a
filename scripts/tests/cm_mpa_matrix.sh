#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=630
#
# cm_mpa_matrix: kiw to kiw, combinations of the per-device MPA settings
# of the initiator (kiw_a) and the responder (kiw_b): CRC off, on or
# required on each side (9), markers asked by neither, by one or by both
# (4), revision 1 or 2 on each side (4). With KIW_LONG=1 all 144; by
# default a covering subset of 9: every CRC pair (both refusals among
# them), every marker pair, every revision pair. Each is established or
# refused as the truth table below says; when it is established both sides
# report the same negotiation (dynamic debug "full operation" lines), which
# must be the expected one, and three messages of 2000 octets go each way
# (two FPDUs each, so markers fall inside FPDUs and between them).
#
# Truth table (RFC 5044 7.1.1, RFC 6581, kiw_mpa.c):
#  - CRC is on when either side asks (off asks nothing; on and required
#    ask). required refuses a peer that does not ask: a responder with
#    crc=required answers a C=0 Request with a reject Reply (the client
#    gets REJECTED, the server never hears of it); an initiator with
#    crc=required refuses a C=0 Reply (the client gets REJECTED, status
#    ECONNREFUSED; the server had accepted and sees the connection end).
#  - Markers go per direction: each side receives markers if it asked,
#    and inserts them if the peer asked. kiw always honours a request.
#  - Revision: the Reply carries min(Request's, responder's); both sides
#    run that revision.
# Then, at revision 2: peer-to-peer mode asked by the initiator settles
# the zero-length Write RTR on both sides.
# Guest time: 162 s on the debug kernel by default (2026-11-21, shared
# 2-core host, 12 s a combination; 211 s with a load of 3 to 4); the
# timeout is three times the latter. KIW_LONG=1 (144 combinations, about
# 2800 s) needs a timeout of its own: KIW_LONG=1 scripts/vm.sh --kernel
# debug --script scripts/tests/cm_mpa_matrix.sh --timeout 5400.
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"

B4=10.77.0.2 PORT=7020

cm_setup
check "dynamic debug: the negotiation of each connection" sh -c \
	"echo 'module kiw format \"full operation\" +p' > /proc/dynamic_debug/control"
dmesg -C

# full_op DEV: the settings DEV's last connection settled on (dmesg).
full_op() {
	grep "$1: .*full operation" /tmp/matrix.dmesg | tail -n 1 |
		sed 's/.*full operation: //'
}

# combo CA CB MA MB RA RB: one connection with these settings on kiw_a
# (initiator) and kiw_b (responder), checked against the truth table.
# Returns 1 on a difference (and says why), 2 if it was refused as it
# should be.
combo() {
	local ca=$1 cb=$2 ma=$3 mb=$4 ra=$5 rb=$6 crc rev name want_a want_b
	local got_a got_b
	mpa_set kiw_a crc $ca; mpa_set kiw_a markers $ma; mpa_set kiw_a rev $ra
	mpa_set kiw_b crc $cb; mpa_set kiw_b markers $mb; mpa_set kiw_b rev $rb
	name="crc $ca/$cb markers $ma/$mb rev $ra/$rb"
	# The server handles one connection per run: fresh, easy to read.
	if ! cm_server b -b $B4 -p $PORT $DATA -t 30; then
		not_ok "$name: server"
		return 1
	fi
	cm_client a -a $B4 -p $PORT $DATA -t 30
	if [ "$cb" = required ] && [ "$ca" = off ]; then
		# Refused before the consumer heard of it: it waits for more.
		kill "$CM_SRV_PID" 2>/dev/null
	fi
	cm_server_wait
	dmesg -c > /tmp/matrix.dmesg
	crc=1
	[ "$ca" = off ] && [ "$cb" = off ] && crc=0
	rev=$(( ra < rb ? ra : rb ))
	if { [ "$ca" = required ] && [ "$cb" = off ]; } ||
	   { [ "$cb" = required ] && [ "$ca" = off ]; }; then
		cm_expect "$CM_CLI_OUT" rejected=1 established=0 \
			>/tmp/matrix.why 2>&1 && return 2
		not_ok "$name: refused"
		diag "$(cat /tmp/matrix.why)"
		return 1
	fi
	want_a="initiator=1 rev=$rev crc=$crc tx_markers=$mb rx_markers=$ma"
	want_b="initiator=0 rev=$rev crc=$crc tx_markers=$ma rx_markers=$mb"
	got_a=$(full_op kiw_a) got_b=$(full_op kiw_b)
	if ! cm_expect "$CM_CLI_OUT" established=1 disconnected=1 data_ok=1 \
		msgs=$MSGS dup=0 >/tmp/matrix.why 2>&1 ||
	   ! cm_expect "$CM_SRV_OUT" established=1 disconnected=1 data_ok=1 \
		msgs=$MSGS dup=0 >>/tmp/matrix.why 2>&1 ||
	   [ "${got_a#"$want_a" }" = "$got_a" ] ||
	   [ "${got_b#"$want_b" }" = "$got_b" ]; then
		not_ok "$name"
		diag "kiw_a: want $want_a" "      got $got_a" \
		     "kiw_b: want $want_b" "      got $got_b" \
		     "$(cat /tmp/matrix.why)"
		return 1
	fi
}

# Every established connection moves MSGS messages of 2000 octets each
# way: two FPDUs per message, so markers fall inside FPDUs as well as
# between them, at shifting offsets.
MSGS=3 DATA="-D -m 3 -s 2000"
if [ "${KIW_LONG:-0}" = 1 ]; then
	combos=()
	for ca in off on required; do for cb in off on required; do
	for ma in 0 1; do for mb in 0 1; do for ra in 1 2; do for rb in 1 2; do
		combos+=("$ca $cb $ma $mb $ra $rb")
	done; done; done; done; done; done
	want_refused=32
else
	# A covering subset: every CRC pair (the two refusals among them);
	# among the established ones every marker pair and every revision
	# pair, markers one way and both ways at revision 1.
	combos=("off off 0 0 1 1" "off on 0 1 1 2" "on off 1 0 2 1"
		"on on 1 1 2 2" "on required 0 0 2 2" "required on 1 1 1 1"
		"required required 0 1 2 1" "off required 1 0 1 2"
		"required off 0 0 2 2")
	want_refused=2
fi
cm_section "${#combos[@]} combinations"
n=0 bad=0 refused=0
for c in "${combos[@]}"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	combo $c
	case $? in
	1) bad=$((bad + 1)) ;;
	2) refused=$((refused + 1)) ;;
	esac
done
# Covers: MPA-MCR-1, MPA-MCR-2, MPA-MCR-3, MPA-MCR-4, MPA-MCR-5, MPA-CRC-4
# Covers: MPA-CRC-6, MPA-REV-3, MPA-SU-9, MPA-SU-11, MPA-MK-12, MPA-IF-9
if [ "$bad" = 0 ]; then
	ok "all $n combinations as the truth table says ($refused refused), data both ways"
else
	not_ok "$bad of $n combinations differ from the truth table"
fi
[ "$refused" = "$want_refused" ] &&
	ok "$want_refused combinations pit crc=required against off" ||
	not_ok "expected $want_refused refused combinations, counted $refused"

cm_section "revision 2, peer-to-peer asked by the initiator"
mpa_set kiw_a crc on; mpa_set kiw_a markers 0; mpa_set kiw_a rev 2
mpa_set kiw_b crc on; mpa_set kiw_b markers 0; mpa_set kiw_b rev 2
mpa_set kiw_a p2p 1
check_here "server" cm_server b -b $B4 -p $PORT -D -t 30
cm_client a -a $B4 -p $PORT -D -t 30
cm_server_wait
dmesg -c > /tmp/matrix.dmesg
check "p2p: established, a message each way" \
	cm_expect "$CM_CLI_OUT" established=1 disconnected=1 data_ok=1
check_output "p2p: the initiator sends a Write RTR" \
	'initiator=1 rev=2 .* rtr=2 hold_tx=0' full_op kiw_a
check_output "p2p: the responder awaits it and holds its FPDUs" \
	'initiator=0 rev=2 .* rtr=2 hold_tx=1' full_op kiw_b
mpa_set kiw_b rev 1
check_here "server" cm_server b -b $B4 -p $PORT -t 30
cm_client a -a $B4 -p $PORT -t 30
cm_server_wait
dmesg -c > /tmp/matrix.dmesg
check "p2p asked, Rev 1 responder: established without RTR" \
	cm_expect "$CM_CLI_OUT" established=1 disconnected=1
check_output "the initiator falls back to Rev 1, no RTR" \
	'initiator=1 rev=1 .* rtr=0' full_op kiw_a

check "rmmod kiw" sh -c 'rdma link delete kiw_a && rdma link delete kiw_b &&
	rmmod kiw'
cm_section "done"
tap_done
