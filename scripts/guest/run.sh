#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of scripts/vm.sh: run one or more scripts in this boot, one
# after the other, each from the same starting point. The job file vm.sh
# writes calls it:
#   run.sh TIMEOUT SCRIPT [TIMEOUT SCRIPT...] [-- ARGS...]
# (ARGS go to every script; vm.sh passes them only with a single script).
#
# For each script, on stdout (the job's port, ttyS1) and on the console:
#   KIW-TEST-BEGIN <name> uptime=<seconds since boot>
#   ...the script's own output (stdout only)...
#   KIW-TEST-END <name> exit=<n> seconds=<s> cleanup=ok|failed user=<s> sys=<s>
# where exit is 124 when the script outlived TIMEOUT (the console then also
# has "KIW-TEST-TIMEOUT <name>" and a sysrq-w dump of the blocked tasks).
# The uptime lets the host tell which script allocated an object kmemleak
# reports at the end of the boot (from the jiffies of its allocation).
# user= and sys= are the guest CPU seconds (both CPUs) the script and its
# cleanup used in user space and in the kernel (where, on the debug kernel,
# KASAN and lockdep do most of their work); what is left of twice its
# seconds= the CPUs were idle: waiting for sleeps, timeouts, the network.
#
# Between two scripts (and after the last), the guest is put back where it
# started: the script's leftover processes are killed, every named netns is
# deleted, /tmp, /run and /dev/shm are fresh tmpfs again, fault injection
# (failslab, fail_page_alloc) is off, and the RDMA providers (kiw,
# kiw_kunit, siw, rdma_rxe) are unloaded. A provider that
# cannot be unloaded (a leaked reference) is a failed cleanup, which fails
# the script and ends the boot's run: the scripts after it are not run
# (the host reports them so). Files a script changes elsewhere (/etc, /var: the overlay over
# the host's root) stay for the scripts after it: restore them.
#
# Exit status: the script's when there is one; otherwise 0 when every script
# exited 0 and cleaned up, 1 when not.
set -u

scripts=() timeouts=()
while [ $# -gt 0 ]; do
	[ "$1" != -- ] || { shift; break; }
	timeouts+=("$1")
	scripts+=("${2:?run.sh: TIMEOUT without a SCRIPT}")
	shift 2
done
args=("$@")

# Markers on the console (with the kernel's timestamp) and on stdout.
mark() {
	echo "$*" > /dev/kmsg
	echo "$*"
}

uptime() {
	local up _
	read -r up _ < /proc/uptime
	echo "$up"
}

# cpu_ticks: "user system" ticks (USER_HZ, 100 a second) of all CPUs so far
# (/proc/stat: user nice system idle iowait irq softirq).
cpu_ticks() {
	local _ u n s i w q sq
	read -r _ u n s i w q sq _ < /proc/stat
	echo "$((u + n)) $((s + q + sq))"
}

# cpu_used BEFORE AFTER: "user=S sys=S" between two cpu_ticks.
cpu_used() {
	local u0 s0 u1 s1
	read -r u0 s0 <<<"$1"
	read -r u1 s1 <<<"$2"
	u1=$((u1 - u0)) s1=$((s1 - s0))
	echo "user=$((u1 / 100)).$((u1 % 100 / 10)) sys=$((s1 / 100)).$((s1 % 100 / 10))"
}

# Under TCG every program started costs a good fraction of a second: what
# runs between two scripts uses bash's builtins, and starts a program only
# when there is something to undo.

# Processes that were there before the script: init, its watchdog, this
# runner. Everything else that is still alive after the script is a
# leftover.
declare -A keep=() seen=()
snapshot() {
	local d
	keep=() seen=()
	for d in /proc/[0-9]*; do keep[${d#/proc/}]=1; done
}

# leftovers: the user-space processes that were not in the snapshot.
leftovers() {
	local d pid stat rest
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ -z "${keep[$pid]:-}" ] || continue
		[ "$pid" != "$BASHPID" ] || continue
		read -r stat 2>/dev/null < "$d/stat" || continue
		rest=${stat##*) }
		# after the name: the state (Z: a zombie, gone but for its
		# parent's wait), ..., the 7th, flags (PF_KTHREAD 0x00200000)
		set -- $rest
		[ "$1" != Z ] || continue
		(( (${7:-0} & 0x00200000) == 0 )) || continue
		echo "$pid"
	done
}

# sweep: kill the leftovers (and what they start meanwhile) until none is
# left; a process that does not die within 5 s is blocked in the kernel.
sweep() {
	local pids i comm comms= tries
	for ((tries = 0; tries < 50; tries++)); do
		pids=$(leftovers)
		[ -n "$pids" ] || break
		for i in $pids; do
			[ -z "${seen[$i]:-}" ] || continue
			seen[$i]=1
			read -r comm 2>/dev/null < "/proc/$i/comm" && comms+=" ${comm}[$i]"
		done
		kill -9 $pids 2>/dev/null
		sleep 0.1
	done
	[ -z "$comms" ] || echo "# cleanup: killed leftover processes:$comms"
	[ -n "$pids" ] || return 0
	echo "# cleanup: processes that do not die (blocked in the kernel?): $pids"
	return 1
}

# fresh_tmpfs MOUNTPOINT MODE [ENTRY...]: an empty tmpfs again, unless it
# holds nothing but ENTRY... and nothing is mounted below it.
fresh_tmpfs() {
	local dir=$1 mode=$2 f dev mnt _
	shift 2
	local -A expected=()
	for f in "$@"; do expected[$dir/$f]=1; done
	while read -r dev mnt _; do
		[[ $mnt != "$dir"/* ]] || { _remount "$dir" "$mode"; return; }
	done < /proc/self/mounts
	for f in "$dir"/* "$dir"/.[!.]*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		[ -n "${expected[$f]:-}" ] || { _remount "$dir" "$mode"; return; }
	done
}

_remount() {
	local n d
	umount -l "$1" 2>/dev/null
	mount -t tmpfs -o "mode=$2" tmpfs "$1"
	# The host's directories guest/init showed there (a repository under
	# /tmp) come back.
	[ -f /.kiw-expose/list ] || return 0
	while read -r n d; do
		[[ $d != "$1"/* ]] || { mkdir -p "$d" && mount --bind "/.kiw-expose/$n" "$d"; }
	done < /.kiw-expose/list
	# run.sh's own directory may have been one: enter it anew.
	cd "$PWD" 2>/dev/null || true
}

PROVIDERS="kiw_kunit kiw siw rdma_rxe"

# unload_providers: rmmod every loaded RDMA provider; netns teardown frees
# devices asynchronously, so a busy module gets a few seconds.
unload_providers() {
	local m left tries
	for ((tries = 0; tries < 100; tries++)); do
		left=
		for m in $PROVIDERS; do
			[ -d "/sys/module/$m" ] || continue
			rmmod "$m" 2>/dev/null || left+=" $m"
		done
		[ -n "$left" ] || return 0
		sleep 0.2
	done
	echo "# cleanup: cannot unload:$left: $(rmmod $left 2>&1)"
	return 1
}

# fault_injection_off: a script that turned on failslab or fail_page_alloc
# (debugfs) and did not turn it off would fail the scripts after it at
# random: turn it off, and say so.
fault_injection_off() {
	local f v
	for f in /sys/kernel/debug/fail*/probability; do
		[ -w "$f" ] || continue
		read -r v < "$f" || continue
		[ "$v" = 0 ] && continue
		echo 0 > "$f"
		f=${f%/probability}
		echo "# cleanup: fault injection was left on: ${f##*/} (turned off)"
	done
}

# veths_off: the guest starts without a veth in the initial netns. A
# script that made a pair there (storage_lib.sh's layouts) and left it
# made the next script's kiw_hosts_up fail ("RTNETLINK answers: File
# exists"), and with it everything that script checks: delete them (one
# end takes its peer along), and say so.
veths_off() {
	local _ name
	ip -o link show type veth | while read -r _ name _; do
		name=${name%:}
		name=${name%%@*}
		ip link del "$name" 2>/dev/null &&
			echo "# cleanup: a veth was left in the initial netns: $name (deleted)"
	done
}

cleanup() {
	local ok=0 ns
	sweep || ok=1
	fault_injection_off
	veths_off
	for ns in /run/netns/*; do
		[ -e "$ns" ] || continue
		ip netns delete "${ns##*/}" ||
			{ echo "# cleanup: ip netns delete ${ns##*/} failed"; ok=1; }
	done
	fresh_tmpfs /tmp 1777
	fresh_tmpfs /dev/shm 1777
	fresh_tmpfs /run 755 lock netns
	[ -d /run/netns ] || mkdir -p /run/lock /run/netns
	unload_providers || ok=1
	return $ok
}

# run_one TIMEOUT SCRIPT: run it with a watchdog; its status in $rc.
run_one() {
	local timeout=$1 script=$2 name pid wd
	name=$(basename "$script" .sh)
	bash "$script" "${args[@]}" < /dev/null 2>&1 &
	pid=$!
	(
		# Killed when the script ends in time: take the sleep along.
		trap 'kill $s 2>/dev/null; wait $s; exit 0' TERM
		sleep "$timeout" &
		s=$!
		wait $s
		mark "KIW-TEST-TIMEOUT $name"
		echo w > /proc/sysrq-trigger
		kill -9 "$pid" 2>/dev/null
	) &
	wd=$!
	rc=0
	wait "$pid" || rc=$?
	# 137 (killed by SIGKILL) after the watchdog fired is a timeout.
	if kill "$wd" 2>/dev/null; then
		wait "$wd" 2>/dev/null
	else
		wait "$wd" 2>/dev/null
		rc=124
	fi
}

failed=0 rc=0
for i in "${!scripts[@]}"; do
	script=${scripts[$i]}
	name=$(basename "$script" .sh)
	snapshot
	mark "KIW-TEST-BEGIN $name uptime=$(uptime)"
	start=${EPOCHREALTIME/./}
	ticks=$(cpu_ticks)
	run_one "${timeouts[$i]}" "$script"
	clean=ok
	cleanup || clean=failed
	ms=$(( (${EPOCHREALTIME/./} - start) / 1000 ))
	secs=$((ms / 1000)).$((ms % 1000 / 100))
	mark "KIW-TEST-END $name exit=$rc seconds=$secs cleanup=$clean $(cpu_used "$ticks" "$(cpu_ticks)")"
	[ "$rc" = 0 ] && [ "$clean" = ok ] || failed=1
	# A guest that could not be put back (a process blocked in the
	# kernel, a module that will not unload) is no starting point: the
	# scripts after this one would fail for its sake. They are not run.
	if [ "$clean" = failed ] && [ "$i" -lt $((${#scripts[@]} - 1)) ]; then
		mark "# the guest is not clean after $name: the scripts after it are not run in this boot"
		break
	fi
done

if [ "${#scripts[@]}" = 1 ]; then
	[ "$rc" != 0 ] || [ "$failed" = 0 ] || rc=1
	exit "$rc"
fi
exit "$failed"
