#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The guest side of "make bench" (scripts/bench.sh runs it with
# scripts/vm.sh): two hosts, netns a and b over one veth pair, and every
# stack measured on that pair in turn, interleaved and repeated.
#
# Usage: guest.sh [--reps N] [--duration SEC] [--bw-mib MIB] [--quick]
#                 [--only REGEX] [--need REGEX] [--skip REGEX]
#                 [--stacks REGEX] [--profile]
#   (a test runs if its name matches --only and --need and not --skip;
#   --bw-mib: the data of one headline bandwidth run, see m_bw)
#
# Stacks (one RDMA device pair on veth-a/veth-b at a time: two iWARP
# devices on one netdev are refused, and perftest's server listens on the
# wildcard address, which would reach every device of the netns):
#   tcp       iperf3, one stream
#   siw       Linux siw as shipped: MPA CRC off (siw never asks for it)
#   siw-crc   siw_crc.ko (scripts/bench/build-siw-crc.sh): siw asking for CRC
#   kiw       kiw, crc=off markers=0 p2p=1 on both devices (sysfs mpa/)
#   kiw-crc   kiw, crc=on
#   kiw-mrk   kiw, crc=off markers=1 (markers both ways)
#
# Output: one line per measurement on stdout,
#   RESULT,<rep>,<stack>,<test>,<value>,<unit>
# where value is a number or FAILED (the tool failed, timed out or printed
# no result); everything else is a comment line ("# ..."). With --profile,
# no benchmark: "perf record -a -g" over ib_write_bw (every stack),
# ib_write_lat and cmtime runs (kiw and siw), and the top of "perf report"
# between PROFILE-BEGIN and PROFILE-END lines.
. "$KIW_TOP/scripts/guest/lib.sh"
# Not a TAP test: lib.sh's exit trap would fail a script without checks.
trap - EXIT

REPS=3 DURATION=3 BW_MIB='' QUICK=0 ONLY='' NEED='' SKIP='' STACKS='' PROFILE=0
while [ $# -gt 0 ]; do
	case "$1" in
	--reps)     REPS=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--bw-mib)   BW_MIB=$2; shift 2 ;;
	--quick)    QUICK=1; shift ;;
	--only)     ONLY=$2; shift 2 ;;
	--need)     NEED=$2; shift 2 ;;
	--skip)     SKIP=$2; shift 2 ;;
	--stacks)   STACKS=$2; shift 2 ;;
	--profile)  PROFILE=1; shift ;;
	*) echo "guest.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

A4=10.77.0.1 B4=10.77.0.2
OUT=/tmp/bench
mkdir -p "$OUT"
LAT_ITERS=2000
[ "$QUICK" = 0 ] || LAT_ITERS=500
[ -n "$BW_MIB" ] || BW_MIB=$([ "$QUICK" = 0 ] && echo 64 || echo 32)
CM_TOOL=$KIW_GUEST_BIN/cm_tool
# Each run gets its own port: a socket of the previous run may linger.
PORT=20000
# A run that takes longer than this is stuck (starting perftest alone can
# take ten seconds under TCG on a loaded machine).
RUN_LIMIT=$((DURATION + 62))
# A headline bandwidth run moves BW_MIB MiB whatever its stack's rate: 64
# MiB took 13 s on siw+crc (5 MB/s) in the run of 2026-11-22.
BW_LIMIT=240

say() { echo "# $*"; }

# ---------------------------------------------------------------------------
# Stacks: which RDMA devices are on veth-a/veth-b, with which settings.

CUR_TYPE=
stack_type() {
	case "$1" in
	siw) echo siw ;;
	siw-crc) echo siwcrc ;;
	kiw*) echo kiw ;;
	esac
}

dev_a() { echo "${CUR_TYPE}_a"; }
dev_b() { echo "${CUR_TYPE}_b"; }

links_down() {
	[ -n "$CUR_TYPE" ] || return 0
	timeout 60 rdma link delete "$(dev_a)" || say "rdma link delete $(dev_a) failed"
	timeout 60 rdma link delete "$(dev_b)" || say "rdma link delete $(dev_b) failed"
	CUR_TYPE=
}

# stack_use STACK: its devices on the veth pair, its settings; fails if
# they cannot be set up.
stack_use() {
	local stack=$1 type
	type=$(stack_type "$stack")
	if [ "$type" != "$CUR_TYPE" ]; then
		links_down
		timeout 60 ip netns exec a rdma link add "${type}_a" type "$type" netdev veth-a &&
		timeout 60 ip netns exec b rdma link add "${type}_b" type "$type" netdev veth-b ||
			{ say "$stack: rdma link add failed"; CUR_TYPE=$type; links_down; return 1; }
		CUR_TYPE=$type
		wait_for 20 kiw_port_is "$(dev_a)" ACTIVE &&
		wait_for 20 kiw_port_is "$(dev_b)" ACTIVE ||
			{ say "$stack: ports not ACTIVE"; return 1; }
	fi
	case "$stack" in
	kiw)     kiw_mpa off 0 ;;
	kiw-crc) kiw_mpa on 0 ;;
	kiw-mrk) kiw_mpa off 1 ;;
	esac
}

# kiw_mpa CRC MARKERS: both devices; connections made afterwards use them.
# Peer-to-peer mode (RFC 6581) too, as iWARP hardware runs by default: an
# MPA responder sends nothing before the initiator's first FPDU (RFC 5044
# 7.1.2 (4)), and ib_write_lat's server, the responder, writes first; the
# initiator's RTR lets it. (siw has no such setting: it neither holds its
# FPDUs as a responder nor sends an RTR.)
kiw_mpa() {
	local d
	for d in kiw_a kiw_b; do
		echo "$1" > "/sys/class/infiniband/$d/mpa/crc" &&
		echo "$2" > "/sys/class/infiniband/$d/mpa/markers" &&
		echo 1 > "/sys/class/infiniband/$d/mpa/p2p" || return 1
	done
}

# ---------------------------------------------------------------------------
# Runs.

# listening PID PORT: a TCP socket listens on PORT in the netns of PID.
# (Reading the table through /proc costs nothing; starting "ip netns exec
# ss" five times a second would slow down the server it waits for.)
listening() {
	awk -v p=":$(printf '%04X' "$2")" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
		END { exit !f }' "/proc/$1/net/tcp" "/proc/$1/net/tcp6" 2>/dev/null
}

# server_start CMD...: in netns b, output in $OUT/srv; waits until its port
# ($PORT) listens. The server's pid in SRV.
SRV=''
server_start() {
	local end=$(( $(date +%s) + 60 ))
	ip netns exec b timeout "$RUN_LIMIT" stdbuf -oL "$@" > "$OUT/srv" 2>&1 &
	SRV=$!
	until listening "$SRV" "$PORT"; do
		if ! kill -0 "$SRV" 2>/dev/null; then
			say "the server ended without listening"
			return 1
		fi
		if [ "$(date +%s)" -ge "$end" ]; then
			say "the server did not listen on port $PORT within 60 s"
			return 1
		fi
		sleep 0.3
	done
}

# server_stop: wait a little for the server to end by itself, then end it.
server_stop() {
	local i
	[ -n "$SRV" ] || return 0
	for i in $(seq 50); do
		kill -0 "$SRV" 2>/dev/null || break
		sleep 0.2
	done
	kill "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
	SRV=
}

# client CMD...: in netns a, output in $OUT/cli (line-buffered, so that
# what a killed client printed is kept); its status in CLI_RC.
CLI_RC=0
client() {
	CLI_RC=0
	ip netns exec a timeout "$RUN_LIMIT" stdbuf -oL "$@" > "$OUT/cli" 2>&1 ||
		CLI_RC=$?
	return "$CLI_RC"
}

# show_failure: both sides' output (its last 60 lines: all of a
# perftest's) and the kernel's messages of the run, for the log.
show_failure() {
	say "--- client (status $CLI_RC$([ "$CLI_RC" = 124 ] && echo ", timed out")):"
	tail -n 60 "$OUT/cli" 2>/dev/null | sed 's/^/#   /'
	say "--- server:"
	tail -n 60 "$OUT/srv" 2>/dev/null | sed 's/^/#   /'
	say "--- kernel:"
	dmesg | tail -n 8 | sed 's/^/#   /'
}

# perftest TOOL ARGS...: one perftest run over the current device pair;
# its result line (the first line of numbers after the column header) in
# $OUT/res.
#
# perftest -R races with itself: its client may connect the test's QPs
# before its server listens for them again, gets RDMA_CM_EVENT_REJECTED
# -111 whatever the iWARP device, and perftest 4.5+0.17 then crashes in
# its own retry (the trace: pt_run in scripts/guest/dp_lib.sh). No test of
# the stack: such a run is repeated, on a new port, three tries in all.
perftest() {
	local tool=$1 try
	shift
	for try in 1 2 3; do
		[ "$try" = 1 ] || PORT=$((PORT + 1))
		: > "$OUT/res"
		server_start "$tool" -R -F -d "$(dev_b)" -p "$PORT" "$@" || return 1
		if client "$tool" -R -F -d "$(dev_a)" -p "$PORT" "$@" "$B4"; then
			server_stop
			awk '/^ *#bytes/ { hdr = 1; next }
			     hdr && $1 ~ /^[0-9]+$/ { print; exit }' \
				"$OUT/cli" > "$OUT/res"
			return 0
		fi
		grep -q 'RDMA_CM_EVENT_REJECTED; error: -111' "$OUT/cli" ||
			return 1
		say "perftest's test connection came before its server listened (try $try)"
		# Its server waits for that connection for good.
		kill "$SRV" 2>/dev/null
		wait "$SRV" 2>/dev/null
		SRV=
	done
	return 1
}

# The measurements: each sets V (empty if it failed).

# Gbit/s: perftest's "BW average" column (bytes, iterations, peak, average).
#
# The headline, m_bw SIZE QPS TOOL: perftest as users run it, with its
# default completion moderation (-Q not given: a signalled work request
# every 100 below 8 KiB, every one above, where perftest itself turns it
# off; the run's "CQ Moderation" line goes to the log), for a number of
# iterations (-n) that moves BW_MIB MiB per QP set: 64 MiB, 16384
# messages of 4 KiB, 1024 of 64 KiB, 64 of 1 MiB, a few seconds on kiw and
# up to 15 on siw+crc. Not a duration (-D): perftest counts a duration
# run's messages by completions, cq_mod at a time, so that at this
# machine's rates (100 messages of 4 KiB take a tenth of a second on
# siw+crc, of 64 KiB seconds) its result is rounded to a multiple of 100
# messages, often 0. An iteration run signals its last work request too,
# and its time runs from the first post to the last completion: exact,
# whatever the moderation. Start-up (TCP's slow start on veth) is inside
# the time, a few milliseconds of seconds.
#
# The second set, m_bwq1 SIZE QPS TOOL: every work request signalled
# (-Q 1), DURATION seconds after a second of warm-up and before a second
# of cool-down (perftest's margins: left at their default, two seconds,
# they swallow a short run whole and leave a bandwidth of 0): the rows of
# every make bench before issue 17.
#
# perftest polls its CQ (its -e, completion events, refuses RDMA Write),
# so on two vCPUs the client and the server take about half of the CPU
# time (profile) and the stack's own work runs in what they leave.
#
# A bandwidth of 0: perftest converts cycles to time with a clock rate it
# measures first, against gettimeofday(), and when the two correlate
# badly (r^2 < 0.9: time in a TCG guest on a loaded host moves in jumps)
# it says so and reports 0 (seen on 2026-11-27: siw write_bw/4K, "r^2:
# 0.872099 < 0.9", both sides 0.000000; the likely cause of the zero runs
# of earlier make bench runs, whose output was not kept). Such a run is
# repeated, up to three times in all, as m_lat does; any other 0 goes to
# the log with what perftest said on both sides.
m_bw() {
	local size=$1 qps=$2 iters RUN_LIMIT=$BW_LIMIT
	shift 2
	iters=$(( BW_MIB * 1048576 / size / qps ))
	[ "$iters" -ge 5 ] || iters=5
	bw_tries "$@" -s "$size" -q "$qps" -n "$iters" --report_gbits ||
		return 1
	say "perftest: $(grep -m1 'CQ Moderation' "$OUT/cli" | tr -s ' '), $iters iterations"
}

m_bwq1() {
	local size=$1 qps=$2
	shift 2
	bw_tries "$@" -s "$size" -q "$qps" -Q 1 -D $((DURATION + 2)) -f 1 \
		--report_gbits
}

# bw_tries TOOL ARGS...: perftest, repeated when it could not measure its
# clock rate; V its bandwidth (empty after three such runs).
bw_tries() {
	local try
	for try in 1 2 3; do
		[ "$try" = 1 ] || PORT=$((PORT + 1))
		perftest "$@" || return 1
		bw_value
		awk -v v="$V" 'BEGIN { exit !(v + 0 == 0) }' &&
			grep -q 'Correlation coefficient' "$OUT/cli" || return 0
		say "perftest could not measure the clock rate (try $try)"
	done
	# Not a measurement: FAILED.
	V=
}

bw_value() {
	V=$(awk '{ print $4 }' "$OUT/res")
	awk -v v="$V" 'BEGIN { exit !(v + 0 == 0) }' || return 0
	say "a bandwidth of 0 (or none): the client said"
	sed 's/^/#   /' "$OUT/cli"
	say "and the server"
	sed 's/^/#   /' "$OUT/srv"
}

# microseconds: the typical (median) latency column (bytes, iterations,
# min, max, typical...). perftest converts cycles to time with a clock
# rate it measures first, against gettimeofday(); when the two correlate
# badly (r^2 < 0.9: time in a TCG guest on a loaded host moves in jumps),
# it reports "inf". Such a run is repeated, up to three times in all.
m_lat() {
	local try
	for try in 1 2 3; do
		[ "$try" = 1 ] || PORT=$((PORT + 1))
		perftest "$@" -n "$LAT_ITERS" || return 1
		V=$(awk '{ print $5 }' "$OUT/res")
		[ "$V" = inf ] && grep -q 'Correlation coefficient' "$OUT/cli" ||
			return 0
		say "perftest could not measure the clock rate (try $try)"
	done
}

# connections per second, m_cm N: cmtime's "connect" step, the time from
# the first rdma_connect to the last ESTABLISHED over N connections
# (resolving addresses and routes and creating QPs, done before it, are
# the same for every stack or not the driver's connection setup).
m_cm() {
	local n=$1 ms
	server_start cmtime -b "$B4" -p "$PORT" -c "$n" || return 1
	client cmtime -s "$B4" -b "$A4" -p "$PORT" -c "$n" || return 1
	server_stop
	# cmtime goes on when a step fails for some connections and times
	# the rest: with siw, libsiw fails every QP after the 71st ("failure
	# creating qp", Debian's rdma-core 44), so its rate would be that of
	# 71 connections. Such a run is no measurement of N.
	if grep -q '^failure' "$OUT/cli"; then
		say "cmtime: $(grep -c '^failure' "$OUT/cli") of $n connections failed a step ($(grep -m1 '^failure' "$OUT/cli"))"
		return 1
	fi
	ms=$(awk -F: '$1 ~ /^connect *$/ { split($2, f, " "); print f[1] }' "$OUT/cli")
	[ -n "$ms" ] || return 1
	V=$(awk -v n="$n" -v ms="$ms" \
		'BEGIN { if (ms > 0) printf "%.1f\n", n * 1000 / ms }')
}

# kmem: the kernel's memory in KiB, from /proc/meminfo: what is neither
# free nor user memory nor a cache: MemTotal - MemFree - Buffers - Cached -
# AnonPages - SReclaimable, less the free pages waiting in the per-CPU
# lists (/proc/zoneinfo's "count"s, which MemFree leaves out and which
# move by megabytes). What stays: unreclaimable slab (sockets, QPs, every
# kmalloc), vmalloc (queues mapped to user space), pages the drivers take
# from the page allocator themselves (kmalloc above 8 KiB among them),
# page tables, kernel stacks, per-CPU memory. The pages of registered
# memory are user memory (AnonPages): the same for every stack.
kmem() {
	awk 'FNR == 1 { f++ }
	     f == 1 && /^(MemTotal|MemFree|Buffers|Cached|AnonPages|SReclaimable):/ {
		v[$1] = $2 }
	     f == 2 && $1 == "count:" { pcp += $2 }
	     END { print v["MemTotal:"] - v["MemFree:"] - v["Buffers:"] - \
		v["Cached:"] - v["AnonPages:"] - v["SReclaimable:"] - pcp * 4 }' \
		/proc/meminfo /proc/zoneinfo
}

# kmem_parts: the parts of kmem that /proc/meminfo names, KiB.
kmem_parts() {
	awk '/^(SUnreclaim|VmallocUsed|PageTables|KernelStack|Percpu):/ {
		printf "%s%s %d", sep, $1, $2; sep = " " } END { print "" }' \
		/proc/meminfo
}

# kmem_detail FILE: the slab caches (KiB in their objects) and the
# vmalloc areas (KiB, by the function that asked) as "kind name KiB"
# lines, for kmem_grown.
kmem_detail() {
	{
		awk 'NR > 2 { printf "slab %s %d\n", $1, $3 * $4 / 1024 }' \
			/proc/slabinfo
		awk '{ c = $3; sub(/\+.*/, "", c); v[c] += $2 }
		     END { for (c in v) printf "vmalloc %s %d\n", c, v[c] / 1024 }' \
			/proc/vmallocinfo
	} > "$1" 2>/dev/null || :
}

# kmem_grown A B N: the eight slab caches and vmalloc callers that grew
# most from snapshot A to snapshot B, KiB per connection of N.
kmem_grown() {
	awk -v n="$3" 'FNR == 1 { f++ }
	     f == 1 { a[$1 " " $2] = $3 }
	     f == 2 { d = $3 - a[$1 " " $2]; if (d > 0) print d, $1, $2 }' \
		"$1" "$2" | sort -rn | head -8 |
		awk -v n="$3" '{ printf "%s%s %s %.1f", sep, $2, $3, $1 / n; sep = ", " }
		     END { print "" }'
}

# slab_shrink: give every slab cache's empty slabs back to the page
# allocator (SLUB's /sys/kernel/slab/*/shrink), so that a stack measured
# after another does not look cheaper by filling the slabs the other one
# emptied.
slab_shrink() {
	local f
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 > "$f" 2>/dev/null || :
	done
}

# kmem_settled: kmem once it stops moving (two readings a second apart
# within 64 KiB; at most 10 s): freeing work queued by the teardown ends.
kmem_settled() {
	local a b i
	a=$(kmem)
	for i in $(seq 10); do
		sleep 1
		b=$(kmem)
		[ $(( a > b ? a - b : b - a )) -gt 64 ] || break
		a=$b
	done
	echo "$b"
}

# Tolerance of the teardown's check, KiB: 1 MiB, or a tenth of what the
# connections held if more (slab pages a slab cache keeps, TCP's
# TIME-WAIT sockets of 60 s: a few hundred octets a connection).
leak_tolerance() {
	local held=$1
	echo $(( held / 10 > 1024 ? held / 10 : 1024 ))
}

# Kernel memory per established connection, KiB, m_mem N: N connections
# from netns a to netns b held at once, each having moved one message of
# 64 octets each way (cm_tool -D -H), kmem before and while they are held;
# both ends are in this guest, so a connection counts both of its QPs,
# sockets and MPA states, and the processes' own kernel memory (page
# tables, verbs contexts) is shared out over N. The connections come in
# pairs of a server and a client of at most MEM_CHUNK connections each, a
# pair started once the one before holds all of its own. Why chunks: one
# server for all, under TCG, set up a connection (PD, CQ, MR, QP: four
# system calls, milliseconds each) so slowly that a storm of 1000
# Requests waited longer than kiw's MPA timeout (5 s) and about half of
# them failed (cm_connect/1000 is where a storm is measured); and
# Debian's libsiw (rdma-core 44) refuses a queue whose mmap key is
# 0x90000, which siw hands out as the 145th mapped queue of a process
# (SIW_INVAL_UOBJ_KEY is SIW_UOBJ_MAX_KEY + 1, a valid key once 144 are
# taken): a cm_tool connection maps three (CQ, SQ, RQ), so a process of
# siw's stops at its 49th. 40 per process stays below. Then they are
# torn down, and (EXTRA results) for N = 1000: conn1000/ok, the
# connections that came up and moved their messages on both ends;
# conn1000/leak, kmem after the teardown less before, KiB;
# conn1000/tol, the tolerance of that (leak_tolerance); conn1000/unload,
# 1 if the module's refcount is 0 once the devices are gone and it
# unloads and loads again. The extra results have their own lines,
# FAILED when the run failed.
MEM_CHUNK=40
EXTRA=()
m_mem() {
	local n=$1 lim before during after held srv_rc
	local cpid end i k c_est=0 c_ok=0 s_ok=0 parts0 parts1 mod rc=0 v
	local tag="conn$n" clis=() srvs=()
	# (not on the line of "local n": that expands before n is set)
	lim=$(( 60 + n / 2 ))
	[ "$n" = 1000 ] && EXTRA=("$tag/ok|FAILED|conns" "$tag/leak|FAILED|KiB"
		"$tag/tol|FAILED|KiB" "$tag/unload|FAILED|ok")
	sleep 1
	slab_shrink
	before=$(kmem_settled) parts0=$(kmem_parts)
	kmem_detail "$OUT/kmem.0"
	end=$(( $(date +%s) + lim ))
	rm -f "$OUT"/cli.* "$OUT"/srv.*
	for (( i = 0; i * MEM_CHUNK < n; i++ )); do
		k=$(( n - i * MEM_CHUNK < MEM_CHUNK ? n - i * MEM_CHUNK : MEM_CHUNK ))
		PORT=$((PORT + 1))
		: > "$OUT/srv.$i"
		ip netns exec b timeout "$lim" "$CM_TOOL" server -b "$B4" \
			-p "$PORT" -n "$k" -B 1024 -D -q -t "$lim" > "$OUT/srv.$i" 2>&1 &
		srvs+=($!)
		wait_for 30 grep -q '^LISTENING' "$OUT/srv.$i" ||
			{ say "server $i did not listen"; rc=1; break; }
		: > "$OUT/cli.$i"
		ip netns exec a timeout "$lim" "$CM_TOOL" client -a "$B4" \
			-p "$PORT" -n "$k" -D -q -H -t "$lim" > "$OUT/cli.$i" 2>&1 &
		clis+=($!)
		v=$(date +%s)
		until grep -q '^HOLDING' "$OUT/cli.$i"; do
			kill -0 "${clis[i]}" 2>/dev/null && [ "$(date +%s)" -lt "$end" ] ||
				break
			sleep 0.5
		done
		# (It may have said HOLDING, then lost its connections and ended.)
		kill -0 "${clis[i]}" 2>/dev/null ||
			{ say "client $i ended after $(( $(date +%s) - v )) s ($(grep -c '^HOLDING' "$OUT/cli.$i") HOLDING lines)"; rc=1; break; }
		grep -q '^HOLDING' "$OUT/cli.$i" ||
			{ say "client $i timed out before holding"; rc=1; break; }
	done
	if [ "$rc" = 0 ]; then
		sleep 1
		during=$(kmem) parts1=$(kmem_parts)
		say "held: $(cat "$OUT"/cli.* | grep -c '^HOLDING') client(s)," \
			"$(cat "$OUT"/cli.* | awk '/^HOLDING/ { split($2, f, "="); e += f[2] } END { print e + 0 }')" \
			"connections; kmem $before -> $during KiB; $parts0 -> $parts1;" \
			"MemFree $(awk '/^MemFree:/ { print $2 }' /proc/meminfo) KiB"
		kmem_detail "$OUT/kmem.1"
		say "held, most grown, KiB per connection:" \
			"$(kmem_grown "$OUT/kmem.0" "$OUT/kmem.1" "$n")"
	fi
	# Release them all (or, when one failed, end them): timeout runs
	# cm_tool as its child (ip netns exec execs timeout); the list of
	# children ends without a newline, so read "fails", having read it.
	for i in "${clis[@]}"; do
		cpid=
		read -r cpid _ < "/proc/$i/task/$i/children" || :
		[ "$rc" = 0 ] && [ -n "$cpid" ] && kill -USR2 "$cpid" 2>/dev/null ||
			kill "$i" 2>/dev/null
	done
	CLI_RC=0
	for i in "${clis[@]}"; do
		wait "$i" || CLI_RC=$?
	done
	# A server whose client is gone ends once its connections have; one
	# that waits for connections that never came is ended after 30 s.
	for k in $(seq 60); do
		v=0
		for i in "${srvs[@]}"; do
			! kill -0 "$i" 2>/dev/null || v=1
		done
		[ "$v" = 1 ] || break
		sleep 0.5
	done
	srv_rc=0
	for i in "${srvs[@]}"; do
		kill "$i" 2>/dev/null
		wait "$i" || srv_rc=$?
	done
	cat "$OUT"/cli.* > "$OUT/cli" 2>/dev/null
	cat "$OUT"/srv.* > "$OUT/srv" 2>/dev/null
	# Every pair's output, when a pair failed (show_failure has only the
	# end of it all).
	for (( i = 0; rc != 0 && i < ${#clis[@]}; i++ )); do
		say "pair $i, client:"
		head -n 50 "$OUT/cli.$i" | sed 's/^/#   /'
		say "pair $i, server:"
		head -n 50 "$OUT/srv.$i" | sed 's/^/#   /'
	done
	after=$(kmem_settled)
	for v in $(sed -n 's/^RESULT established=\([0-9]*\) .*/\1/p' "$OUT/cli"); do
		c_est=$(( c_est + v ))
	done
	for v in $(sed -n 's/^RESULT .* data_ok=\([0-9]*\) .*/\1/p' "$OUT/cli"); do
		c_ok=$(( c_ok + v ))
	done
	for v in $(sed -n 's/^RESULT .* data_ok=\([0-9]*\) .*/\1/p' "$OUT/srv"); do
		s_ok=$(( s_ok + v ))
	done
	held=$(( ${during:-$before} - before ))
	say "after the teardown: kmem $after KiB ($(( after - before )) KiB above" \
		"before; tolerance $(leak_tolerance "$held")); clients:" \
		"established=$c_est data_ok=$c_ok (status $CLI_RC); servers:" \
		"data_ok=$s_ok (status $srv_rc)"
	if [ "$n" = 1000 ]; then
		EXTRA=("$tag/ok|$(( c_ok < s_ok ? c_ok : s_ok ))|conns"
			"$tag/leak|$(( after - before ))|KiB"
			"$tag/tol|$(leak_tolerance "$held")|KiB" "$tag/unload|0|ok")
		# Unload: the devices go first.
		mod=$(stack_module "$STACK")
		links_down
		i=$(cat "/sys/module/$mod/refcnt" 2>/dev/null)
		if [ "$i" = 0 ] && timeout 60 rmmod "$mod" && timeout 60 modprobe "$mod"; then
			EXTRA[3]="$tag/unload|1|ok"
		else
			say "$mod: refcount ${i:-?} once its devices were gone, or it did not unload and load"
		fi
		say "after unloading $mod and loading it again: kmem $(kmem) KiB"
	fi
	[ "$rc" = 0 ] && [ "$CLI_RC" = 0 ] && [ "$srv_rc" = 0 ] &&
		[ "$c_est" = "$n" ] && [ "$c_ok" = "$n" ] && [ "$s_ok" = "$n" ] ||
		{ say "not every connection came up and moved its data"; return 1; }
	V=$(awk -v d="$held" -v n="$n" 'BEGIN { printf "%.1f\n", d / n }')
}

stack_module() {
	case "$1" in
	siw) echo siw ;;
	siw-crc) echo siw_crc ;;
	kiw*) echo kiw ;;
	esac
}

# Gbit/s: iperf3, one TCP stream, received, over DURATION seconds after a
# second of slow start.
m_tcp() {
	server_start iperf3 -s -1 -p "$PORT" || return 1
	client iperf3 -c "$B4" -p "$PORT" -t $((DURATION + 1)) -O 1 -f m || return 1
	server_stop
	V=$(awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec")
		{ printf "%.4f\n", $i / 1000; exit } }' "$OUT/cli")
}

# Tests: name, unit, measuring command (run with the stack's devices set).
TESTS=()
add_test() { TESTS+=("$1|$2|$3"); }

size_name() {
	case "$1" in
	4096) echo 4K ;; 65536) echo 64K ;; 1048576) echo 1M ;; *) echo "$1" ;;
	esac
}

if [ "$QUICK" = 1 ]; then
	BW_SIZES=(65536) LAT_SIZES=(8)
else
	BW_SIZES=(4096 65536 1048576) LAT_SIZES=(8 4096)
fi
add_test tcp Gbit/s m_tcp
for s in "${BW_SIZES[@]}"; do
	for op in write read send; do
		add_test "${op}_bw/$(size_name "$s")" Gbit/s "m_bw $s 1 ib_${op}_bw"
	done
done
add_test "write_bw_16qp/64K" Gbit/s "m_bw 65536 16 ib_write_bw"
# The second set (quick: left out): every work request signalled.
if [ "$QUICK" = 0 ]; then
	for s in "${BW_SIZES[@]}"; do
		for op in write read send; do
			add_test "${op}_bw/$(size_name "$s")/Q1" Gbit/s \
				"m_bwq1 $s 1 ib_${op}_bw"
		done
	done
	add_test "write_bw_16qp/64K/Q1" Gbit/s "m_bwq1 65536 16 ib_write_bw"
fi
for s in "${LAT_SIZES[@]}"; do
	for op in write send; do
		add_test "${op}_lat/$(size_name "$s")" us "m_lat ib_${op}_lat -s $s"
	done
done
add_test cm_connect/50 conn/s "m_cm 50"
add_test cm_connect/100 conn/s "m_cm 100"
add_test cm_connect/1000 conn/s "m_cm 1000"
# Memory: siw and kiw (MEM_STACKS); CRC and markers change no state of
# siw's. kiw shapes a connection's send state by its framing (with CRC,
# kiw's default, no vectors and one FPDU slot: kiw_tx_batch.h), so kiw-crc
# is measured too, up to 100 connections (MEM_CRC_TESTS).
add_test mem/1 KiB/conn "m_mem 1"
add_test mem/100 KiB/conn "m_mem 100"
add_test mem/1000 KiB/conn "m_mem 1000"
MEM_STACKS='^(siw|kiw)$'
MEM_CRC_TESTS='^mem/(1|100)$'

RDMA_STACKS=(siw siw-crc kiw kiw-crc kiw-mrk)

# measure REP STACK TEST UNIT CMD: one measurement, one RESULT line.
STACK=
measure() {
	local rep=$1 stack=$2 test=$3 unit=$4 cmd=$5 v t0 x
	PORT=$((PORT + 1))
	t0=$(date +%s)
	V='' SRV='' CLI_RC=0 STACK=$stack EXTRA=()
	dmesg -C
	if [ "$stack" = tcp ] || stack_use "$stack"; then
		# shellcheck disable=SC2086
		$cmd || V=
	fi
	server_stop
	v=$V
	if ! [[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		say "FAILED: $stack $test ($cmd)"
		show_failure
		v=FAILED
		# Start the next run from fresh devices.
		[ "$stack" = tcp ] || links_down
	fi
	echo "RESULT,$rep,$stack,$test,$v,$unit"
	say "$stack $test: $v $unit ($(( $(date +%s) - t0 )) s)"
	# A test's further results (m_mem): test|value|unit.
	for x in "${EXTRA[@]}"; do
		IFS='|' read -r test v unit <<<"$x"
		echo "RESULT,$rep,$stack,$test,$v,$unit"
		say "$stack $test: $v $unit"
	done
}

# hosts_up: as kiw_hosts_up (guest/lib.sh), but veth-a and veth-b get
# different interface indexes. siw binds its listener for a wildcard
# address to the index of the device's interface, in the netns of the
# listening task; perftest's server listens on the wildcard, so it gets one
# siw listener for siw_b and one for siw_a, both in netns b, and with equal
# indexes (each netns numbers its own interfaces) the second one fails
# with EADDRINUSE and so does the listen.
hosts_up() {
	ip netns add a && ip netns add b &&
	ip link add veth-a index 101 netns a type veth \
		peer name veth-b index 102 netns b &&
	_kiw_host_up a veth-a "$A4" fd77::1 &&
	_kiw_host_up b veth-b "$B4" fd77::2
}

setup() {
	hosts_up || { echo "cannot set up the hosts" >&2; exit 1; }
	modprobe ib_uverbs && modprobe rdma_ucm && modprobe kiw &&
		modprobe siw && modprobe siw_crc ||
		{ echo "cannot load the modules" >&2; exit 1; }
	say "kernel $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
}

bench() {
	local rep i n=0 test name unit cmd stacks s
	for rep in $(seq "$REPS"); do
		for i in "${!TESTS[@]}"; do
			test=${TESTS[$i]}
			IFS='|' read -r name unit cmd <<<"$test"
			[ -z "$ONLY" ] || [[ "$name" =~ $ONLY ]] || continue
			[ -z "$NEED" ] || [[ "$name" =~ $NEED ]] || continue
			[ -z "$SKIP" ] || ! [[ "$name" =~ $SKIP ]] || continue
			if [ "$name" = tcp ]; then
				[ -z "$STACKS" ] || [[ tcp =~ $STACKS ]] || continue
				measure "$rep" tcp tcp "$unit" "$cmd"
				continue
			fi
			# Snake order: the device pair changes twice per test,
			# and no stack always runs first or last.
			stacks=("${RDMA_STACKS[@]}")
			if [ $(( (n + rep) % 2 )) = 1 ]; then
				stacks=(kiw-mrk kiw-crc kiw siw-crc siw)
			fi
			n=$((n + 1))
			for s in "${stacks[@]}"; do
				[ -z "$STACKS" ] || [[ "$s" =~ $STACKS ]] || continue
				[[ "$name" != mem/* ]] || [[ "$s" =~ $MEM_STACKS ]] ||
					{ [ "$s" = kiw-crc ] &&
					  [[ "$name" =~ $MEM_CRC_TESTS ]]; } ||
					continue
				measure "$rep" "$s" "$name" "$unit" "$cmd"
			done
		done
	done
	links_down
}

# perftest_ticks PID...: user and system CPU ticks of the children of the
# PIDs (timeout runs perftest as its child; pgrep would cost more CPU, under
# TCG, than what it measures).
perftest_ticks() {
	local p c u=0 k=0 f kids
	for p in "$@"; do
		kids=()
		# (the list ends without a newline: read "fails", having read it)
		read -r -a kids < "/proc/$p/task/$p/children" 2>/dev/null || :
		for c in "${kids[@]}"; do
			read -r -a f < "/proc/$c/stat" || continue
			u=$((u + f[13])) k=$((k + f[14]))
		done
	done
	echo "$u $k"
}

# profile_one STACK TEST SECONDS: perf over SECONDS of one run of TEST
# (write_bw/64K, write_lat/8 or cm_connect) on STACK. perf starts first,
# with its events disabled (starting it takes tens of seconds here, and
# would otherwise be most of what it samples), and is switched on through
# its control fifo once the client moves data (perftest prints its column
# header then; cmtime starts connecting at once).
#
# The steps below share profile_one's locals (bash's scoping is dynamic):
# each says which it reads and which it sets.
profile_one() {
	local stack=$1 test=$2 secs=$3 data=$OUT/perf.data cli perf end _ack
	local t0 t1 s0 s1 c0 c1 p0 p1 running srv_cmd cli_cmd marker=
	local run=$((secs * 5))
	stack_use "$stack" || { say "profile: $stack: no devices"; return 1; }
	PORT=$((PORT + 1))
	profile_cmds || return 1
	profile_perf_start || return 1
	profile_client_start || return 1
	profile_window
	profile_stop
	profile_summary
	profile_reports
	profile_folded
}

# profile_cmds: the server's and client's commands for test and run
# (srv_cmd and cli_cmd, @P@ for the port) and marker, the client's line
# that says it moves data (none: it does at once). 1 for an unknown test.
profile_cmds() {
	# A perftest run lasts five times the window: "sleep 8" in this guest
	# took up to 23 s by its clock on a loaded host, and the window must
	# fall inside the run.
	case "$test" in
	write_bw/64K)
		srv_cmd="ib_write_bw -R -F -d $(dev_b) -p @P@ -s 65536 -Q 1 -D $run -f 1 --report_gbits"
		cli_cmd="ib_write_bw -R -F -d $(dev_a) -p @P@ -s 65536 -Q 1 -D $run -f 1 --report_gbits $B4"
		marker='^ *#bytes' ;;
	write_lat/8|send_lat/8)
		# An iteration count far beyond the window (a duration run,
		# -D, measured nothing useful here: its client ran a few
		# thousand round trips of milliseconds); the client is
		# stopped after the window, messages are counted on the
		# link.
		srv_cmd="ib_${test%/*} -R -F -d $(dev_b) -p @P@ -s 8 -n 5000000"
		cli_cmd="ib_${test%/*} -R -F -d $(dev_a) -p @P@ -s 8 -n 5000000 $B4"
		marker='^ *#bytes' ;;
	cm_connect)
		srv_cmd="cmtime -b $B4 -p @P@ -c 1000"
		cli_cmd="cmtime -s $B4 -b $A4 -p @P@ -c 1000" ;;
	*)	return 1 ;;
	esac
}

# profile_perf_start: perf recording into data, its events off, started
# and answering on its control fifo; sets perf (its pid). 1 (perf ended)
# when it did not start.
profile_perf_start() {
	rm -f "$OUT/ctl" "$OUT/ack" "$data"
	mkfifo "$OUT/ctl" "$OUT/ack"
	perf record -a -g -e cpu-clock -F 999 -D -1 \
		--control "fifo:$OUT/ctl,$OUT/ack" -o "$data" -- sleep 100000 \
		> "$OUT/perf.log" 2>&1 &
	perf=$!
	# perf opens the fifos once it is ready: wait for that before the
	# run starts ("disable" changes nothing yet).
	# Its first start in a guest can take minutes (the run's window
	# then passed before it recorded anything): no run without it.
	echo disable > "$OUT/ctl"
	read -r -t 900 _ack < "$OUT/ack" ||
		{ say "profile: $stack: perf did not start"; kill -INT "$perf"; wait "$perf"; return 1; }
}

# profile_client_start: the server (SRV) and the client (cli, output in
# $OUT/cli) of srv_cmd and cli_cmd, the client moving data (its marker
# seen) unless three tries failed. 1 (perf ended) when the server did not
# start.
profile_client_start() {
	local try
	# perftest -R may crash when its client connects before its server
	# listens (see perftest() above): three tries, each on a new port.
	for try in 1 2 3; do
		[ "$try" = 1 ] || PORT=$((PORT + 1))
		# shellcheck disable=SC2086
		server_start ${srv_cmd//@P@/$PORT} ||
			{ kill -INT "$perf"; wait "$perf"; return 1; }
		# shellcheck disable=SC2086
		ip netns exec a timeout $((RUN_LIMIT + run)) stdbuf -oL \
			${cli_cmd//@P@/$PORT} > "$OUT/cli" 2>&1 &
		cli=$!
		end=$(( $(date +%s) + 60 ))
		while [ -n "$marker" ] && ! grep -q "$marker" "$OUT/cli"; do
			kill -0 "$cli" 2>/dev/null && [ "$(date +%s)" -lt "$end" ] ||
				break
			sleep 0.2
		done
		[ -z "$marker" ] || kill -0 "$cli" 2>/dev/null || {
			say "profile: $stack: the client ended before its run (try $try)"
			wait "$cli"
			kill "$SRV" 2>/dev/null
			wait "$SRV" 2>/dev/null
			SRV=
			continue
		}
		break
	done
}

# profile_window: perf on for the window (secs, or until cmtime ends),
# then off; sets t0 t1 (its clock), s0 s1 (/proc/stat's cpu line), c0 c1
# (the tools' ticks), p0 p1 (the link's packets) and running (the client
# still running at its end: yes or no).
profile_window() {
	[ -z "$marker" ] || sleep 1
	echo enable > "$OUT/ctl"
	read -r -t 60 _ack < "$OUT/ack" || say "profile: no ack from perf"
	t0=$(date +%s.%N) s0=$(head -n 1 /proc/stat)
	c0=$(perftest_ticks "$cli" "$SRV")
	p0=$(link_packets "$cli")
	if [ -n "$marker" ]; then
		sleep "$secs"
	else
		# cmtime: until the client is done (or SECONDS times five).
		end=$(( $(date +%s) + run ))
		while kill -0 "$cli" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
			sleep 0.2
		done
	fi
	c1=$(perftest_ticks "$cli" "$SRV")
	p1=$(link_packets "$cli")
	t1=$(date +%s.%N) s1=$(head -n 1 /proc/stat)
	running=$(kill -0 "$cli" 2>/dev/null && echo yes || echo no)
	echo disable > "$OUT/ctl"
	read -r -t 60 _ack < "$OUT/ack" || say "profile: no ack from perf"
}

# profile_stop: perf, the client and the server ended; perf's log shown
# when it wrote no data.
profile_stop() {
	kill -INT "$perf"
	# (perf's status is that of its workload, killed by SIGINT)
	wait "$perf"
	[ -s "$data" ] || { say "perf record failed"; cat "$OUT/perf.log"; }
	# A latency client runs on beyond the window: its result is not used.
	[ "$running" = no ] || [ -z "$marker" ] || kill "$cli" 2>/dev/null
	wait "$cli"
	server_stop
}

# profile_summary: the PROFILE-BEGIN line (the client's result) and the
# window's time, ticks, packets and CPU use.
profile_summary() {
	echo "PROFILE-BEGIN $stack $test: $(awk '/^ *#bytes/ { h = 1; next }
		h && $1 ~ /^[0-9]+$/ { print; exit }
		/^connect *:/ { print "connect step:", $0 }' "$OUT/cli")"
	# What the CPUs did in the window, by /proc/stat (user nice system
	# idle iowait irq softirq), and perftest's own user and system ticks.
	echo "window: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s;" \
		"client still running at its end: $running;" \
		"the tools' user and system ticks: $c0 -> $c1;" \
		"veth-a packets (rx tx): $p0 -> $p1"
	printf '%s\n%s\n' "$s0" "$s1" |
		awk 'NR == 1 { for (i = 2; i <= 8; i++) a[i] = $i }
		     NR == 2 { for (i = 2; i <= 8; i++) { d[i] = $i - a[i]; t += d[i] } }
		     END { if (t) printf "cpu: user %d%% system %d%% idle %d%% " \
			"softirq %d%%\n", 100 * d[2] / t, 100 * d[4] / t,
			100 * d[5] / t, 100 * d[8] / t }'
}

# profile_reports: perf report's views of data, each after its
# PROFILE-... line, up to PROFILE-END.
profile_reports() {
	echo "PROFILE-BY-DSO $stack $test"
	perf report -i "$data" --stdio --no-children --sort dso \
		--percent-limit 0.5 -g none 2>/dev/null | grep -v '^#' | grep -v '^$'
	echo "PROFILE-BY-COMMAND $stack $test"
	perf report -i "$data" --stdio --no-children --sort comm \
		--percent-limit 1 -g none 2>/dev/null | grep -v '^#' | grep -v '^$'
	# Kernel symbols ([k]); user space is perftest and libsiw polling the
	# rings (their symbols are not resolved: other mount namespaces).
	echo "PROFILE-KERNEL-SYMBOLS $stack $test"
	perf report -i "$data" --stdio --no-children --sort sym \
		--percent-limit 0.3 -g none 2>/dev/null | grep '\[k\]' | head -n 50
	# Inclusive time of the stacks' own functions and of what they call
	# (TCP, copies, CRC): without a PMU (TCG) samples fall where interrupts
	# get enabled again, so self time is smeared onto unlock and IRQ exit
	# functions, and the inclusive view says more.
	echo "PROFILE-INCLUSIVE $stack $test"
	perf report -i "$data" --stdio --children --sort sym \
		--percent-limit 0.5 -g none 2>/dev/null | grep '\[k\]' |
		grep -E 'kiw_|siw_|tcp_|crc|copy|memcpy|sendmsg|read_sock|process_one_work|softirq|skb' |
		head -n 60
	# Who calls the kernel symbols above 1%: one block per symbol.
	echo "PROFILE-CALLERS $stack $test"
	perf report -i "$data" --stdio --no-children --sort sym \
		--percent-limit 1 -g caller,0.5,callee,function,percent \
		2>/dev/null | grep -v '^#' | grep -v '^$' |
		awk '/^ +[0-9.]+%/ { keep = /\[k\]/ } keep' | head -n 600
	echo "PROFILE-END $stack $test"
}

# profile_folded: every sample's stack, folded (command-pid;outermost;...;
# innermost samples nanoseconds), for the host (the guest's files stay in
# the guest).
profile_folded() {
	echo "PROFILE-FOLDED-BEGIN $stack $test"
	# (weighed, as perf report does, by the period: nanoseconds)
	perf script -i "$data" -F comm,pid,period,ip,sym 2>/dev/null |
		awk 'function flush() { if (k != "") { n[k] += w; m[k]++ }; k = "" }
		     /^$/ { flush(); next }
		     /^\t/ { f = $2; sub(/\+0x[0-9a-f]+$/, "", f)
			fr = f (fr == "" ? "" : ";" fr); k = c ";" fr; next }
		     { flush(); c = $1 "-" $2; w = $3; k = c; fr = "" }
		     END { flush(); for (x in n) print "FOLD " x " " m[x] " " n[x] }'
	echo "PROFILE-FOLDED-END $stack $test"
}

# link_packets PID: received and sent packets of veth-a, as seen from the
# netns of PID.
link_packets() {
	awk '{ sub(/^ +/, "") } /^veth-a:/ { sub(/^veth-a: */, "")
		split($0, f, " "); print f[2], f[10] }' "/proc/$1/net/dev" 2>/dev/null
}

setup
if [ "$PROFILE" = 1 ]; then
	# Symbols: the kernel's and the modules' from /proc/kallsyms.
	echo 0 > /proc/sys/kernel/kptr_restrict
	echo -1 > /proc/sys/kernel/perf_event_paranoid
	# Bandwidth on every stack; latency with and without CRC, and
	# connection setup, kiw and siw.
	for p in kiw:write_bw/64K kiw-crc:write_bw/64K kiw-mrk:write_bw/64K \
		 siw:write_bw/64K siw-crc:write_bw/64K kiw:write_lat/8 \
		 siw:write_lat/8 kiw-crc:write_lat/8 siw-crc:write_lat/8 \
		 kiw:send_lat/8 siw:send_lat/8 kiw:cm_connect siw:cm_connect; do
		s=${p%%:*} t=${p#*:}
		[ -z "$STACKS" ] || [[ "$s" =~ $STACKS ]] || continue
		[ -z "$ONLY" ] || [[ "$t" =~ $ONLY ]] || continue
		profile_one "$s" "$t" $((DURATION > 8 ? DURATION : 8))
	done
	links_down
	exit 0
fi
bench
say "done"
