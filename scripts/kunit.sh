#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Run kiw's KUnit suites (the kiw_kunit module) in the debug kernel under
# QEMU, and report every case as a TAP line, parsed by the kernel's own
# tools/testing/kunit/kunit.py.
#
# Usage: scripts/kunit.sh [GLOB]   (kunit's filter: "suite" or "suite.case",
#                                   with * wildcards)
#        scripts/kunit.sh --parse CONSOLE_LOG   (only parse a log of an
#                                   earlier run; for tests of this script)
# Output: kunit.py's report as TAP comments, then one TAP line per case
# ("ok N - kunit: suite.case"), then one for the run itself (the guest
# kernel stayed clean, the module loaded). Exits non-zero when any case
# failed or crashed, when no result appeared at all, or on a kernel report.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tap.sh"

src=$(kiw_linux_src)
logs=$KIW_TOP/build/logs
mkdir -p "$logs"
log=$logs/kunit-debug.log
ktap=$logs/kunit.ktap
json=$logs/kunit.json
rm -f "$ktap" "$json"

vmrc=0 parse_only=0
if [ "${1:-}" = --parse ]; then
	parse_only=1
	log=$(realpath "${2:?CONSOLE_LOG}")
	ktap=$log.ktap json=$log.json logs=$(dirname "$log")
else
	"$KIW_TOP/scripts/vm.sh" --kernel debug --script "$KIW_TOP/scripts/guest/kunit.sh" \
		--timeout 600 --log "$log" -- "${1:-}" >"$logs/kunit-vm.out" 2>&1 || vmrc=$?
fi

# The KTAP between the markers; without the end marker (a crash), all of
# the rest, so that kunit.py reports the crashed case.
if [ -f "$log" ]; then
	sed -n '/KIW-KUNIT-BEGIN/,/KIW-KUNIT-END/p' "$log" | sed '1d;/KIW-KUNIT-END/d' > "$ktap"
fi

tap() { # tap ok|not_ok|skip DESC (scripts/tap.sh)
	case "$1" in
	ok)     tap_ok "$2" ;;
	skip)   tap_skip "$2" ;;
	*)      tap_not_ok "$2" ;;
	esac
}

parse_rc=0
if [ -s "$ktap" ] && grep -q 'KTAP version' "$ktap"; then
	report=$ktap.report
	(cd "$src" && python3 tools/testing/kunit/kunit.py parse --json="$json" "$ktap") \
		>"$report" 2>&1 || parse_rc=$?
	sed 's/^/# /' "$report"
	# One line per leaf of kunit.py's result tree (cases, or the parameters
	# of parameterised cases): "<status> <suite>.<case>[.<param>]".
	cases=$(python3 - "$json" <<-'PY'
		import json, sys
		def walk(group, path):
		    for sub in group["sub_groups"]:
		        walk(sub, path + [sub["name"]])
		    for case in group["test_cases"]:
		        name = case["name"] or "(a case that crashed before its result)"
		        print(case["status"], ".".join(path + [name]))
		walk(json.load(open(sys.argv[1])), [])
	PY
	) || cases=
	while read -r status name; do
		[ -n "$name" ] || continue
		case "$status" in
		PASS) tap ok "kunit: $name" ;;
		SKIP) tap skip "kunit: $name" ;;
		*)    tap not_ok "kunit: $name ($status)" ;;
		esac
	done <<<"$cases"
	[ "$KIW_TAP_N" -gt 0 ] || tap not_ok "kunit: kunit.py found no test cases"
	# kunit.py also fails a run for what no case shows (a suite's init, a
	# missing plan): never let that pass silently.
	if [ "$parse_rc" != 0 ] && [ "$KIW_TAP_FAILED" = 0 ]; then
		tap not_ok "kunit: kunit.py parse reports a failure (see above)"
	fi
else
	tap not_ok "kunit: no KUnit output from the guest (log: $log)"
fi

if [ "$parse_only" = 1 ]; then
	: # no VM run to judge
elif [ "$vmrc" = 0 ]; then
	tap ok "kunit: the debug kernel stayed clean (no KASAN, lockdep, kmemleak, WARN)"
else
	tap not_ok "kunit: the VM run failed (status $vmrc)"
	sed 's/^/# /' "$logs/kunit-vm.out" | tail -n 80
fi
tap_end
[ "$KIW_TAP_FAILED" = 0 ]
