# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Helpers for the hostile-peer VM tests (dp_hostile.sh, robust_corpus.sh);
# source after lib.sh and cm_lib.sh.
#
# The raw peer is scripts/guest/iwarp_peer.py ($PEER, one process per
# batch: Python starts slowly under TCG; robust_corpus.sh sets it to
# iwarp_corpus.py, which adds "corpus" lines), the consumer behind kiw is
# scripts/guest/iw_target.c. Every case has a name; the peer prints
#   CASE NAME / RESULT case=NAME k=v... / TWANT case=NAME k=v...
# and the consumer, when the connection is over,
#   DONE case=NAME k=v...
#
#   iwt_build                 build iw_target into $IWT
#   iwt_server NS ADDR PORT   start "iw_target server" in NS (output in
#                             $IWT_SRV_OUT) and wait until it listens
#   iwt_ping_start NS ADDR PORT  a well-behaved connection in the
#                             background (output in $IWT_PING_OUT)
#   iwt_ping_stop             end it; its DONE line in $IWT_PING_OUT
#   peer_batch_run NS IN OUT  play the batch file IN with one peer in NS
#   kv_has "desc" "k=v..." LINE  every k=v is a word of LINE
#   kv_in k=v LINE            k=v is a word of LINE
#   case_line FILE PREFIX NAME   the first line "PREFIX case=NAME ..."
#   lines_load FILE...        read the RESULT, TWANT and DONE lines
#   hostile_check NAME DESC PEER_WANT TGT_WANT
#                             the peer's RESULT has PEER_WANT, the
#                             consumer's DONE has TGT_WANT and the peer's
#                             TWANT (one TAP line each; after lines_load)

PEER="/usr/bin/python3 -S $KIW_TOP/scripts/guest/iwarp_peer.py"
IWT=/tmp/iw_target
IWT_SRV_OUT=/tmp/iwt_srv.out
IWT_SRV_PID=
IWT_PING_OUT=/tmp/iwt_ping.out
IWT_PING_PID=

iwt_build() {
	cc -O2 -Wall -o "$IWT" "$KIW_TOP/scripts/guest/iw_target.c" \
		-lrdmacm -libverbs
}

iwt_server() {
	: > "$IWT_SRV_OUT"
	ip netns exec "$1" "$IWT" server -b "$2" -p "$3" -t 1200 \
		> "$IWT_SRV_OUT" 2>&1 &
	IWT_SRV_PID=$!
	wait_for 20 grep -q '^LISTENING' "$IWT_SRV_OUT"
}

iwt_ping_start() {
	: > "$IWT_PING_OUT"
	ip netns exec "$1" "$IWT" ping -a "$2" -p "$3" -t 1200 \
		> "$IWT_PING_OUT" 2>&1 &
	IWT_PING_PID=$!
}

# iwt_ping_stop: ends the well-behaved connection and waits for its DONE
# line. check() runs it in a subshell, where "wait" cannot reach the pinger
# (it returned at once, and a check of the DONE line that followed raced
# with the pinger writing it): the DONE line itself is what is waited for.
iwt_ping_stop() {
	[ -n "$IWT_PING_PID" ] || return 1
	kill -TERM "$IWT_PING_PID" 2>/dev/null
	wait_for 60 grep -q '^DONE case=ping ' "$IWT_PING_OUT"
}

peer_batch_run() {
	ip netns exec "$1" $PEER batch < "$2" > "$3" 2>&1
}

# Words are matched whole (no fork: TCG makes every grep slow).
kv_in() {
	[[ " $2 " == *" $1 "* ]]
}

kv_has() {
	local desc=$1 want=$2 line=$3 kv
	for kv in $want; do
		if ! kv_in "$kv" "$line"; then
			not_ok "$desc"
			diag "want $kv" "got: ${line:-nothing}"
			return 1
		fi
	done
	ok "$desc"
}

case_line() {
	grep -m1 "^$2 case=$3 " "$1"
}

# lines_load FILE...: every "RESULT|TWANT|DONE case=NAME ..." line of the
# files into HL_RESULT[NAME], HL_TWANT[NAME], HL_DONE[NAME] (first one
# wins), without a fork per line.
declare -A HL_RESULT HL_TWANT HL_DONE
lines_load() {
	local f line kind name
	for f in "$@"; do
		while IFS= read -r line; do
			kind=${line%% *}
			case "$kind" in RESULT|TWANT|DONE) ;; *) continue ;; esac
			name=${line#"$kind" case=}
			[ "$name" != "$line" ] || continue
			name=${name%% *}
			case "$kind" in
			RESULT) [ -n "${HL_RESULT[$name]:-}" ] ||
					HL_RESULT[$name]=$line ;;
			TWANT) [ -n "${HL_TWANT[$name]:-}" ] ||
					HL_TWANT[$name]=${line#* case=* } ;;
			DONE) [ -n "${HL_DONE[$name]:-}" ] ||
					HL_DONE[$name]=$line ;;
			esac
		done < "$f"
	done
}

# The consumer's DONE line comes a moment after the peer's RESULT: wait
# for the last case's before calling this (hostile_wait_done).
hostile_check() {
	local name=$1 desc=$2 pwant=$3 twant=$4
	kv_has "$desc: the peer saw it" "$pwant" "${HL_RESULT[$name]:-}"
	kv_has "$desc: the consumer saw it" "$twant ${HL_TWANT[$name]:-}" \
		"${HL_DONE[$name]:-}"
}

# hostile_wait_done FILE NAME: until the consumer reported case NAME.
hostile_wait_done() {
	wait_for 30 grep -q "^DONE case=$2 " "$1"
}
