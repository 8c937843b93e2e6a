#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=900
#
# cm_mpa_matrix: kiw to kiw, every combination of the per-device MPA
# settings of the initiator (kiw_a) and the responder (kiw_b): CRC off, on
# or required on each side (9), markers asked by neither, by one or by
# both (4), revision 1 or 2 on each side (4): 144 connections. Each is
# established or refused as the truth table below says, and when it is
# established both sides report the same negotiation (dynamic debug
# "full operation" lines), which must be the expected one.
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

n=0 bad=0 refused=0 server_conns=0
crcs=(off on required)
for ca in "${crcs[@]}"; do
for cb in "${crcs[@]}"; do
for ma in 0 1; do
for mb in 0 1; do
for ra in 1 2; do
for rb in 1 2; do
	n=$((n + 1))
	mpa_set kiw_a crc $ca; mpa_set kiw_a markers $ma; mpa_set kiw_a rev $ra
	mpa_set kiw_b crc $cb; mpa_set kiw_b markers $mb; mpa_set kiw_b rev $rb
	name="crc $ca/$cb markers $ma/$mb rev $ra/$rb"
	# The server handles one connection per run: fresh, easy to read.
	if ! cm_server b -b $B4 -p $PORT -D -t 30; then
		not_ok "$name: server"
		bad=$((bad + 1))
		continue
	fi
	cm_client a -a $B4 -p $PORT -D -t 30
	if [ "$ca" = required ] && [ "$cb" = off ]; then
		# The initiator refuses after the responder accepted.
		cm_server_wait
	elif [ "$cb" = required ] && [ "$ca" = off ]; then
		kill "$CM_SRV_PID" 2>/dev/null; cm_server_wait
	else
		cm_server_wait
	fi
	dmesg -c > /tmp/matrix.dmesg
	crc=1
	[ "$ca" = off ] && [ "$cb" = off ] && crc=0
	rev=$(( ra < rb ? ra : rb ))
	if { [ "$ca" = required ] && [ "$cb" = off ]; } ||
	   { [ "$cb" = required ] && [ "$ca" = off ]; }; then
		refused=$((refused + 1))
		if ! cm_expect "$CM_CLI_OUT" rejected=1 established=0 \
			>/tmp/matrix.why 2>&1; then
			not_ok "$name: refused"
			diag "$(cat /tmp/matrix.why)"
			bad=$((bad + 1))
		fi
		continue
	fi
	want_a="initiator=1 rev=$rev crc=$crc tx_markers=$mb rx_markers=$ma"
	want_b="initiator=0 rev=$rev crc=$crc tx_markers=$ma rx_markers=$mb"
	got_a=$(full_op kiw_a) got_b=$(full_op kiw_b)
	if ! cm_expect "$CM_CLI_OUT" established=1 disconnected=1 data_ok=1 \
		dup=0 >/tmp/matrix.why 2>&1 ||
	   ! cm_expect "$CM_SRV_OUT" established=1 disconnected=1 data_ok=1 \
		dup=0 >>/tmp/matrix.why 2>&1 ||
	   [ "${got_a#"$want_a" }" = "$got_a" ] ||
	   [ "${got_b#"$want_b" }" = "$got_b" ]; then
		not_ok "$name"
		diag "kiw_a: want $want_a" "      got $got_a" \
		     "kiw_b: want $want_b" "      got $got_b" \
		     "$(cat /tmp/matrix.why)"
		bad=$((bad + 1))
	fi
done; done; done; done; done; done
if [ "$bad" = 0 ]; then
	ok "all $n combinations as the truth table says ($refused refused)"
else
	not_ok "$bad of $n combinations differ from the truth table"
fi
[ "$refused" = 32 ] && ok "32 combinations pit crc=required against off" ||
	not_ok "expected 32 refused combinations, counted $refused"

diag "--- revision 2, peer-to-peer asked by the initiator"
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
tap_done
