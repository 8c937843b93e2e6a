# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Helpers for the data path's VM tests (scripts/tests/dp_*.sh); source
# after lib.sh. A server runs in one host's netns, a client in the other;
# every tool runs under "timeout" so that a hang fails its check instead of
# the whole test, and no check asserts a duration. The helpers keep no
# state in variables (check runs its command in a subshell): outputs go to
# fixed files, $DP_SRV_OUT and $DP_CLI_OUT, overwritten by each run.
#
#   dp_pair NS_S NS_C PORT SERVER_CMD... -- CLIENT_CMD...
#       the server in NS_S, once it listens on TCP PORT the client in NS_C;
#       0 if both exit with 0, else both outputs on stdout
#   pt_bw TOOL N ARGS...      perftest bandwidth TOOL -R, N iterations
#       (per QP, with -q): exit 0, every result line N iterations (times
#       the QPs) and a message rate > 0
#   pt_lat TOOL N ARGS...     perftest latency TOOL -R: a result line with
#       N iterations and a typical latency > 0
#       Both between $PT_SDEV in netns $PT_SNS (server, $PT_SADDR) and
#       $PT_CDEV in $PT_CNS (defaults: kiw_a in a, kiw_b in b).
#   pt_bw_avg                 the last run's last average bandwidth (MB/s)
#   dp_cmtime N               cmtime (rdma_cm setup and teardown of N
#       connections), server and client as for pt_run: the client exits
#       0 and reports its connect and disconnect steps
#   dp_verify_build           build scripts/guest/dp_verify.c, unless the
#                             harness built it on the host
#   dp_mpa DEV KEY VALUE      a device's MPA setting (sysfs mpa/ group)
#   rx_trace_on               record each run of kiw's receive engine
#                             (tracepoint kiw_rx_run), from now on
#   rx_bounded [MAX [deferred]]  since rx_trace_on: runs were recorded,
#       and none in softirq had a budget or took more than MAX octets
#       (default 64 KiB, kiw's rx_softirq_budget); with "deferred", some
#       reached that budget and runs in a task took the rest. A summary
#       line in $DP_RX_OUT.

DP_TIMEOUT=${DP_TIMEOUT:-600}
DP_SRV_OUT=/tmp/dp_srv.out
DP_CLI_OUT=/tmp/dp_cli.out
DP_STUCK=/tmp/dp_stuck.out
# scripts/vm.sh builds scripts/guest/*.c on the host into KIW_GUEST_BIN
# (cc in an emulated guest takes minutes); compile here only without it.
DP_VERIFY=/tmp/dp_verify
[ ! -x "${KIW_GUEST_BIN:-}/dp_verify" ] || DP_VERIFY=$KIW_GUEST_BIN/dp_verify
# shellcheck disable=SC2034 # for the tests
A4=10.77.0.1 B4=10.77.0.2
PT_SDEV=kiw_a PT_SNS=a PT_CDEV=kiw_b PT_CNS=b PT_SADDR=$A4
# pt_run's order between perftest's server and client (pt_listen_shim.c):
# the file both ends share, empty where they share no /tmp (pair.sh).
PT_LISTEN_STATE=/tmp/pt_listen
PT_SHIM=${KIW_GUEST_BIN:-/nonexistent}/pt_listen_shim.so

DP_TRACE=/sys/kernel/tracing
DP_RX_OUT=/tmp/dp_rx.out

rx_trace_on() {
	echo 0 > $DP_TRACE/tracing_on &&
		echo > $DP_TRACE/trace &&
		echo 1 > $DP_TRACE/events/kiw/kiw_rx_run/enable &&
		echo 1 > $DP_TRACE/tracing_on
}

# A peer that keeps sending must not keep a CPU in softirq: sk_data_ready
# takes at most 64 KiB and leaves the rest to process context (kiw_rx.h).
# One awk over the trace (a process per line costs too much here).
rx_bounded() {
	echo 0 > $DP_TRACE/events/kiw/kiw_rx_run/enable || return 1
	awk -v max="${1:-65536}" -v want_deferred="${2:-}" '
		/ kiw_rx_run: / {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^taken=/) taken = substr($i, 7) + 0
				if ($i ~ /^budget=/) budget = substr($i, 8) + 0
			}
			runs++
			# the receive work: a task with the larger budget
			if ($NF != "softirq") {
				if (budget > max && taken > 0) task++
				next
			}
			sirq++
			if (taken == budget) deferred++
			if (taken > top) top = taken
			if (budget > max || taken > max) {
				if (bad < 5) print "softirq run over " max ": " $0
				bad++
			}
		}
		END {
			printf "%d runs: %d in softirq (largest %d octets, " \
				"%d reached the budget), %d by the work\n",
				runs, sirq, top, deferred, task
			if (want_deferred && !(deferred && task))
				print "no run reached its budget, or the work took none"
			exit !(runs > 0 && !bad &&
			       (!want_deferred || (deferred && task)))
		}' $DP_TRACE/trace > $DP_RX_OUT
	local rc=$?
	cat $DP_RX_OUT
	return $rc
}

# (nsenter: only the netns changes; "ip netns exec" also makes a mount
# namespace and mounts a /sys, at a second a poll on a loaded host.)
dp_listening() {
	nsenter --net="/run/netns/$1" ss -Hltn "sport = :$2" | grep -q .
}

dp_gone() { ! kill -0 "$1" 2> /dev/null; }

# Written once a tool could not be ended: the guest is no longer a clean
# starting point, and the runs after it are not started (see dp_reap). A
# file, as checks run in subshells; run.sh gives each script a fresh /tmp.
DP_BLOCKED=/tmp/dp_blocked

# dp_reap PID SECS WHAT: the exit status of the background job PID, which
# gets SECS to end. Then it and its children get SIGKILL; a process still
# there 10 s later is blocked in the kernel, where no signal reaches it,
# and a wait for it would never end (as a hung connection teardown once
# held a whole test until its timeout). That is a failure in its own
# right: its kernel stack is shown, the blocked tasks go to the console
# (sysrq-w), the runs after it are refused, and the status is 125.
dp_reap() {
	local pid=$1 p
	if ! wait_for "$2" dp_gone "$pid"; then
		echo "$3 still ran after $2 s: killed"
		pkill -9 -P "$pid" 2> /dev/null
		kill -9 "$pid" 2> /dev/null
		if ! wait_for 10 dp_gone "$pid"; then
			echo "$3 is blocked in the kernel (SIGKILL did not end it):"
			for p in $pid $(pgrep -P "$pid"); do
				echo "$p $(cat "/proc/$p/comm" 2> /dev/null):"
				cat "/proc/$p/stack" 2> /dev/null
			done
			echo w > /proc/sysrq-trigger
			echo "$3 (pid $pid)" > "$DP_BLOCKED"
			return 125
		fi
	fi
	wait "$pid"
}

# dp_unblocked: no process of an earlier run is stuck in the kernel (else
# say which, and fail: the run is not started).
dp_unblocked() {
	[ -s "$DP_BLOCKED" ] || return 0
	echo "not started: a process of an earlier run is blocked in the kernel: $(cat "$DP_BLOCKED")"
	return 1
}

# dp_stuck_diag: what the QPs and their TCP connections look like, for a
# run that seems stuck (kiw's QPs show their send side's progress).
dp_stuck_diag() {
	local ns
	echo "rdma -dd res show qp:"
	rdma -dd res show qp 2>&1
	for ns in a b; do
		echo "ss -tinm in netns $ns:"
		ip netns exec "$ns" ss -tinm 2>&1
	done
}

dp_pair() {
	local sns=$1 cns=$2 port=$3 scmd=() pid cpid src=0 crc=0
	shift 3
	rm -f "$DP_STUCK"
	dp_unblocked || return 1
	while [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	# The server may wait for the client: it gets a minute more.
	ip netns exec "$sns" timeout "$((DP_TIMEOUT + 60))" "${scmd[@]}" \
		> "$DP_SRV_OUT" 2>&1 &
	pid=$!
	if ! wait_for 60 dp_listening "$sns" "$port"; then
		echo "the server did not listen on port $port:"
		kill "$pid" 2>/dev/null
		dp_reap "$pid" 10 "the server"
		cat "$DP_SRV_OUT"
		return 1
	fi
	ip netns exec "$cns" timeout "$((DP_TIMEOUT + 30))" "$@" \
		> "$DP_CLI_OUT" 2>&1 &
	cpid=$!
	# A client still running after DP_TIMEOUT is stuck: its state is
	# shown while its QP still exists, then it is ended. What the
	# server's connections had received and not read is kept in
	# $DP_STUCK (see pt_run).
	if ! wait_for "$DP_TIMEOUT" dp_gone "$cpid"; then
		echo "the client still ran after $DP_TIMEOUT s"
		ip netns exec "$sns" ss -Htn state established \
			"( sport = :$port )" > "$DP_STUCK"
		dp_stuck_diag
		kill "$cpid" 2> /dev/null
	fi
	dp_reap "$cpid" 20 "the client" || crc=$?
	# A client that failed may leave its server waiting for it for good:
	# a moment to end on its own, then it is ended.
	if [ "$crc" != 0 ] && ! wait_for 20 dp_gone "$pid"; then
		echo "the server was still waiting 20 s after the client failed"
		dp_stuck_diag
		kill "$pid" 2> /dev/null
	fi
	# Its own timeout ends a server at DP_TIMEOUT + 60 s from its start.
	dp_reap "$pid" 80 "the server" || src=$?
	[ "$crc" = 0 ] && [ "$src" = 0 ] && return 0
	echo "client ($*): status $crc"
	cat "$DP_CLI_OUT"
	echo "server (${scmd[*]}): status $src"
	cat "$DP_SRV_OUT"
	return 1
}

# The result lines of a perftest run: "<bytes> <iterations> <numbers>...".
pt_results() {
	grep -E '^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+[[:space:]]' "$1"
}

# The server is given its address (--source_ip), but perftest 4.5's
# rdma_cm server listens on the wildcard address all the same: rdma_cm
# then listens on every RDMA device (kiw's part for a device in another
# netns stays dormant; for siw see dp_siw_hosts_up).
#
# perftest calibrates its cycle counter against gettimeofday() for every
# report and gives up ("Can't produce a report") when the fit is poor,
# which happens on a busy host's emulated CPUs. That is no verdict on
# kiw: such a run is repeated, twice at most.
#
# perftest -R races with itself: its server accepts the client's first
# rdma_cm connection (the control channel) on the port and destroys that
# listener at once, and only after a handshake over the channel listens on
# the port again, for the test's QPs; the client connects them as soon as
# it has the handshake's reply. A SYN that comes first gets a TCP reset
# (no socket), which rdma_cm reports as REJECTED, -111, whatever the
# iWARP device (traced on kiw: tcp_send_reset reason NO_SOCKET, the
# server's listen 10 ms later). perftest's client retries after 100 ms by
# design, but perftest 4.5+0.17 (Debian 12) crashes in that retry, inside
# librdmacm. With siw as the client the reset comes back from
# rdma_connect() itself (siw_connect() connects TCP before it returns):
# perftest then says "Failed to connect through RDMA CM" and "ERRNO:
# Connection refused". Seen in about one run of 15 on a loaded host, and
# in CI three tries in a row (ib_send_bw, kiw serving siw, 2026-11-29),
# never in cm_tool, rping or ucmatose, which listen once. So both ends
# run with pt_listen_shim.so preloaded, which holds the client's
# rdma_resolve_addr() until the server listens (where the two share
# /tmp). A run refused all the same is repeated, and pt_repeated_diag
# says so.
#
# siw serving has a race of its own: siw_accept() (6.12) sends its MPA
# Reply and only then points the socket's data_ready at the QP; a first
# FPDU that arrives in between finds siw's connection-manager callback,
# which ignores data in RDMA mode, and nothing reads it later. kiw's
# client sends perftest's handshake as soon as the Reply is in (RFC 5044
# allows it; siw asks for no RTR), so the server never answers and both
# wait. Seen in 2 of 89 runs of ib_read_bw 1 MiB (2026-11-22, loaded
# host): kiw's 34-octet Send went out at once, then nothing; siw's socket
# held its 40 octets unread. A run stuck with octets in siw's Recv-Q
# (pt_siw_race) is repeated. But ending such a run is worse than the hang:
# kiw's client gone, siw reports CLOSE for a cm_id iw_cm still has in
# CONN_RECV (siw never reported ESTABLISHED), and iw_cm's
# cm_close_handler() hits BUG() (iwcm.c:964 on 6.12; a CI run,
# 2026-11-29: rdma_cm's port stayed bound and every run after it failed).
# So with siw serving, what kiw sends reaches siw PT_SIW_DELAY_MS late
# (netem on the client's veth): siw's accept then has that long to point
# the socket at its RTR reader, where it needs microseconds unless its
# vCPU is held up.
PT_SIW_DELAY_MS=20
pt_run() {
	local tool=$1 try env=() extra rc
	shift
	if [ -n "$PT_LISTEN_STATE" ]; then
		[ -f "$PT_SHIM" ] ||
			{ echo "no $PT_SHIM (scripts/vm.sh builds it)"; return 1; }
		read -ra extra <<< "${PT_SHIM_ENV:-}"
		env=(env "LD_PRELOAD=$PT_SHIM" "PT_LISTEN_STATE=$PT_LISTEN_STATE"
		     "${extra[@]}")
	fi
	for try in 1 2 3; do
		# No listen yet: a file left by the last run says nothing.
		[ ${#env[@]} = 0 ] || echo 0 > "$PT_LISTEN_STATE"
		pt_siw_delay on || return 1
		rc=0
		dp_pair "$PT_SNS" "$PT_CNS" 18515 "${env[@]}" "$tool" \
			-d "$PT_SDEV" -R --source_ip "$PT_SADDR" "$@" -- \
			"${env[@]}" "$tool" -d "$PT_CDEV" -R "$@" "$PT_SADDR" ||
			rc=$?
		pt_siw_delay off
		[ "$rc" != 0 ] || return 0
		if grep -q "Correlation coefficient" "$DP_CLI_OUT" "$DP_SRV_OUT"
		then
			echo "perftest could not calibrate its clock (try $try)"
		elif grep -qE "RDMA_CM_EVENT_REJECTED; error: -111|^ERRNO: Connection refused" \
			"$DP_CLI_OUT"
		then
			echo "perftest's test connection came before its server listened (try $try)"
			echo "$tool $*: refused, try $try" >> /tmp/pt_repeated
		elif ! pt_siw_race "$tool $*" "$try"; then
			return 1
		fi
	done
	return 1
}

# pt_siw_delay on|off: with siw serving (PT_SDEV siw_b), netem's delay of
# PT_SIW_DELAY_MS on the client's veth, or none (see pt_run).
pt_siw_delay() {
	local dev=veth-$PT_CNS
	[ "$PT_SDEV" = siw_b ] || return 0
	if [ "$1" = on ]; then
		ip netns exec "$PT_CNS" tc qdisc replace dev "$dev" root \
			netem delay "${PT_SIW_DELAY_MS}ms" && return 0
		echo "netem delay on $dev (netns $PT_CNS) failed"
		return 1
	fi
	ip netns exec "$PT_CNS" tc qdisc del dev "$dev" root 2> /dev/null
	return 0
}

# pt_late_listen TOOL N ARGS...: pt_bw with perftest's server 1.5 s late
# to listen for the test's QPs (PT_LISTEN_DELAY_MS of pt_listen_shim.c):
# the race above, made certain. The run must pass, its client having
# waited for that listen (1 s at least).
pt_late_listen() {
	local ms
	PT_SHIM_ENV="PT_LISTEN_DELAY_MS=1500 PT_LISTEN_VERBOSE=1" pt_bw "$@" ||
		return 1
	ms=$(sed -n 's/^pt_listen_shim: waited \([0-9]*\) ms.*/\1/p' \
		"$DP_CLI_OUT" | sort -n | tail -n 1)
	[ "${ms:-0}" -ge 1000 ] && return 0
	echo "the client waited ${ms:-no} ms for the server's second listen (want 1000 at least):"
	cat "$DP_CLI_OUT"
	return 1
}

# pt_siw_race WHAT TRY: the last run, with siw serving, got stuck with
# data in siw's socket that siw never read (Recv-Q > 0 on the server's
# connection): say so, and note WHAT's repeat for pt_repeated_diag.
pt_siw_race() {
	[ "$PT_SDEV" = siw_b ] && [ -s "$DP_STUCK" ] &&
		awk '$1 > 0 { n++ } END { exit !n }' "$DP_STUCK" || return 1
	echo "siw's connection holds octets siw never read (its accept race, try $2):"
	cat "$DP_STUCK"
	echo "$1: siw did not read, try $2" >> /tmp/pt_repeated
}

# pt_repeated_diag: the runs pt_run and dp_rping repeated, and why, as a TAP
# diagnostic (so that a pass says it too).
pt_repeated_diag() {
	[ ! -s /tmp/pt_repeated ] || diag "runs repeated:" "$(cat /tmp/pt_repeated)"
}

# Tiny messages show a bandwidth of 0.00 MB/s on a slow guest (1 B at
# 2000 messages a second), so every line is held to its iterations and
# message rate, not to its bandwidth.
pt_bw() {
	local tool=$1 n=$2 a qps=1 prev=
	shift 2
	for a in "$@"; do
		[ "$prev" = -q ] && qps=$a
		prev=$a
	done
	pt_run "$tool" -n "$n" "$@" || return 1
	# With -q, the table counts the iterations of all QPs.
	n=$((n * qps))
	pt_results "$DP_CLI_OUT" | awk -v n="$n" '
		$2 != n || !($5 > 0) { bad = 1 }
		{ lines++ }
		END { exit bad || !lines }' && return 0
	echo "want result lines of $n iterations, message rate > 0:"
	cat "$DP_CLI_OUT"
	return 1
}

pt_bw_avg() {
	pt_results "$DP_CLI_OUT" | awk '{ v = $4 } END { print v }'
}

# The latency tools exit 0 when they cannot calibrate their clock (see
# pt_run), with no result line: such a run is repeated too.
pt_lat() {
	local tool=$1 n=$2 try
	shift 2
	for try in 1 2 3; do
		pt_run "$tool" -n "$n" "$@" || return 1
		pt_results "$DP_CLI_OUT" | awk -v n="$n" '
			$2 == n && $5 > 0 { ok = 1 }
			END { exit !ok }' && return 0
		grep -q "Correlation coefficient" "$DP_CLI_OUT" || break
		echo "perftest could not calibrate its clock (try $try)"
	done
	echo "want a result line of $n iterations, typical latency > 0:"
	cat "$DP_CLI_OUT"
	return 1
}

# -O0: compiling in an emulated guest costs far more than the checks save.
dp_verify_build() {
	[ "$DP_VERIFY" = /tmp/dp_verify ] || return 0
	cc -O0 -Wall -o "$DP_VERIFY" "$KIW_TOP/scripts/guest/dp_verify.c" \
		-lrdmacm -libverbs
}

# kiw with Linux siw (dp_siw, dp_tools_siw): kiw_a in netns a, siw_b in
# netns b. dp_kiw_serves and dp_siw_serves point pt_run and dp_rping at
# the server and the client.
#
# The veth ends get ifindexes of their own (10 in a, 20 in b; kiw_hosts_up
# gives both 2): perftest's server listens on the wildcard address whatever
# --source_ip says, rdma_cm then listens on every RDMA device, and siw
# binds its part, for siw_b, to the wildcard address and siw_b's netdev's
# ifindex, but in the listener's netns. With equal ifindexes that socket
# would take veth-a's traffic in netns a, or, once kiw_a listens on the
# port, fail to bind (EADDRINUSE), failing the whole listen. With 20 it
# binds to no device of netns a and never sees a packet.
dp_siw_hosts_up() {
	ip -batch - <<-EOF &&
		netns add a
		netns add b
		link add veth-a netns a index 10 type veth peer name veth-b netns b index 20
	EOF
	_kiw_host_up a veth-a 10.77.0.1 fd77::1 &&
	_kiw_host_up b veth-b 10.77.0.2 fd77::2
}

dp_siw_up() {
	check "two hosts: netns a and b joined by veth (ifindex 10 and 20)" \
		dp_siw_hosts_up
	check "modprobe kiw and siw" sh -c 'modprobe ib_uverbs &&
		modprobe rdma_ucm && modprobe kiw && modprobe siw'
	# siw 6.12 waits for kiw's RTR (peer-to-peer mode, kiw's default) in
	# siw_rtr_data_ready(), which takes sk_callback_lock for writing in
	# softirq context: lockdep reports an inconsistent lock state (a siw
	# bug, dp_siw.sh). On a lockdep kernel kiw_a runs client-server mode;
	# elsewhere (dp_tools_siw.sh) its defaults.
	if [ -e /proc/lockdep ]; then
		check "lockdep: kiw_a without peer-to-peer, for siw's sake" \
			sh -c 'echo 0 > /sys/module/kiw/parameters/p2p'
	fi
	check "kiw_a on veth-a, siw_b on veth-b" sh -c '
		ip netns exec a rdma link add kiw_a type kiw netdev veth-a &&
		ip netns exec b rdma link add siw_b type siw netdev veth-b'
}
dp_kiw_serves() { PT_SDEV=kiw_a PT_SNS=a PT_CDEV=siw_b PT_CNS=b PT_SADDR=$A4; }
dp_siw_serves() { PT_SDEV=siw_b PT_SNS=b PT_CDEV=kiw_a PT_CNS=a PT_SADDR=$B4; }

# dp_rping SIZE COUNT [counted]: rping with validation on both sides, the
# server on PT_SNS at PT_SADDR, the client on PT_CNS (kiw_a serves kiw_b
# unless the test moves PT_*).
# A run stuck in siw's accept race (see pt_run) is repeated.
# rping exits 0 even when a ping fails (FACTS.md): with "counted", the
# client also runs with -v and must show COUNT "ping data" lines, and
# neither side may say error, fail or mismatch. (-v prints each ping's
# whole buffer: keep SIZE x COUNT small.)
dp_rping() {
	local try v=()
	[ "${3:-}" != counted ] || v=(-v)
	for try in 1 2 3; do
		if dp_pair "$PT_SNS" "$PT_CNS" 7174 rping -s -a "$PT_SADDR" \
			-S "$1" -C "$2" -V -- \
			rping -c -a "$PT_SADDR" -S "$1" -C "$2" -V "${v[@]}"; then
			[ -z "${v[*]}" ] || dp_rping_counted "$2"
			return
		fi
		pt_siw_race "rping -S $1 -C $2" "$try" || return 1
	done
	return 1
}

# dp_rping_counted COUNT: the last rping client showed COUNT pings, in
# order, and neither side reported a problem.
dp_rping_counted() {
	local n
	n=$(grep -cE '^ping data: rdma-ping-[0-9]+: ' "$DP_CLI_OUT")
	if [ "$n" = "$1" ] &&
	   grep -qE "^ping data: rdma-ping-$(($1 - 1)): " "$DP_CLI_OUT" &&
	   ! grep -qiE 'error|fail|mismatch' "$DP_CLI_OUT" "$DP_SRV_OUT"; then
		echo "$n pings"
		return 0
	fi
	echo "want $1 ping data lines without an error, got $n:"
	cut -c 1-100 "$DP_CLI_OUT" | tail -n 20
	echo "server:"
	cut -c 1-100 "$DP_SRV_OUT" | tail -n 20
	return 1
}

# cmtime's server never ends on its own: it is stopped (by its pid) once
# the client is done, and must not have reported an error by then.
dp_cmtime() {
	local pid cpid rc=0
	dp_unblocked || return 1
	ip netns exec "$PT_SNS" timeout "$((DP_TIMEOUT + 60))" \
		cmtime -b "$PT_SADDR" > "$DP_SRV_OUT" 2>&1 &
	pid=$!
	if ! wait_for 60 dp_listening "$PT_SNS" 7471; then
		echo "the server did not listen on port 7471:"
		kill "$pid" 2> /dev/null
		dp_reap "$pid" 10 "the server"
		cat "$DP_SRV_OUT"
		return 1
	fi
	ip netns exec "$PT_CNS" timeout "$DP_TIMEOUT" \
		cmtime -s "$PT_SADDR" -c "$1" > "$DP_CLI_OUT" 2>&1 &
	cpid=$!
	dp_reap "$cpid" "$((DP_TIMEOUT + 10))" "the client" || rc=$?
	kill "$pid" 2> /dev/null
	dp_reap "$pid" 10 "the server" 2> /dev/null
	if [ "$rc" = 0 ] && grep -q '^connect ' "$DP_CLI_OUT" &&
	   grep -q '^disconnect ' "$DP_CLI_OUT" &&
	   ! grep -qi 'error\|fail' "$DP_CLI_OUT" "$DP_SRV_OUT"; then
		return 0
	fi
	echo "client (cmtime -s $PT_SADDR -c $1): status $rc"
	cat "$DP_CLI_OUT"
	echo "server (cmtime -b $PT_SADDR):"
	cat "$DP_SRV_OUT"
	return 1
}

# dp_attach_all WANT: every connection since the last "dmesg -C" (kiw's
# dynamic debug "attach:" line for each, which the test turns on) was set
# up as WANT says.
dp_attach_all() {
	local lines
	lines=$(dmesg | grep -E 'kiw_[ab]: QP [0-9]+: attach:')
	[ -n "$lines" ] || { echo "no connection"; return 1; }
	! grep -v -- "$1" <<<"$lines"
}

dp_mpa() {
	echo "$3" > "/sys/class/infiniband/$1/mpa/$2"
}
