#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of "make demo" (scripts/demo.sh): runs the steps in
# scripts/guest/demo.d/*.sh in name order, shows each command and its
# output, and ends with a summary. A later feature adds its part of the demo
# as one more file there (e.g. 30-rping.sh); see 10-devices.sh for the form.
set -u
. "$KIW_TOP/scripts/guest/lib.sh"
# The demo is read by people, not by a TAP parser: no TAP bookkeeping.
trap - EXIT

DEMO_RESULTS=()
DEMO_FAILED=0

# demo_section "title": a heading.
demo_section() { printf '\n=== %s\n' "$1"; }

# demo_run "what it shows" cmd...: show the command, run it, show its output
# indented; a failing command fails the step.
demo_run() {
	local what=$1 rc=0
	shift
	printf '\n$ %s\n' "$*"
	"$@" 2>&1 | sed 's/^/    /'
	rc=${PIPESTATUS[0]}
	demo_result "$rc" "$what"
}

# demo_expect "what it shows" REGEX cmd...: like demo_run, and the output
# must also match REGEX (grep -E).
demo_expect() {
	local what=$1 re=$2 out rc=0
	shift 2
	printf '\n$ %s\n' "$*"
	out=$("$@" 2>&1) || rc=$?
	sed 's/^/    /' <<<"$out"
	[ "$rc" != 0 ] || grep -qE -- "$re" <<<"$out" || rc=1
	demo_result "$rc" "$what"
}

# demo_quiet "what" cmd...: a set-up step whose output is not interesting.
demo_quiet() {
	local what=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	[ "$rc" = 0 ] || sed 's/^/    /' <<<"$out"
	demo_result "$rc" "$what"
}

demo_result() {
	if [ "$1" = 0 ]; then
		DEMO_RESULTS+=("[ ok ] $2")
	else
		DEMO_RESULTS+=("[FAIL] $2")
		DEMO_FAILED=$((DEMO_FAILED + 1))
		printf '    ^ FAILED (status %s): %s\n' "$1" "$2"
	fi
}

for step in "$KIW_TOP"/scripts/guest/demo.d/*.sh; do
	. "$step"
done

printf '\n=== Summary: kiw on %s (Debian kernel), two hosts in one VM\n' "$(uname -r)"
printf '  %s\n' "${DEMO_RESULTS[@]}"
printf '  %d of %d steps passed\n' $(( ${#DEMO_RESULTS[@]} - DEMO_FAILED )) ${#DEMO_RESULTS[@]}
[ "$DEMO_FAILED" = 0 ]
