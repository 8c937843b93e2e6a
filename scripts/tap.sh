# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# TAP, printed and counted in one place for the whole harness: make
# check's stream (scripts/check.sh), every VM test in the guest
# (scripts/guest/lib.sh, which the guest finds at the host's path,
# $KIW_TOP/scripts/) and the harness's self-test (scripts/selftest.sh).
# Source it; it needs bash and no program (the guest runs it under TCG).
#
#   tap_ok DESC...          "ok N - DESC"
#   tap_not_ok DESC...      "not ok N - DESC", counted as failed
#   tap_skip DESC [WHY]     "ok N - DESC # SKIP[ WHY]", counted as skipped,
#                           never as passed
#   tap_plan N              the plan up front, "1..N"
#   tap_end                 the plan at the end, "1..N", unless given up front
#   tap_tally [PRE [POST]]  "PRE<passed> passed, <failed> failed POST"
#
# The counts: KIW_TAP_N checks so far, KIW_TAP_FAILED and KIW_TAP_SKIPPED
# of them; the rest passed. KIW_TAP_PLAN: the plan given up front.

KIW_TAP_N=0
KIW_TAP_FAILED=0
KIW_TAP_SKIPPED=0
KIW_TAP_PLAN=

tap_ok() {
	KIW_TAP_N=$((KIW_TAP_N + 1))
	echo "ok $KIW_TAP_N - $*"
}

tap_not_ok() {
	KIW_TAP_N=$((KIW_TAP_N + 1))
	KIW_TAP_FAILED=$((KIW_TAP_FAILED + 1))
	echo "not ok $KIW_TAP_N - $*"
}

tap_skip() {
	KIW_TAP_N=$((KIW_TAP_N + 1))
	KIW_TAP_SKIPPED=$((KIW_TAP_SKIPPED + 1))
	echo "ok $KIW_TAP_N - $1 # SKIP${2+ $2}"
}

tap_plan() {
	KIW_TAP_PLAN=$1
	echo "1..$1"
}

tap_end() {
	[ -n "$KIW_TAP_PLAN" ] || echo "1..$KIW_TAP_N"
}

tap_tally() {
	echo "${1:-}$((KIW_TAP_N - KIW_TAP_FAILED - KIW_TAP_SKIPPED)) passed, $KIW_TAP_FAILED failed${2:-}"
}
