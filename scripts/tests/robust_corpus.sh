#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=1800
#
# robust_corpus: kiw's robustness corpus (scripts/guest/iwarp_corpus.py):
# crafted inputs across MPA startup, framing, CRC, markers, DDP and RDMAP
# headers, ULPDU lengths, Read Requests and Terminates, and seeded random
# mutations of valid streams, each played against kiw_b by a raw peer
# with its expected outcome asserted (by the peer: the Terminate kiw
# sends, or none, and how the connection ends; by the consumer behind
# kiw: its memory outside what the peer may write unchanged, completions,
# async event). A well-behaved connection keeps moving messages
# throughout, the device still serves at the end, and the kernel stays
# clean (vm.sh fails the run on any KASAN, lockdep, kmemleak, WARN or BUG
# report).
#
# By default a representative subset: 48 cases (every kind) plus 12 with
# markers. KIW_LONG=1 plays the whole corpus: 240 + 48 = 288 cases.
# KIW_CORPUS_SEED changes the seed (a failing case replays alone with
# its index: see iwarp_corpus.py).
#
# Guest time: stock kernel ~90 s; debug kernel ~200 s (default subset).
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"
. "$KIW_TOP/scripts/guest/hostile_lib.sh"

# The corpus's own peer: iwarp_peer.py's batch lines and "corpus" lines.
PEER="/usr/bin/python3 -S $KIW_TOP/scripts/guest/iwarp_corpus.py"
SRV=10.77.0.2 LPORT=7300
SEED=${KIW_CORPUS_SEED:-20261121}
if [ "${KIW_LONG:-0}" = 1 ]; then
	N_MAIN=240 N_MARK=48
else
	N_MAIN=48 N_MARK=12
fi

# corpus_check OUT LABEL COUNT: all COUNT cases ran; per kind, one TAP line
# for the peer's verdicts and one for the consumer's view of the same cases
# (iwarp_corpus.check).
corpus_check() {
	local out=$1 label=$2 sum=/tmp/corpus_check.out line kind v c
	check_output "$label: every case ran within the time budget" \
		"^CORPUS .* ran=$3 " cat "$out"
	diag "$(grep '^CORPUS ' "$out")"
	# The consumer reports a moment after the peer's last case.
	sleep 1
	$PEER check "$out" "$IWT_SRV_OUT" > "$sum" 2>&1
	grep '^KIND ' "$sum" > "$sum.kinds"
	while read -r line; do
		kind=${line#*kind=} kind=${kind%% *}
		v=${line#*verdicts=} v=${v%% *}
		c=${line#*consumer=}
		# Covers: MPA-SEC-4, MPA-ERR-1, MPA-ERR-5, DDP-ERR-12, DDP-ERR-13
		if [ "${v%/*}" = "${v#*/}" ]; then
			ok "$label: $kind: $v cases got the expected outcome"
		else
			not_ok "$label: $kind: $v cases got the expected outcome"
		fi
		# Covers: DDP-SEC-1, DDP-SEC-8, DDP-SEC-9
		if [ "${c%/*}" = "${c#*/}" ]; then
			ok "$label: $kind: the consumer's view as expected in $c cases"
		else
			not_ok "$label: $kind: the consumer's view as expected in $c cases"
		fi
	done < "$sum.kinds"
	grep -q '^KIND ' "$sum" || not_ok "$label: no cases checked"
	check_no_output "$label: one consumer connection per case" \
		'connections for one case' cat "$sum"
	if grep -q '^BAD ' "$sum"; then
		diag "$(grep '^BAD ' "$sum" | head -20)"
	fi
}

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw" kiw_load
check "kiw_a on veth-a, kiw_b on veth-b" kiw_devices_add
check "iw_target builds" iwt_build
check_here "iw_target serves on kiw_b" iwt_server b $SRV $LPORT
iwt_ping_start a $SRV $LPORT
check "a well-behaved kiw_a -> kiw_b connection is up" \
	wait_for 60 grep -q '^ESTABLISHED' "$IWT_PING_OUT"

diag "--- corpus seed $SEED: $N_MAIN cases, CRC on, no markers"
# budget: seconds after which no new case starts (a hang guard)
echo "corpus $SRV $LPORT seed=$SEED count=$N_MAIN budget=900" > /tmp/corpus1.in
peer_batch_run a /tmp/corpus1.in /tmp/corpus1.out
corpus_check /tmp/corpus1.out "CRC on" $N_MAIN

diag "--- corpus seed $SEED: $N_MARK cases, markers both ways"
check "kiw_b asks for markers" mpa_set kiw_b markers 1
echo "corpus $SRV $LPORT seed=$SEED count=$N_MARK first=1000 kinds=marker budget=600" \
	> /tmp/corpus2.in
peer_batch_run a /tmp/corpus2.in /tmp/corpus2.out
corpus_check /tmp/corpus2.out "markers" $N_MARK
check "kiw_b: no markers again" mpa_set kiw_b markers 0

check "the well-behaved connection ends cleanly" iwt_ping_stop
check_output "it moved messages all along, none bad" \
	'^DONE case=ping established=1 .*wc_err=none .* ping_bad=0' \
	cat "$IWT_PING_OUT"
diag "$(grep '^DONE case=ping' "$IWT_PING_OUT")"
printf 'after initiate %s %s good\n' $SRV $LPORT > /tmp/after.in
peer_batch_run a /tmp/after.in /tmp/after.out
hostile_wait_done "$IWT_SRV_OUT" after
lines_load /tmp/after.out "$IWT_SRV_OUT"
hostile_check after \
	"the device still serves a valid Write, Send and Read" \
	"term=none end=fin rresp=ok fpdu_ok=1" \
	"established=1 disconnected=1 wc_err=none"
# The consumer lets go of kiw_b first (unregistering waits for it).
kill "$IWT_SRV_PID" 2>/dev/null
wait "$IWT_SRV_PID" 2>/dev/null
check "rdma link delete kiw_a" rdma link delete kiw_a
check "rdma link delete kiw_b" rdma link delete kiw_b
check "rmmod kiw: nothing left behind" kiw_unload
tap_done
