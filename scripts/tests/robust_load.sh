#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=360
#
# robust_load: kiw under load, kiw_a -> kiw_b, with nothing left behind.
# Churn: 16 connections at a time, each connect, a message of 4 KiB each
# way (checked octet for octet), disconnect, torn down and opened again
# (scripts/guest/cm_tool.c -N), ROUNDS times over; both sides see every
# connection established, its data intact, and disconnected, exactly once.
# Soak: 8 QPs at once, each a dp_verify pair running RDMA Writes, Sends
# and RDMA Reads of 1 octet to 1 MiB, every target window (payload and the
# guard octets around it) checked, over and over for SOAK seconds; not one
# octet wrong; then each closes gracefully. Before and after, the objects
# in use must be the same: the RDMA core's (rdma res: PD, CQ, QP, MR,
# cm_id, contexts), the TCP sockets (/proc/net/sockstat: allocated,
# orphans), the references to the kiw module; and kiw's connection
# counters must have grown by exactly the cycles. kiw has no kmem caches
# of its own (every object is kmalloc'd), so kmemleak, once at the end,
# stands for the slab.
# Default: 6 rounds (96 cycles), a 15 s soak. KIW_LONG=1: 625 rounds
# (10,000 cycles), a 600 s soak, progress every minute. The churn ran 5.6
# connections a second at best, 1.5 on a busy host (1264 in 11 minutes):
# 30 to 110 minutes for 10,000, so the long run needs a timeout of its
# own: KIW_LONG=1 nice -n 10 scripts/vm.sh --kernel debug --script
# scripts/tests/robust_load.sh --timeout 10800. Any other size:
# --script scripts/tests/robust_load.sh -- ROUNDS SOAK_SECONDS.
# Guest time: 214 s on the debug kernel (make vmtest, 2026-11-21, a host
# with a load of 5 on 2 cores); 151 s with 8 rounds and a 20 s soak at a
# load of 3. Over the 60 s target: a TCG guest takes 0.2-0.5 s a
# connection, the soak's 8 servers up to 25 s to listen, kmemleak 20 s.
# Larger runs seen passing: "-- 100 120" (1600 connections, a 120 s soak
# verifying 231 MB) in 470 s, "-- 250 15" (4000 connections) in 703 s.
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"
. "$KIW_TOP/scripts/guest/dp_lib.sh"

CONNS=16 ROUNDS=6 SOAK=15 QPS=8 MSG=4096 LONG=${KIW_LONG:-0}
if [ "$LONG" = 1 ]; then
	ROUNDS=625 SOAK=600
fi
ROUNDS=${1:-$ROUNDS} SOAK=${2:-$SOAK}
CYCLES=$((CONNS * ROUNDS))
# Hang guards for a whole run, not time limits on a step.
CHURN_T=$((120 + ROUNDS * 16))
SOAK_T=$((SOAK + 300))

# ---- What is in use: snapshots to compare ----

# objects: one line, every count that must come back to where it was.
objects() {
	local res sock line alloc orphan
	res=$(rdma res show 2>&1) || return 1
	while IFS= read -r line; do
		[[ $line == "TCP: "* ]] || continue
		[[ $line =~ orphan\ ([0-9]+) ]] && orphan=${BASH_REMATCH[1]}
		[[ $line =~ alloc\ ([0-9]+) ]] && alloc=${BASH_REMATCH[1]}
	done < /proc/net/sockstat
	sock="tcp_alloc $alloc tcp_orphan $orphan"
	echo "${res//$'\n'/; }; $sock; kiw_refcnt $(< /sys/module/kiw/refcnt)"
}

# same_objects FILE: the objects in use are those saved in FILE (sockets
# and ids go a moment after the processes that held them: wait for it).
same_objects() {
	local want
	want=$(< "$1")
	wait_for 30 objects_are "$want" && return 0
	echo "before: $want"
	echo "now:    $(objects)"
	return 1
}

objects_are() { [ "$(objects)" = "$1" ]; }

# kstat DEV NAME: a kiw counter into KSTAT (hw_counters in sysfs; no
# process, no subshell: each costs a good fraction of a second here).
kstat() { read -r KSTAT < "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

STATS="conn_attempts conn_requests conn_established conn_rejects_sent
	conn_rejects_received conn_mpa_errors conn_timeouts conn_resets"

# stats_save FILE: every connection counter of both devices.
stats_save() {
	local d s
	for d in kiw_a kiw_b; do
		for s in $STATS; do
			kstat $d "$s"
			echo "$d $s $KSTAT"
		done
	done > "$1"
}

# stats_grew FILE DEV.NAME=N...: since FILE, each counter named grew by
# exactly N; every other connection counter of both devices stayed.
stats_grew() {
	local f=$1 d s v kv want bad=0
	local -A grow
	shift
	for kv in "$@"; do
		grow[${kv%%=*}]=${kv#*=}
	done
	while read -r d s v; do
		want=$((v + ${grow[$d.$s]:-0}))
		kstat "$d" "$s"
		if [ "$KSTAT" != "$want" ]; then
			echo "$d $s: $v before, $KSTAT now, expected $want"
			bad=1
		fi
	done < "$f"
	return $bad
}

T0=${EPOCHREALTIME/./}
elapsed() { echo $(( (${EPOCHREALTIME/./} - T0) / 1000000 )); }

# await PID WHAT CMD...: wait for PID; in a long run, say every minute
# how far it got (CMD's output), so that a run cut short still tells.
await() {
	local pid=$1 what=$2 next=$((${EPOCHREALTIME%.*} + 60)) rc=0
	shift 2
	if [ "$LONG" = 1 ]; then
		while kill -0 "$pid" 2>/dev/null; do
			sleep 1
			[ "${EPOCHREALTIME%.*}" -ge "$next" ] || continue
			next=$((next + 60))
			diag "$what, at $(elapsed) s: $("$@")"
		done
	fi
	wait "$pid" || rc=$?
	return $rc
}

# last_line FILE PREFIX: the last line of FILE that starts with PREFIX.
last_line() {
	local line last=
	while IFS= read -r line; do
		[[ $line == "$2"* ]] && last=$line
	done < "$1"
	echo "$last"
}

tap_plan 22
cm_setup
check "dp_verify builds" dp_verify_build
save_objects() { objects > /tmp/objs.0; }
check "objects in use before the load" save_objects
diag "before: $(< /tmp/objs.0)"

# ---- Churn ----
cm_section "churn: $CYCLES connections, $CONNS at a time, $ROUNDS rounds"
stats_save /tmp/stats.0
t=${EPOCHREALTIME/./}
check_here "churn: the server listens" \
	cm_server b -b $B4 -p 7500 -n $CONNS -N "$ROUNDS" -D -m 1 -s $MSG -q \
	-B 64 -t $CHURN_T
srv=$CM_SRV_PID srv_out=$CM_SRV_OUT
CM_CLI_OUT=/tmp/churn_cli.out
in_a "$CM_TOOL" client -a $B4 -p 7500 -n $CONNS -N "$ROUNDS" -D -m 1 -s $MSG \
	-q -t $CHURN_T > $CM_CLI_OUT 2>&1 &
CM_CLI_RC=0
await $! "churn" last_line $CM_CLI_OUT ROUND || CM_CLI_RC=$?
check "churn: the client ran its $ROUNDS rounds (exit 0)" \
	sh -c "[ $CM_CLI_RC = 0 ] || { cat $CM_CLI_OUT; exit 1; }"
check "churn: the client connected, moved data and disconnected $CYCLES times" \
	cm_expect "$CM_CLI_OUT" established=$CYCLES disconnected=$CYCLES \
	data_ok=$CYCLES data_fail=0 msgs=$CYCLES rejected=0 unreachable=0 \
	error=0 dup=0 async=0
check_here "churn: the server ended, all $CYCLES handled" \
	cm_server_end "$srv" "$srv_out" 30
check "churn: the server's counts" cm_expect "$srv_out" requests=$CYCLES \
	established=$CYCLES disconnected=$CYCLES data_ok=$CYCLES data_fail=0 \
	msgs=$CYCLES pd_bad=0 dup=0 async=0
ms=$(( (${EPOCHREALTIME/./} - t) / 1000 ))
diag "churn: $CYCLES cycles in $((ms / 1000)).$((ms % 1000 / 100)) s ($((CYCLES * 1000 / (ms + 1))) a second)"
diag "client: $(grep '^RESULT' "$CM_CLI_OUT")" \
	"server: $(grep '^RESULT' "$srv_out")"
check "churn: counters: kiw_a $CYCLES attempts, kiw_b $CYCLES requests, each $CYCLES established, nothing else" \
	stats_grew /tmp/stats.0 kiw_a.conn_attempts=$CYCLES \
	kiw_a.conn_established=$CYCLES kiw_b.conn_requests=$CYCLES \
	kiw_b.conn_established=$CYCLES
check "churn: the same objects in use as before (rdma res, TCP sockets, module refs)" \
	same_objects /tmp/objs.0

# ---- Soak ----
cm_section "soak: $QPS QPs, Writes, Sends and Reads for $SOAK s"
stats_save /tmp/stats.1
# soak_listening: every server said LISTENING (its output read by bash:
# a process per poll, ss or grep, costs more than it saves here).
soak_listening() {
	local i line
	for ((i = 0; i < QPS; i++)); do
		[ -r /tmp/soak_server.$i ] || return 1
		while IFS= read -r line; do
			[ "$line" = LISTENING ] && continue 2
		done < /tmp/soak_server.$i
		return 1
	done
}
# soak_progress: the cases each client has run so far.
soak_progress() {
	local i n line out=
	for ((i = 0; i < QPS; i++)); do
		n=0
		while IFS= read -r line; do
			[[ $line == "CASE "* ]] && n=$((n + 1))
		done < /tmp/soak_client.$i
		out+=" $n"
	done
	echo "cases per QP:$out"
}
# soak_side NS ROLE ARGS...: QPS dp_verify processes (ROLE: server or
# client, ARGS with "-p PORT" appended) in netns NS, started by one bash
# there: "ip netns exec" and "timeout" cost a second or more each here.
# Each one's output goes to /tmp/soak_ROLE.i, its status to .i.rc.
soak_side() {
	local ns=$1 role=$2
	shift 2
	# shellcheck disable=SC2016 # the inner script's own variables
	ip netns exec "$ns" timeout $SOAK_T bash -c '
		n=$1 role=$2
		shift 2
		for ((i = 0; i < n; i++)); do
			{ "$@" -p $((7400 + 2 * i)) > /tmp/soak_$role.$i 2>&1
			  echo $? > /tmp/soak_$role.$i.rc; } &
		done
		wait' _ $QPS "$role" "$DP_VERIFY" "$role" "$@" &
	SOAK_PIDS+=($!)
}
# soak_start: the servers in b, once all listen the clients in a.
SOAK_PIDS=()
soak_start() {
	local t=${EPOCHREALTIME/./}
	soak_side b server -b $B4
	wait_for 60 soak_listening || { echo "not all servers listen"; return 1; }
	echo "the servers listen after $(( (${EPOCHREALTIME/./} - t) / 1000 )) ms"
	soak_side a client -a $B4 -Q -T "$SOAK"
}
# soak_ok: every process exited 0, and so did both launchers.
soak_ok() {
	local i r rc
	[ "$SOAK_RC" = 0 ] || { echo "a launcher: status $SOAK_RC"; return 1; }
	for ((i = 0; i < QPS; i++)); do
		for r in server client; do
			rc=$(< /tmp/soak_$r.$i.rc) || return 1
			[ "$rc" = 0 ] || return 1
		done
	done
}
# soak_failed: what each pair printed, but the good cases.
soak_failed() {
	local i
	for ((i = 0; i < QPS; i++)); do
		echo "pair $i: client"
		grep -v '^CASE .* ok$' /tmp/soak_client.$i
		echo "pair $i: server"
		cat /tmp/soak_server.$i
	done
	return 1
}
# soak_sum: every client's SOAK and RESULT lines, summed; every case
# correct (fail=0, ok=cases) on every QP, and every QP ran a full pass.
soak_sum() {
	local i line cases=0 good=0 fail=0 w=0 s=0 r=0 passes=0 bad=0 secs=
	for ((i = 0; i < QPS; i++)); do
		local got=0
		while IFS= read -r line; do
			if [[ $line =~ ^SOAK\ seconds=([0-9]+)\ passes=([0-9]+)\ write=([0-9]+)\ send=([0-9]+)\ read=([0-9]+) ]]; then
				secs+=" ${BASH_REMATCH[1]}"
				passes=$((passes + BASH_REMATCH[2]))
				w=$((w + BASH_REMATCH[3]))
				s=$((s + BASH_REMATCH[4]))
				r=$((r + BASH_REMATCH[5]))
				got=$((got + 1))
			elif [[ $line =~ ^RESULT\ cases=([0-9]+)\ ok=([0-9]+)\ fail=([0-9]+) ]]; then
				cases=$((cases + BASH_REMATCH[1]))
				good=$((good + BASH_REMATCH[2]))
				fail=$((fail + BASH_REMATCH[3]))
				[ "${BASH_REMATCH[1]}" != 0 ] &&
				[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] &&
					got=$((got + 1))
			fi
		done < /tmp/soak_client.$i
		[ "$got" = 2 ] || { echo "QP $i: no full, correct soak"; bad=1; }
	done
	echo "$QPS QPs: $passes passes, $cases cases, $good correct, $fail wrong;" \
		"octets verified: $w written, $s sent, $r read," \
		"$((w + s + r)) in all; seconds each QP ran its cases:$secs"
	[ "$bad" = 0 ] && [ "$fail" = 0 ] && [ "$cases" = "$good" ]
}
t=${EPOCHREALTIME/./}
check_here "soak: $QPS dp_verify servers listen, their clients start" soak_start
diag "$(< /tmp/check_here.out)"
SOAK_RC=0
for pid in "${SOAK_PIDS[@]}"; do
	await "$pid" soak soak_progress || SOAK_RC=$?
done
ms=$(( (${EPOCHREALTIME/./} - t) / 1000 ))
diag "soak: $((ms / 1000)).$((ms % 1000 / 100)) s from the servers' start to the last exit"
check "soak: $QPS pairs at once for $SOAK s, every process exits 0" \
	soak_ok || soak_failed | head -100 | while IFS= read -r l; do diag "$l"; done
check "soak: every case on every QP correct, not one octet wrong" soak_sum
diag "$(soak_sum)"
check "soak: counters: $QPS connections established, no errors, resets or rejects" \
	stats_grew /tmp/stats.1 kiw_a.conn_attempts=$QPS \
	kiw_a.conn_established=$QPS kiw_b.conn_requests=$QPS \
	kiw_b.conn_established=$QPS
check_no_output "soak: no Terminate sent or received, no CRC error" \
	'[1-9]' cat /sys/class/infiniband/kiw_{a,b}/ports/1/hw_counters/{tx,rx}_terminate_{rdmap,ddp,mpa} \
	/sys/class/infiniband/kiw_{a,b}/ports/1/hw_counters/rx_{crc,marker}_errors
check "soak: the same objects in use as before" same_objects /tmp/objs.0
diag "after: $(objects)"

cm_section "teardown"
check "kmemleak: nothing leaked by the churn and the soak" kmemleak_check
check "rdma link delete kiw_a kiw_b" sh -c \
	'rdma link delete kiw_a && rdma link delete kiw_b'
check "rmmod kiw: nothing left behind" kiw_unload
diag "guest time: $(elapsed) s"
tap_done
