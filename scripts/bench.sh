#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make bench: kiw against Linux siw and plain TCP, each test in one guest run.
#
# Usage: scripts/bench.sh [--quick] [--reps N] [--duration SEC]
#                         [--bw-mib MIB] [--kernel stock|debug]
#                         [--only REGEX] [--stacks REGEX] [--profile]
#                         [--out DIR]
#   --quick        one repetition, 64 KiB and 8 B only, no -Q 1 rows,
#                  shorter runs: for development (make bench BENCH_QUICK=1)
#   --reps N       repetitions; the table shows medians (default 3)
#   --duration S   seconds per -Q 1 bandwidth run (default 3; quick 2)
#   --bw-mib MIB   data per headline bandwidth run (perftest -n; default
#                  64, quick 32)
#   --kernel K     the guest kernel: stock (default, the one users run) or
#                  debug (KASAN and lockdep: numbers only for curiosity)
#   --only REGEX   only the tests whose name matches (e.g. 'write_bw/64K')
#   --stacks REGEX only the stacks whose name matches (tcp, siw, siw-crc,
#                  kiw, kiw-crc, kiw-mrk; e.g. '^kiw')
#   --profile      no benchmark: perf record -a -g over ib_write_bw 64 KiB
#                  (every stack), ib_write_lat 8 B (kiw, siw, with and
#                  without CRC), ib_send_lat 8 B and cmtime (kiw, siw);
#                  top symbols and callers in DIR/profile.txt, every
#                  sample's stack, folded, in DIR/guest.log (FOLD lines)
#   --out DIR      where results go (default build/bench)
#
# One guest (scripts/vm.sh, scripts/bench/guest.sh) measures every stack on
# the same veth pair, interleaved test by test, so that noise on this
# shared, emulated (TCG) machine hits them alike. It runs QEMU's TCG with
# one host thread for both vCPUs (vm.sh's default), where every latency
# is one 4 ms tick (benchmark.rst, "Latency under TCG"); so the latency
# tests (_lat/) run in a second guest with a thread per vCPU
# (KIW_VM_TCG_THREAD=multi). Setting KIW_VM_TCG_THREAD runs everything in
# one guest of that mode. Then, on the host:
#   DIR/results.csv   every measurement (rep,stack,test,value,unit)
#   DIR/table.txt     the table with the ratios and the targets (also on
#                     stdout)
#   DIR/bench.png     the chart
#   DIR/guest.log     the guest's output (guest-lat.log: the latency
#                     guest's); DIR/meta.txt what ran where
# A case that fails is FAILED in the table; it does not stop the others.
# Documentation/benchmark.rst explains every number.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { sed -n '4,25s/^# \{0,1\}//p' "$0" >&2; exit 2; }

quick=${BENCH_QUICK:-0} reps='' duration='' bw_mib='' kernel=stock only='' stacks='' profile=0
out=$KIW_TOP/build/bench
while [ $# -gt 0 ]; do
	case "$1" in
	--quick)    quick=1; shift ;;
	--reps)     reps=${2:?}; shift 2 ;;
	--duration) duration=${2:?}; shift 2 ;;
	--bw-mib)   bw_mib=${2:?}; shift 2 ;;
	--kernel)   kernel=${2:?}; shift 2 ;;
	--only)     only=${2:?}; shift 2 ;;
	--stacks)   stacks=${2:?}; shift 2 ;;
	--profile)  profile=1; shift ;;
	--out)      out=${2:?}; shift 2 ;;
	*)          usage ;;
	esac
done
[ "$quick" = 0 ] || [ "$quick" = 1 ] || quick=1
if [ "$quick" = 1 ]; then
	: "${reps:=1}" "${duration:=2}"
else
	: "${reps:=3}" "${duration:=3}"
fi
case "$kernel" in stock|debug) ;; *) usage ;; esac

"$KIW_TOP/scripts/setup-deps.sh"
mkdir -p "$out"
out=$(realpath "$out")
siw_crc=$("$KIW_TOP/scripts/bench/build-siw-crc.sh" "$kernel")

gargs=(--reps "$reps" --duration "$duration")
[ "$quick" = 0 ] || gargs+=(--quick)
[ -z "$bw_mib" ] || gargs+=(--bw-mib "$bw_mib")
[ -z "$only" ] || gargs+=(--only "$only")
[ -z "$stacks" ] || gargs+=(--stacks "$stacks")
[ "$profile" = 0 ] || gargs+=(--profile)

# The guest's time limit, from the number of runs: up to 45 s of overhead
# per run under TCG on a loaded machine, on top of its duration (a
# headline bandwidth run: up to 20 s of data on the slowest stack; a
# memory run of 1000 connections: a few minutes).
if [ "$profile" = 1 ]; then
	limit=3600
else
	runs=$(( quick ? 9 * 5 + 1 : 25 * 5 + 1 ))
	limit=$(( reps * (runs * (duration + 60) + 2 * 600) + 600 ))
fi

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: $(git -C "$KIW_TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "kernel: $kernel; reps: $reps; duration: ${duration}s (-Q 1 rows); headline bandwidth: ${bw_mib:-$([ "$quick" = 0 ] && echo 64 || echo 32)} MiB a run; quick: $quick; tcg: ${KIW_VM_TCG_THREAD:-single, latency tests multi}"
	echo "host: $(nproc) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/meta.txt"

kiw_log "bench: $kernel kernel, $reps repetition(s), ${duration}s runs, limit ${limit}s"
# The guest reads its script through the shared root while it runs: give
# it a copy, so that editing the tree meanwhile cannot change a running
# benchmark.
cp "$KIW_TOP/scripts/bench/guest.sh" "$out/guest.sh"

# run_guest TCG SUFFIX GUEST-ARGS...: one guest in TCG mode TCG (single or
# multi); its output in guest$SUFFIX.log, its console in console$SUFFIX.log.
# vm.sh streams the guest's output; keep it, show the progress lines.
# Return: the guest's status.
run_guest() {
	local tcg=$1 sfx=$2 grc
	shift 2
	set +e
	KIW_VM_TCG_THREAD=$tcg "$KIW_TOP/scripts/vm.sh" --kernel "$kernel" \
		--with-siw --ko "$siw_crc" --mem 1536 --timeout "$limit" \
		--log "$out/console$sfx.log" --script "$out/guest.sh" -- "$@" |
		tee "$out/guest$sfx.log" |
		{ grep --line-buffered -E '^# [a-z-]+ |^# FAILED|^PROFILE' >&2; true; }
	grc=${PIPESTATUS[0]}
	set -e
	if [ "$grc" != 0 ]; then
		kiw_log "the guest run ended with status $grc (see $out/console$sfx.log); reporting what it measured"
		echo "guest$sfx status: $grc (124: timeout, 125: a report on the console)" >> "$out/meta.txt"
		# vm.sh also counts a user-space crash ("traps: ... general
		# protection fault" from perftest after a failed connection)
		# as a report.
		grep -E 'traps:|BUG|WARNING|Oops|KASAN|blocked for more' "$out/console$sfx.log" |
			head -n 3 | sed 's/^/console: /' | tee -a "$out/meta.txt" >&2
	fi
	return "$grc"
}

rm -f "$out/guest-lat.log" "$out/console-lat.log"
rc=0
if [ "$profile" = 1 ] || [ -n "${KIW_VM_TCG_THREAD:-}" ]; then
	run_guest "${KIW_VM_TCG_THREAD:-single}" '' "${gargs[@]}" || rc=$?
else
	# (A guest whose tests --only leaves out boots, sets up and stops:
	# guest.sh alone knows the tests' names.)
	run_guest single '' "${gargs[@]}" --skip '_lat/' || rc=$?
	kiw_log "bench: the latency tests, in a guest with a TCG thread per vCPU"
	run_guest multi -lat "${gargs[@]}" --need '_lat/' || rc=$?
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/meta.txt"

if [ "$profile" = 1 ]; then
	sed -n '/^PROFILE-BEGIN/,/^PROFILE-END/p' "$out/guest.log" > "$out/profile.txt"
	cat "$out/profile.txt"
	kiw_log "profile: $out/profile.txt"
	exit "$rc"
fi

{
	echo "rep,stack,test,value,unit"
	cat "$out/guest.log" "$out/guest-lat.log" 2>/dev/null |
		sed -n 's/^RESULT,//p'
} > "$out/results.csv"
python3 "$KIW_TOP/scripts/bench/report.py" \
	"$out/results.csv" "$out/meta.txt" "$out" | tee "$out/table.txt"
kiw_log "results: $out/results.csv, $out/table.txt, $out/bench.png"
exit "$rc"
