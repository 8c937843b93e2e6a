# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Helpers for the hostile-peer VM tests (dp_hostile.sh, robust_corpus.sh);
# source after lib.sh and cm_lib.sh.
#
# The raw peer is scripts/guest/iwarp_peer.py (one process per batch:
# Python starts slowly under TCG), the consumer behind kiw is
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
#   hostile_check OUT DONE NAME DESC PEER_WANT TGT_WANT
#                             the peer's RESULT in OUT has PEER_WANT, the
#                             consumer's DONE in file DONE has TGT_WANT and
#                             the peer's TWANT (one TAP line each)

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

iwt_ping_stop() {
	[ -n "$IWT_PING_PID" ] || return 1
	kill -TERM "$IWT_PING_PID" 2>/dev/null
	wait "$IWT_PING_PID"
	IWT_PING_PID=
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

# The consumer's DONE line comes a moment after the peer's RESULT.
hostile_check() {
	local out=$1 dfile=$2 name=$3 desc=$4 pwant=$5 twant=$6 res tw done
	res=$(case_line "$out" RESULT "$name")
	kv_has "$desc: the peer saw it" "$pwant" "$res"
	tw=$(case_line "$out" TWANT "$name" | cut -d' ' -f3-)
	wait_for 30 case_line "$dfile" DONE "$name"
	done=$(case_line "$dfile" DONE "$name")
	kv_has "$desc: the consumer saw it" "$twant $tw" "$done"
}
