#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Every kiw test, as one TAP stream (what "make check" and .ci/run run).
#
# Usage: scripts/check.sh [--only static|kunit|vm] [--test NAME]
#   static  W=1 build and sparse (C=2) of kiw with zero diagnostics, against
#           Debian's headers (6.12, 6.1, and 7.2 in a sid chroot) and against
#           the debug kernel; checkpatch.pl
#           --strict on every .c/.h, zero errors, warnings and checks; the
#           conformance matrix up to date (scripts/conformance.sh --check);
#           make bench's report and targets (scripts/bench/report_test.py);
#           the plan of the VM tests' boots (scripts/checkplan_test.py);
#           the repeated-code check itself (scripts/dupes_test.py);
#           dp_align's capture parser (scripts/guest/fpdu_align_test.py)
#   kunit   kiw's KUnit suites in the debug kernel (scripts/kunit.sh)
#   vm      the VM tests scripts/tests/*.sh (--test NAME: only NAME.sh), and
#           kiw between two VMs on Debian's 6.1 and 7.2 over a virtio-net
#           link (scripts/vm-pair.sh; --test vmpair: only it)
#
# Every check is one TAP line: each build, each checkpatch'ed file, each
# KUnit case, each TAP line of each VM test, one line per VM test script
# and one per boot for the kernel staying clean. The last line is exactly
# "N passed, N failed"; skipped checks are listed, counted apart, and never
# counted as passed. The exit status is non-zero when anything failed.
#
# Order: what needs only Debian's kernels (static checks, the VM tests of
# the stock kernel, then of 6.1 and 7.2) runs while the debug kernel builds
# in the background, the first time; then what needs the debug kernel. Before the last line,
# a time report: the wall and CPU time of every phase, of every boot, and
# the guest time of every VM test, with a projection of a cold CI run
# against its budget (Documentation/testing.rst, "Time budget").
#
# Environment: KIW_LONG=1 (the tests' long variants), KIW_TAP_TIMES=1
# (every check of a VM test timed), KIW_VM_BATCH (tests per boot),
# KIW_TESTS (the directory of the VM tests, default scripts/tests).
set -euo pipefail
# "producer | relay" runs relay in this shell (it counts the checks), and
# the producer's CPU time is counted by "times" (a process substitution's
# is not).
shopt -s lastpipe
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tap.sh"

only= test=
while [ $# -gt 0 ]; do
	case "$1" in
	--only) only=${2:?}; shift 2 ;;
	--test) test=${2:?}; only=${only:-vm}; shift 2 ;;
	*) echo "usage: $0 [--only static|kunit|vm] [--test NAME]" >&2; exit 2 ;;
	esac
done
case "$only" in ""|static|kunit|vm) ;; *) kiw_die "--only static|kunit|vm" ;; esac
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

LOGS=$KIW_TOP/build/logs
mkdir -p "$LOGS"
START=$(kiw_now)

# --- TAP bookkeeping --------------------------------------------------------

# (scripts/tap.sh prints and counts: KIW_TAP_N, KIW_TAP_FAILED...)
pass() { tap_ok "$@"; }
fail() { tap_not_ok "$@"; }
skipped() { tap_skip "$*"; }
diag() { sed 's/^/# /'; }

# relay PREFIX: renumber the TAP on stdin into this stream. The producer
# appends "KIW-STATUS <n>" (its exit status) as its last line, see
# with_status; the status is left in RELAY_STATUS. Anything that is not TAP
# is shown as a comment. The markers of a VM run (vm.sh --markers) switch
# the prefix to the script's name and end each script with a line of its
# own (test_end); vm.sh's verdict on a failed run is kept in RELAY_VERDICT,
# the CPU time it reports in RELAY_CPU.
RELAY_STATUS= RELAY_VERDICT= RELAY_CPU=
relay() {
	local prefix=$1 line desc re='^(not )?ok [0-9]+( -)? ?(.*)$'
	RELAY_STATUS= RELAY_VERDICT= RELAY_CPU=
	while IFS= read -r line; do
		if [[ $line =~ ^KIW-STATUS\ ([0-9]+)$ ]]; then
			RELAY_STATUS=${BASH_REMATCH[1]}
		elif [[ $line =~ ^KIW-TEST-BEGIN\ ([^ ]+) ]]; then
			prefix="${BASH_REMATCH[1]}: "
			echo "# --- ${BASH_REMATCH[1]}"
		elif [[ $line =~ ^KIW-TEST-END\ ([^ ]+)\ exit=([0-9]+)\ seconds=([0-9.]+)\ cleanup=([a-z]+)(\ user=([0-9.]+)\ sys=([0-9.]+))? ]]; then
			test_end "${BASH_REMATCH[@]:1:4}" "${BASH_REMATCH[6]}" "${BASH_REMATCH[7]}"
			prefix=
		elif [[ $line =~ ^KIW-TEST-TIMEOUT\ ([^ ]+) ]]; then
			echo "# ${BASH_REMATCH[1]} outlived its timeout: killed (blocked tasks on the console)"
		elif [[ $line =~ ^\[kiw\]\ (PASS|FAIL)\ [^:]*\ \([0-9]+\ s,\ CPU\ ([0-9]+)\ s\) ]]; then
			RELAY_CPU=${BASH_REMATCH[2]}
			[[ ! $line =~ ^\[kiw\]\ FAIL\ [^:]*:\ (.*)$ ]] || RELAY_VERDICT=${BASH_REMATCH[1]}
			echo "# $line"
		elif [[ $line =~ ^\[kiw\]\ FAIL\ [^:]*:\ (.*)$ ]]; then
			RELAY_VERDICT=${BASH_REMATCH[1]}
			echo "# $line"
		elif [[ $line =~ $re ]]; then
			desc=${BASH_REMATCH[3]}
			if [ -n "${BASH_REMATCH[1]}" ]; then
				fail "$prefix$desc"
			elif [[ $desc =~ \#[[:space:]]*[Ss][Kk][Ii][Pp] ]]; then
				desc=${desc%%#*}
				skipped "$prefix${desc%"${desc##*[![:space:]]}"}"
			else
				pass "$prefix$desc"
			fi
		elif [[ $line =~ ^[0-9]+\.\.[0-9]+ ]]; then
			: # a plan: the producers check their own
		elif [[ $line == \#* ]]; then
			echo "$line"
		else
			echo "# $line"
		fi
	done
}

# with_status cmd...: run cmd, stderr included, then print its exit status
# for relay. (The pipeline's first part inherits set -e: "cmd; echo $?"
# would never get to the echo when cmd fails.)
with_status() {
	local rc=0
	"$@" 2>&1 || rc=$?
	echo "KIW-STATUS $rc"
}

# --- time -------------------------------------------------------------------

# cpu_now: CPU_NOW = the CPU seconds (user + system) of this script's
# finished children so far, from the shell's own "times". Never call it in
# a subshell ($(...)): a subshell's children start from zero.
CPU_NOW=0
cpu_now() {
	local u s um us sm ss
	times > "$LOGS/.check-times"
	{ read -r _ _; read -r u s; } < "$LOGS/.check-times"
	um=${u%%m*} us=${u#*m} sm=${s%%m*} ss=${s#*m}
	us=${us%%.*} ss=${ss%%.*}
	CPU_NOW=$(( (um + sm) * 60 + 10#$us + 10#$ss ))
}

# Rows of the time report: "phase|wall|cpu", "boot|kernel|wall|cpu|scripts|
# tests", "secs|name|kernel|boot|timeout".
PHASE_ROWS=() BOOT_ROWS=() TEST_ROWS=()

# phase NAME FUNCTION: run a phase and time it.
phase() {
	local start cpu
	start=$(kiw_now)
	cpu_now
	cpu=$CPU_NOW
	echo "# === $1"
	"$2"
	cpu_now
	PHASE_ROWS+=("$1|$(( $(kiw_now) - start ))|$((CPU_NOW - cpu))")
	echo "# === $1 took $(kiw_since "$start")"
}

# --- the VM tests and their boots -------------------------------------------

# The plan of the VM tests (plan_vm): scripts/checkplan.py reads the
# headers of TESTS_DIR's tests, batches them and spreads them over the
# boots; this script keeps what they need (NEED_STOCK, NEED_DEBUG,
# NEED_OTHER, PAIR: the two-VM test runs), each script's timeout
# (TEST_TIMEOUT) and the boots, BATCH_KEYS[i] ("kernel mem siw") running
# BATCH_TESTS[i] (their paths, space-separated). KIW_VM_BATCH: scripts per
# boot (default 12; 1 boots once per test); KIW_VM_PARALLEL: boots at a
# time (default 1; .ci/run sets 2, the CI machine's cores: each QEMU runs
# on one host thread), and the least number of boots of a group. The
# expected times that balance the boots: build/logs/vm-times (the last run
# here), else scripts/vm-times.seed (a full run's, committed, so that a
# clean clone such as CI's plans as well). Every debug boot costs ~45 s of
# boot and kmemleak scans: the default batch gives CI's 22 debug scripts
# two boots, one per core.
TESTS_DIR=${KIW_TESTS:-$KIW_TOP/scripts/tests}
PAIR=0
KIW_VM_BATCH=${KIW_VM_BATCH:-12}
KIW_VM_PARALLEL=${KIW_VM_PARALLEL:-1}
# With both KUnit and debug VM tests to run, the KUnit suites run as the
# first script of a debug boot (scripts/guest/kunit.sh), which saves a boot
# of the debug kernel and its kmemleak scans; make kunit boots for them
# alone. KIW_KUNIT_ALONE=1: always alone.
KUNIT_SCRIPT=$KIW_TOP/scripts/guest/kunit.sh KUNIT_IN_VM=0 KUNIT_BOOT=
TIMES_FILE=$LOGS/vm-times TIMES_SEED=$KIW_TOP/scripts/vm-times.seed
BATCH_KEYS=() BATCH_TESTS=() NEED_STOCK=0 NEED_DEBUG=0
# Debian's other kernels (scripts/kernel.sh) the VM tests ask for.
declare -A NEED_OTHER=() TEST_TIMEOUT=()
OTHER_KERNELS=$(for k in $KIW_KERNELS; do [ "$k" = stock ] || [ "$k" = debug ] || echo "$k"; done)

plan_vm() {
	local plan what rest kernel mem siw tests args=()
	[ -n "$test" ] || [ -n "${KIW_TESTS:-}" ] || args+=(--with-pair)
	[ "$NEED_DEBUG" = 0 ] || args+=(--need-debug)
	! want kunit || [ "${KIW_KUNIT_ALONE:-0}" = 1 ] || args+=(--kunit "$KUNIT_SCRIPT")
	plan=$(python3 "$KIW_TOP/scripts/checkplan.py" plan --top="$KIW_TOP" \
		--tests-dir="$TESTS_DIR" --test="$test" --kernels="$KIW_KERNELS" \
		--batch="$KIW_VM_BATCH" --parallel="$KIW_VM_PARALLEL" \
		--debug-kernel="$KIW_TOP/scripts/debug-kernel.sh" \
		--times="$TIMES_SEED" --times="$TIMES_FILE" "${args[@]}") ||
		{ fail "vm: no plan: scripts/checkplan.py plan failed (status $?)"; plan=; }
	while read -r what rest; do
		case "$what" in
		fail) fail "$rest" ;;
		need)
			case "$rest" in
			stock) NEED_STOCK=1 ;;
			debug) NEED_DEBUG=1 ;;
			pair) PAIR=1 ;;
			other\ *) NEED_OTHER[${rest#other }]=1 ;;
			esac ;;
		kunit-in-vm) KUNIT_IN_VM=1 ;;
		timeout) TEST_TIMEOUT[${rest#* }]=${rest%% *} ;;
		boot)
			read -r kernel mem siw tests <<<"$rest"
			BATCH_KEYS+=("$kernel $mem $siw") BATCH_TESTS+=("$tests") ;;
		esac
	done <<<"$plan"
}

# test_timeout SCRIPT: its timeout= (the plan's).
test_timeout() { echo "${TEST_TIMEOUT[$1]}"; }

# The scripts of the boot being reported: name -> "" (not begun), "running",
# "done"; and, per script, its guest time and guest CPU time ("user|sys").
declare -A VM_STATE=() VM_SECS=() VM_CPU=()

# test_end NAME EXIT SECONDS CLEANUP [USER SYS]: the line for one script of
# a boot.
test_end() {
	local name=$1 rc=$2 secs=$3 clean=$4
	VM_STATE[$name]="done"
	VM_SECS[$name]=$secs
	VM_CPU[$name]="${5:-?}|${6:-?}"
	echo "# --- $name took $secs s"
	if [ "$rc" = 124 ]; then
		fail "$name: timed out ($secs s; its timeout= in the header)"
	elif [ "$rc" != 0 ]; then
		fail "$name: script exited $rc ($secs s)"
	elif [ "$clean" != ok ]; then
		fail "$name: the guest could not be cleaned up after it (see above)"
	else
		pass "$name: script exited 0, guest clean after it ($secs s)"
	fi
}

# boot_run N KEY SCRIPT...: run boot N (vm.sh), its output with its status
# on stdout.
boot_run() {
	local n=$1 kernel mem siw t args=()
	read -r kernel mem siw <<<"$2"
	shift 2
	[ "$siw" != yes ] || args+=(--with-siw)
	[ "$mem" = default ] || args+=(--mem "$mem")
	for t in "$@"; do args+=(--timeout "$(test_timeout "$t")" --script "$t"); done
	with_status "$KIW_TOP/scripts/vm.sh" --kernel "$kernel" --markers \
		--log "$LOGS/boot$n-$kernel.log" "${args[@]}"
}

# boot_report N KEY SECS SCRIPT... < OUTPUT: relay boot N's output; a line
# for each script that never ended and one for the boot; its times.
# SECS empty: the boot is running now, and ends with its output.
boot_report() {
	local n=$1 key=$2 secs=$3 kernel t name names=() list st sum=0 missing=0
	local start verdict cpu
	start=$(kiw_now)
	kernel=${key%% *}
	shift 3
	VM_STATE=() VM_SECS=() VM_CPU=()
	for t in "$@"; do
		name=$(basename "$t" .sh)
		names+=("$name")
		VM_STATE[$name]=
	done
	relay ""
	st=${RELAY_STATUS:-255} verdict=$RELAY_VERDICT cpu=${RELAY_CPU:-?}
	[ -n "$secs" ] || secs=$(( $(kiw_now) - start ))
	for name in "${names[@]}"; do
		case "${VM_STATE[$name]}" in
		done) ;;
		"") fail "$name: not run (the boot ended before it: see boot $n below)"
		    missing=1 ;;
		*)  fail "$name: no result (it was running when the boot ended)"
		    missing=1 ;;
		esac
	done
	[ "$KUNIT_BOOT" != "$n" ] || kunit_results "$LOGS/boot$n-$kernel.log"
	list="${names[*]}"
	# With every script done, any status but vm.sh's own is a script's.
	case "$st" in
	124|125|126) ;;
	*) [ "$missing" = 1 ] || st=0 ;;
	esac
	case "$st" in
	0) pass "boot $n ($kernel kernel: ${list// /, }): the kernel stayed clean (no KASAN, lockdep, kmemleak, WARN, BUG, hang)" ;;
	*)   fail "boot $n ($kernel kernel: ${list// /, }): ${verdict:-vm.sh failed with status $st}"
	     diag <<-EOF
		this boot ran: $list (console: $LOGS/boot$n-$kernel.log)
		to rerun one of them alone: make vmtest T=<name>
		EOF
	     ;;
	esac
	for t in "$@"; do
		name=$(basename "$t" .sh)
		[ -n "${VM_SECS[$name]:-}" ] || continue
		sum=$(awk -v a="$sum" -v b="${VM_SECS[$name]}" 'BEGIN { print a + b }')
		TEST_ROWS+=("${VM_SECS[$name]}|$name|$kernel|$n|$(test_timeout "$t")|${VM_CPU[$name]}")
	done
	sum=$(printf '%.0f' "$sum")
	BOOT_ROWS+=("$n|$kernel|$secs|$cpu|$sum|${#names[@]}")
	echo "# === boot $n took $secs s, CPU $cpu s (scripts $sum s; build, boot, kmemleak scans and cleanup the rest)"
}

# kunit_results LOG: the KUnit cases of a boot that ran guest/kunit.sh,
# from its console log (scripts/kunit.sh --parse).
kunit_results() {
	local failed_before=$KIW_TAP_FAILED
	with_status "$KIW_TOP/scripts/kunit.sh" --parse "$1" | relay ""
	if [ "${RELAY_STATUS:-255}" != 0 ] && [ "$KIW_TAP_FAILED" = "$failed_before" ]; then
		fail "kunit: scripts/kunit.sh --parse $1 failed (status ${RELAY_STATUS:-none})"
	fi
}

# boot_announce N KEY SCRIPT...
boot_announce() {
	local n=$1 kernel mem siw label t names=()
	read -r kernel mem siw <<<"$2"
	shift 2
	for t in "$@"; do names+=("$(basename "$t" .sh)"); done
	label="$kernel kernel"
	[ "$siw" != yes ] || label+=", siw"
	[ "$mem" = default ] || label+=", $mem MB"
	echo "# === boot $n: $label: ${names[*]}"
}

# vm_boots stock|debug: every planned boot of that kernel, KIW_VM_PARALLEL
# at a time. One at a time, a boot's TAP streams as it runs; several, each
# writes to build/logs/bootN.tap and is reported, in order, once it ended.
BOOTS=0
vm_boots() {
	local i n pids=() nums=() idx=() par=$KIW_VM_PARALLEL
	# Beside the debug kernel's build: one at a time.
	[ -z "$DEBUG_BUILD_PID" ] || par=1
	for i in "${!BATCH_KEYS[@]}"; do
		[[ ${BATCH_KEYS[$i]} == "$1 "* ]] || continue
		BOOTS=$((BOOTS + 1))
		n=$BOOTS
		[[ " ${BATCH_TESTS[$i]} " != *" $KUNIT_SCRIPT "* ]] || KUNIT_BOOT=$n
		# shellcheck disable=SC2086
		boot_announce "$n" "${BATCH_KEYS[$i]}" ${BATCH_TESTS[$i]}
		if [ "$par" -le 1 ]; then
			# shellcheck disable=SC2086
			boot_run "$n" "${BATCH_KEYS[$i]}" ${BATCH_TESTS[$i]} |
				boot_report "$n" "${BATCH_KEYS[$i]}" "" ${BATCH_TESTS[$i]}
			continue
		fi
		[ "${#pids[@]}" -lt "$par" ] || boot_finish
		echo "# boot $n runs in the background (its TAP follows when it ends)"
		# shellcheck disable=SC2086
		( start=$(kiw_now)
		  boot_run "$n" "${BATCH_KEYS[$i]}" ${BATCH_TESTS[$i]} > "$LOGS/boot$n.tap"
		  echo $(( $(kiw_now) - start )) > "$LOGS/boot$n.secs" ) &
		pids+=($!) nums+=("$n") idx+=("$i")
	done
	while [ "${#pids[@]}" -gt 0 ]; do boot_finish; done
}
# boot_finish: wait for the oldest background boot and report it.
boot_finish() {
	local n=${nums[0]} i=${idx[0]}
	wait "${pids[0]}" || true
	pids=("${pids[@]:1}") nums=("${nums[@]:1}") idx=("${idx[@]:1}")
	echo "# === boot $n ended"
	# shellcheck disable=SC2086
	boot_report "$n" "${BATCH_KEYS[$i]}" "$(cat "$LOGS/boot$n.secs" 2>/dev/null || echo '?')" \
		${BATCH_TESTS[$i]} < "$LOGS/boot$n.tap"
}

vm_stock() { vm_boots stock; }
vm_other() {
	local k
	other_kernels_ready
	for k in $OTHER_KERNELS; do
		[ -z "${NEED_OTHER[$k]:-}" ] || vm_boots "$k"
	done
}
# vm_pair: kiw on 6.1 (nfsd, the servers) and on 7.2 (the NFS client)
# in two VMs joined by a virtio-net link: one TAP line for each check of
# each guest and one for each VM's kernel (scripts/vm-pair.sh).
vm_pair() {
	local failed_before=$KIW_TAP_FAILED
	other_kernels_ready
	with_status "$KIW_TOP/scripts/vm-pair.sh" --server 6.1 --client 7.2 |
		relay "vmpair: "
	if [ "${RELAY_STATUS:-255}" != 0 ] && [ "$KIW_TAP_FAILED" = "$failed_before" ]; then
		fail "vmpair: scripts/vm-pair.sh failed (status ${RELAY_STATUS:-none})"
	fi
}
vm_debug() {
	if [ -z "$DEBUG_DIR" ]; then
		fail "vm: the debug kernel's tests: no debug kernel (see above)"
		return
	fi
	vm_boots debug
}

# --- the phases -------------------------------------------------------------

# The Debian packages. When the debug kernel is needed and not built, what
# its build needs is installed first, and the build starts (in the
# background: start_debug_build) while the rest installs.
deps() {
	if [ "$NEED_DEBUG" = 1 ] && [ ! -f "$("$KIW_TOP/scripts/debug-kernel.sh" --print 2>/dev/null)/.done" ]; then
		if "$KIW_TOP/scripts/setup-deps.sh" --kernel-build > "$LOGS/deps.log" 2>&1; then
			start_debug_build
		else
			fail "deps: scripts/setup-deps.sh --kernel-build failed"
			diag < "$LOGS/deps.log"
			summary
		fi
	fi
	if "$KIW_TOP/scripts/setup-deps.sh" >> "$LOGS/deps.log" 2>&1; then
		pass "deps: Debian packages installed"
	else
		fail "deps: scripts/setup-deps.sh failed"
		diag < "$LOGS/deps.log"
		summary
	fi
}

# The kernels the selected phases need. The stock kernel is fetched here;
# the debug kernel, when it is needed and not built yet (10-20 minutes),
# is built in the background (started by deps) while the phases that do
# not need it run (wait_debug). The static checks use it only when it is
# there anyway.
STOCK_KDIR= DEBUG_DIR= DEBUG_BUILD_PID= DEBUG_BUILD_START= BUILT_DEBUG=0
start_debug_build() {
	BUILT_DEBUG=1
	DEBUG_BUILD_START=$(kiw_now)
	echo "# building the debug kernel in the background (10-20 minutes on 2 cores; log: $LOGS/debug-kernel.log)"
	# A session of its own, so that it can be stopped as a whole.
	setsid /usr/bin/time -o "$LOGS/debug-kernel.cpu" -f '%U %S' \
		"$KIW_TOP/scripts/debug-kernel.sh" > "$LOGS/debug-kernel.out" 2> "$LOGS/debug-kernel.log" &
	DEBUG_BUILD_PID=$!
}
kernels() {
	local dir
	STOCK_KDIR=$(kiw_stock_kdir)
	if [ "$NEED_STOCK" = 1 ] || want static; then
		if "$KIW_TOP/scripts/stock-kernel.sh" > "$LOGS/stock-kernel.log" 2>&1; then
			pass "kernel: Debian's stock kernel $(kiw_stock_release) unpacked"
		else
			fail "kernel: fetching Debian's stock kernel failed"
			diag < "$LOGS/stock-kernel.log"
		fi
	fi
	other_kernels_start
	dir=$("$KIW_TOP/scripts/debug-kernel.sh" --print)
	if [ -z "$DEBUG_BUILD_PID" ] && [ -f "$dir/.done" ]; then
		DEBUG_DIR=$dir
		[ "$NEED_DEBUG" = 0 ] || pass "kernel: debug kernel $(cat "$dir/release") (cached)"
	fi
}
# Debian's other kernels (scripts/kernel.sh): their headers for the static
# checks (7.2's in a sid chroot, debootstrap'ed the first time: minutes,
# mostly waiting on the network), their images for their VM tests. They are
# fetched in the background from the kernels phase on, beside the stock
# kernel's phases; other_kernels_ready waits for them and reports. What was
# found cached is listed in OTHER_WARM, for the cold projection (report).
declare -A OTHER_KDIR=() OTHER_REL=()
OTHER_WARM=() OTHER_PID= OTHER_DIR=$LOGS/other-kernels
other_kernels_start() {
	local k img hdr
	rm -rf "$OTHER_DIR"
	mkdir -p "$OTHER_DIR"
	for k in $OTHER_KERNELS; do
		img=${NEED_OTHER[$k]:-} hdr=$img
		! want static || hdr=1
		[ -z "$hdr" ] || echo "$k ${img:-0}" >> "$OTHER_DIR/wanted"
	done
	[ -f "$OTHER_DIR/wanted" ] || return 0
	echo "# fetching what this run needs of Debian's $(cut -d' ' -f1 "$OTHER_DIR/wanted" | tr '\n' ' ')kernels in the background (log: $OTHER_DIR/)"
	setsid bash -c '
		ks=$1 dir=$2
		while read -r k img; do
			log=$dir/$k.log
			if [ "$img" != 0 ]; then
				[ ! -f "$("$ks" "$k" --print 2>>"$log")/.done" ] || echo "$k-image" >> "$dir/warm"
				t0=$(date +%s)
				"$ks" "$k" >> "$log" 2>&1; echo $? > "$dir/$k.image.rc"
				echo $(( $(date +%s) - t0 )) > "$dir/$k.image.secs"
			fi
			[ ! -f "$("$ks" "$k" --kdir-print 2>>"$log")/Makefile" ] || echo "$k-kdir" >> "$dir/warm"
			t0=$(date +%s)
			"$ks" "$k" --kdir > "$dir/$k.kdir" 2>>"$log"; echo $? > "$dir/$k.kdir.rc"
			echo $(( $(date +%s) - t0 )) > "$dir/$k.kdir.secs"
			"$ks" "$k" --release > "$dir/$k.release" 2>>"$log"
		done < "$dir/wanted"' _ "$KIW_TOP/scripts/kernel.sh" "$OTHER_DIR" &
	OTHER_PID=$!
}
other_kernels_ready() {
	local k img what secs
	[ -n "$OTHER_PID" ] || return 0
	wait "$OTHER_PID" || true
	OTHER_PID=
	[ ! -f "$OTHER_DIR/warm" ] || mapfile -t OTHER_WARM < "$OTHER_DIR/warm"
	while read -r k img; do
		if [ "$img" != 0 ]; then
			secs=$(cat "$OTHER_DIR/$k.image.secs" 2>/dev/null || echo '?')
			if [ "$(cat "$OTHER_DIR/$k.image.rc" 2>/dev/null)" = 0 ]; then
				pass "kernel: Debian's $k kernel $(cat "$OTHER_DIR/$k.release") unpacked ($secs s)"
			else
				fail "kernel: fetching Debian's $k kernel failed (scripts/kernel.sh $k)"
				diag < "$OTHER_DIR/$k.log"
			fi
		fi
		what="headers"
		[ "$k" != 7.2 ] || what="sid build chroot with the headers"
		secs=$(cat "$OTHER_DIR/$k.kdir.secs" 2>/dev/null || echo '?')
		if [ "$(cat "$OTHER_DIR/$k.kdir.rc" 2>/dev/null)" = 0 ] && [ -s "$OTHER_DIR/$k.release" ]; then
			OTHER_KDIR[$k]=$(cat "$OTHER_DIR/$k.kdir")
			OTHER_REL[$k]=$(cat "$OTHER_DIR/$k.release")
			pass "kernel: $k's $what ready (${OTHER_KDIR[$k]}; $secs s)"
		else
			fail "kernel: $k's $what: scripts/kernel.sh $k --kdir failed"
			diag < "$OTHER_DIR/$k.log"
		fi
	done < "$OTHER_DIR/wanted"
}
stop_debug_build() {
	[ -z "$DEBUG_BUILD_PID" ] || kill -- "-$DEBUG_BUILD_PID" 2>/dev/null || true
	[ -z "$OTHER_PID" ] || kill -- "-$OTHER_PID" 2>/dev/null || true
}
trap stop_debug_build EXIT

DEBUG_BUILD_WALL= DEBUG_BUILD_CPU=
wait_debug() {
	local rc=0 dir
	wait "$DEBUG_BUILD_PID" || rc=$?
	DEBUG_BUILD_PID=
	DEBUG_BUILD_WALL=$(( $(kiw_now) - DEBUG_BUILD_START ))
	DEBUG_BUILD_CPU=$(tail -n 1 "$LOGS/debug-kernel.cpu" 2>/dev/null |
			  awk 'NF == 2 { printf "%.0f", $1 + $2 }')
	dir=$(tail -n 1 "$LOGS/debug-kernel.out" 2>/dev/null) || true
	if [ "$rc" = 0 ] && [ -n "$dir" ] && [ -f "$dir/.done" ]; then
		DEBUG_DIR=$dir
		pass "kernel: debug kernel $(cat "$dir/release") built ($DEBUG_BUILD_WALL s, CPU ${DEBUG_BUILD_CPU:-?} s)"
	else
		fail "kernel: building the debug kernel failed (status $rc)"
		tail -n 40 "$LOGS/debug-kernel.log" | diag
	fi
}

# static_build NAME KDIR WHAT: a clean build of kiw with W=1 and sparse
# (C=2), so that every file is compiled, and warns, again; any diagnostic
# fails. It builds in build/<release>, where scripts/vm.sh builds too (with
# the same flags: kbuild.sh always adds W=1), so that the VM tests after it
# find kiw built.
static_build() {
	local rel=$1 kdir=$2 what=$3 log rc=0 findings
	log=$LOGS/static-$rel.log
	"$KIW_TOP/scripts/kbuild.sh" --clean "$kdir" "$KIW_TOP/build/$rel" modules C=2 \
		> "$log" 2>&1 || rc=$?
	# Compiler and modpost diagnostics, and any line naming one of kiw's
	# sources with a line number: sparse does not always say "warning".
	findings=$(grep -E '(warning|error|note):|WARNING:|ERROR:|\*\*\*|specified, but' "$log"
		   grep -E '(drivers/infiniband/sw/kiw|include/kiw|kunit)/[^ :]+:[0-9]+' "$log") || true
	if [ "$rc" = 0 ] && [ -z "$findings" ]; then
		pass "static: $what"
	else
		fail "static: $what (status $rc; log $log)"
		{ [ -n "$findings" ] && sort -u <<<"$findings" || tail -n 20 "$log"; } | head -n 60 | diag
	fi
}

static_stock() {
	local rel
	rel=$(kiw_stock_release)
	static_build "$rel" "$STOCK_KDIR" "W=1 build and sparse (C=2) against $rel: no warnings"
	dkms_build "$rel" "$STOCK_KDIR" "Debian's 6.12"
	checkpatch
	conformance
	bench_report
	plan_test
	dupes_test
	align_test
}

# dkms_build RELEASE KDIR NAME: DKMS builds kiw for the kernel, as "make
# dkms-install" does (dkms.conf, the compat probes under DKMS), in a DKMS
# tree of its own (scripts/dkms-build.sh); for a KDIR in a build chroot
# (7.2), with the chroot's DKMS, a 7.2 user's.
dkms_build() {
	local rel=$1 kdir=$2 name=$3 root= log=$LOGS/dkms-$1.log
	[[ $kdir != */usr/src/* ]] || [ ! -f "${kdir%%/usr/src/*}/.kiw-chroot" ] ||
		root=${kdir%%/usr/src/*}
	if "$KIW_TOP/scripts/dkms-build.sh" "$rel" ${root:+--root "$root"} > "$log" 2>&1; then
		pass "dkms: DKMS builds kiw for $name ($rel)${root:+ in the sid chroot}"
	else
		fail "dkms: DKMS build of kiw for $name ($rel) failed (log $log)"
		tail -n 30 "$log" | diag
	fi
}

# Debian's 6.1 and 7.2 (its headers in a sid chroot, where kbuild.sh builds):
# kiw must build there as cleanly as on 6.12. A kernel whose API moved
# shows as compiler errors: the compat layer (issue 15) must cover it.
static_other() {
	local k rel failed_before
	other_kernels_ready
	for k in $OTHER_KERNELS; do
		rel=${OTHER_REL[$k]:-}
		if [ -z "${OTHER_KDIR[$k]:-}" ]; then
			fail "static: W=1 build and sparse (C=2) against Debian's $k: no headers (see the kernel: lines above)"
			continue
		fi
		failed_before=$KIW_TAP_FAILED
		static_build "$rel" "${OTHER_KDIR[$k]}" \
			"W=1 build and sparse (C=2) against Debian's $k ($rel): no warnings"
		if [ "$KIW_TAP_FAILED" = "$failed_before" ]; then
			dkms_build "$rel" "${OTHER_KDIR[$k]}" "Debian's $k"
			continue
		fi
		grep -qE ' error: |Error [0-9]' "$LOGS/static-$rel.log" || continue
		diag <<-EOF
		kiw does not compile against $k's headers: an API kiw uses differs
		there, which the compat layer must cover (Documentation/testing.rst,
		"Kernels"). Rebuild alone with:
		  scripts/kbuild.sh \$(scripts/kernel.sh $k --kdir) build/$rel modules C=2
		EOF
	done
}

# The conformance matrix is generated from the tests' Covers: tags: a tag
# added without regenerating it (scripts/conformance.sh), or naming an ID
# the checklist does not have, fails.
conformance() {
	local out
	if out=$("$KIW_TOP/scripts/conformance.sh" --check 2>&1); then
		pass "static: Documentation/conformance.rst is up to date"
	else
		fail "static: Documentation/conformance.rst is stale or a Covers: tag is wrong"
		diag <<<"$out"
	fi
}

# py_unit WHAT SCRIPT: one of the harness's Python unit tests (SCRIPT,
# relative to the top) as one check.
py_unit() {
	local out
	if out=$(python3 "$KIW_TOP/$2" 2>&1); then
		pass "static: $1 ($2)"
	else
		fail "static: $1: $2 failed"
		tail -n 30 <<<"$out" | diag
	fi
}

# make bench's table and targets (scripts/bench/report.py) on made-up
# results: every target can be met and missed, a failed run shows.
bench_report() { py_unit "make bench's report" scripts/bench/report_test.py; }

# The plan of the VM tests' boots (scripts/checkplan.py) on made-up
# headers and times: bad headers fail, the boots are balanced and full.
plan_test() {
	py_unit "make check's plan of the VM tests" scripts/checkplan_test.py
}

# The repeated-code check (scripts/dupes.py) on made-up trees: a shared
# run is found, a short one is not, comments do not count, --shape sees
# renamed code. (Its findings on the tree are not a check yet.)
dupes_test() { py_unit "the repeated-code check" scripts/dupes_test.py; }

# dp_align's capture parser (scripts/guest/fpdu_align.py) on made-up
# captures: aligned and cut FPDUs, markers, cuts at the window's edge, gaps.
align_test() {
	py_unit "dp_align's capture parser" scripts/guest/fpdu_align_test.py
}

# The debug kernel has KUnit, so this also covers kunit/.
static_debug() {
	local rel
	if [ -z "$DEBUG_DIR" ]; then
		skipped "static: W=1 and sparse against the debug kernel (not built; run make check)"
		return
	fi
	rel=$(cat "$DEBUG_DIR/release")
	static_build "$rel" "$DEBUG_DIR/build" \
		"W=1 build and sparse (C=2) against $rel (with kunit/): no warnings"
}

# checkpatch.pl --strict on every .c/.h, one TAP line each; the files are
# checked KIW_JOBS at a time (perl starts slowly), reported in order.
checkpatch() {
	local src f out files dir=$LOGS/checkpatch
	src=$(kiw_linux_src)
	files=$(cd "$KIW_TOP" && find drivers include kunit -name '*.[ch]' | sort)
	[ -n "$files" ] || { fail "checkpatch: no .c/.h files found"; return; }
	rm -rf "$dir"
	mkdir -p "$dir"
	# shellcheck disable=SC2016
	(cd "$KIW_TOP" && printf '%s\n' $files | xargs -P "$KIW_JOBS" -I{} sh -c '
		f=$1 out=$2/$(echo "$1" | tr / _)
		"$3/scripts/checkpatch.pl" --strict --no-tree --file --quiet \
			--show-types "$f" > "$out" 2>&1
		echo $? > "$out.rc"' _ {} "$dir" "$src")
	for f in $files; do
		out=$dir/$(echo "$f" | tr / _)
		if [ "$(cat "$out.rc" 2>/dev/null)" = 0 ]; then
			pass "checkpatch --strict: $f"
		else
			fail "checkpatch --strict: $f"
			diag < "$out"
		fi
	done
}

kunit() {
	local failed_before=$KIW_TAP_FAILED
	if [ -z "$DEBUG_DIR" ]; then
		fail "kunit: no debug kernel (see above)"
		return
	fi
	with_status "$KIW_TOP/scripts/kunit.sh" | relay ""
	# kunit.sh reports every failure as a TAP line; if it died before it
	# could, say so.
	if [ "${RELAY_STATUS:-255}" != 0 ] && [ "$KIW_TAP_FAILED" = "$failed_before" ]; then
		fail "kunit: scripts/kunit.sh failed (status ${RELAY_STATUS:-none})"
	fi
}

# --- the report ---------------------------------------------------------------

# report TOTAL CPU: the time report (scripts/checkplan.py report): the
# wall and CPU time of every phase, boot and VM test; and, of a full run
# (no --only/--test), the projected time of a cold CI run against its
# budget (KIW_BUDGET, KIW_CI_LIMIT...: Documentation/testing.rst, "Time
# budget").
report() {
	local row item args=(--total "$1" --cpu "$2")
	[ -z "$only" ] || args+=(--partial)
	[ "$BUILT_DEBUG" != 1 ] || args+=(--built-debug)
	[ -z "$DEBUG_BUILD_WALL" ] || args+=(--debug-build "$DEBUG_BUILD_WALL" "${DEBUG_BUILD_CPU:-}")
	{
		for row in "${PHASE_ROWS[@]}"; do echo "phase $row"; done
		for row in "${BOOT_ROWS[@]}"; do echo "boot $row"; done
		for row in "${TEST_ROWS[@]}"; do echo "test $row"; done
		for item in "${OTHER_WARM[@]}"; do echo "warm $item"; done
	} | python3 "$KIW_TOP/scripts/checkplan.py" report --long="${KIW_LONG:-}" "${args[@]}" ||
		echo "# the time report failed (scripts/checkplan.py report)"
}

# save_times: the guest time of every VM test that ran to its end, for the
# next run's plan (scripts/checkplan.py).
save_times() {
	local row secs name
	for row in "${TEST_ROWS[@]}"; do
		IFS='|' read -r secs name _ <<<"$row"
		echo "$secs $name"
	done | python3 "$KIW_TOP/scripts/checkplan.py" save-times --out "$TIMES_FILE" \
		--times "$TIMES_SEED" --times "$TIMES_FILE"
}

summary() {
	stop_debug_build
	[ ${#TEST_ROWS[@]} = 0 ] || save_times
	cpu_now
	report "$(( $(kiw_now) - START ))" "$CPU_NOW"
	[ "$KIW_TAP_SKIPPED" = 0 ] || echo "# $KIW_TAP_SKIPPED skipped (not counted as passed)"
	tap_end
	tap_tally
	if [ "$KIW_TAP_FAILED" = 0 ] && [ "$KIW_TAP_N" -gt 0 ]; then exit 0; fi
	exit 1
}

! want kunit || NEED_DEBUG=1
! want vm || plan_vm
echo "# kiw make check: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
phase deps deps
phase kernels kernels
if want static; then phase "static (stock kernel)" static_stock; fi
if want vm && [ "$NEED_STOCK" = 1 ]; then phase "VM tests (stock kernel)" vm_stock; fi
# (Debian's other kernels after the stock kernel's VM tests: a cold run's
# sid chroot is made meanwhile, in the background)
if want static; then phase "static (other Debian kernels)" static_other; fi
if want vm && [ ${#NEED_OTHER[@]} -gt 0 ]; then phase "VM tests (other Debian kernels)" vm_other; fi
if want vm && [ "$PAIR" = 1 ]; then phase "VM pair (other Debian kernels)" vm_pair; fi
if [ -n "$DEBUG_BUILD_PID" ]; then phase "waiting for the debug kernel" wait_debug; fi
if want static; then phase "static (debug kernel)" static_debug; fi
if want kunit && [ "$KUNIT_IN_VM" = 0 ]; then phase kunit kunit; fi
if want vm && [ "$NEED_DEBUG" = 1 ]; then phase "VM tests (debug kernel)" vm_debug; fi
summary
