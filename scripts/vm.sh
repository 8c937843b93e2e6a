#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Boot a kernel in QEMU (TCG), run one script inside it as root, report.
#
# Usage: scripts/vm.sh --kernel stock|debug --script FILE [options] [-- ARGS]
#   --kernel stock   Debian's linux-image (scripts/stock-kernel.sh)
#   --kernel debug   the debug kernel (scripts/debug-kernel.sh)
#   --script FILE    bash script run in the guest with ARGS; it sees the host's
#                    root read-only under a tmpfs overlay, cwd = the repository
#   --timeout SEC    limit for the script (default 300); the VM as a whole
#                    gets a boot allowance on top
#   --mem MB         guest memory (default 1024; kmemleak's scans at the end
#                    of a debug run take longer the more memory there is)
#   --smp N          guest CPUs (default 2)
#   --log FILE       console log (default build/logs/<script>-<kernel>.log);
#                    the script's own output is kept in FILE.out
#   --no-kiw         do not build kiw or install it in the guest
#   --ko FILE        also install module FILE in the guest's extra/ (repeatable)
#   --with-siw       make "modprobe siw" work: on the stock kernel, which lacks
#                    siw, build it (scripts/build-siw.sh); the debug kernel has it
#   --verbose        also stream the kernel console while running
#
# The script's output (stdout and stderr) is streamed on stdout. Exit status:
#   the script's, when the kernel stayed clean; otherwise
#   124 the script or the VM timed out (hang), 125 the console shows a kernel
#   report (KASAN, lockdep, kmemleak, WARNING, BUG, Oops, stall...), 126 the VM
#   died without a result (panic, harness error), 2 usage or build error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { sed -n '4,28s/^# \{0,1\}//p' "$0" >&2; exit 2; }

kernel= script= timeout=300 mem= smp=2 log= kiw=1 verbose=${KIW_VM_VERBOSE:-0} siw=0
extra_kos=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel)  kernel=${2:?}; shift 2 ;;
	--script)  script=${2:?}; shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--mem)     mem=${2:?}; shift 2 ;;
	--smp)     smp=${2:?}; shift 2 ;;
	--log)     log=${2:?}; shift 2 ;;
	--no-kiw)  kiw=0; shift ;;
	--ko)      extra_kos+=("$(realpath "${2:?}")"); shift 2 ;;
	--with-siw) siw=1; shift ;;
	--verbose) verbose=1; shift ;;
	--)        shift; break ;;
	*)         usage ;;
	esac
done
[ -n "$kernel" ] && [ -n "$script" ] || usage
[ -f "$script" ] || kiw_die "no such script: $script"
script=$(realpath "$script")
# The guest gets fresh /tmp, /run, /dev: files there are not shared.
case "$script" in
/tmp/*|/run/*|/dev/*|/proc/*|/sys/*)
	kiw_die "$script is not visible in the guest (it has its own /tmp, /run...)" ;;
esac
name=$(basename "$script" .sh)

# Kernel reports that fail a run even when the script passed (extended regex,
# matched against the console). "BUG:" covers KASAN, sleeping in atomic
# context, NULL dereferences, soft lockups and workqueue lockups; "WARNING:"
# covers WARN_ON and lockdep's circular, recursive and inconsistent locking.
PROBLEMS='BUG:|^BUG [^ ]+ \(|WARNING:|Oops|general protection fault|Kernel panic'
PROBLEMS+='|kernel BUG at|KASAN:|UBSAN:|possible circular locking'
PROBLEMS+='|inconsistent lock state|possible recursive locking'
PROBLEMS+='|sleeping function called from invalid context|suspicious RCU usage'
PROBLEMS+='|unreferenced object|suspected memory leak|rcu: INFO:|detected stalls'
PROBLEMS+='|self-detected stall|blocked for more than|soft lockup|hard LOCKUP'
PROBLEMS+='|refcount_t:|list_add corruption|list_del corruption|ODEBUG:'
PROBLEMS+='|double fault|stack-protector|Unable to handle kernel'
PROBLEMS+='|unregister_netdevice: waiting for|ref_tracker: .*has [0-9]+/[0-9]+ users'
PROBLEMS+='|KIW-VM-TIMEOUT|KIW-VM-ERROR'

# Resolve the kernel image, its release, its modules and the KDIR to build
# kiw against.
case "$kernel" in
stock)
	kdirs=$("$KIW_TOP/scripts/stock-kernel.sh")
	image=$kdirs/vmlinuz
	kdir=$(kiw_stock_kdir)
	: "${mem:=1024}"
	boot_allow=${KIW_VM_BOOT_ALLOW:-120}
	append_kernel=
	;;
debug)
	# (builds it the first time: 10-20 minutes)
	kdirs=$("$KIW_TOP/scripts/debug-kernel.sh" | tail -n 1)
	image=$kdirs/bzImage
	kdir=$kdirs/build
	: "${mem:=1024}"
	# KASAN and lockdep under TCG boot slowly, and kmemleak scans at the end.
	boot_allow=${KIW_VM_BOOT_ALLOW:-240}
	# Under KASAN and TCG, ACPICA runs QEMU's PCI interrupt routing method
	# (\_SB.PCI0._PRT, a loop) into its 30 s loop timeout, and virtio-9p
	# ends up without an interrupt: route PCI interrupts without ACPI.
	append_kernel="pci=noacpi"
	;;
*)	usage ;;
esac
release=$(cat "$kdirs/release")
if [ "$siw" = 1 ] && [ "$kernel" = stock ]; then
	extra_kos+=("$("$KIW_TOP/scripts/build-siw.sh")")
fi
modroot=$kdirs/mod
moddir=$modroot/lib/modules/$release

: "${log:=$KIW_TOP/build/logs/$name-$kernel.log}"
mkdir -p "$(dirname "$log")"
log=$(realpath "$log")
out=$log.out
: > "$log"
: > "$out"

# kiw_prepare: build kiw for this kernel, and make the module layer the
# guest puts over the kernel's module tree: extra/kiw.ko (+ kiw_kunit.ko, +
# the --ko modules) and the depmod index of the whole, so that "modprobe kiw"
# works. depmod runs here, natively: in the guest, over 9p and under TCG, it
# takes minutes. The layer is remade only when a module changed.
kiw_prepare() {
	local build=$KIW_TOP/build/$release blog=$log.build kos ko tmp layer
	if ! "$KIW_TOP/scripts/kbuild.sh" "$kdir" "$build" modules >"$blog" 2>&1; then
		tail -n 40 "$blog" >&2
		kiw_log "building kiw for $release failed (full log: $blog)"
		return 1
	fi
	kos=("$build/drivers/infiniband/sw/kiw/kiw.ko")
	[ -f "${kos[0]}" ] || { kiw_log "no kiw.ko after the build"; return 1; }
	[ ! -f "$build/kunit/kiw_kunit.ko" ] || kos+=("$build/kunit/kiw_kunit.ko")
	kos+=("${extra_kos[@]}")

	layer=$build/vm-modules
	key=$(kiw_hash "${kos[@]}" "$moddir/modules.order" <(echo "$moddir"))
	[ "$(cat "$layer/.key" 2>/dev/null)" != "$key" ] || return 0
	tmp=$layer.tmp
	rm -rf "$tmp" "$layer"
	mkdir -p "$tmp/lib/modules/$release/extra"
	for ko in "${kos[@]}"; do cp "$ko" "$tmp/lib/modules/$release/extra/"; done
	cp "$moddir"/modules.{order,builtin,builtin.modinfo} "$tmp/lib/modules/$release/"
	ln -s "$moddir/kernel" "$tmp/lib/modules/$release/kernel"
	depmod -b "$tmp" "$release"
	rm "$tmp/lib/modules/$release/kernel"
	echo "$key" > "$tmp/.key"
	mv "$tmp" "$layer"
}

modlayer=
if [ "$kiw" = 1 ]; then
	# One build at a time per build directory (worktrees have their own).
	kiw_locked "build-$(kiw_hash <(echo "$KIW_TOP/build/$release"))" kiw_prepare || exit 2
	modlayer=$KIW_TOP/build/$release/vm-modules/lib/modules/$release
fi

# Guest helpers written in C (scripts/guest/*.c) are compiled here, into
# build/guest/: cc under TCG, over 9p, takes minutes. The guest runs the
# host's user space, so they run there as they are. A source names its
# libraries on a line "kiw-ldlibs: -l...".
guest_tools() {
	local src bin
	mkdir -p "$KIW_TOP/build/guest"
	for src in "$KIW_TOP"/scripts/guest/*.c; do
		[ -e "$src" ] || continue
		bin=$KIW_TOP/build/guest/$(basename "$src" .c)
		[ "$bin" -nt "$src" ] && continue
		# shellcheck disable=SC2046
		cc -O2 -Wall -o "$bin.tmp" "$src" \
			$(sed -n 's/.*kiw-ldlibs: *//p' "$src") && mv "$bin.tmp" "$bin"
	done
}
kiw_locked "guest-tools-$(kiw_hash <(echo "$KIW_TOP"))" guest_tools || exit 2
initrd=$("$KIW_TOP/scripts/initramfs.sh" "$modroot" "$release")

# The job: a file the guest reads through the shared root. /tmp and /run are
# fresh tmpfs in the guest, so it lives in the cache.
mkdir -p "$KIW_CACHE/run"
job=$(mktemp "$KIW_CACHE/run/$name.XXXXXX")
{
	echo "export KIW_TOP=$(printf %q "$KIW_TOP") KIW_KERNEL=$kernel KIW_RELEASE=$release"
	echo "cd \"\$KIW_TOP\""
	printf 'exec bash %q' "$script"
	printf ' %q' "$@"
	echo
} > "$job"

qemu_pid= tail_pids=()
cleanup() {
	[ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
	for p in "${tail_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -f "$job"
}
trap cleanup EXIT

# KIW_VM_APPEND: extra kernel parameters, for debugging the harness.
append="console=ttyS0 panic=-1 printk.devkmsg=on mitigations=off $append_kernel"
append+=" ${KIW_VM_APPEND:-}"
# TCG on a loaded host can starve a vCPU for a while: only call a stall a
# stall after 60 s (the default is 21).
append+=" rcupdate.rcu_cpu_stall_timeout=60"
append+=" kiwvm.job=$job kiwvm.timeout=$timeout"
append+=" kiwvm.moddir=$moddir"
[ -z "$modlayer" ] || append+=" kiwvm.modlayer=$modlayer"

kiw_log "booting $kernel kernel $release: $name (timeout ${timeout}s, log $log)"
start=$(kiw_now)
timeout -k 10 $((timeout + boot_allow)) \
	qemu-system-x86_64 -accel tcg -cpu max -smp "$smp" -m "$mem" \
	-nodefaults -nographic -no-reboot \
	-kernel "$image" -initrd "$initrd" -append "$append" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-serial "file:$log" -serial "file:$out" \
	</dev/null >"$log.qemu" 2>&1 &
qemu_pid=$!
tail -n +1 -s 0.2 -f --pid="$qemu_pid" "$out" &
tail_pids+=($!)
if [ "$verbose" = 1 ]; then
	tail -n +1 -s 0.2 -f --pid="$qemu_pid" "$log" | sed 's/^/console: /' >&2 &
	tail_pids+=($!)
fi
rc=0
wait "$qemu_pid" || rc=$?
qemu_pid=
for p in "${tail_pids[@]}"; do wait "$p" 2>/dev/null || true; done
tail_pids=()
elapsed=$(kiw_since "$start")

# The serial console ends its lines with \r\n.
sed -i 's/\r$//' "$log"

# Show the log around the reports: up to 5 windows of 60 lines, each from
# 10 lines before a report not shown yet.
show_problems() {
	local n shown=0 end=0
	for n in $(grep -nE "$PROBLEMS" "$log" | cut -d: -f1); do
		[ "$n" -gt "$end" ] || continue
		[ "$shown" -lt 5 ] || break
		end=$((n + 50))
		echo "----- $log, line $n:"
		sed -n "$((n > 10 ? n - 10 : 1)),${end}p" "$log"
		shown=$((shown + 1))
	done
	[ "$end" -ge "$(wc -l < "$log")" ] || {
		echo "----- last lines of the console:"
		tail -n 30 "$log"
	}
}

result=$(sed -n 's/^KIW-RESULT: exit=\([0-9]*\)$/\1/p' "$log" | tail -n 1)
status=0 verdict= kernel_trouble=1
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	status=124 verdict="the VM hung (killed after $elapsed)"
elif grep -q '^KIW-VM-TIMEOUT' "$log"; then
	status=124 verdict="the script timed out after ${timeout}s (blocked tasks in the log)"
elif grep -qE "$PROBLEMS" "$log"; then
	first=$(grep -m1 -E "$PROBLEMS" "$log" | sed 's/^\[ *[0-9.]*\] //' | cut -c1-100)
	status=125 verdict="the kernel reported a problem: $first"
elif [ -z "$result" ]; then
	status=126 verdict="no result from the guest (panic or harness error; qemu rc=$rc)"
elif [ "$result" != 0 ]; then
	status=$result verdict="the script failed with status $result" kernel_trouble=0
fi

if [ "$status" = 0 ]; then
	kiw_log "PASS $name on $kernel ($elapsed)"
	exit 0
fi
{
	echo "===== $name on $kernel: FAIL: $verdict"
	if [ "$kernel_trouble" = 1 ]; then
		show_problems
		[ ! -s "$log.qemu" ] || { echo "----- qemu:"; cat "$log.qemu"; }
	fi
	echo "===== console log: $log"
	echo "===== script output: $out"
} >&2
kiw_log "FAIL $name on $kernel ($elapsed): $verdict"
exit "$status"
