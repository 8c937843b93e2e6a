#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Self-test of the VM harness: a check that cannot fail is no check. Boots
# Debian's stock kernel (fast) with small guest scripts that pass, fail, warn,
# panic, hang, or die half-way, alone and in batches (several scripts in one
# boot: each must start from a clean guest, a hang must not stop the next
# one, a report must name the script that caused it), and checks that
# scripts/vm.sh and the guest TAP library report each one correctly.
# Output: TAP. About three minutes.
# With --debug, also the debug kernel: a module with deliberate bugs
# (scripts/selftest/kiw_harness_bugs.c) must get a leak reported by kmemleak
# (in a batch: naming the script that leaked) and a lock inversion by
# lockdep (three more minutes).
# With --kernels, also boots Debian's other kernels (scripts/kernel.sh: 6.1,
# 7.2) and loads rdma_rxe there (fetching them, the first time).
# Usage: scripts/selftest.sh [--debug] [--kernels]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tap.sh"

debug=0 kernels=0
for a in "$@"; do
	case "$a" in
	--debug) debug=1 ;;
	--kernels) kernels=1 ;;
	*) echo "usage: $0 [--debug] [--kernels]" >&2; exit 2 ;;
	esac
done

dir=$KIW_TOP/build/selftest
rm -rf "$dir"
mkdir -p "$dir"

# expect NAME STATUS [GREP] <<< SCRIPT: vm.sh must exit with STATUS, and its
# output must contain GREP.
expect() {
	local name=$1 want=$2 re=${3:-} rc=0
	cat > "$dir/$name.sh"
	KIW_VM_HOST_TIMEOUT=${HOST_TIMEOUT:-} KIW_VM_INIT_WAIT=${INIT_WAIT:-} \
		"$KIW_TOP/scripts/vm.sh" --kernel "${KERNEL:-stock}" --no-kiw \
		--timeout "${TIMEOUT:-60}" --script "$dir/$name.sh" > "$dir/$name.out" 2>&1 || rc=$?
	if [ "$rc" = "$want" ] && { [ -z "$re" ] || grep -qE -- "$re" "$dir/$name.out"; }; then
		tap_ok "$name: status $rc${re:+, output has \"$re\"}"
	else
		tap_not_ok "$name: status $rc, expected $want${re:+ and \"$re\"}"
		sed 's/^/# /' "$dir/$name.out" | tail -n 30
	fi
}

# expect_batch NAME STATUS GREPS SCRIPT[:TIMEOUT]...: the scripts (made by
# "script NAME <<< TEXT", or given by absolute path) in one boot, each with
# its own timeout (default TIMEOUT, 60 s); vm.sh must exit with STATUS, and
# its output must match each line of GREPS.
script() { cat > "$dir/$1.sh"; }
all_match() {
	local re
	while IFS= read -r re; do grep -qE -- "$re" "$2" || return 1; done <<<"$1"
}
expect_batch() {
	local name=$1 want=$2 re=$3 rc=0 s t args=()
	shift 3
	for s in "$@"; do
		t=${TIMEOUT:-60}
		[ "$s" = "${s#*:}" ] || t=${s#*:}
		s=${s%%:*}
		[[ $s == /* ]] || s=$dir/$s.sh
		args+=(--timeout "$t" --script "$s")
	done
	"${VM:-$KIW_TOP/scripts/vm.sh}" --kernel "${KERNEL:-stock}" --no-kiw \
		--log "$KIW_TOP/build/logs/selftest-$name.log" "${args[@]}" > "$dir/$name.out" 2>&1 || rc=$?
	if [ "$rc" = "$want" ] && all_match "$re" "$dir/$name.out"; then
		tap_ok "$name: status $rc, output has \"${re//$'\n'/\" and \"}\""
	else
		tap_not_ok "$name: status $rc, expected $want and \"$re\""
		sed 's/^/# /' "$dir/$name.out" | tail -n 40
	fi
}

# expect_kunit NAME STATUS GREP <<< CONSOLE_LOG: scripts/kunit.sh --parse.
expect_kunit() {
	local name=$1 want=$2 re=$3 rc=0
	cat > "$dir/$name.log"
	"$KIW_TOP/scripts/kunit.sh" --parse "$dir/$name.log" > "$dir/$name.out" 2>&1 || rc=$?
	if [ "$rc" = "$want" ] && all_match "$re" "$dir/$name.out"; then
		tap_ok "$name: status $rc, output has \"${re//$'\n'/\" and \"}\""
	else
		tap_not_ok "$name: status $rc, expected $want and \"$re\""
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
HOST_TIMEOUT=15 TIMEOUT=100 expect vm_hang 124 'the VM hung' <<<'sleep 1000'
# A boot that does not reach /init in time is booted once more: here the
# first attempt is given 1 s (a boot takes more), the second the usual
# allowance; then both 1 s.
INIT_WAIT=1,120 expect boot_hang_once 0 'booting the stock kernel again' <<<'echo hello'
INIT_WAIT=1 expect boot_hang_twice 124 'hung at boot twice, before /init' <<<'echo hello'
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

# Batches. The first script leaves a mess: a netns, a process, files in
# /tmp and /run, a loaded RDMA provider. The second must not see any of it.
script mess <<'EOF2'
ip netns add leftover && touch /tmp/leftover /run/leftover && modprobe rdma_rxe || exit 1
setsid sleep 4242 < /dev/null > /dev/null 2>&1 &
EOF2
script clean <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
check_no_output "no netns" . ip netns list
check "no leftover process" sh -c '! pgrep -f "slee[p] 4242"'
check "a fresh /tmp" sh -c '[ ! -e /tmp/leftover ]'
check "a fresh /run" sh -c '[ ! -e /run/leftover ] && [ -d /run/netns ] && [ -d /run/lock ]'
check "rdma_rxe unloaded" sh -c '[ ! -d /sys/module/rdma_rxe ]'
check "ip netns add works again" ip netns add leftover
tap_done
EOF2
expect_batch batch_clean 0 'killed leftover processes: ' mess clean
expect_batch batch_tap 0 'KIW-TEST-END clean exit=0 seconds=[0-9.]+ cleanup=ok' clean clean
script exit3 <<<'exit 3'
expect_batch batch_status 1 'KIW-TEST-END exit3 exit=3 ' exit3 clean
script hang <<<'sleep 1000'
# (A short timeout for the hang only: the script after it must get its own.)
expect_batch batch_timeout 124 $'KIW-TEST-END clean exit=0 \nhang timed out' hang:10 clean
script warn <<<'echo "WARNING: CPU: 0 PID: 1 at fake" > /dev/kmsg'
expect_batch batch_blame 125 'reported a problem while warn ran' clean warn clean

# A repository under /tmp (a clone there, issue 16): the guest has a /tmp of
# its own, so guest/init must show the tree at its path, and run.sh must
# show it again after giving /tmp a fresh tmpfs between two scripts. The
# harness's copy runs scripts of its own tree, cwd there.
tmptree=$(mktemp -d /tmp/kiw-selftest.XXXXXX)
trap 'rm -rf "$tmptree"' EXIT
cp -r "$KIW_TOP/scripts" "$tmptree/"
mkdir -p "$tmptree/t"
cat > "$tmptree/t/tmp_first.sh" <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
check "cwd is the tree under /tmp" [ "$PWD" = "$KIW_TOP" ]
check "the tree is the one under /tmp" sh -c '[ "${KIW_TOP#/tmp/kiw-selftest.}" != "$KIW_TOP" ]'
check "the tree is writable in the guest" sh -c 'echo x > "$KIW_TOP/t/guest-wrote"'
check "the guest's /tmp is its own" sh -c '! ls /tmp | grep -v "^${KIW_TOP#/tmp/}\$"'
touch /tmp/a-file-so-the-cleanup-remounts-tmp
tap_done
EOF2
cat > "$tmptree/t/tmp_second.sh" <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
check "after /tmp was remounted, cwd is the tree" [ -f scripts/guest/lib.sh ]
check "after /tmp was remounted, the tree is at its path" [ -f "$KIW_TOP/scripts/vm.sh" ]
check "/tmp was fresh again" [ ! -e /tmp/a-file-so-the-cleanup-remounts-tmp ]
tap_done
EOF2
VM=$tmptree/scripts/vm.sh expect_batch tmp_tree 0 \
	$'KIW-TEST-END tmp_second exit=0 \nok 3 - /tmp was fresh again' \
	"$tmptree/t/tmp_first.sh" "$tmptree/t/tmp_second.sh"
if [ -e "$tmptree/t/guest-wrote" ]; then
	tap_not_ok "tmp_tree: the guest wrote into the host's tree"
fi

# check.sh itself, on a directory of two stock-kernel tests in one boot: a
# skipped check is counted apart, never as passed; a failed check and the
# script's status fail; KIW_LONG reaches the guest; the last line is
# exactly "N passed, N failed" (deps, the stock kernel, t_long's check, its
# script and the boot pass; t_mixed's failed check and its script fail).
mkdir -p "$dir/checktests"
cat > "$dir/checktests/t_mixed.sh" <<'EOF2'
#!/bin/bash
# kiw-vm: kernel=stock timeout=60
. "$KIW_TOP/scripts/guest/lib.sh"
skip "a check that cannot run here" "no such hardware"
check "a check that fails" false
tap_done
EOF2
cat > "$dir/checktests/t_long.sh" <<'EOF2'
#!/bin/bash
# kiw-vm: kernel=stock timeout=60
. "$KIW_TOP/scripts/guest/lib.sh"
check "KIW_LONG=1 reached the guest" [ "$KIW_LONG" = 1 ]
tap_done
EOF2
rc=0
KIW_VM_PARALLEL=1 KIW_LONG=1 KIW_TESTS=$dir/checktests "$KIW_TOP/scripts/check.sh" --only vm \
	> "$dir/check.out" 2>&1 || rc=$?
want_lines=$'^ok [0-9]+ - t_mixed: a check that cannot run here # SKIP\n^not ok [0-9]+ - t_mixed: a check that fails\n^not ok [0-9]+ - t_mixed: script exited 1\n^ok [0-9]+ - t_long: KIW_LONG=1 reached the guest\n^ok [0-9]+ - boot 1 \\(stock kernel: t_long, t_mixed\\): the kernel stayed clean\n^# 1 skipped \\(not counted as passed\\)\n^# VM tests, slowest first'
if [ "$rc" = 1 ] && all_match "$want_lines" "$dir/check.out" &&
   [ "$(tail -n 1 "$dir/check.out")" = "5 passed, 2 failed" ]; then
	tap_ok "check_sh: skips apart, failures counted, KIW_LONG passed on, last line \"5 passed, 2 failed\""
else
	tap_not_ok "check_sh: status $rc (expected 1), last line \"$(tail -n 1 "$dir/check.out")\" (expected \"5 passed, 2 failed\")"
	sed 's/^/# /' "$dir/check.out" | tail -n 60
fi

if [ "$kernels" = 1 ]; then
	# Boot with the host's user space over 9p, the RDMA core and rxe load.
	for k in 6.1 7.2; do
		KERNEL=$k TIMEOUT=120 expect "kernel_$k" 0 "ok 3 - rxe0 on a veth" <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
check "the kernel is $KIW_KERNEL's" sh -c 'uname -r | grep -q "^$KIW_KERNEL\."'
check "modprobe rdma_rxe (and ib_core)" sh -c 'modprobe rdma_rxe && [ -d /sys/module/ib_core ]'
check "rxe0 on a veth" sh -c 'ip link add kv0 type veth peer name kv1 && ip link set kv0 up &&
	ip link set kv1 up && rdma link add rxe0 type rxe netdev kv0 &&
	rdma link show rxe0/1 | grep -q "state ACTIVE"'
check "rdma_rxe unloads" sh -c 'rdma link delete rxe0 && ip link delete kv0 && rmmod rdma_rxe'
tap_done
EOF2
	done
fi

if [ "$debug" = 1 ]; then
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
	KERNEL=debug expect debug_kmemleak_check 125 '^ok 2 - kmemleak_check reported the leak' <<EOF2
. "\$KIW_TOP/scripts/guest/lib.sh"
check "insmod and rmmod a module that leaks" sh -c "insmod $ko bug=leak && rmmod kiw_harness_bugs"
if kmemleak_check; then not_ok "kmemleak_check reported the leak"; else ok "kmemleak_check reported the leak"; fi
tap_done
EOF2
	# Fault injection left on is turned off for the next script.
	script fi_on <<<'echo 0 > /sys/kernel/debug/failslab/times && echo 100 > /sys/kernel/debug/failslab/probability'
	script fi_check <<'EOF2'
. "$KIW_TOP/scripts/guest/lib.sh"
check_output "failslab is off again" '^0$' cat /sys/kernel/debug/failslab/probability
tap_done
EOF2
	KERNEL=debug expect_batch debug_fault_injection 0 \
		$'fault injection was left on: failslab\nok 1 - failslab is off again' fi_on fi_check
	script leaker <<<"insmod $ko bug=leak && rmmod kiw_harness_bugs"
	script loader <<<"insmod $ko && rmmod kiw_harness_bugs"
	KERNEL=debug expect_batch debug_batch_leak 125 'allocated while leaker ran' \
		loader leaker loader
fi

tap_end
tap_tally
[ "$KIW_TAP_FAILED" = 0 ]
