# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Helpers for the guest side of kiw's VM tests (scripts/tests/*.sh) and of
# the demo. Source it from a script run by scripts/vm.sh:
#   . "$KIW_TOP/scripts/guest/lib.sh"
#
# TAP: tap_plan N; check "desc" cmd...; check_fails "desc" cmd...;
#      check_fails_with "desc" REGEX cmd...; check_output "desc" REGEX cmd...;
#      check_no_output "desc" REGEX cmd...; ok/not_ok "desc"; skip "desc" why;
#      diag msg; tap_done (also run automatically when the script exits).
# A script that ends before tap_done, plans more checks than it ran, or runs
# none at all fails.
# Time: a check that takes 5 s or more is followed by "# slow check: N s";
# KIW_TAP_TIMES=1 (passed on from the host by scripts/vm.sh) times every
# check, to see where a test spends its time. Under TCG every program
# started costs a good fraction of a second on the debug kernel: prefer
# bash builtins to small programs in loops.
#
# Two hosts in one guest: network namespaces "a" and "b" joined by a veth
# pair (veth-a in a, veth-b in b; 10.77.0.1/24 + fd77::1/64 and
# 10.77.0.2/24 + fd77::2/64), one kiw device each (kiw_a, kiw_b).

# The TAP lines and their counts (KIW_TAP_N...): scripts/tap.sh, the host's.
. "$KIW_TOP/scripts/tap.sh"
KIW_TAP_DONE=0

diag() {
	local line
	printf '%s\n' "$@" | while IFS= read -r line; do printf '# %s\n' "$line"; done
}

ok() { tap_ok "$@"; }
not_ok() { tap_not_ok "$@"; }

# tap_py SCRIPT ARGS...: run a Python check script of scripts/tests/ and
# relay what it reports, one TAP line per "PASS desc" or "FAIL desc" line;
# other lines become diagnostics. The script ends with "DONE": one that
# died before it is a failure of its own.
tap_py() {
	local line done=0 rc=0 out name
	name=$(basename "$1")
	out=$(/usr/bin/python3 "$@" 2>&1) || rc=$?
	while IFS= read -r line; do
		case "$line" in
		"PASS "*) ok "${line#PASS }" ;;
		"FAIL "*) not_ok "${line#FAIL }" ;;
		DONE) done=1 ;;
		*) diag "$line" ;;
		esac
	done <<<"$out"
	[ "$done" = 1 ] || not_ok "$name ran to the end (status $rc)"
}

# skip "desc" "reason": reported as skipped, never as passed.
skip() { tap_skip "$1" "${2:-}"; }

# _kiw_timed FUNCTION "desc" ARGS...: run a check, say how long it took when
# that was long (or always, with KIW_TAP_TIMES=1).
_kiw_timed() {
	local t0=${EPOCHREALTIME/./} rc=0 ms what=time
	"$@" || rc=$?
	ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
	[ "$ms" -lt 5000 ] || what=slow
	if [ "$what" = slow ] || [ "${KIW_TAP_TIMES:-0}" = 1 ]; then
		printf '# %s check: %d.%d s\n' "$what" $((ms / 1000)) $((ms % 1000 / 100))
	fi
	return "$rc"
}

# check "desc" cmd...: passes when cmd succeeds; shows its output otherwise.
check() { _kiw_timed _kiw_check "$@"; }
_kiw_check() {
	local desc=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" = 0 ]; then
		ok "$desc"
		return 0
	fi
	not_ok "$desc"
	diag "command: $*" "exit status: $rc"
	[ -z "$out" ] || diag "$out"
	return 1
}

# check_fails "desc" cmd...: passes when cmd fails with a message (an error
# without a word of explanation is no error report); shows the message.
check_fails() { _kiw_timed _kiw_check_fails "$@"; }
_kiw_check_fails() {
	local desc=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" != 0 ] && [ -n "$out" ]; then
		ok "$desc"
		diag "exit status $rc: $out"
		return 0
	fi
	not_ok "$desc"
	diag "command: $*" "exit status: $rc (expected a failure with a message)"
	[ -z "$out" ] || diag "$out"
	return 1
}

# check_fails_with "desc" REGEX cmd...: cmd fails and its message matches
# REGEX (e.g. the strerror text of the errno the kernel must return).
check_fails_with() { _kiw_timed _kiw_check_fails_with "$@"; }
_kiw_check_fails_with() {
	local desc=$1 re=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" != 0 ] && grep -qE -- "$re" <<<"$out"; then
		ok "$desc"
		diag "exit status $rc: $out"
		return 0
	fi
	not_ok "$desc"
	diag "command: $*" "exit status: $rc (expected a failure saying: $re)"
	[ -z "$out" ] || diag "$out"
	return 1
}

# check_output "desc" REGEX cmd...: cmd succeeds and its output matches the
# extended regular expression (grep -E, per line).
check_output() { _kiw_timed _kiw_check_output "$@"; }
_kiw_check_output() {
	local desc=$1 re=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" = 0 ] && grep -qE -- "$re" <<<"$out"; then
		ok "$desc"
		return 0
	fi
	not_ok "$desc"
	diag "command: $*" "exit status: $rc, expected output matching: $re"
	[ -z "$out" ] || diag "$out"
	return 1
}

# check_no_output "desc" REGEX cmd...: cmd succeeds and no line matches.
check_no_output() { _kiw_timed _kiw_check_no_output "$@"; }
_kiw_check_no_output() {
	local desc=$1 re=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" = 0 ] && ! grep -qE -- "$re" <<<"$out"; then
		ok "$desc"
		return 0
	fi
	not_ok "$desc"
	diag "command: $*" "exit status: $rc, expected no output matching: $re"
	[ -z "$out" ] || diag "$out"
	return 1
}

# wait_for SECONDS cmd...: poll cmd (quietly) every 0.2 s until it succeeds.
# stats_are DEV NAME=VALUE...: each counter of "rdma statistic show link
# DEV/1" has exactly that value (a value ">N": more than N); shows them all
# otherwise. One rdma call, parsed by bash: programs are slow under TCG.
stats_are() {
	local dev=$1 line kv name want got bad=0 i w
	local -A v=()
	shift
	line=$(rdma statistic show link "$dev/1") || return 1
	read -ra w <<<"$line"
	for ((i = 2; i + 1 < ${#w[@]}; i += 2)); do
		v[${w[i]}]=${w[i + 1]}
	done
	for kv in "$@"; do
		name=${kv%%=*} want=${kv#*=}
		got=${v[$name]:-}
		if [ "${want#>}" != "$want" ]; then
			[ -n "$got" ] && [ "$got" -gt "${want#>}" ] && continue
		else
			[ "$got" = "$want" ] && continue
		fi
		echo "$dev $name=$got, expected $want"
		bad=1
	done
	[ "$bad" = 0 ] || echo "$line"
	[ "$bad" = 0 ]
}

# stats_clean DEV [NAME=VALUE...]: stats_are with no CRC or marker error
# and no Terminate sent or received at any layer, and the counters given.
stats_clean() {
	local dev=$1
	shift
	stats_are "$dev" rx_crc_errors=0 rx_marker_errors=0 \
		tx_terminate_rdmap=0 tx_terminate_ddp=0 tx_terminate_mpa=0 \
		rx_terminate_rdmap=0 rx_terminate_ddp=0 rx_terminate_mpa=0 "$@"
}

wait_for() {
	local limit=$1 end
	shift
	end=$(( ${EPOCHREALTIME/./} + limit * 1000000 ))
	until "$@" >/dev/null 2>&1; do
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		sleep 0.2
	done
}

tap_done() {
	local ran=$KIW_TAP_N
	[ "$KIW_TAP_DONE" = 0 ] || return 0
	KIW_TAP_DONE=1
	[ "$ran" != 0 ] || not_ok "the script ran no checks"
	if [ -n "$KIW_TAP_PLAN" ] && [ "$ran" != "$KIW_TAP_PLAN" ]; then
		not_ok "planned $KIW_TAP_PLAN checks, ran $ran"
	fi
	tap_end
	tap_tally "# " ", $KIW_TAP_SKIPPED skipped"
	[ "$KIW_TAP_FAILED" = 0 ]
}

# A script that dies (set -e, a typo, a signal) must not look like a pass.
_kiw_tap_exit() {
	local rc=$?
	if [ "$KIW_TAP_DONE" = 0 ]; then
		not_ok "the script ended early (status $rc) before tap_done"
		tap_done
		exit 1
	fi
	[ "$KIW_TAP_FAILED" = 0 ] || exit 1
	exit "$rc"
}
trap _kiw_tap_exit EXIT

# ---------------------------------------------------------------------------
# Two hosts.

in_a() { ip netns exec a "$@"; }
in_b() { ip netns exec b "$@"; }

# kiw_hosts_up: netns a and b, joined by veth-a <-> veth-b, addressed, up.
# (Batches of ip commands: each ip started costs most of a second on the
# debug kernel under TCG.)
kiw_hosts_up() {
	ip -batch - <<-EOF &&
		netns add a
		netns add b
		link add veth-a netns a type veth peer name veth-b netns b
	EOF
	_kiw_host_up a veth-a 10.77.0.1 fd77::1 &&
	_kiw_host_up b veth-b 10.77.0.2 fd77::2
}

_kiw_host_up() {
	local ns=$1 dev=$2 ip4=$3 ip6=$4
	ip -n "$ns" -batch - <<-EOF
		link set lo up
		addr add $ip4/24 dev $dev
		addr add $ip6/64 dev $dev nodad
		link set $dev up
	EOF
}

kiw_hosts_down() {
	ip netns del a 2>/dev/null
	ip netns del b 2>/dev/null
	return 0
}

# kiw_load: the module, plus what user space needs (udev would load these on
# a real system): ib_uverbs for libibverbs, rdma_ucm for librdmacm.
kiw_load() {
	modprobe -a ib_uverbs rdma_ucm kiw
}

kiw_unload() { rmmod kiw; }

# kiw_dev_add NS NAME NETDEV: "rdma link add" finds the netdev by name in the
# namespace of the caller, so run it inside the host's namespace.
kiw_dev_add() {
	ip netns exec "$1" rdma link add "$2" type kiw netdev "$3"
}

kiw_devices_add() {
	kiw_dev_add a kiw_a veth-a && kiw_dev_add b kiw_b veth-b
}

# kiw_dev_exists NAME: the RDMA device is registered (sysfs).
kiw_dev_exists() { [ -e "/sys/class/infiniband/$1" ]; }
kiw_dev_gone() { ! kiw_dev_exists "$1"; }

# kiw_port_state DEV: the port state name from sysfs (ACTIVE, DOWN...).
kiw_port_state() {
	local s
	s=$(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null) || return 1
	echo "${s#*: }"
}

# kiw_port_is DEV STATE: for wait_for.
kiw_port_is() { [ "$(kiw_port_state "$1")" = "$2" ]; }

# kiw_devices: names of the registered RDMA devices with a kiw link type,
# one per line (rdma link lists every RDMA link; the test hosts only
# ever create kiw ones).
kiw_devices() { ls /sys/class/infiniband 2>/dev/null; }

# kiw_mac_to_gid MAC: the GID kiw derives from a MAC: the six octets of the
# MAC followed by ten zero octets, in the sysfs notation.
kiw_mac_to_gid() {
	local h
	h=$(tr -d ':' <<<"$1")
	printf '%s:%s:%s:0000:0000:0000:0000:0000\n' "${h:0:4}" "${h:4:4}" "${h:8:4}"
}

# ---------------------------------------------------------------------------
# Leaks.

# kmemleak_check: on the debug kernel, scan for leaks now (e.g. right after
# "rmmod kiw") and fail, with kmemleak's report, when it finds any; on a
# kernel without kmemleak, succeed. The harness scans once at the end of
# every boot anyway: call this only where a leak must be pinned to a step.
# It takes two scans, at least 6 s apart (kmemleak reports an object only
# when it is 5 s old and unchanged across two scans). The report also goes
# to the console, so that the boot fails too, and is then cleared, so that a
# later check reports only new leaks.
kmemleak_check() {
	local k=/sys/kernel/debug/kmemleak t0 left report
	[ -w "$k" ] || return 0
	t0=${EPOCHREALTIME%.*}
	echo scan > "$k"
	left=$((t0 + 6 - ${EPOCHREALTIME%.*}))
	[ "$left" -le 0 ] || sleep "$left"
	echo scan > "$k"
	report=$(< "$k")
	[ -n "$report" ] || return 0
	echo "$report"
	printf '%s\n' "$report" | while IFS= read -r line; do
		echo "kmemleak_check: $line" > /dev/kmsg
	done
	echo clear > "$k"
	return 1
}
