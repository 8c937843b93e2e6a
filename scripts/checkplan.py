#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The plan of make check's VM tests (scripts/check.sh calls it): which
tests run, on which kernels, in how many boots, which test in which boot,
and each test's timeout; after the run, the guest times kept for the next
run's plan, and the time report with its projection of a cold CI run.

Usage:
  checkplan.py plan --top DIR --tests-dir DIR [--test NAME] [--with-pair]
                    --kernels "stock 6.1 7.2 debug" --batch N --parallel N
                    [--need-debug] [--kunit SCRIPT] [--debug-kernel CMD]
                    [--times FILE]...
  checkplan.py save-times --out FILE [--times FILE]... < "SECS NAME" lines
  checkplan.py report --total SECS --cpu SECS [--partial] [--built-debug]
                      [--debug-build WALL CPU] [--long KIW_LONG] < rows

"plan" prints one fact a line, for check.sh to read:
  fail MESSAGE            a TAP failure (a missing test, a bad header)
  need stock|debug|pair   a kernel (or the two-VM test) the plan needs
  need other KERNEL       one of Debian's other kernels (scripts/kernel.sh)
  kunit-in-vm             the KUnit suites run as a debug boot's first script
  timeout SECS SCRIPT     a script's timeout (its header's timeout=)
  boot KERNEL MEM SIW SCRIPT...   one boot, in the order they run
"save-times" writes the guest seconds of every test: those of FILEs (later
ones win) updated by the lines on stdin, sorted by name.
"report" prints make check's time report from its rows on stdin, "KIND
FIELD|FIELD...": phase NAME|WALL|CPU, boot N|KERNEL|WALL|CPU|SCRIPTS|TESTS,
test SECS|NAME|KERNEL|BOOT|TIMEOUT|USER|SYS, warm ITEM (one of Debian's
other kernels' downloads found cached); with, but for --partial (a run of
part of make check), a projection of a cold CI run against the budget
(KIW_BUDGET, KIW_CI_LIMIT...: see LIMITS).

The header of a test: "# kiw-vm: kernel=debug timeout=300 [mem=MB]
[siw=yes] [batch=alone]" (kernel: debug, the default, stock (Debian's
6.12), 6.1 or 7.2 (scripts/kernel.sh); timeout: seconds for the script,
default 300; mem: guest memory, default 1024; siw=yes: the test loads siw
as a peer (stock and debug only); batch=alone: a boot of its own, for a
test that changes the guest for good or runs long).

Planning the boots. Tests with the same needs (kernel, guest memory, and
siw on the stock kernel) share a boot: a batch of at most --batch scripts
(KIW_VM_BATCH; 1 boots once per test); batch=alone gets a boot of its
own. A group gets at least --parallel boots (KIW_VM_PARALLEL; on the
stock and other kernels 1 while the debug kernel is to be built: "CMD
--print"/.done is missing), and its scripts are spread over them by their expected
time, longest first onto the least loaded boot (ties: the one with fewer
scripts, then the first). The expected time of a test is its guest time
in the last of --times that has it (build/logs/vm-times after
scripts/vm-times.seed), else a third of its timeout. In a boot, the KUnit
script first, then by path.

Orders follow the locale's collation (LC_COLLATE), as bash's globs and
sort(1) do: this replaced a bash planner whose plans it reproduces.
"""

import argparse
import glob
import locale
import os
import re
import subprocess
import sys

KUNIT_TIMEOUT = 600
DEFAULT_TIMEOUT = 300
# The two-VM test (scripts/vm-pair.sh) boots these of Debian's kernels.
PAIR_KERNELS = ("6.1", "7.2")


def _collate_key(s):
    return locale.strxfrm(s)


def header_param(path, key):
    """The value of KEY= on the first "# kiw-vm:" line that has it (the
    last KEY= on that line), or None."""
    pat = re.compile(r"^# kiw-vm:.*\b" + re.escape(key) + r"=([^ ]*)")
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if m:
                return m.group(1)
    return None


def load_times(files):
    """{name: seconds as written} from "SECS NAME" lines; '#' comments."""
    times = {}
    for path in files:
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                w = line.split(None, 1)
                if not w or w[0].startswith("#"):
                    continue
                times[w[1].strip() if len(w) > 1 else ""] = w[0]
    return times


def _whole_seconds(text):
    """"121.4" -> 121 (the part before the last dot); not a number -> 0."""
    head = text.rsplit(".", 1)[0] if "." in text else text
    return int(head) if head.isdigit() else 0


def expected(times, name, timeout):
    """The expected guest seconds of a test."""
    t = times.get(name)
    if t:
        return _whole_seconds(t)
    return timeout // 3


def test_name(path):
    base = os.path.basename(path)
    return base[:-3] if base.endswith(".sh") and base != ".sh" else base


class Plan:
    def __init__(self):
        self.fails = []
        self.need_stock = False
        self.need_debug = False
        self.need_other = set()
        self.pair = False
        self.kunit_in_vm = False
        self.timeouts = {}      # script -> seconds, in the order found
        self.boots = []         # (key "kernel mem siw", [script...])

    def lines(self, other_kernels):
        out = ["fail " + m for m in self.fails]
        if self.need_stock:
            out.append("need stock")
        if self.need_debug:
            out.append("need debug")
        if self.pair:
            out.append("need pair")
        out += ["need other " + k for k in other_kernels
                if k in self.need_other]
        out += ["need other " + k for k in sorted(self.need_other)
                if k not in other_kernels]
        if self.kunit_in_vm:
            out.append("kunit-in-vm")
        out += ["timeout %d %s" % (s, t) for t, s in self.timeouts.items()]
        out += ["boot %s %s" % (key, " ".join(ts)) for key, ts in self.boots]
        return out


def select_tests(tests_dir, test, with_pair):
    """(the scripts, whether the two-VM test runs)."""
    if test == "vmpair":
        return [], True
    if test:
        return [tests_dir + "/" + test + ".sh"], False
    found = glob.glob(glob.escape(tests_dir) + "/*.sh")
    # A pattern that matches nothing stays as it is (bash): no such test.
    found = sorted(found, key=_collate_key) or [tests_dir + "/*.sh"]
    return found, with_pair


def plan(top, tests, pair, kernels, batch, parallel, need_debug=False,
         kunit=None, debug_built=lambda: True, times=None):
    """Plan the boots of TESTS (paths). kernels: KIW_KERNELS; kunit: the
    KUnit script to run first in a debug boot (None: not); debug_built():
    whether the debug kernel is built (asked only when one is needed)."""
    times = times or {}
    p = Plan()
    p.pair = pair
    p.need_debug = need_debug
    others = [k for k in kernels if k not in ("stock", "debug")]
    if pair:
        p.need_other.update(PAIR_KERNELS)

    def shown(t):
        return t[len(top) + 1:] if t.startswith(top + "/") else t

    def timeout(t):
        if t == kunit:
            return KUNIT_TIMEOUT
        v = header_param(t, "timeout") or str(DEFAULT_TIMEOUT)
        return int(v) if v.isdigit() else None

    keys, group = [], {}
    for t in tests:
        if not os.path.isfile(t):
            p.fails.append("vm: no such test: " + shown(t))
            continue
        kernel = header_param(t, "kernel") or "debug"
        mem = header_param(t, "mem") or ""
        siw = header_param(t, "siw") or ""
        tmo = timeout(t)
        if tmo is None:
            p.fails.append("vm: %s: timeout=%s is not a number of seconds"
                           % (shown(t), header_param(t, "timeout")))
            continue
        if kernel == "stock":
            p.need_stock = True
        elif kernel == "debug":
            p.need_debug = True
            siw = ""    # the debug kernel has siw
        else:
            if kernel not in others:
                p.fails.append("vm: %s: kernel=%s is not one of %s"
                               % (shown(t), kernel, " ".join(kernels)))
                continue
            if siw == "yes":
                p.fails.append("vm: %s: siw=yes: there is no siw for "
                               "kernel=%s (only stock and debug)"
                               % (shown(t), kernel))
                continue
            p.need_other.add(kernel)
        key = "%s %s %s" % (kernel, mem or "default", siw or "no")
        p.timeouts[t] = tmo
        if header_param(t, "batch") == "alone":
            p.boots.append((key, [t]))
            continue
        if key not in group:
            keys.append(key)
            group[key] = []
        group[key].append(t)
    if kunit and p.need_debug:
        p.kunit_in_vm = True
        key = "debug default no"
        if key not in group:
            keys.append(key)
            group[key] = []
        group[key].insert(0, kunit)
        p.timeouts[kunit] = KUNIT_TIMEOUT
    # The stock kernel's boots run beside the debug kernel's build when it
    # is not built yet: one at a time then.
    par_stock = parallel
    if p.need_debug and not debug_built():
        par_stock = 1
    for key in keys:
        members = group[key]
        n = len(members)
        par = parallel if key.startswith("debug") else par_stock
        boots = (n + batch - 1) // batch
        boots = max(boots, par)
        boots = min(boots, n)
        load, count = [0] * boots, [0] * boots
        member = [[] for _ in range(boots)]
        # Longest first; equal times: by path, backwards (sort -rn's
        # last resort), each onto the least loaded boot with room.
        order = sorted(((expected(times, test_name(t), p.timeouts[t]), t)
                        for t in members),
                       key=lambda e: (e[0], _collate_key(e[1])),
                       reverse=True)
        for w, t in order:
            best = None
            for i in range(boots):
                if count[i] >= batch:
                    continue
                if (best is None or load[i] < load[best] or
                        (load[i] == load[best] and count[i] < count[best])):
                    best = i
            best = best or 0
            load[best] += w + 1
            count[best] += 1
            member[best].append(t)
        for ts in member:
            if not ts:
                continue
            ts = sorted(ts, key=lambda t: (t != kunit, _collate_key(t)))
            p.boots.append((key, ts))
    return p


def save_times(files, rows, out):
    """Write FILEs' times updated by ROWS ((secs, name)), sorted by name."""
    times = load_times(files)
    for secs, name in rows:
        times[name] = secs
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for name in sorted(times, key=_collate_key):
            f.write("%s %s\n" % (times[name], name))
    os.replace(tmp, out)


# --- the time report --------------------------------------------------------

# The CI budget (Documentation/testing.rst, "Time budget"): .ci/run on a
# fresh 2-core machine must end within KIW_BUDGET seconds, cold caches
# included; a VM test should take at most KIW_TEST_TARGET seconds of guest
# time on the debug kernel. KIW_COLD_EXTRA: what a cold run pays on top of
# a warm one, besides the debug kernel's build: Debian packages, the stock
# kernel's download, linux-source's unpacking, siw's build (estimated: a
# cold run was never measured whole). KIW_CI_LIMIT: the hard limit of the
# CI job (a cold run on 2 cores), beside the project's own budget.
# KIW_DEBUG_BUILD_WALL/CPU: the debug kernel's build on an idle 2-core
# machine (measured: Documentation/testing.rst).
LIMITS = {"KIW_BUDGET": 2700, "KIW_TEST_TARGET": 60, "KIW_COLD_EXTRA": 300,
          "KIW_CI_LIMIT": 4500, "KIW_DEBUG_BUILD_WALL": 840,
          "KIW_DEBUG_BUILD_CPU": 1590}
# Debian's other kernels, cold (measured on 2026-11-27 on a loaded 2-core
# host, Documentation/testing.rst): 6.1's image, 7.2's lists and image,
# 7.2's sid chroot (debootstrap). They are fetched beside the debug
# kernel's build; a warm run that found them cached adds them to its
# projection of a cold one.
COLD_OTHER = {"6.1-image": 16, "6.1-kdir": 0, "7.2-image": 85,
              "7.2-kdir": 340}


def limits(env):
    """LIMITS, as overridden by the environment."""
    return {k: int(env.get(k) or v) for k, v in LIMITS.items()}


def _numeric_key(text):
    """sort -n's value of a leading number ("12.5|..." -> 12.5)."""
    m = re.match(r"\s*(-?[0-9]*(?:\.[0-9]*)?)", text)
    try:
        return float(m.group(1))
    except ValueError:
        return 0.0


def budget(total, cpu, phases, warm, built_debug, lim):
    """The projected time of a cold CI run, as report lines."""
    out = []
    other = sum(COLD_OTHER.get(item, 0) for item in warm)
    extra = lim["KIW_COLD_EXTRA"]
    if built_debug:
        # This was a cold run, but for the packages.
        cold = total + extra + other
        out.append("# budget: this run built the debug kernel: a cold run "
                   "~%d s (+ ~%d s of packages and downloads, + ~%d s for "
                   "the other kernels' downloads and chroot this run found "
                   "cached)" % (cold, extra, other))
    else:
        # Cold: the build runs beside the stock kernel's phases, so it
        # replaces them on the critical path when it takes longer. So do
        # the other kernels' phases after them; their fetches (background,
        # from the kernels phase on) overlap the stock kernel's phases
        # too, and delay the others only when longer.
        stock = post = 0
        for name, wall, _ in phases:
            if name == "kernels" or "(stock kernel)" in name:
                stock += int(wall)
            elif "(other Debian kernels)" in name:
                post += int(wall)
        side = max(stock, other) + post
        build = max(lim["KIW_DEBUG_BUILD_WALL"], side)
        cold = total - stock - post + build + extra
        out.append("# budget: warm run %d s; cold, the debug kernel's build "
                   "(~%d s on 2 idle cores) overlaps the phases of Debian's "
                   "kernels (%d s here; ~%d s cold, with ~%d s of 6.1's and "
                   "7.2's downloads and chroot this run found cached), plus "
                   "~%d s of packages: ~%d s"
                   % (total, lim["KIW_DEBUG_BUILD_WALL"], stock + post, side,
                      other, extra, cold))
    bcpu = lim["KIW_DEBUG_BUILD_CPU"]
    low = (cpu + (0 if built_debug else bcpu)) // 2
    pct = cold * 100 // lim["KIW_BUDGET"]
    out.append("# budget: ~%d%% of the %d s CI budget (CPU: %d s here%s: "
               "at least %d s on 2 cores)"
               % (pct, lim["KIW_BUDGET"], cpu,
                  "" if built_debug else " + %d s for the build" % bcpu, low))
    if pct >= 85:
        out.append("# WARNING: the projected cold run is at %d%% of the CI "
                   "budget: see Documentation/testing.rst, \"Time budget\""
                   % pct)
    out.append("# budget: ~%d%% of the CI job's hard limit (%d s, cold, 2 "
               "cores)" % (cold * 100 // lim["KIW_CI_LIMIT"],
                           lim["KIW_CI_LIMIT"]))
    return out


def report(total, cpu, rows, lim, debug_build=None, long_=None,
           full=True, built_debug=False):
    """The time report. rows: {"phase": [[name, wall, cpu]...], "boot":
    [[n, kernel, wall, cpu, scripts, tests]...], "test": [[secs, name,
    kernel, boot, timeout, user, sys]...], "warm": [[item]...]};
    debug_build: (wall, cpu) of the debug kernel's build in this run;
    full: a whole make check (only that projects a cold run)."""
    out = ["# ===== time report (wall: elapsed; CPU: user + system of all "
           "processes)", "# %-34s %7s %7s" % ("phase", "wall", "CPU")]
    for name, wall, pcpu in rows.get("phase", []):
        out.append("# %-34s %6ss %6ss" % (name, wall, pcpu))
    if debug_build:
        out.append("# %-34s %6ss %6ss" % ("(debug kernel build, background)",
                                          debug_build[0],
                                          debug_build[1] or "?"))
    out.append("# %-34s %6ss %6ss" % ("total", total, cpu))
    if rows.get("boot"):
        out.append("# boots: wall, QEMU's CPU, the scripts' guest time (the "
                   "rest: build, boot, kmemleak scans)")
        out.append("# %-6s %-6s %7s %7s %8s %6s"
                   % ("boot", "kernel", "wall", "CPU", "scripts", "tests"))
        for r in rows["boot"]:
            out.append("# %-6s %-6s %6ss %6ss %7ss %6s" % tuple(r[:6]))
    tests = rows.get("test", [])
    if tests:
        target = lim["KIW_TEST_TARGET"]
        out.append("# VM tests, slowest first: guest seconds (cleanup "
                   "included); guest CPU")
        out.append("# seconds in user space and in the kernel (two CPUs: "
                   "the rest of twice the")
        out.append("# seconds is idle, waiting); against the %d s target "
                   "and the test's timeout=" % target)
        out.append("# %8s %7s %7s  %-24s %-6s %4s %8s"
                   % ("seconds", "user", "sys", "test", "kernel", "boot",
                      "timeout"))
        # sort -t'|' -k1,1 -rn: equal seconds by the whole row, backwards
        lines = sorted(("|".join(r) for r in tests),
                       key=lambda l: (_numeric_key(l), _collate_key(l)),
                       reverse=True)
        for line in lines:
            secs, name, kernel, boot, tmo, user, sys_ = \
                (line.split("|") + [""] * 7)[:7]
            note = ""
            if _whole_seconds(secs) >= target:
                note = "  over the %d s target" % target
            if _whole_seconds(secs) * 2 >= int(tmo):
                note += "  over half its timeout"
            out.append("# %8s %7s %7s  %-24s %-6s %4s %7ss%s"
                       % (secs, user, sys_, name, kernel, boot, tmo, note))
    if long_ and long_ != "0":
        out.append("# KIW_LONG=%s: the tests ran their long variants" % long_)
    if full:
        out += budget(total, cpu, rows.get("phase", []),
                      [r[0] for r in rows.get("warm", [])], built_debug, lim)
    return out


def read_rows(f):
    """"KIND FIELD|FIELD..." lines -> {KIND: [[FIELD...]...]}."""
    rows = {}
    for line in f:
        line = line.rstrip("\n")
        kind, _, rest = line.partition(" ")
        if kind:
            rows.setdefault(kind, []).append(rest.split("|"))
    return rows


def debug_built(cmd):
    """Whether scripts/debug-kernel.sh has built the debug kernel."""
    if not cmd:
        return False
    r = subprocess.run([cmd, "--print"], stdout=subprocess.PIPE, text=True,
                       check=False)
    lines = r.stdout.splitlines()
    # (a failed --print prints no directory: "/.done" is not there)
    path = (lines[-1] if lines and r.returncode == 0 else "") + "/.done"
    return os.path.isfile(path)


def main(argv):
    try:
        locale.setlocale(locale.LC_COLLATE, "")
    except locale.Error:
        pass
    ap = argparse.ArgumentParser(prog="checkplan.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("plan")
    a.add_argument("--top", required=True)
    a.add_argument("--tests-dir", required=True)
    a.add_argument("--test", default="")
    a.add_argument("--with-pair", action="store_true")
    a.add_argument("--kernels", required=True)
    a.add_argument("--batch", type=int, required=True)
    a.add_argument("--parallel", type=int, required=True)
    a.add_argument("--need-debug", action="store_true")
    a.add_argument("--kunit", default=None)
    a.add_argument("--debug-kernel", default=None)
    a.add_argument("--times", action="append", default=[])
    s = sub.add_parser("save-times")
    s.add_argument("--out", required=True)
    s.add_argument("--times", action="append", default=[])
    r = sub.add_parser("report")
    r.add_argument("--total", type=int, required=True)
    r.add_argument("--cpu", type=int, required=True)
    r.add_argument("--partial", action="store_true")
    r.add_argument("--built-debug", action="store_true")
    r.add_argument("--debug-build", nargs=2, default=None)
    r.add_argument("--long", default="")
    o = ap.parse_args(argv)
    if o.cmd == "report":
        db = o.debug_build if o.debug_build and o.debug_build[0] else None
        for line in report(o.total, o.cpu, read_rows(sys.stdin),
                           limits(os.environ), debug_build=db, long_=o.long,
                           full=not o.partial, built_debug=o.built_debug):
            print(line)
        return 0
    if o.cmd == "save-times":
        rows = []
        for line in sys.stdin:
            w = line.split(None, 1)
            if len(w) == 2:
                rows.append((w[0], w[1].strip()))
        save_times(o.times, rows, o.out)
        return 0
    if o.batch < 1 or o.parallel < 1:
        ap.error("--batch and --parallel must be at least 1")
    kernels = o.kernels.split()
    tests, pair = select_tests(o.tests_dir, o.test, o.with_pair)
    p = plan(o.top, tests, pair, kernels, o.batch, o.parallel,
             need_debug=o.need_debug, kunit=o.kunit or None,
             debug_built=lambda: debug_built(o.debug_kernel),
             times=load_times(o.times))
    others = [k for k in kernels if k not in ("stock", "debug")]
    for line in p.lines(others):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
