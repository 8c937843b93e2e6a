#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The table, the targets and the chart of "make bench".

Usage: report.py RESULTS.csv META.txt OUTDIR

RESULTS.csv has one line per measurement: rep,stack,test,value,unit, value
a number or FAILED. Each cell of the table is the median over the
repetitions that produced a number; a cell whose runs all failed is
FAILED, one where some failed carries a "*" and says how many did. The
ratios and the targets (Documentation/benchmark.rst, issue 17's) compare
medians of the same guest run only. Writes OUTDIR/bench.png (gnuplot) and
prints the table.

The tests: the bandwidth headline (BW_TESTS, perftest's default completion
moderation), the same with every work request signalled (BWQ1_TESTS,
"<test>/Q1"), latency, connection setup rate at 100 and 1000 connections,
kernel memory per connection held (KiB, both ends) at 1, 100 and 1000,
and the 1000-connection run's checks (conn1000/ok, /leak, /unload).
"""

import argparse
import csv
import math
import os
import shutil
import statistics
import subprocess
import sys

STACKS = ["tcp", "siw", "siw-crc", "kiw", "kiw-crc", "kiw-mrk"]
HEAD = {"tcp": "TCP", "siw": "siw", "siw-crc": "siw+crc", "kiw": "kiw",
        "kiw-crc": "kiw+crc", "kiw-mrk": "kiw+mrk"}
BW_TESTS = [f"{op}_bw/{s}" for s in ("4K", "64K", "1M")
            for op in ("write", "read", "send")] + ["write_bw_16qp/64K"]
LAT_TESTS = [f"{op}_lat/{s}" for s in ("8", "4K") for op in ("write", "send")]
BWQ1_TESTS = [f"{t}/Q1" for t in BW_TESTS]
# cm_connect/50: the one count Debian's libsiw sets up whole in one
# process (it fails every QP after the 71st), so siw has a valid rate.
CM_TESTS = ["cm_connect/50", "cm_connect/100", "cm_connect/1000"]
MEM_TESTS = ["mem/1", "mem/100", "mem/1000"]
UNITS = {"bw": "Gbit/s", "lat": "us", "cm": "conn/s", "mem": "KiB/conn"}
# The table's sections: kind, tests, heading.
SECTIONS = [("bw", BW_TESTS, "bandwidth, perftest's default completion "
             "moderation, -n (the headline)"),
            ("bw", BWQ1_TESTS, "bandwidth, every work request signalled "
             "(-Q 1), -D"),
            ("lat", LAT_TESTS, "latency (lower is better)"),
            ("cm", CM_TESTS, "connection setup rate"),
            ("mem", MEM_TESTS, "kernel memory per connection held, both "
             "ends (lower is better)")]
# The 1000-connection run (guest.sh m_mem 1000).
CONN_N = 1000
CONN_TESTS = [f"conn{CONN_N}/ok", f"conn{CONN_N}/leak",
              f"conn{CONN_N}/unload"]
CONN_TOL = f"conn{CONN_N}/tol"
# Leak tolerance, KiB, when the run did not say (guest.sh leak_tolerance,
# conn1000/tol): 1 MiB, or a tenth of what the connections held.
LEAK_MIN_KIB = 1024
LEAK_FRACTION = 0.1


class Cell:
    """The runs of one stack on one test."""

    def __init__(self):
        self.values = []
        self.failed = 0

    @property
    def runs(self):
        return len(self.values) + self.failed

    @property
    def median(self):
        return statistics.median(self.values) if self.values else None

    def text(self):
        if self.runs == 0:
            return "-"
        if not self.values:
            return "FAILED"
        mark = "*" if self.failed else ""
        return fmt(self.median) + mark


def fmt(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def load(path):
    cells = {}
    for row in csv.DictReader(open(path)):
        cell = cells.setdefault((row["stack"], row["test"]), Cell())
        try:
            v = float(row["value"])
            if math.isfinite(v):
                cell.values.append(v)
            else:
                cell.failed += 1
        except ValueError:
            cell.failed += 1
    return cells


class Report:
    def __init__(self, cells):
        self.cells = cells

    def cell(self, stack, test):
        return self.cells.get((stack, test), Cell())

    def med(self, stack, test):
        return self.cell(stack, test).median

    def ratio(self, a, b):
        """Median of a over median of b, or a reason there is none."""
        if a.runs == 0 or b.runs == 0:
            return None, "-"
        if a.median is None or b.median is None:
            return None, "FAILED"
        if b.median == 0:
            return None, "-"
        r = a.median / b.median
        return r, f"{r:.2f}x"

    def tests(self, names):
        return [t for t in names if any((s, t) in self.cells for s in STACKS)]

    def table(self):
        lines = []
        tcp = self.cell("tcp", "tcp")
        w = [21, 8] + [8] * 5 + [8, 12, 8, 10, 9, 9]
        hdr = ["test", "unit"] + [HEAD[s] for s in STACKS[1:]] + \
              ["kiw/siw", "kiw+c/siw+c", "kiw/TCP", "kiw+c/TCP", "CRC cost",
               "mrk cost"]
        lines.append(row(hdr, w))
        lines.append("-" * (sum(w) + len(w) - 1))
        for kind, names, heading in SECTIONS:
            tests = self.tests(names)
            if not tests:
                continue
            lines.append(f"  {heading}:")
            for t in tests:
                c = {s: self.cell(s, t) for s in STACKS}
                r1 = self.ratio(c["kiw"], c["siw"])[1]
                r2 = self.ratio(c["kiw-crc"], c["siw-crc"])[1]
                r3 = self.ratio(c["kiw"], tcp)[1] if kind == "bw" else ""
                r4 = self.ratio(c["kiw-crc"], tcp)[1] if kind == "bw" else ""
                crc = self.cost(c["kiw-crc"], c["kiw"], kind)
                mrk = self.cost(c["kiw-mrk"], c["kiw"], kind)
                lines.append(row([t, UNITS[kind]] +
                                 [c[s].text() for s in STACKS[1:]] +
                                 [r1, r2, r3, r4, crc, mrk], w))
        lines.append(f"TCP (iperf3, one stream): {tcp.text()} Gbit/s")
        conn = self.conn_lines()
        if conn:
            lines.append(f"{CONN_N} connections held at once, each moving "
                         "data, then torn down:")
            lines += [f"  {x}" for x in conn]
        return lines

    def cost(self, with_, without, kind):
        """What an option costs kiw: bandwidth lost, latency or time added."""
        r, txt = self.ratio(with_, without)
        if r is None:
            return txt
        loss = (1 - r) if kind in ("bw", "cm") else (r - 1)
        return f"{loss * 100:.0f}%"

    def conn_check(self, stack):
        """The 1000-connection run of STACK: (verdict, text), or None."""
        ok, leak, unload = (self.cell(stack, t) for t in CONN_TESTS)
        if ok.runs == 0:
            return None
        if ok.median is None or leak.median is None or unload.median is None:
            return "FAILED", f"{HEAD[stack]}: FAILED"
        held = self.med(stack, f"mem/{CONN_N}")
        tols = self.cell(stack, CONN_TOL).values
        tol = LEAK_MIN_KIB
        if tols:
            tol = min(tols)
        elif held is not None:
            tol = max(tol, held * CONN_N * LEAK_FRACTION)
        # The worst run counts: every run must pass.
        n_ok = min(ok.values)
        worst_leak = max(leak.values)
        unloaded = min(unload.values) == 1
        met = n_ok == CONN_N and worst_leak <= tol and unloaded and \
            not (ok.failed or leak.failed or unload.failed)
        text = (f"{HEAD[stack]}: {n_ok:.0f} of {CONN_N} up and moved data, "
                f"{worst_leak:.0f} KiB left after the teardown "
                f"(tolerance {tol:.0f}), module "
                f"{'unloaded and loaded again' if unloaded else 'did NOT unload'}"
                + (f"; {ok.failed} run(s) FAILED" if ok.failed else ""))
        return ("MET" if met else "MISSED"), text

    def conn_lines(self):
        out = []
        for s in STACKS[1:]:
            c = self.conn_check(s)
            if c:
                out.append(f"{c[0]:7s} {c[1]}")
        return out

    def targets(self):
        """(verdict, what, target) for every target of issue 17."""
        out = []

        def check(what, num, den, goal, cost=False, factor=1.0):
            """Compare num / (factor * den) (or 1 - num/den for a cost)
            with goal."""
            if num.runs == 0:
                return
            r, txt = self.ratio(num, den)
            if r is None:
                out.append(("FAILED" if txt == "FAILED" else "n/a", what,
                            goal))
                return
            r /= factor
            if cost:
                r = 1 - r
            limit = float(goal.split()[1].rstrip("%")) / \
                (100 if goal.endswith("%") else 1)
            ok = r >= limit if goal.startswith(">=") else r <= limit
            shown = f"{r * 100:.0f}%" if cost else f"{r:.2f}"
            out.append(("MET" if ok else "MISSED", f"{what} = {shown}", goal))

        tcp = self.cell("tcp", "tcp")
        for t in ("write_lat/8", "send_lat/8", "write_lat/4K", "send_lat/4K"):
            check(f"{t}: kiw / siw latency", self.cell("kiw", t),
                  self.cell("siw", t), "<= 1")
            check(f"{t}: kiw+crc / siw+crc latency", self.cell("kiw-crc", t),
                  self.cell("siw-crc", t), "<= 1")
        for t in CM_TESTS:
            check(f"{t}: setup rate kiw / siw", self.cell("kiw", t),
                  self.cell("siw", t), ">= 1")
        check("kiw setup rate, cm_connect/1000 / cm_connect/100",
              self.cell("kiw", "cm_connect/1000"),
              self.cell("kiw", "cm_connect/100"),
              ">= 0.8")
        for t in MEM_TESTS[1:]:
            check(f"{t}: memory per connection kiw / siw",
                  self.cell("kiw", t), self.cell("siw", t), "<= 1")
        # Each stack as it loads: kiw frames with CRC, siw without.
        check("mem/100: memory per connection, defaults, kiw+crc / siw",
              self.cell("kiw-crc", "mem/100"), self.cell("siw", "mem/100"),
              "<= 1")
        for s in ("kiw", "siw"):
            c = self.conn_check(s)
            if c:
                out.append((c[0], c[1], "all up, no leak, unloads"))
        for t in BW_TESTS:
            check(f"{t}: kiw+crc / siw+crc", self.cell("kiw-crc", t),
                  self.cell("siw-crc", t), ">= 2")
        big = [f"{op}_bw/{s}" for s in ("64K", "1M")
               for op in ("write", "read", "send")]
        for t in big:
            check(f"{t}: kiw+crc / TCP", self.cell("kiw-crc", t), tcp,
                  ">= 0.7")
        for t in big:
            k = self.cell("kiw", t)
            check(f"{t}: CRC cost, 1 - kiw+crc / kiw",
                  self.cell("kiw-crc", t), k, "<= 15%", cost=True)
            check(f"{t}: marker cost, 1 - kiw+mrk / kiw",
                  self.cell("kiw-mrk", t), k, "<= 10%", cost=True)
        return out

    def chart(self, outdir, title):
        """bench.png: the headline bandwidth on top, the -Q 1 bandwidth
        below it, then latency, setup rate and memory; one bar per stack,
        the ratio that matters above each group, the 1000-connection
        checks at the bottom."""
        stacks = STACKS[1:]
        colors = {"siw": "#b0b0b0", "siw-crc": "#6e6e6e", "kiw": "#9ecae1",
                  "kiw-crc": "#2171b5", "kiw-mrk": "#41ab5d"}
        # kind, tests, y label, ratio above each group (num, den), layout
        # (origin x, y, size x, y).
        panels = [("bw", self.tests(BW_TESTS),
                   "Gbit/s, default moderation (headline)",
                   ("kiw-crc", "siw-crc"), (0, 0.64, 1, 0.32)),
                  ("bwq1", self.tests(BWQ1_TESTS), "Gbit/s, -Q 1",
                   ("kiw-crc", "siw-crc"), (0, 0.34, 1, 0.30)),
                  ("lat", self.tests(LAT_TESTS), "us (lower is better)",
                   ("kiw", "siw"), (0, 0.03, 0.45, 0.31)),
                  ("cm", self.tests(CM_TESTS), "conn/s (higher is better)",
                   ("kiw", "siw"), (0.45, 0.03, 0.25, 0.31)),
                  ("mem", self.tests(MEM_TESTS),
                   "KiB per connection (lower is better)",
                   ("kiw", "siw"), (0.70, 0.03, 0.30, 0.31))]
        if not any(p[1] for p in panels) or not shutil.which("gnuplot"):
            return None
        conn = "; ".join(" ".join(x.split(None, 1))
                         for x in self.conn_lines())
        gp = ['set terminal pngcairo size 1500,1400 font "DejaVu Sans,11" '
              "noenhanced",
              f'set output "{outdir}/bench.png"',
              "set multiplot",
              f'set label 1 "{title}" at screen 0.5, 0.99 center '
              'font ",13"',
              'set label 2 "above each group: kiw+crc / siw+crc (bandwidth),'
              ' kiw / siw (latency, setup rate, memory)" at screen 0.5, 0.975'
              ' center',
              "set style fill solid 0.9 border -1", "set grid ytics",
              "set yrange [0:*]", "set offsets 0, 0, graph 0.15, 0",
              "set xtics scale 0"]
        if conn:
            gp.append(f'set label 4 "{CONN_N} connections: {conn}" at '
                      'screen 0.5, 0.012 center font ",10"')
        first = True
        for kind, tests, ylabel, (num, den), (ox, oy, sx, sy) in panels:
            if not tests:
                continue
            dat = os.path.join(outdir, f"bench-{kind}.dat")
            tics, ratios = [], []
            with open(dat, "w") as f:
                for i, t in enumerate(tests):
                    base = i * (len(stacks) + 1)
                    mid = base + (len(stacks) - 1) / 2
                    tics.append(f'"{t}" {mid}')
                    top = 0
                    for j, s in enumerate(stacks):
                        c = self.cell(s, t)
                        v = c.median
                        top = max(top, v or 0)
                        label = "FAILED" if c.runs and v is None else ""
                        f.write(f'{base + j} {v if v is not None else "NaN"} '
                                f'"{colors[s]}" "{label}"\n')
                    r, txt = self.ratio(self.cell(num, t), self.cell(den, t))
                    if txt != "-":
                        ratios.append((mid, top, txt))
            gp.append(f"set origin {ox}, {oy * 0.96}")
            gp.append(f"set size {sx}, {sy * 0.96}")
            gp.append(f'set ylabel "{ylabel}"')
            gp.append(f'set xtics ({", ".join(tics)})')
            gp.append(f"set xrange [-1:{len(tests) * (len(stacks) + 1) - 1}]")
            gp.append("unset label 3")
            gp.append("set key outside right" if first else "unset key")
            rdat = dat.replace(".dat", "-ratio.dat")
            with open(rdat, "w") as f:
                for mid, top, txt in ratios:
                    f.write(f'{mid} {top} "{txt}"\n')
            plots = [f'"{dat}" using 1:2:(0.85):(hex2rgb(strcol(3))) '
                     "with boxes lc rgb variable notitle",
                     f'"{dat}" using 1:(0):4 with labels rotate by 90 left '
                     'offset 0,0.3 tc rgb "#d62728" notitle',
                     f'"{rdat}" using 1:2:3 with labels offset 0,1 '
                     'font ",11:Bold" notitle']
            if first:
                plots += [f'NaN with boxes lc rgb "{colors[s]}" '
                          f'title "{HEAD[s]}"' for s in stacks]
            tcp = self.med("tcp", "tcp")
            if kind in ("bw", "bwq1") and tcp:
                plots.append(f'{tcp} with lines dt 2 lw 2 lc rgb "black" '
                             'title "TCP (iperf3)"')
            gp.append("plot " + ", \\\n     ".join(plots))
            first = False
        gp.append("unset multiplot")
        script = os.path.join(outdir, "bench.gp")
        with open(script, "w") as f:
            f.write("hex2rgb(s) = int('0x' . s[2:7])\n")
            f.write("\n".join(gp) + "\n")
        res = subprocess.run(["gnuplot", script], capture_output=True,
                             text=True)
        if res.returncode != 0:
            sys.stderr.write(res.stderr)
            return None
        return os.path.join(outdir, "bench.png")


def row(cols, widths):
    out = []
    for i, (c, w) in enumerate(zip(cols, widths)):
        out.append(c.ljust(w) if i < 2 else c.rjust(w))
    return " ".join(out).rstrip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("meta")
    ap.add_argument("outdir")
    a = ap.parse_args()
    rep = Report(load(a.results))
    meta = open(a.meta).read().splitlines() if os.path.exists(a.meta) else []
    reps = max((int(r["rep"]) for r in csv.DictReader(open(a.results))),
               default=0)
    print("kiw benchmark: " + "; ".join(meta[:3]))
    print(f"median of {reps} run(s) per cell; '*' = some runs of the cell "
          "FAILED; ratios of medians")
    print()
    for line in rep.table():
        print(line)
    print()
    print("Targets (Documentation/benchmark.rst):")
    for verdict, desc, goal in rep.targets():
        print(f"  {verdict:7s} {desc}" + (f"   (target {goal})" if goal else ""))
    partial = sorted(f"{s} {t}: {c.failed} of {c.runs} failed"
                     for (s, t), c in rep.cells.items()
                     if c.failed and c.values)
    if partial:
        print()
        print("Cells with failed runs: " + "; ".join(partial))
    date = meta[0].replace("date: ", "") if meta else ""
    png = rep.chart(a.outdir, f"kiw, siw and TCP in one guest ({date}, "
                    f"median of {reps}; TCG on a shared host)")
    print()
    print(f"chart: {png}" if png else "chart: not drawn (no gnuplot?)")


if __name__ == "__main__":
    main()
