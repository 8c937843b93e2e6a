#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Boot a kernel in QEMU (TCG), run scripts inside it as root, report.
#
# Usage: scripts/vm.sh --kernel ID --script FILE [options] [-- ARGS]
#   --kernel stock   Debian 12's 6.12 LTS kernel (scripts/kernel.sh stock)
#   --kernel 6.1     Debian 12's default kernel (scripts/kernel.sh 6.1)
#   --kernel 7.2     Debian unstable's kernel (scripts/kernel.sh 7.2; kiw is
#                    built for it in a sid chroot)
#   --kernel debug   the debug kernel (scripts/debug-kernel.sh)
#   --script FILE    bash script run in the guest with ARGS; it sees the host's
#                    root read-only under a tmpfs overlay, cwd = the repository.
#                    The guest's /tmp and /run are its own: a repository or a
#                    script there is mounted into them at the same path.
#                    Repeat it to run several scripts in one boot (a batch),
#                    one after the other, each from the same starting point
#                    (scripts/guest/run.sh); ARGS only go with a single script
#   --timeout SEC    limit for each --script after it (default 300; one given
#                    after the last --script applies to those without one);
#                    the VM as a whole gets a boot allowance on top
#   --mem MB         guest memory (default 1024; kmemleak's scans at the end
#                    of a debug run take longer the more memory there is)
#   --smp N          guest CPUs (default 2)
#   --log FILE       console log (default build/logs/<script>-<kernel>.log);
#                    the scripts' own output is kept in FILE.out
#   --markers        also stream the per-script markers (implied by a batch):
#                    "KIW-TEST-BEGIN name ...", "KIW-TEST-END name exit=N
#                    seconds=S cleanup=ok|failed"
#   --no-kiw         do not build kiw or install it in the guest
#   --ko FILE        also install module FILE in the guest's extra/ (repeatable)
#   --with-siw       make "modprobe siw" work: on the stock kernel, which lacks
#                    siw, build it (scripts/build-siw.sh); the debug kernel has it
#                    (not available on 6.1 and 7.2)
#   --verbose        also stream the kernel console while running
#   --nic MAC,NETDEV a virtio-net NIC with address MAC on QEMU's -netdev
#                    NETDEV (its options, without id=), e.g. a unix socket
#                    to another VM: stream,server=on,addr.type=unix,
#                    addr.path=FILE (scripts/vm-pair.sh)
#
# The scripts' output (stdout and stderr) is streamed on stdout. Exit status:
#   the script's (a batch: 0 when every script exited 0, else 1), when the
#   kernel stayed clean; otherwise 124 a script or the VM timed out (hang),
#   125 the console shows a kernel report (KASAN, lockdep, kmemleak, WARNING,
#   BUG, Oops, stall...), 126 the VM died without a result (panic, harness
#   error), 2 usage or build error. A failed batch names the script that was
#   running when the kernel complained (for a kmemleak report: the script
#   that allocated the leaked object).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { sed -n '4,48s/^# \{0,1\}//p' "$0" >&2; exit 2; }

kernel= timeout= mem= smp=2 log= kiw=1 verbose=${KIW_VM_VERBOSE:-0} siw=0 markers=0
extra_kos=() scripts=() timeouts=() nic=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel)  kernel=${2:?}; shift 2 ;;
	--script)  scripts+=("${2:?}"); timeouts+=("$timeout"); shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--mem)     mem=${2:?}; shift 2 ;;
	--smp)     smp=${2:?}; shift 2 ;;
	--log)     log=${2:?}; shift 2 ;;
	--markers) markers=1; shift ;;
	--no-kiw)  kiw=0; shift ;;
	--ko)      extra_kos+=("$(realpath "${2:?}")"); shift 2 ;;
	--with-siw) siw=1; shift ;;
	--verbose) verbose=1; shift ;;
	--nic)     n=${2:?}; shift 2
		   nic=(-netdev "${n#*,},id=nic0" -device "virtio-net-pci,netdev=nic0,mac=${n%%,*}") ;;
	--)        shift; break ;;
	*)         usage ;;
	esac
done
[ -n "$kernel" ] && [ ${#scripts[@]} -gt 0 ] || usage
[ ${#scripts[@]} = 1 ] || [ $# = 0 ] || kiw_die "ARGS go with a single --script only"
[ ${#scripts[@]} = 1 ] || markers=1
# The guest gets fresh /tmp, /run, /dev/shm: host directories there that the
# guest needs (the repository, the scripts, the job) are mounted into them
# at the same path by guest/init (kiwvm.expose=), each an overlay of its
# own (writable, the changes staying in the guest).
expose=()
expose_dir() {
	local d=$1 e
	case "$d/" in
	/tmp/*|/run/*|/dev/shm/*) ;;
	/dev/*|/proc/*|/sys/*) kiw_die "$d is not visible in the guest" ;;
	*) return 0 ;;
	esac
	[[ $d != *[[:space:],]* ]] || kiw_die "$d: a directory the guest must see has a space or a comma in its name"
	for e in "${expose[@]}"; do
		case "$d/" in "$e"/*) return 0 ;; esac
	done
	expose+=("$d")
}
expose_dir "$KIW_TOP"
total=0 names=()
for i in "${!scripts[@]}"; do
	script=${scripts[$i]}
	[ -f "$script" ] || kiw_die "no such script: $script"
	script=$(realpath "$script")
	expose_dir "$(dirname "$script")"
	scripts[$i]=$script
	timeouts[$i]=${timeouts[$i]:-${timeout:-300}}
	total=$((total + timeouts[i]))
	names+=("$(basename "$script" .sh)")
done
name=${names[0]}
[ ${#scripts[@]} = 1 ] || name=batch-$name

# Kernel reports that fail a run even when the script passed (extended regex,
# matched against the console). "BUG:" covers KASAN, sleeping in atomic
# context, NULL dereferences, soft lockups and workqueue lockups; "WARNING:"
# covers WARN_ON and lockdep's circular, recursive and inconsistent locking.
# A kernel general protection fault reads "general protection fault, ..." or
# "general protection fault: ..."; a user-space one ("traps: NAME[PID]
# general protection fault ip:...") is the crashing program's business:
# the test sees its exit status.
PROBLEMS='BUG:|^BUG [^ ]+ \(|WARNING:|Oops|general protection fault[,:]|Kernel panic'
PROBLEMS+='|kernel BUG at|KASAN:|UBSAN:|possible circular locking'
PROBLEMS+='|inconsistent lock state|possible recursive locking'
PROBLEMS+='|sleeping function called from invalid context|suspicious RCU usage'
PROBLEMS+='|unreferenced object|suspected memory leak|rcu: INFO:|detected stalls'
PROBLEMS+='|self-detected stall|blocked for more than|soft lockup|hard LOCKUP'
PROBLEMS+='|refcount_t:|list_add corruption|list_del corruption|ODEBUG:'
PROBLEMS+='|double fault|stack-protector|Unable to handle kernel'
PROBLEMS+='|unregister_netdevice: waiting for|ref_tracker: .*has [0-9]+/[0-9]+ users'
PROBLEMS+='|KIW-VM-TIMEOUT|KIW-VM-ERROR|KIW-TEST-TIMEOUT'

# Resolve the kernel image, its release, its modules and the KDIR to build
# kiw against.
case "$kernel" in
stock|6.1|7.2)
	kdirs=$("$KIW_TOP/scripts/kernel.sh" "$kernel") || exit 2
	image=$kdirs/vmlinuz
	kdir= # found by kiw_prepare (for 7.2, it makes the sid chroot)
	kconfig=$kdirs/config
	[ -f "$kconfig" ] || kconfig=$kdirs/mod/boot/config-$(cat "$kdirs/release")
	: "${mem:=1024}"
	boot_allow=${KIW_VM_BOOT_ALLOW:-120}
	append_kernel=
	# 6.1's boot-time check finds the two vCPUs' TSCs "unsynchronized"
	# (both run on one host thread, from the host's one TSC: they are
	# not), marks the TSC unstable and falls back to the emulated HPET,
	# whose jitter makes perftest's clock calibration fail ("Correlation
	# coefficient r^2 < 0.9, Can't produce a report"). 6.12 and 7.2 keep
	# the TSC.
	[ "$kernel" != 6.1 ] || append_kernel="tsc=reliable"
	# qboot instead of SeaBIOS: a few seconds less per boot under TCG
	# (44 -> 36 s for a trivial script on a loaded host). It has no PCI
	# interrupt routing table, which the debug kernel's pci=noacpi needs
	# (its 9p mount then hangs without an interrupt): stock kernel only.
	bios=/usr/share/qemu/qboot.rom
	;;
debug)
	# (builds it the first time: 10-20 minutes)
	kdirs=$("$KIW_TOP/scripts/debug-kernel.sh" | tail -n 1)
	image=$kdirs/bzImage
	kdir=$kdirs/build
	kconfig=$kdir/.config
	: "${mem:=1024}"
	# KASAN and lockdep under TCG boot slowly, and kmemleak scans at the end.
	boot_allow=${KIW_VM_BOOT_ALLOW:-240}
	# Under KASAN and TCG, ACPICA runs QEMU's PCI interrupt routing method
	# (\_SB.PCI0._PRT, a loop) into its 30 s loop timeout, and virtio-9p
	# ends up without an interrupt: route PCI interrupts without ACPI.
	append_kernel="pci=noacpi"
	bios=
	;;
*)	usage ;;
esac
release=$(cat "$kdirs/release")
# KIW_VM_BIOS: another firmware image ("" for QEMU's default, SeaBIOS).
bios=${KIW_VM_BIOS-$bios}
[ -z "$bios" ] || [ -f "$bios" ] || bios=
if [ "$siw" = 1 ]; then
	case "$kernel" in
	stock) extra_kos+=("$("$KIW_TOP/scripts/build-siw.sh")") ;;
	debug) ;;
	*) kiw_die "--with-siw: no siw for the $kernel kernel (only stock and debug)" ;;
	esac
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
# takes minutes. Prints the layer's directory. Each set of modules has a
# layer of its own, named by their hash: boots run two at a time (KIW_VM_PARALLEL) with different sets
# (siw's boots add siw.ko), and a guest reads its layer over 9p for as long
# as it runs, so a layer is never remade or removed under a running boot
# (once, a siw boot remade the one layer while ops_dkms's guest read it:
# "Module veth not found"). Layers unused for 3 hours are removed.
kiw_prepare() {
	local build=$KIW_TOP/build/$release blog=$log.build kos ko tmp
	if [ -z "$kdir" ] && ! kdir=$("$KIW_TOP/scripts/kernel.sh" "$kernel" --kdir 2>"$blog"); then
		tail -n 40 "$blog" >&2
		kiw_log "no headers to build kiw for $release (full log: $blog)"
		return 1
	fi
	if ! "$KIW_TOP/scripts/kbuild.sh" "$kdir" "$build" modules >"$blog" 2>&1; then
		tail -n 40 "$blog" >&2
		kiw_log "building kiw for $release failed (full log: $blog)"
		return 1
	fi
	kos=("$build/drivers/infiniband/sw/kiw/kiw.ko")
	[ -f "${kos[0]}" ] || { kiw_log "no kiw.ko after the build"; return 1; }
	[ ! -f "$build/kunit/kiw_kunit.ko" ] || kos+=("$build/kunit/kiw_kunit.ko")
	kos+=("${extra_kos[@]}")

	key=$(kiw_hash "${kos[@]}" "$moddir/modules.order" <(echo "$moddir"))
	layer=$build/vm-modules/$key
	find "$build/vm-modules" -mindepth 1 -maxdepth 1 -type d -mmin +180 \
		-exec rm -rf {} + 2>/dev/null || true
	if [ -f "$layer/.key" ]; then
		touch "$layer"	# in use: not stale
		echo "$layer"
		return 0
	fi
	tmp=$layer.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/lib/modules/$release/extra"
	for ko in "${kos[@]}"; do cp "$ko" "$tmp/lib/modules/$release/extra/"; done
	cp "$moddir"/modules.{order,builtin,builtin.modinfo} "$tmp/lib/modules/$release/"
	ln -s "$moddir/kernel" "$tmp/lib/modules/$release/kernel"
	depmod -b "$tmp" "$release" >&2
	rm "$tmp/lib/modules/$release/kernel"
	echo "$key" > "$tmp/.key"
	mv "$tmp" "$layer"
	echo "$layer"
}

modlayer=
if [ "$kiw" = 1 ]; then
	# One build at a time per build directory (worktrees have their own).
	# kiw_prepare prints the layer's directory.
	layer=$(kiw_locked "build-$(kiw_hash <(echo "$KIW_TOP/build/$release"))" \
		kiw_prepare) || exit 2
	modlayer=$layer/lib/modules/$release
fi

initrd=$("$KIW_TOP/scripts/initramfs.sh" "$modroot" "$release")

# The tests' C tools (scripts/guest/*.c), built here, natively, into
# build/guest-bin/ (KIW_GUEST_BIN in the guest): the guest runs the host's
# user space, so the same binaries work there, and compiling in the guest
# under TCG took two minutes a tool on a loaded host. Rebuilt when the
# source, or the header they share (scripts/guest/tool_lib.h, header-only:
# no object of its own), is newer; linked with the RDMA libraries the tools
# use. A source named *_shim.c is an LD_PRELOAD library (no main()): built
# with -shared into <name>.so.
guest_bin=$KIW_TOP/build/guest-bin
guest_tools() {
	local src bin flags lib=$KIW_TOP/scripts/guest/tool_lib.h
	mkdir -p "$guest_bin"
	for src in "$KIW_TOP"/scripts/guest/*.c; do
		[ -f "$src" ] || continue
		bin=$guest_bin/$(basename "$src" .c)
		flags=(-lrdmacm -libverbs -lpthread)
		case "$src" in
		*_shim.c) bin=$bin.so flags=(-shared -fPIC) ;;
		esac
		[ "$bin" -nt "$src" ] && [ "$bin" -nt "$lib" ] && continue
		cc -O2 -Wall -o "$bin.tmp" "$src" "${flags[@]}" >"$log.tools" 2>&1 ||
			{ cat "$log.tools" >&2; kiw_log "building $src failed"; return 1; }
		mv "$bin.tmp" "$bin"
	done
}
kiw_locked "guest-bin-$(kiw_hash <(echo "$guest_bin"))" guest_tools || exit 2

# The job: a file the guest reads through the shared root. /tmp and /run are
# fresh tmpfs in the guest, so it lives in the cache. It runs the scripts
# with scripts/guest/run.sh.
mkdir -p "$KIW_CACHE/run"
job=$(mktemp "$KIW_CACHE/run/$name.XXXXXX")
expose_dir "$(dirname "$(realpath "$job")")"
expose_dir "$(realpath "$guest_bin")"
{
	echo "export KIW_TOP=$(printf %q "$KIW_TOP") KIW_KERNEL=$kernel KIW_RELEASE=$release"
	# Passed on from the host: KIW_TAP_TIMES=1 times every check
	# (guest/lib.sh), KIW_LONG=1 asks the tests for their long variants.
	echo "export KIW_TAP_TIMES=$(printf %q "${KIW_TAP_TIMES:-0}") KIW_LONG=$(printf %q "${KIW_LONG:-0}")"
	echo "export KIW_GUEST_BIN=$(printf %q "$guest_bin")"
	echo "cd \"\$KIW_TOP\""
	printf 'exec bash %q' "$KIW_TOP/scripts/guest/run.sh"
	for i in "${!scripts[@]}"; do printf ' %q %q' "${timeouts[$i]}" "${scripts[$i]}"; done
	printf ' --'
	[ $# = 0 ] || printf ' %q' "$@"
	echo
} > "$job"
# The guest's watchdog: every script's limit, plus a minute each for the
# cleanup after it; the host's adds the boot and the kmemleak scans.
guest_timeout=$((total + 60 * ${#scripts[@]}))

qemu_pid= tail_pids=()
cleanup() {
	[ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
	for p in "${tail_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -f "$job"
}
trap cleanup EXIT

# Every feature TCG emulates, except 5-level paging. With LA57, 6.12 has a
# window early in boot (identify_cpu() clears boot_cpu_data's capabilities,
# so pgtable_l5_enabled() is briefly false) in which an interrupt makes
# KASAN report a "wild-memory-access" in do_raw_spin_lock: 2 boots in 20 of
# the debug kernel. Hardware without LA57 (most of it) never has it.
cpu=max,la57=off

# One host thread runs both vCPUs, in turns. With a thread per vCPU
# (QEMU 7.2's default, MTTCG), a vCPU now and then runs a stale translation
# of code the kernel has just patched with text_poke_bp() (static keys,
# alternatives): an int3 that is no longer in memory, "Oops: int3" (seen in
# 2 of ~90 boots on a loaded host, stock kernel included, at boot and at
# run time). On 2 shared cores a second thread gains little; the guest
# still has two CPUs, and its tasks still interleave.
# KIW_VM_TCG_THREAD=multi: the other mode, for measurements.
tcg=tcg,thread=${KIW_VM_TCG_THREAD:-single}

# KIW_VM_APPEND: extra kernel parameters, for debugging the harness.
append="console=ttyS0 panic=-1 printk.devkmsg=on mitigations=off $append_kernel"
append+=" ${KIW_VM_APPEND:-}"
# TCG on a loaded host can starve a vCPU for a while: only call a stall a
# stall after 60 s (the default is 21).
append+=" rcupdate.rcu_cpu_stall_timeout=60"
# The guest's TSC is the host's: give the kernel its frequency. Its own
# calibration (against the emulated PIT or HPET) goes wrong when the host is
# busy, and its clock with it (one boot calibrated 180 MHz for 2445: a guest
# minute lasted 4.6 s, the watchdogs fired at once, soft lockups appeared);
# the LAPIC timer is calibrated against the TSC then too.
tsc_khz=$(kiw_tsc_khz)
[ -z "$tsc_khz" ] || append+=" tsc_early_khz=$tsc_khz"
append+=" kiwvm.job=$job kiwvm.timeout=$guest_timeout"
append+=" kiwvm.moddir=$moddir"
[ -z "$modlayer" ] || append+=" kiwvm.modlayer=$modlayer"
[ ${#expose[@]} = 0 ] || append+=" kiwvm.expose=$(IFS=,; echo "${expose[*]}")"

if [ ${#scripts[@]} = 1 ]; then
	kiw_log "booting $kernel kernel $release: $name (timeout ${total}s, log $log)"
else
	kiw_log "booting $kernel kernel $release: ${#scripts[@]} scripts (${names[*]}; timeout ${total}s, log $log)"
fi
start=$(kiw_now)
# QEMU's CPU time (user + system), next to the wall time: the host is
# shared, and the CPU time says what a boot costs whatever the load.
cpu_time=()
[ ! -x /usr/bin/time ] || cpu_time=(/usr/bin/time -o "$log.cpu" -f '%U %S')
launch() {
	rm -f "$log.cpu"
	# KIW_VM_HOST_TIMEOUT: the host's limit, for the harness's self-test.
	timeout -k 10 "${KIW_VM_HOST_TIMEOUT:-$((guest_timeout + boot_allow))}" \
		"${cpu_time[@]}" qemu-system-x86_64 -accel "$tcg" -cpu "$cpu" -smp "$smp" -m "$mem" \
		-nodefaults -nographic -no-reboot ${bios:+-bios "$bios"} \
		-kernel "$image" -initrd "$initrd" -append "$append" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-serial "file:$log" -serial "file:$out" "${nic[@]}" \
		</dev/null >"$log.qemu" 2>&1 &
	qemu_pid=$!
	if [ "$markers" = 1 ]; then
		tail -n +1 -s 0.2 -f --pid="$qemu_pid" "$out" &
	else
		tail -n +1 -s 0.2 -f --pid="$qemu_pid" "$out" | grep --line-buffered -v '^KIW-TEST-' &
	fi
	tail_pids+=($!)
	if [ "$verbose" = 1 ]; then
		tail -n +1 -s 0.2 -f --pid="$qemu_pid" "$log" | sed 's/^/console: /' >&2 &
		tail_pids+=($!)
	fi
}

# A boot that hangs before the kernel starts /init: once in a CI run, the
# 7.2 kernel stopped at its HPET's registration, 1.3 s into the boot, with
# its clock (the printk times) standing still: no timer interrupt came any
# more, under TCG, on a loaded host. kiw is not loaded then: /init loads it,
# later. Such a boot is given up after the boot allowance and booted once
# more, the hung console kept beside the log (.hung); a second hang fails
# the run. Not for a VM pair (--nic): its peer's QEMU is already connected
# to this one. KIW_VM_INIT_WAIT=FIRST[,SECOND], for the harness's
# self-test: seconds each attempt waits for /init instead.
IFS=, read -r init_wait1 init_wait2 <<<"${KIW_VM_INIT_WAIT:-}"
: "${init_wait1:=$boot_allow}"
: "${init_wait2:=$init_wait1}"
reached_init() {
	local t0 now
	t0=$(kiw_now)
	init_wait=$init_wait1
	[ "$attempt" = 1 ] || init_wait=$init_wait2
	while kill -0 "$qemu_pid" 2>/dev/null; do
		grep -q 'Run /init as init process' "$log" && return 0
		now=$(kiw_now)
		[ $((now - t0)) -lt "$init_wait" ] || return 1
		sleep 1
	done
	return 0 # QEMU ended: its verdict is the log's
}
boot_hung=0
rm -f "$log.hung"	# an earlier run's
for attempt in 1 2; do
	launch
	if [ ${#nic[@]} = 0 ] && ! reached_init; then
		kill "$qemu_pid" 2>/dev/null || true
		wait "$qemu_pid" 2>/dev/null || true
		for p in "${tail_pids[@]}"; do wait "$p" 2>/dev/null || true; done
		qemu_pid= tail_pids=()
		sed -i 's/\r$//' "$log"
		mv "$log" "$log.hung"
		kiw_log "the $kernel kernel did not reach /init in ${init_wait} s (its last console line: \"$(tail -n 1 "$log.hung" | cut -c1-100)\"; console kept in $log.hung)"
		: > "$log"
		: > "$out"
		boot_hung=$attempt
		[ "$attempt" = 1 ] && kiw_log "booting the $kernel kernel again (once)"
		continue
	fi
	break
done
rc=0
[ -z "$qemu_pid" ] || wait "$qemu_pid" || rc=$?
qemu_pid=
for p in "${tail_pids[@]}"; do wait "$p" 2>/dev/null || true; done
tail_pids=()
elapsed=$(kiw_since "$start")
cpu=$(tail -n 1 "$log.cpu" 2>/dev/null | awk 'NF == 2 { printf "%.0f", $1 + $2 }')
[ -z "$cpu" ] || elapsed+=", CPU $cpu s"

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

# blame: when the first kernel report appeared, relative to the scripts'
# markers: "while NAME ran", "after NAME ended", "while booting"; for
# kmemleak reports, the scripts during which the leaked objects were
# allocated: their "jiffies" (which start at 2^32 - 300 HZ) against the
# markers' uptime.
blame() {
	local hz
	hz=$(sed -n 's/^CONFIG_HZ=//p' "$kconfig" 2>/dev/null)
	awk -v re="$PROBLEMS" -v hz="${hz:-250}" '
	function at(j,   i, n, up) {
		up = (j - (4294967296 - 300 * hz)) / hz
		n = ""
		for (i = 1; i <= nb; i++) if (bt[i] <= up) n = bn[i]
		return n == "" ? "boot" : n
	}
	/KIW-TEST-BEGIN / {
		for (i = 1; i < NF; i++) if ($i == "KIW-TEST-BEGIN") {
			cur = $(i + 1); t = $(i + 2); sub("uptime=", "", t)
			bn[++nb] = cur; bt[nb] = t + 0
		}
		state = "while " cur " ran"; next
	}
	/KIW-TEST-END / { state = "after " cur " ended"; next }
	/KIW-KMEMLEAK-BEGIN/ { leak = 1; next }
	/KIW-KMEMLEAK-END/ { leak = 0; next }
	leak && / comm ".*jiffies [0-9]+/ {
		j = $NF + 0; t = at(j)
		if (!(t in seen)) { seen[t] = 1; leakers = leakers (leakers ? ", " : "") t }
		next
	}
	!first && $0 ~ re {
		first = leak ? "in the kmemleak scan at the end" : \
			(state ? state : "while booting")
	}
	END {
		if (leakers) first = first "; leaked objects were allocated while " leakers " ran"
		print first
	}' "$log"
}

result=$(sed -n 's/^KIW-RESULT: exit=\([0-9]*\)$/\1/p' "$log" | tail -n 1)
status=0 verdict= kernel_trouble=1
if [ "$boot_hung" = 2 ]; then
	cp "$log.hung" "$log"
	status=124 verdict="the kernel hung at boot twice, before /init (console: $log.hung)"
elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	status=124 verdict="the VM hung (killed after $elapsed; $(blame))"
elif grep -q '^KIW-VM-TIMEOUT' "$log"; then
	status=124 verdict="the job timed out after ${guest_timeout}s (blocked tasks in the log; $(blame))"
elif t=$(grep -m1 -E 'KIW-TEST-TIMEOUT' "$log"); then
	t=${t##*KIW-TEST-TIMEOUT }
	status=124 verdict="$t timed out (blocked tasks in the log)"
elif grep -qE "$PROBLEMS" "$log"; then
	first=$(grep -m1 -E "$PROBLEMS" "$log" | sed 's/^\[ *[0-9.]*\] //' | cut -c1-100)
	status=125 verdict="the kernel reported a problem $(blame): $first"
elif [ -z "$result" ]; then
	status=126 verdict="no result from the guest (panic or harness error; qemu rc=$rc; $(blame))"
elif [ "$result" != 0 ]; then
	status=$result verdict="the script failed with status $result" kernel_trouble=0
	[ ${#scripts[@]} = 1 ] || verdict="a script failed or did not clean up"
fi

if [ "$status" = 0 ]; then
	kiw_log "PASS $name on $kernel ($elapsed)"
	exit 0
fi
{
	echo "===== $name on $kernel: FAIL: $verdict"
	[ ${#scripts[@]} = 1 ] || echo "===== this boot ran: ${names[*]}"
	if [ "$kernel_trouble" = 1 ]; then
		show_problems
		[ ! -s "$log.qemu" ] || { echo "----- qemu:"; cat "$log.qemu"; }
	fi
	echo "===== console log: $log"
	echo "===== scripts' output: $out"
} >&2
kiw_log "FAIL $name on $kernel ($elapsed): $verdict"
exit "$status"
