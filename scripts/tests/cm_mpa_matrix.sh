#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=900
#
# cm_mpa_matrix: kiw to kiw, every combination of the per-device MPA
# settings of the initiator and the responder: CRC off, on or required on
# each side (9), markers asked by neither, by one or by both (4), revision
# 1 or 2 on each side (4): all 144, by default. Each is established or
# refused as the truth table below says. When it is established, both
# sides report the expected negotiation (dynamic debug "full operation"
# lines), three messages of 2000 octets go each way (two FPDUs each, so
# markers fall inside FPDUs and between them), checked octet by octet,
# and a second connection with the same settings is rejected by the
# consumer (rdma_reject). Private data: one of the two connections carries
# 40 octets each way, the other none (which one by a checkerboard, so that
# every CRC pair, marker pair and revision pair accepts with and without
# it); each side checks what it receives. Every event exactly once.
#
# How it fits: settings are per device, so the combinations run SLOTS (16)
# at a time on 16 device pairs (kiw_a/kiw_b on veth-a/veth-b, kiw_aN/kiw_bN
# on mxN-a/mxN-b, 10.78.N.0/24), each set to one combination per round (9
# rounds). Four wildcard servers (accept or reject, with or without private
# data) and four clients run for the whole matrix: a client takes a round
# per line (cm_tool -R) and reports each connection (-v, CONN lines), as
# the servers do; one read of dmesg per round gives every device's
# negotiation. The old way, one server and one client per combination,
# took about 12 s a combination (2800 s for the 144).
#
# Truth table (RFC 5044 7.1.1, RFC 6581, kiw_mpa.c):
#  - CRC is on when either side asks (off asks nothing; on and required
#    ask). required refuses a peer that does not ask: a responder with
#    crc=required answers a C=0 Request with a reject Reply (the client
#    gets REJECTED, the server never hears of it); an initiator with
#    crc=required refuses a C=0 Reply (the client gets REJECTED; the
#    server had accepted and sees the connection end). No consumer's
#    private data comes with these refusals.
#  - Markers go per direction: each side receives markers if it asked,
#    and inserts them if the peer asked. kiw always honours a request.
#  - Revision: the Reply carries min(Request's, responder's); both sides
#    run that revision.
# Then, at revision 2: peer-to-peer mode asked by the initiator settles
# the zero-length Write RTR on both sides. KIW_LONG=1 runs the 144 again
# over IPv6.
# Guest time: 222 s on the debug kernel (2026-11-21, shared 2-core host,
# load 3.5 to 4.5; 348 s with a load of 5, when the old covering subset of
# 9 combinations took 216 s, 126 s in a full make check); the timeout,
# 900 s, is about three times the latter. KIW_LONG=1: 571 s with a load
# of 6 to 7, beyond the timeout: KIW_LONG=1 scripts/vm.sh --kernel debug
# --script scripts/tests/cm_mpa_matrix.sh --timeout 1800.
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"

B4=10.77.0.2 PORT=7020 PDLEN=40
SLOTS=16
# Every established connection moves MSGS messages of 2000 octets each
# way: two FPDUs per message, so markers fall inside FPDUs as well as
# between them, at shifting offsets.
MSGS=3 DATA="-D -m $MSGS -s 2000"

# Slot s: devices DA[s] (netns a) and DB[s] (netns b), the responder's
# addresses B4S[s] and B6S[s].
DA=(kiw_a) DB=(kiw_b) B4S=("$B4") B6S=(fd77::2)
for ((s = 1; s < SLOTS; s++)); do
	DA+=("kiw_a$s") DB+=("kiw_b$s") B4S+=("10.78.$s.2") B6S+=("fd78:$s::2")
done

# slots_up: the veth pairs of slots 1.. (slot 0 is cm_setup's), addressed, up,
# in one batch per ip: every process started costs under TCG.
slots_up() {
	local s links='' a='' b=''
	for ((s = 1; s < SLOTS; s++)); do
		links+="link add mx$s-a netns a type veth peer name mx$s-b netns b"$'\n'
		a+="addr add 10.78.$s.1/24 dev mx$s-a"$'\n'
		a+="addr add fd78:$s::1/64 dev mx$s-a nodad"$'\n'
		a+="link set mx$s-a up"$'\n'
		b+="addr add 10.78.$s.2/24 dev mx$s-b"$'\n'
		b+="addr add fd78:$s::2/64 dev mx$s-b nodad"$'\n'
		b+="link set mx$s-b up"$'\n'
	done
	ip -batch - <<<"$links" || { echo "ip: links"; return 1; }
	ip -n a -batch - <<<"$a" || { echo "ip: netns a"; return 1; }
	ip -n b -batch - <<<"$b" || { echo "ip: netns b"; return 1; }
}

# slots_devices: a kiw device on each end of slots 1..
slots_devices() {
	ip netns exec a bash -c 'for ((s = 1; s < $0; s++)); do
		rdma link add kiw_a$s type kiw netdev mx$s-a || exit 1; done' \
		$SLOTS || { echo "rdma: netns a"; return 1; }
	ip netns exec b bash -c 'for ((s = 1; s < $0; s++)); do
		rdma link add kiw_b$s type kiw netdev mx$s-b || exit 1; done' \
		$SLOTS || { echo "rdma: netns b"; return 1; }
}

cm_setup
check "$((SLOTS - 1)) more veth pairs" slots_up
check "a kiw device on each end" slots_devices
# slow check: 21-46 s
check "dynamic debug: the negotiation of each connection" sh -c \
	"echo 'module kiw format \"full operation\" +p' > /proc/dynamic_debug/control"
dmesg -C

# The 144 combinations, "CA CB MA MB RA RB" (initiator, responder).
COMBOS=()
for ca in off on required; do for cb in off on required; do
for ma in 0 1; do for mb in 0 1; do for ra in 1 2; do for rb in 1 2; do
	COMBOS+=("$ca $cb $ma $mb $ra $rb")
done; done; done; done; done; done

# FO[dev]: the last "full operation" line of each device in this round's
# dmesg (one read per round; bash only).
declare -A FO
read_full_ops() {
	local line
	FO=()
	dmesg -c > /tmp/matrix.dmesg
	while IFS= read -r line; do
		[[ $line =~ (kiw_[ab][0-9]*):\ .*full\ operation:\ (.*)$ ]] &&
			FO[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done < /tmp/matrix.dmesg
}

# The cm_tool processes of a matrix: per group g one server, for all
# rounds, and one client taking a round per line (-R), on port PORT + g:
# group 0 accepts without private data, 1 with PDLEN octets, 2 rejects
# without, 3 with. Their output comes through FIFOs this shell reads:
# SRV_R[g], CLI_R[g]; CLI_W[g] takes the rounds; SIDE[g] keys CONN.
GRPS=(0 1 2 3) SIDE=(cli cli rcli rcli) SSIDE=(srv srv rsrv rsrv)
SRV_ARGS=("-d 0 $DATA" "-d $PDLEN $DATA" "-r -d 0" "-r -d $PDLEN")
CLI_ARGS=("-d 0 $DATA" "-d $PDLEN $DATA" "-d 0" "-d $PDLEN")
SRV_PID=() SRV_R=() CLI_PID=() CLI_R=() CLI_W=()

# CONN[side addr]: the CONN line (cm_tool -v) of each connection of the
# round, side cli or srv. read_proc SIDE FD UNTIL: lines of FD into CONN
# until one starting with UNTIL ("ROUND", "RESULT"), or a number of CONN
# lines; all of them in LOG[SIDE] too, for diagnostics.
declare -A CONN LOG
read_proc() {
	local side=$1 fd=$2 until=$3 line conns=0
	LOG[$side]=
	while IFS= read -r -t 120 -u "$fd" line; do
		LOG[$side]+="$line"$'\n'
		if [[ $line =~ ^CONN\ [0-9]+\ addr=([^ ]*)\  ]]; then
			CONN[$side ${BASH_REMATCH[1]}]="$line "
			conns=$((conns + 1))
			[ "$conns" != "$until" ] || return 0
		fi
		[[ $line != "$until"* ]] || return 0
	done
	return 1
}

# procs_up FAM: the servers and clients of a matrix. All start before
# this shell opens its ends of their FIFOs, so that none inherits another's
# (a client sees the end of its rounds only when no writer is left).
procs_up() {
	local fam=$1 g fd any=0.0.0.0 mx=/tmp/matrix
	[ "$fam" = 4 ] || any=::
	rm -f $mx.*
	for g in "${GRPS[@]}"; do
		mkfifo $mx.srv$g $mx.cin$g $mx.cout$g || return 1
	done
	for g in "${GRPS[@]}"; do
		# shellcheck disable=SC2086
		ip netns exec b "$CM_TOOL" server -b $any -p $((PORT + g)) -v \
			-n 1024 ${SRV_ARGS[g]} -t 3000 > $mx.srv$g 2>&1 &
		SRV_PID[g]=$!
		# shellcheck disable=SC2086
		ip netns exec a "$CM_TOOL" client -R -v -p $((PORT + g)) \
			${CLI_ARGS[g]} -t 90 < $mx.cin$g > $mx.cout$g 2>&1 &
		CLI_PID[g]=$!
	done
	for g in "${GRPS[@]}"; do
		exec {fd}< $mx.srv$g
		SRV_R[g]=$fd
		exec {fd}> $mx.cin$g
		CLI_W[g]=$fd
		exec {fd}< $mx.cout$g
		CLI_R[g]=$fd
	done
	for g in "${GRPS[@]}"; do
		read_proc srv "${SRV_R[g]}" LISTENING ||
			{ echo "${LOG[srv]}"; return 1; }
	done
}

# procs_down: the clients end at the end of their input, the servers on
# SIGUSR1; neither may have seen a duplicate event (the CONN lines of a
# server are printed as its connections end: this covers what came
# after), nor the servers bad private data, nor the clients a failed
# message. (A client's pd_bad counts the refusals by MPA, which carry no
# private data: judge() looks at each connection.)
procs_down() {
	local g fd rc=0
	for g in "${GRPS[@]}"; do
		fd=${CLI_W[g]}
		exec {fd}>&-
		read_proc cli "${CLI_R[g]}" RESULT || rc=1
		wait "${CLI_PID[g]}" || rc=1
		kill -USR1 "${SRV_PID[g]}"
		read_proc srv "${SRV_R[g]}" RESULT || rc=1
		wait "${SRV_PID[g]}"
		fd=${CLI_R[g]}
		exec {fd}<&-
		fd=${SRV_R[g]}
		exec {fd}<&-
		[[ ${LOG[cli]} =~ RESULT\ .*\ dup=0\ .*data_fail=0\  ]] ||
			{ echo "client $g: ${LOG[cli]}"; rc=1; }
		[[ ${LOG[srv]} =~ RESULT\ .*\ pd_bad=0\ dup=0\  ]] ||
			{ echo "server $g: ${LOG[srv]}"; rc=1; }
	done
	return $rc
}

# conn_is SIDE ADDR COUNTS: the CONN line of SIDE (cli, srv, rcli, rsrv)
# for ADDR has exactly these counts, from "established=" to the end;
# if not, WHY says what differs (bash only: this runs 500 times).
conn_is() {
	local line=${CONN[$1 $2]}
	[[ $line == *" addr=$2 $3 " ]] && return 0
	WHY+="$1 $2: want $3"$'\n'"  got ${line:-no connection}"$'\n'
	return 1
}

# The counts of a connection (cm_tool's CONN line) that moved data, was
# refused by MPA (no private data comes with that: a client that expects
# some counts it as bad), rejected by its server, as the client and the
# server see them.
C_DATA="established=1 rejected=0 unreachable=0 error=0 disconnected=1 pd_bad=0 dup=0 data_ok=1 data_fail=0 msgs=$MSGS"
C_REFUSED="established=0 rejected=1 unreachable=0 error=0 disconnected=0 pd_bad=? dup=0 data_ok=0 data_fail=0 msgs=0"
C_REJECTED="established=0 rejected=1 unreachable=0 error=0 disconnected=0 pd_bad=0 dup=0 data_ok=0 data_fail=0 msgs=0"
S_REJECTED="established=0 rejected=0 unreachable=0 error=0 disconnected=0 pd_bad=0 dup=0 data_ok=0 data_fail=0 msgs=0"

# judge S "CA CB MA MB RA RB" PD FAM: slot S's connections of this round
# against the truth table. Returns 1 on a difference (and says why), 2 if
# it was refused as it should be.
judge() {
	local s=$1 pd=$3 fam=$4 ca cb ma mb ra rb crc rev name
	local want_a want_b got_a got_b addr
	read -r ca cb ma mb ra rb <<<"$2"
	name="crc $ca/$cb markers $ma/$mb rev $ra/$rb pd $pd/$((PDLEN - pd)) (IPv$fam)"
	addr=${B4S[s]}
	[ "$fam" = 4 ] || addr=${B6S[s]}
	WHY=
	if { [ "$ca" = required ] && [ "$cb" = off ]; } ||
	   { [ "$cb" = required ] && [ "$ca" = off ]; }; then
		conn_is cli "$addr" "${C_REFUSED/pd_bad=?/pd_bad=$((pd ? 1 : 0))}" &&
			return 2
		not_ok "$name: refused"
		diag "$WHY"
		return 1
	fi
	crc=1
	[ "$ca" = off ] && [ "$cb" = off ] && crc=0
	rev=$(( ra < rb ? ra : rb ))
	want_a="initiator=1 rev=$rev crc=$crc tx_markers=$mb rx_markers=$ma"
	want_b="initiator=0 rev=$rev crc=$crc tx_markers=$ma rx_markers=$mb"
	got_a=${FO[${DA[s]}]} got_b=${FO[${DB[s]}]}
	conn_is cli "$addr" "$C_DATA"
	conn_is srv "$addr" "$C_DATA"
	conn_is rcli "$addr" "$C_REJECTED"
	conn_is rsrv "$addr" "$S_REJECTED"
	if [ -n "$WHY" ] || [ "${got_a#"$want_a" }" = "$got_a" ] ||
	   [ "${got_b#"$want_b" }" = "$got_b" ]; then
		not_ok "$name"
		diag "${DA[s]}: want $want_a" "      got $got_a" \
		     "${DB[s]}: want $want_b" "      got $got_b" "$WHY"
		return 1
	fi
}

# round FIRST FAM: combinations FIRST.. on the slots, over IPv4 or IPv6;
# counts into n, bad and refused.
round() {
	local first=$1 fam=$2 s k ca cb ma mb ra rb g
	local addrs=("" "" "" "") want=(0 0 0 0) pdg=() t0=${EPOCHREALTIME/./} t1 t2
	for ((s = 0; s < SLOTS && first + s < ${#COMBOS[@]}; s++)); do
		k=$((first + s))
		read -r ca cb ma mb ra rb <<<"${COMBOS[k]}"
		mpa_set "${DA[s]}" crc $ca; mpa_set "${DA[s]}" markers $ma
		mpa_set "${DA[s]}" rev $ra
		mpa_set "${DB[s]}" crc $cb; mpa_set "${DB[s]}" markers $mb
		mpa_set "${DB[s]}" rev $rb
		# Private data or not: a checkerboard over (CRC pair,
		# markers and revisions).
		g=$(( (k / 16 + k % 16) % 2 ))
		pdg[s]=$g
		if [ "$fam" = 4 ]; then
			addrs[g]+=${addrs[g]:+,}${B4S[s]}
		else
			addrs[g]+=${addrs[g]:+,}${B6S[s]}
		fi
		# The server hears of all but those its device refuses.
		{ [ "$ca" = off ] && [ "$cb" = required ]; } ||
			want[g]=$((want[g] + 1))
		# Where MPA can agree, a second connection, rejected by the
		# consumer, with private data if the first had none.
		{ [ "$ca" = off ] && [ "$cb" = required ]; } ||
		{ [ "$ca" = required ] && [ "$cb" = off ]; } && continue
		g=$((3 - g))
		if [ "$fam" = 4 ]; then
			addrs[g]+=${addrs[g]:+,}${B4S[s]}
		else
			addrs[g]+=${addrs[g]:+,}${B6S[s]}
		fi
		want[g]=$((want[g] + 1))
	done
	CONN=()
	for g in "${GRPS[@]}"; do
		[ -z "${addrs[g]}" ] || echo "${addrs[g]}" >&"${CLI_W[g]}"
	done
	for g in "${GRPS[@]}"; do
		[ -n "${addrs[g]}" ] || continue
		if ! read_proc "${SIDE[g]}" "${CLI_R[g]}" ROUND ||
		   { [ "${want[g]}" != 0 ] &&
		     ! read_proc "${SSIDE[g]}" "${SRV_R[g]}" "${want[g]}"; }; then
			not_ok "round $first: its connections end"
			diag "${LOG[${SIDE[g]}]}" "${LOG[${SSIDE[g]}]}"
			return 1
		fi
	done
	t1=${EPOCHREALTIME/./}
	read_full_ops
	for ((s = 0; s < SLOTS && first + s < ${#COMBOS[@]}; s++)); do
		n=$((n + 1))
		judge $s "${COMBOS[first + s]}" $((pdg[s] * PDLEN)) $fam
		case $? in
		1) bad=$((bad + 1)) ;;
		2) refused=$((refused + 1)) ;;
		esac
	done
	t2=${EPOCHREALTIME/./}
	diag "round $first: $(( (t1 - t0) / 1000 )) + $(( (t2 - t1) / 1000 )) ms"
}

# matrix FAM: the 144 over IPv4 or IPv6.
matrix() {
	local fam=$1 first
	n=0 bad=0 refused=0
	cm_section "${#COMBOS[@]} combinations, IPv$fam, $SLOTS at a time"
	check_here "IPv$fam: four servers listen, four clients wait" \
		procs_up $fam || return 1
	for ((first = 0; first < ${#COMBOS[@]}; first += SLOTS)); do
		round $first $fam || break
	done
	check_here "IPv$fam: no duplicate event, bad private data or message" \
		procs_down
	# Covers: MPA-MCR-1, MPA-MCR-2, MPA-MCR-3, MPA-MCR-4, MPA-MCR-5, MPA-CRC-4
	# Covers: MPA-CRC-6, MPA-REV-3, MPA-SU-9, MPA-SU-11, MPA-MK-12, MPA-IF-9
	# Covers: MPA-PD-6, MPA-REJ-2
	if [ "$bad" = 0 ] && [ "$n" = ${#COMBOS[@]} ]; then
		ok "IPv$fam: all $n combinations as the truth table says ($refused refused; the others move data both ways and a consumer rejects them once)"
	else
		not_ok "IPv$fam: $bad of $n combinations differ from the truth table"
	fi
	[ "$refused" = 32 ] &&
		ok "IPv$fam: 32 combinations pit crc=required against off" ||
		not_ok "IPv$fam: expected 32 refused combinations, counted $refused"
}

matrix 4
[ "${KIW_LONG:-0}" = 1 ] && matrix 6

cm_section "revision 2, peer-to-peer asked by the initiator"
mpa_set kiw_a crc on; mpa_set kiw_a markers 0; mpa_set kiw_a rev 2
mpa_set kiw_b crc on; mpa_set kiw_b markers 0; mpa_set kiw_b rev 2
mpa_set kiw_a p2p 1
check_here "server" cm_server b -b $B4 -p $PORT -D -t 30
cm_client a -a $B4 -p $PORT -D -t 30
cm_server_wait
read_full_ops
check "p2p: established, a message each way" \
	cm_expect "$CM_CLI_OUT" established=1 disconnected=1 data_ok=1
check_output "p2p: the initiator sends a Write RTR" \
	'initiator=1 rev=2 .* rtr=2 hold_tx=0' echo "${FO[kiw_a]}"
check_output "p2p: the responder awaits it and holds its FPDUs" \
	'initiator=0 rev=2 .* rtr=2 hold_tx=1' echo "${FO[kiw_b]}"
mpa_set kiw_b rev 1
check_here "server" cm_server b -b $B4 -p $PORT -t 30
cm_client a -a $B4 -p $PORT -t 30
cm_server_wait
read_full_ops
check "p2p asked, Rev 1 responder: established without RTR" \
	cm_expect "$CM_CLI_OUT" established=1 disconnected=1
check_output "the initiator falls back to Rev 1, no RTR" \
	'initiator=1 rev=1 .* rtr=0' echo "${FO[kiw_a]}"

# kiw_a and kiw_b deleted one by one; the module takes the others with it.
check "rmmod kiw" sh -c 'rdma link delete kiw_a && rdma link delete kiw_b &&
	rmmod kiw'
check_no_output "no kiw device left" . ls /sys/class/infiniband
cm_section "done"
tap_done
