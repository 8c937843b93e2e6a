#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Every kiw test, as one TAP stream (what "make check" and .ci/run run).
#
# Usage: scripts/check.sh [--only static|kunit|vm] [--test NAME]
#   static  W=1 build and sparse (C=2) of kiw with zero diagnostics, against
#           Debian's headers and against the debug kernel; checkpatch.pl
#           --strict on every .c/.h, zero errors, warnings and checks
#   kunit   kiw's KUnit suites in the debug kernel (scripts/kunit.sh)
#   vm      the VM tests scripts/tests/*.sh (--test NAME: only NAME.sh)
#
# Every check is one TAP line: each build, each checkpatch'ed file, each
# KUnit case, each TAP line of each VM test, and one line per VM run for the
# kernel staying clean. The last line is exactly "N passed, N failed";
# skipped checks are listed but never counted as passed. The exit status is
# non-zero when anything failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

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
N=0 PASSED=0 FAILED=0 SKIPPED=0
TIMES=()
START=$(kiw_now)

# --- TAP bookkeeping --------------------------------------------------------

pass() { N=$((N + 1)); PASSED=$((PASSED + 1)); echo "ok $N - $*"; }
fail() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }
skipped() { N=$((N + 1)); SKIPPED=$((SKIPPED + 1)); echo "ok $N - $* # SKIP"; }
diag() { sed 's/^/# /'; }

# relay PREFIX: renumber the TAP on stdin into this stream. The producer
# appends "KIW-STATUS <n>" (its exit status) as its last line, see
# with_status; the status is left in RELAY_STATUS. Anything that is not TAP
# is shown as a comment. The markers of a VM run (vm.sh --markers) switch
# the prefix to the script's name and end each script with a line of its
# own (test_end); vm.sh's verdict on a failed run is kept in RELAY_VERDICT.
RELAY_STATUS= RELAY_VERDICT=
relay() {
	local prefix=$1 line desc re='^(not )?ok [0-9]+( -)? ?(.*)$'
	RELAY_STATUS= RELAY_VERDICT=
	while IFS= read -r line; do
		if [[ $line =~ ^KIW-STATUS\ ([0-9]+)$ ]]; then
			RELAY_STATUS=${BASH_REMATCH[1]}
		elif [[ $line =~ ^KIW-TEST-BEGIN\ ([^ ]+) ]]; then
			prefix="${BASH_REMATCH[1]}: "
			echo "# --- ${BASH_REMATCH[1]}"
		elif [[ $line =~ ^KIW-TEST-END\ ([^ ]+)\ exit=([0-9]+)\ seconds=([0-9.]+)\ cleanup=([a-z]+) ]]; then
			test_end "${BASH_REMATCH[@]:1}"
			prefix=
		elif [[ $line =~ ^KIW-TEST-TIMEOUT\ ([^ ]+) ]]; then
			echo "# ${BASH_REMATCH[1]} outlived its timeout: killed (blocked tasks on the console)"
		elif [[ $line =~ ^\[kiw\]\ FAIL\ [^:]*:\ (.*)$ ]]; then
			RELAY_VERDICT=${BASH_REMATCH[1]}
			echo "# $line"
		elif [[ $line =~ $re ]]; then
			desc=${BASH_REMATCH[3]}
			if [ -n "${BASH_REMATCH[1]}" ]; then
				fail "$prefix$desc"
			elif [[ $desc =~ \#[[:space:]]*[Ss][Kk][Ii][Pp] ]]; then
				skipped "$prefix${desc%%#*}"
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
# for relay. (Process substitutions inherit set -e: "cmd; echo $?" would
# never get to the echo when cmd fails.)
with_status() {
	local rc=0
	"$@" 2>&1 || rc=$?
	echo "KIW-STATUS $rc"
}

# phase NAME FUNCTION: run a phase and time it.
phase() {
	local start
	start=$(kiw_now)
	echo "# === $1"
	"$2"
	TIMES+=("$1: $(kiw_since "$start")")
	echo "# === $1 took $(kiw_since "$start")"
}

# --- the phases -------------------------------------------------------------

deps() {
	if "$KIW_TOP/scripts/setup-deps.sh" > "$LOGS/deps.log" 2>&1; then
		pass "deps: Debian packages installed"
	else
		fail "deps: scripts/setup-deps.sh failed"
		diag < "$LOGS/deps.log"
		summary
	fi
}

# The kernels the selected phases need. Building the debug kernel takes
# 10-20 minutes: only when KUnit or a debug VM test will run. The static
# checks use it only when it is already there.
STOCK_KDIR= DEBUG_DIR=
kernels() {
	local dir t need_stock=0 need_debug=0
	STOCK_KDIR=$(kiw_stock_kdir)
	! want kunit || need_debug=1
	if want vm; then
		for t in "${TESTS[@]}"; do
			[ -f "$t" ] || continue
			case "$(test_param "$t" kernel)" in
			stock) need_stock=1 ;;
			*)     need_debug=1 ;;
			esac
		done
	fi
	if [ "$need_stock" = 1 ]; then
		if "$KIW_TOP/scripts/stock-kernel.sh" > "$LOGS/stock-kernel.log" 2>&1; then
			pass "kernel: Debian's stock kernel $(kiw_stock_release) unpacked"
		else
			fail "kernel: fetching Debian's stock kernel failed"
			diag < "$LOGS/stock-kernel.log"
		fi
	fi
	dir=$("$KIW_TOP/scripts/debug-kernel.sh" --print)
	if [ "$need_debug" = 0 ]; then
		[ ! -f "$dir/.done" ] || DEBUG_DIR=$dir
		return 0
	fi
	[ -f "$dir/.done" ] || {
		BUILT_DEBUG=1
		echo "# building the debug kernel (10-20 minutes on 2 cores; log: $LOGS/debug-kernel.log)"
	}
	if dir=$("$KIW_TOP/scripts/debug-kernel.sh" 2> "$LOGS/debug-kernel.log" | tail -n 1) &&
	   [ -f "$dir/.done" ]; then
		DEBUG_DIR=$dir
		pass "kernel: debug kernel $(cat "$dir/release")"
	else
		fail "kernel: building the debug kernel failed"
		tail -n 40 "$LOGS/debug-kernel.log" | diag
	fi
}

# static_build NAME KDIR WHAT ARGS...: a fresh build (so that every file is
# compiled, and warns, again) in build/static-NAME; any diagnostic fails.
static_build() {
	local name=$1 kdir=$2 what=$3 dir log rc=0 findings
	shift 3
	dir=$KIW_TOP/build/static-$name
	log=$LOGS/static-$name.log
	rm -rf "$dir"
	"$KIW_TOP/scripts/kbuild.sh" "$kdir" "$dir" modules "$@" > "$log" 2>&1 || rc=$?
	# Compiler and modpost diagnostics, and any line naming one of kiw's
	# sources with a line number: sparse does not always say "warning".
	findings=$(grep -E '(warning|error|note):|WARNING:|ERROR:|\*\*\*' "$log"
		   grep -E '(drivers/infiniband/sw/kiw|include/kiw|kunit)/[^ :]+:[0-9]+' "$log") || true
	if [ "$rc" = 0 ] && [ -z "$findings" ]; then
		pass "static: $what"
	else
		fail "static: $what (status $rc; log $log)"
		{ [ -n "$findings" ] && sort -u <<<"$findings" || tail -n 20 "$log"; } | head -n 60 | diag
	fi
}

# One build per kernel does both: with W=1 and C=2, kbuild compiles every
# file with the extra warnings and runs sparse on it.
static() {
	local rel
	rel=$(kiw_stock_release)
	static_build "$rel" "$STOCK_KDIR" "W=1 build and sparse (C=2) against $rel: no warnings" W=1 C=2
	# The debug kernel has KUnit, so this also covers kunit/.
	if [ -n "$DEBUG_DIR" ]; then
		rel=$(cat "$DEBUG_DIR/release")
		static_build "$rel" "$DEBUG_DIR/build" \
			"W=1 build and sparse (C=2) against $rel (with kunit/): no warnings" W=1 C=2
	else
		skipped "static: W=1 and sparse against the debug kernel (not built yet; run make check)"
	fi
	checkpatch
}

checkpatch() {
	local src f out files
	src=$(kiw_linux_src)
	files=$(cd "$KIW_TOP" && find drivers include kunit -name '*.[ch]' | sort)
	[ -n "$files" ] || { fail "checkpatch: no .c/.h files found"; return; }
	for f in $files; do
		if out=$("$src/scripts/checkpatch.pl" --strict --no-tree --file --quiet \
			   --show-types "$KIW_TOP/$f" 2>&1); then
			pass "checkpatch --strict: $f"
		else
			fail "checkpatch --strict: $f"
			diag <<<"$out"
		fi
	done
}

kunit() {
	local failed_before=$FAILED
	relay "" < <(with_status "$KIW_TOP/scripts/kunit.sh")
	# kunit.sh reports every failure as a TAP line; if it died before it
	# could, say so.
	if [ "${RELAY_STATUS:-255}" != 0 ] && [ "$FAILED" = "$failed_before" ]; then
		fail "kunit: scripts/kunit.sh failed (status ${RELAY_STATUS:-none})"
	fi
}

# The header of a test: "# kiw-vm: kernel=debug timeout=300 [mem=MB] [siw=yes]"
# (kernel: stock or debug, the default; timeout: seconds for the script;
# mem: guest memory, default 1024; siw=yes: the test loads siw as a peer,
# built for the stock kernel).
test_param() {
	sed -n "s/^# kiw-vm:.*\\b$2=\\([^ ]*\\).*/\\1/p" "$1" | head -n 1
}

# A VM test's header: "# kiw-vm: kernel=debug timeout=300 [mem=MB] [siw=yes]
# [batch=alone]". Tests with the same kernel and needs share a boot (a
# batch, at most KIW_VM_BATCH of them, default 10; 1 boots once per test);
# batch=alone gets a boot of its own (a test that changes the guest for
# good, or runs for long).
KIW_VM_BATCH=${KIW_VM_BATCH:-10}
BATCH_KEYS=() BATCH_TESTS=()
plan_batches() {
	local t kernel mem siw key i found
	BATCH_KEYS=() BATCH_TESTS=()
	for t in "${TESTS[@]}"; do
		[ -f "$t" ] || { fail "vm: no such test: ${t#"$KIW_TOP"/}"; continue; }
		kernel=$(test_param "$t" kernel)
		mem=$(test_param "$t" mem)
		siw=$(test_param "$t" siw)
		# the debug kernel has siw: only the stock kernel's boots differ
		[ "${kernel:-debug}" = stock ] || siw=
		key="${kernel:-debug} ${mem:-default} ${siw:-no}"
		found=
		if [ "$(test_param "$t" batch)" != alone ]; then
			for i in "${!BATCH_KEYS[@]}"; do
				[ "${BATCH_KEYS[$i]}" = "$key" ] || continue
				[ "$(wc -w <<<"${BATCH_TESTS[$i]}")" -lt "$KIW_VM_BATCH" ] || continue
				found=$i
			done
		fi
		if [ -z "$found" ]; then
			BATCH_KEYS+=("$key")
			BATCH_TESTS+=("$t")
		else
			BATCH_TESTS[$found]+=" $t"
		fi
	done
}

# The scripts of the boot now running: name -> "" (not begun), "running",
# "done"; and the time each took (for the summary).
declare -A VM_STATE=()
TEST_TIMES=()

# test_end NAME EXIT SECONDS CLEANUP: the line for one script of a boot.
test_end() {
	local name=$1 rc=$2 secs=$3 clean=$4 what
	VM_STATE[$name]=done
	TEST_TIMES+=("$secs $name")
	echo "# --- $name took $secs s"
	what="$name: script exited 0, guest clean after it ($secs s)"
	if [ "$rc" = 124 ]; then
		fail "$name: timed out ($secs s; its timeout= in the header)"
	elif [ "$rc" != 0 ]; then
		fail "$name: script exited $rc ($secs s)"
	elif [ "$clean" != ok ]; then
		fail "$name: the guest could not be cleaned up after it (see above)"
	else
		pass "$what"
	fi
}

BOOTS=0
vm_boot() {
	local key=$1 kernel mem siw t t_out name names=() list args=() st start secs sum=0 missing=0
	read -r kernel mem siw <<<"$key"
	[ "$siw" != yes ] || args+=(--with-siw)
	[ "$mem" = default ] || args+=(--mem "$mem")
	shift
	BOOTS=$((BOOTS + 1))
	VM_STATE=()
	for t in "$@"; do
		name=$(basename "$t" .sh)
		names+=("$name")
		VM_STATE[$name]=
		t_out=$(test_param "$t" timeout)
		args+=(--timeout "${t_out:-300}" --script "$t")
	done
	echo "# === boot $BOOTS: $kernel kernel${siw/yes/, siw}${mem/default/}: ${names[*]}"
	start=$(kiw_now)
	relay "" < <(with_status "$KIW_TOP/scripts/vm.sh" --kernel "$kernel" --markers \
		--log "$LOGS/boot$BOOTS-$kernel.log" "${args[@]}")
	st=${RELAY_STATUS:-255}
	secs=$(( $(kiw_now) - start ))
	for name in "${names[@]}"; do
		case "${VM_STATE[$name]}" in
		done) ;;
		"") fail "$name: not run (the boot ended before it: see boot $BOOTS below)"
		    missing=1 ;;
		*)  fail "$name: no result (it was running when the boot ended)"
		    missing=1 ;;
		esac
	done
	list="${names[*]}"
	# With every script done, any status but vm.sh's own is a script's.
	case "$st" in
	124|125|126) ;;
	*) [ "$missing" = 1 ] || st=0 ;;
	esac
	case "$st" in
	0) pass "boot $BOOTS ($kernel kernel: ${list// /, }): the kernel stayed clean (no KASAN, lockdep, kmemleak, WARN, BUG, hang)" ;;
	*)   fail "boot $BOOTS ($kernel kernel: ${list// /, }): ${RELAY_VERDICT:-vm.sh failed with status $st}"
	     diag <<-EOF
		this boot ran: $list (console: $LOGS/boot$BOOTS-$kernel.log)
		to rerun one of them alone: make vmtest T=<name>
		EOF
	     ;;
	esac
	for t in "${TEST_TIMES[@]}"; do sum=$(awk -v a="$sum" -v b="${t%% *}" 'BEGIN { print a + b }'); done
	TIMES+=("boot $BOOTS ($kernel, ${#names[@]} tests): $secs s, of which the scripts $(printf '%.0f' "$sum") s")
	echo "# === boot $BOOTS took $secs s (scripts $(printf '%.0f' "$sum") s; build, boot, kmemleak scans and cleanup the rest)"
	ALL_TEST_TIMES+=("${TEST_TIMES[@]}")
	TEST_TIMES=()
}

# The VM tests to run: all of scripts/tests/, or the one of --test.
TESTS=()
select_tests() {
	if [ -n "$test" ]; then
		TESTS=("$KIW_TOP/scripts/tests/$test.sh")
	else
		TESTS=("$KIW_TOP"/scripts/tests/*.sh)
	fi
}

ALL_TEST_TIMES=()
vm() {
	local i
	plan_batches
	# The stock kernel's boots first: they are the quick ones.
	for i in "${!BATCH_KEYS[@]}"; do
		[[ ${BATCH_KEYS[$i]} == stock* ]] || continue
		# shellcheck disable=SC2086
		vm_boot "${BATCH_KEYS[$i]}" ${BATCH_TESTS[$i]}
	done
	for i in "${!BATCH_KEYS[@]}"; do
		[[ ${BATCH_KEYS[$i]} != stock* ]] || continue
		# shellcheck disable=SC2086
		vm_boot "${BATCH_KEYS[$i]}" ${BATCH_TESTS[$i]}
	done
}

# The CI budget (Documentation/testing.rst, "Time budget"): .ci/run on a
# fresh 2-core machine must end within KIW_BUDGET seconds, cold caches
# included; a VM test should take at most KIW_TEST_TARGET seconds.
KIW_BUDGET=${KIW_BUDGET:-2700}
KIW_TEST_TARGET=${KIW_TEST_TARGET:-60}
# What a cold run pays on top of a warm one, besides the debug kernel's
# build: Debian packages, the stock kernel's download, siw's build.
KIW_COLD_EXTRA=${KIW_COLD_EXTRA:-240}
BUILT_DEBUG=0

# debug_build_secs: the wall time the cached debug kernel took to build
# (from its cache entry: the configured .config to the .done stamp).
debug_build_secs() {
	local dir
	dir=$("$KIW_TOP/scripts/debug-kernel.sh" --print)
	[ -f "$dir/.done" ] || return 1
	echo $(( $(stat -c %Y "$dir/.done") - $(stat -c %Y "$dir/build/.config") ))
}

# budget TOTAL: the projected time of a cold CI run, and a warning when it
# comes near KIW_BUDGET. Only a full run (no --only/--test) projects.
budget() {
	local total=$1 build cold pct
	[ -z "$only" ] || return 0
	build=0
	[ "$BUILT_DEBUG" = 1 ] || build=$(debug_build_secs) || build=900
	cold=$((total + build + KIW_COLD_EXTRA))
	pct=$((cold * 100 / KIW_BUDGET))
	echo "# budget: this run ${total} s; a cold run adds the debug kernel build" \
	     "(${build} s here) and ~${KIW_COLD_EXTRA} s of downloads: ~${cold} s," \
	     "${pct}% of the ${KIW_BUDGET} s CI budget"
	[ "$pct" -lt 85 ] ||
		echo "# WARNING: the projected cold run is at ${pct}% of the CI budget: see Documentation/testing.rst, \"Time budget\""
}

summary() {
	local t
	echo "# --- timings"
	for t in "${TIMES[@]}"; do echo "# $t"; done
	if [ ${#ALL_TEST_TIMES[@]} -gt 0 ]; then
		echo "# VM tests, slowest first (seconds in the guest, cleanup included):"
		printf '%s\n' "${ALL_TEST_TIMES[@]}" | sort -rn | while read -r secs name; do
			if [ "${secs%.*}" -ge "$KIW_TEST_TARGET" ]; then
				echo "#   $secs $name  (over the ${KIW_TEST_TARGET} s per-test target)"
			else
				echo "#   $secs $name"
			fi
		done
	fi
	budget "$(( $(kiw_now) - START ))"
	[ "$SKIPPED" = 0 ] || echo "# $SKIPPED skipped (not counted as passed)"
	echo "1..$N"
	echo "$PASSED passed, $FAILED failed"
	if [ "$FAILED" = 0 ] && [ "$N" -gt 0 ]; then exit 0; fi
	exit 1
}

select_tests
phase deps deps
phase kernels kernels
want static && phase static static
want kunit && phase kunit kunit
want vm && phase vm vm
TIMES+=("total: $(kiw_since "$START")")
summary
