#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Every kiw test, as one TAP stream (what "make check" and .ci/run run).
#
# Usage: scripts/check.sh [--only static|kunit|vm] [--test NAME]
#   static  W=1 build and sparse (C=2) of kiw with zero diagnostics, against
#           Debian's headers and against the debug kernel; checkpatch.pl
#           --strict on every .c/.h, zero errors, warnings and checks; the
#           conformance matrix up to date (scripts/conformance.sh --check)
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

# --- TAP bookkeeping --------------------------------------------------------

pass() { N=$((N + 1)); PASSED=$((PASSED + 1)); echo "ok $N - $*"; }
fail() { N=$((N + 1)); FAILED=$((FAILED + 1)); echo "not ok $N - $*"; }
skipped() { N=$((N + 1)); SKIPPED=$((SKIPPED + 1)); echo "ok $N - $* # SKIP"; }
diag() { sed 's/^/# /'; }

# relay PREFIX: renumber the TAP on stdin into this stream. The producer
# appends "KIW-STATUS <n>" (its exit status) as its last line, see
# with_status; the status is left in RELAY_STATUS. Anything that is not TAP
# is shown as a comment.
RELAY_STATUS=
relay() {
	local prefix=$1 line desc re='^(not )?ok [0-9]+( -)? ?(.*)$'
	RELAY_STATUS=
	while IFS= read -r line; do
		if [[ $line =~ ^KIW-STATUS\ ([0-9]+)$ ]]; then
			RELAY_STATUS=${BASH_REMATCH[1]}
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
	[ -f "$dir/.done" ] ||
		echo "# building the debug kernel (10-20 minutes on 2 cores; log: $LOGS/debug-kernel.log)"
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

static() {
	local rel
	rel=$(kiw_stock_release)
	static_build "w1-$rel" "$STOCK_KDIR" "W=1 build against $rel: no warnings" W=1
	static_build "sparse-$rel" "$STOCK_KDIR" "sparse (C=2) against $rel: no warnings" C=2
	# The debug kernel has KUnit, so this also covers kunit/.
	if [ -n "$DEBUG_DIR" ]; then
		rel=$(cat "$DEBUG_DIR/release")
		static_build "w1-$rel" "$DEBUG_DIR/build" "W=1 build against $rel (with kunit/): no warnings" W=1
		static_build "sparse-$rel" "$DEBUG_DIR/build" "sparse (C=2) against $rel (with kunit/): no warnings" C=2
	else
		skipped "static: W=1 and sparse against the debug kernel (not built yet; run make check)"
	fi
	checkpatch
	conformance
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

vm_test() {
	local t=$1 name kernel timeout st args=()
	name=$(basename "$t" .sh)
	kernel=$(test_param "$t" kernel)
	timeout=$(test_param "$t" timeout)
	[ "$(test_param "$t" siw)" != yes ] || args+=(--with-siw)
	[ -z "$(test_param "$t" mem)" ] || args+=(--mem "$(test_param "$t" mem)")
	echo "# --- $name (kernel ${kernel:-debug})"
	relay "$name: " < <(with_status "$KIW_TOP/scripts/vm.sh" --kernel "${kernel:-debug}" \
		--timeout "${timeout:-300}" "${args[@]}" --script "$t")
	st=${RELAY_STATUS:-255}
	case "$st" in
	0)   pass "$name: VM run clean (exit 0, no kernel report)" ;;
	124) fail "$name: VM run: hang or timeout" ;;
	125) fail "$name: VM run: the kernel reported a problem (see above)" ;;
	126) fail "$name: VM run: no result (panic or harness error)" ;;
	*)   fail "$name: VM run: exit status $st" ;;
	esac
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

vm() {
	local t
	for t in "${TESTS[@]}"; do
		if [ -f "$t" ]; then
			vm_test "$t"
		else
			fail "vm: no such test: ${t#"$KIW_TOP"/}"
		fi
	done
}

summary() {
	local t
	echo "# --- timings"
	for t in "${TIMES[@]}"; do echo "# $t"; done
	[ "$SKIPPED" = 0 ] || echo "# $SKIPPED skipped (not counted as passed)"
	echo "1..$N"
	echo "$PASSED passed, $FAILED failed"
	if [ "$FAILED" = 0 ] && [ "$N" -gt 0 ]; then exit 0; fi
	exit 1
}

START=$(kiw_now)
select_tests
phase deps deps
phase kernels kernels
want static && phase static static
want kunit && phase kunit kunit
want vm && phase vm vm
TIMES+=("total: $(kiw_since "$START")")
summary
