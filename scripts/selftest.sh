#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Self-test of the VM harness: a check that cannot fail is no check. Boots
# Debian's stock kernel (fast) with small guest scripts that pass, fail, warn,
# panic, hang, or die half-way, and checks that scripts/vm.sh and the guest
# TAP library report each one correctly. Output: TAP. About two minutes.
# With --debug, also the debug kernel: a module with deliberate bugs
# (scripts/selftest/kiw_harness_bugs.c) must get a leak reported by kmemleak
# and a lock inversion by lockdep (three more minutes).
# Usage: scripts/selftest.sh [--debug]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$KIW_TOP/build/selftest
rm -rf "$dir"
mkdir -p "$dir"
n=0 failed=0

# expect NAME STATUS [GREP] <<< SCRIPT: vm.sh must exit with STATUS, and its
# output must contain GREP.
expect() {
	local name=$1 want=$2 re=${3:-} rc=0
	cat > "$dir/$name.sh"
	KIW_VM_BOOT_ALLOW=${BOOT_ALLOW:-} "$KIW_TOP/scripts/vm.sh" --kernel "${KERNEL:-stock}" --no-kiw \
		--timeout "${TIMEOUT:-60}" --script "$dir/$name.sh" > "$dir/$name.out" 2>&1 || rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want" ] && { [ -z "$re" ] || grep -qE -- "$re" "$dir/$name.out"; }; then
		echo "ok $n - $name: status $rc${re:+, output has \"$re\"}"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name: status $rc, expected $want${re:+ and \"$re\"}"
		sed 's/^/# /' "$dir/$name.out" | tail -n 30
	fi
}

# expect_kunit NAME STATUS GREP <<< CONSOLE_LOG: scripts/kunit.sh --parse.
expect_kunit() {
	local name=$1 want=$2 re=$3 rc=0
	cat > "$dir/$name.log"
	"$KIW_TOP/scripts/kunit.sh" --parse "$dir/$name.log" > "$dir/$name.out" 2>&1 || rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want" ] && grep -qE -- "$re" "$dir/$name.out"; then
		echo "ok $n - $name: status $rc, output has \"$re\""
	else
		failed=$((failed + 1))
		echo "not ok $n - $name: status $rc, expected $want and \"$re\""
		sed 's/^/# /' "$dir/$name.out" | tail -n 30
	fi
}

ktap_head='[   20.1] KIW-KUNIT-BEGIN
[   20.2] KTAP version 1
[   20.2] 1..1
[   20.2]     KTAP version 1
[   20.2]     # Subtest: fake
[   20.2]     1..2
[   20.2]     ok 1 fake_pass_test'
expect_kunit kunit_pass 0 '^ok 2 - kunit: fake.fake_other_test' <<EOF2
$ktap_head
[   20.2]     ok 2 fake_other_test
[   20.2] ok 1 fake
[   20.3] KIW-KUNIT-END
EOF2
expect_kunit kunit_case_fails 1 '^not ok 2 - kunit: fake.fake_fail_test' <<EOF2
$ktap_head
[   20.2]     not ok 2 fake_fail_test
[   20.2] not ok 1 fake
[   20.3] KIW-KUNIT-END
EOF2
expect_kunit kunit_crash 1 '^not ok 2 - kunit: fake.*crashed' <<EOF2
$ktap_head
[   20.3] BUG: kernel NULL pointer dereference, address: 0000000000000000
[   20.3] Kernel panic - not syncing: Fatal exception
EOF2
expect_kunit kunit_nothing 1 'no KUnit output' <<<'[   20.1] KIW-KUNIT-BEGIN'

expect pass 0 'hello' <<<'echo hello'
expect script_fails 3 'failed with status 3' <<<'exit 3'
expect kernel_warning 125 'WARNING: CPU: 0 PID: 1 at fake' \
	<<<'echo "WARNING: CPU: 0 PID: 1 at fake" > /dev/kmsg'
expect kmemleak_report 125 'unreferenced object' \
	<<<'echo "unreferenced object 0xffff888000000000 (size 64):" > /dev/kmsg'
expect panic 125 'Kernel panic' <<<'echo c > /proc/sysrq-trigger'
TIMEOUT=10 expect guest_timeout 124 'timed out' <<<'sleep 1000'
BOOT_ALLOW=0 TIMEOUT=15 expect vm_hang 124 'the VM hung' <<<'sleep 1000'
expect tap_all_ok 0 '^ok 2 - two' <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
check "one" true
check "two" true
tap_done
EOF2
expect tap_not_ok 1 '^not ok 2 - two' <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
check "one" true
check "two" false
tap_done
EOF2
expect tap_ended_early 1 'ended early' <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
check "one" true
exit 0
EOF2
expect tap_short_of_plan 1 'planned 3 checks, ran 1' <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
tap_plan 3
check "one" true
tap_done
EOF2
expect tap_no_checks 1 'ran no checks' <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
tap_done
EOF2
expect tap_error_message 1 'expected a failure saying' <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
check_fails_with "wrong errno" 'File exists' sh -c 'echo "error: Too many open files" >&2; exit 1'
tap_done
EOF2

if [ "${1:-}" = --debug ]; then
	# Built against the debug kernel, loaded from its host path in the guest.
	ddir=$("$KIW_TOP/scripts/debug-kernel.sh" | tail -n 1)
	mkdir -p "$dir/bugs"
	cp "$KIW_TOP/scripts/selftest/kiw_harness_bugs.c" "$KIW_TOP/scripts/selftest/Kbuild" "$dir/bugs/"
	make -s -C "$ddir/build" M="$dir/bugs" modules >/dev/null
	ko=$dir/bugs/kiw_harness_bugs.ko
	KERNEL=debug expect debug_clean 0 <<<"insmod $ko && rmmod kiw_harness_bugs"
	KERNEL=debug expect debug_kmemleak 125 'unreferenced object' \
		<<<"insmod $ko bug=leak && rmmod kiw_harness_bugs"
	KERNEL=debug expect debug_lockdep 125 'possible circular locking dependency' \
		<<<"insmod $ko bug=lockdep && rmmod kiw_harness_bugs"
fi

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
