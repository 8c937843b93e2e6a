#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Tests of checkplan.py (make check's plan of the VM tests' boots), on
made-up test headers and times: the headers are read as check.sh always
read them, bad ones fail, the scripts are spread over the boots by their
expected time, within the batch size, KUnit first. No VM needed.

Usage: python3 scripts/checkplan_test.py [-v]
"""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checkplan  # noqa: E402

KERNELS = ["stock", "6.1", "7.2", "debug"]


class Tree(unittest.TestCase):
    """A temporary top directory with tests under t/."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.top = self.tmp.name
        self.dir = os.path.join(self.top, "t")
        os.mkdir(self.dir)

    def tearDown(self):
        self.tmp.cleanup()

    def script(self, name, header, more=""):
        path = os.path.join(self.dir, name + ".sh")
        with open(path, "w", encoding="utf-8") as f:
            f.write("#!/bin/bash\n%s\n%s" % (header, more))
        return path

    def plan(self, tests, batch=12, parallel=1, times=None, **kw):
        return checkplan.plan(self.top, tests, False, KERNELS, batch,
                              parallel, times=times, **kw)

    def names(self, p):
        return [(key, [checkplan.test_name(t) for t in ts])
                for key, ts in p.boots]


class Headers(Tree):
    def test_param(self):
        t = self.script("a", "# kiw-vm: kernel=stock timeout=30 timeout=90",
                      "# kiw-vm: mem=512\n# kiw-vm: mem=2048\n")
        self.assertEqual(checkplan.header_param(t, "kernel"), "stock")
        # the last on the line, the first line that has it
        self.assertEqual(checkplan.header_param(t, "timeout"), "90")
        self.assertEqual(checkplan.header_param(t, "mem"), "512")
        self.assertIsNone(checkplan.header_param(t, "siw"))

    def test_only_the_header_line(self):
        t = self.script("a", "# kernel=stock", "# kiw-vm: xkernel=6.1\n")
        self.assertIsNone(checkplan.header_param(t, "kernel"))

    def test_defaults(self):
        t = self.script("a", "echo no header")
        p = self.plan([t])
        self.assertEqual(p.boots, [("debug default no", [t])])
        self.assertEqual(p.timeouts, {t: 300})
        self.assertTrue(p.need_debug)
        self.assertFalse(p.need_stock)

    def test_bad_headers_fail(self):
        ts = [self.script("k", "# kiw-vm: kernel=5.10"),
              self.script("s", "# kiw-vm: kernel=6.1 siw=yes"),
              self.script("n", "# kiw-vm: kernel=stock timeout=soon"),
              os.path.join(self.dir, "gone.sh"),
              self.script("ok", "# kiw-vm: kernel=6.1")]
        p = self.plan(ts)
        self.assertEqual(p.fails, [
            "vm: t/k.sh: kernel=5.10 is not one of stock 6.1 7.2 debug",
            "vm: t/s.sh: siw=yes: there is no siw for kernel=6.1 "
            "(only stock and debug)",
            "vm: t/n.sh: timeout=soon is not a number of seconds",
            "vm: no such test: t/gone.sh"])
        self.assertEqual(self.names(p), [("6.1 default no", ["ok"])])
        self.assertEqual(p.need_other, {"6.1"})
        self.assertFalse(p.need_stock)


class Times(Tree):
    def test_load_later_wins(self):
        a = os.path.join(self.top, "seed")
        b = os.path.join(self.top, "last")
        with open(a, "w", encoding="utf-8") as f:
            f.write("# a comment\n10.5 x\n20 y\n\n")
        with open(b, "w", encoding="utf-8") as f:
            f.write("30.2 y\n")
        times = checkplan.load_times([a, b, os.path.join(self.top, "no")])
        self.assertEqual(times, {"x": "10.5", "y": "30.2"})

    def test_expected(self):
        times = {"x": "121.9", "y": "0.5"}
        self.assertEqual(checkplan.expected(times, "x", 900), 121)
        self.assertEqual(checkplan.expected(times, "y", 900), 0)
        self.assertEqual(checkplan.expected(times, "z", 900), 300)

    def test_save(self):
        seed = os.path.join(self.top, "seed")
        out = os.path.join(self.top, "vm-times")
        with open(seed, "w", encoding="utf-8") as f:
            f.write("# seed\n5.0 b\n7.0 a\n")
        checkplan.save_times([seed, out], [("9.5", "b"), ("1.0", "c")], out)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), "7.0 a\n9.5 b\n1.0 c\n")


class Boots(Tree):
    def test_groups(self):
        ts = [self.script("a", "# kiw-vm: kernel=stock"),
              self.script("b", "# kiw-vm: kernel=stock siw=yes"),
              self.script("c", "# kiw-vm: kernel=debug siw=yes"),
              self.script("d", "# kiw-vm: kernel=debug mem=2048"),
              self.script("e", "# kiw-vm: kernel=stock batch=alone"),
              self.script("f", "# kiw-vm: kernel=stock"),
              self.script("g", "# kiw-vm: kernel=7.2")]
        p = self.plan(ts)
        # alone first, then the groups in the order first seen
        self.assertEqual(self.names(p), [
            ("stock default no", ["e"]),
            ("stock default no", ["a", "f"]),
            ("stock default yes", ["b"]),
            ("debug default no", ["c"]),     # the debug kernel has siw
            ("debug 2048 no", ["d"]),
            ("7.2 default no", ["g"])])
        self.assertTrue(p.need_stock and p.need_debug)
        self.assertEqual(p.need_other, {"7.2"})

    def test_balanced_longest_first(self):
        ts = [self.script("t%d" % i, "# kiw-vm: kernel=debug") for i in range(6)]
        times = {"t0": "100", "t1": "90", "t2": "50", "t3": "40",
                 "t4": "30", "t5": "10"}
        p = self.plan(ts, batch=3, times=times)
        # (load: seconds + 1 a script) 100 -> A 101; 90 -> B 91; 50 -> B
        # 142; 40 -> A 142; 30: equal loads and counts: the first, A, now
        # full; 10 -> B.
        self.assertEqual(self.names(p), [
            ("debug default no", ["t0", "t3", "t4"]),
            ("debug default no", ["t1", "t2", "t5"])])

    def test_batch_limit(self):
        ts = [self.script("t%d" % i, "# kiw-vm: kernel=stock timeout=90")
              for i in range(5)]
        p = self.plan(ts, batch=2, times={"t0": "1000"})
        # 3 boots of at most 2: t0 alone, the others (30 s each) taken
        # t4, t3, t2, t1 onto the least loaded boot with room
        self.assertEqual([b for _, b in self.names(p)],
                         [["t0"], ["t2", "t4"], ["t1", "t3"]])

    def test_batch_one(self):
        ts = [self.script("t%d" % i, "# kiw-vm: kernel=stock") for i in range(3)]
        p = self.plan(ts, batch=1)
        # equal expected times: by path, backwards
        self.assertEqual([b for _, b in p.boots], [[t] for t in ts[::-1]])

    def test_ties(self):
        # equal times: by path backwards; equal loads: fewer scripts first
        ts = [self.script(n, "# kiw-vm: kernel=stock timeout=60")
              for n in ("a", "b", "c", "d")]
        p = self.plan(ts, parallel=2, debug_built=lambda: True)
        self.assertEqual(self.names(p), [
            ("stock default no", ["b", "d"]),
            ("stock default no", ["a", "c"])])

    def test_parallel(self):
        ts = [self.script("s%d" % i, "# kiw-vm: kernel=stock") for i in range(4)]
        ts += [self.script("d%d" % i, "# kiw-vm: kernel=debug")
               for i in range(4)]
        p = self.plan(ts, parallel=2, debug_built=lambda: True)
        self.assertEqual([k for k, _ in p.boots], ["stock default no"] * 2 +
                         ["debug default no"] * 2)
        # The debug kernel still to be built: the stock kernel's boots run
        # beside its build, one at a time.
        p = self.plan(ts, parallel=2, debug_built=lambda: False)
        self.assertEqual([k for k, _ in p.boots], ["stock default no"] +
                         ["debug default no"] * 2)
        # never more boots than scripts
        p = self.plan(ts[:1], parallel=3, debug_built=lambda: True)
        self.assertEqual(len(p.boots), 1)

    def test_debug_built_asked_only_when_needed(self):
        ts = [self.script("s", "# kiw-vm: kernel=stock")]

        def asked():
            raise AssertionError("asked")
        p = self.plan(ts, parallel=2, debug_built=asked)
        self.assertEqual(len(p.boots), 1)

    def test_kunit_first(self):
        k = os.path.join(self.top, "kunit.sh")
        ts = [self.script("a", "# kiw-vm: kernel=debug"),
              self.script("z", "# kiw-vm: kernel=stock")]
        p = self.plan(ts, kunit=k, times={"kunit": "500"})
        self.assertTrue(p.kunit_in_vm)
        self.assertEqual(p.boots[0], ("debug default no", [k, ts[0]]))
        self.assertEqual(p.timeouts[k], 600)
        # no debug test and no --need-debug: KUnit does not boot
        p = self.plan(ts[1:], kunit=k)
        self.assertFalse(p.kunit_in_vm)
        p = self.plan(ts[1:], kunit=k, need_debug=True)
        self.assertEqual(p.boots[1], ("debug default no", [k]))


class Report(unittest.TestCase):
    PHASES = [["deps", "3", "1"], ["kernels", "20", "5"],
              ["static (stock kernel)", "80", "150"],
              ["VM tests (stock kernel)", "600", "700"],
              ["VM tests (other Debian kernels)", "100", "90"],
              ["VM tests (debug kernel)", "1300", "2500"]]

    def lim(self, **kw):
        return checkplan.limits(kw)

    def test_warm_run_projects_the_build(self):
        out = checkplan.report(2103, 3446, {"phase": self.PHASES}, self.lim())
        # kernels and stock 700 + other 100: the 840 s build replaces
        # them, + 300 s: 2103 - 800 + 840 + 300
        self.assertIn("# budget: warm run 2103 s; cold, the debug kernel's "
                      "build (~840 s on 2 idle cores) overlaps the phases of "
                      "Debian's kernels (800 s here; ~800 s cold, with ~0 s "
                      "of 6.1's and 7.2's downloads and chroot this run "
                      "found cached), plus ~300 s of packages: ~2443 s", out)
        self.assertIn("# budget: ~90% of the 2700 s CI budget (CPU: 3446 s "
                      "here + 1590 s for the build: at least 2518 s on 2 "
                      "cores)", out)
        self.assertTrue(any(line.startswith("# WARNING") for line in out))
        self.assertEqual(out[-1], "# budget: ~54% of the CI job's hard "
                         "limit (4500 s, cold, 2 cores)")

    def test_cold_run_and_cached_kernels(self):
        out = checkplan.report(2000, 3000, {"phase": self.PHASES,
                                            "warm": [["7.2-kdir"]]},
                               self.lim(), debug_build=("900", ""),
                               built_debug=True)
        self.assertIn("# %-34s %6ss %6ss" % ("(debug kernel build, "
                                            "background)", 900, "?"), out)
        self.assertIn("# budget: this run built the debug kernel: a cold run "
                      "~2640 s (+ ~300 s of packages and downloads, + ~340 s "
                      "for the other kernels' downloads and chroot this run "
                      "found cached)", out)
        self.assertIn("# budget: ~97% of the 2700 s CI budget (CPU: 3000 s "
                      "here: at least 1500 s on 2 cores)", out)

    def test_partial_run_does_not_project(self):
        out = checkplan.report(100, 50, {"phase": self.PHASES[:2]},
                               self.lim(), full=False, long_="1")
        self.assertFalse(any("budget" in line for line in out))
        self.assertEqual(out[-1], "# KIW_LONG=1: the tests ran their long "
                         "variants")
        out = checkplan.report(100, 50, {}, self.lim(), full=False,
                               long_="0")
        self.assertEqual(out[-1], "# %-34s %6ss %6ss" % ("total", 100, 50))

    def test_tests_slowest_first(self):
        rows = {"test": [["9.5", "a", "stock", "1", "18", "1", "2"],
                         ["61.0", "b", "debug", "2", "600", "?", "?"],
                         ["9.5", "c", "stock", "1", "300", "1", "2"]]}
        out = checkplan.report(100, 50, rows, self.lim(KIW_TEST_TARGET="60"),
                               full=False)
        tests = [line for line in out if line.startswith("#  ")]
        self.assertEqual([t.split()[4] for t in tests[1:]], ["b", "c", "a"])
        self.assertTrue(tests[1].endswith("600s  over the 60 s target"))
        self.assertTrue(tests[3].endswith("18s  over half its timeout"))
        self.assertTrue(tests[2].endswith("300s"))


class Main(Tree):
    def run_main(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = checkplan.main(list(args))
        self.assertEqual(rc, 0)
        return out.getvalue().splitlines()

    def common(self):
        return ["plan", "--top", self.top, "--tests-dir", self.dir,
                "--kernels", " ".join(KERNELS), "--batch", "12",
                "--parallel", "1"]

    def test_lines(self):
        a = self.script("a", "# kiw-vm: kernel=stock timeout=60 siw=yes")
        b = self.script("b", "# kiw-vm: kernel=6.1 timeout=70")
        self.script("c", "# kiw-vm: kernel=9.9")
        self.assertEqual(self.run_main(*self.common(), "--with-pair"), [
            "fail vm: t/c.sh: kernel=9.9 is not one of stock 6.1 7.2 debug",
            "need stock", "need pair", "need other 6.1", "need other 7.2",
            "timeout 60 " + a, "timeout 70 " + b,
            "boot stock default yes " + a, "boot 6.1 default no " + b])

    def test_one_test(self):
        a = self.script("a", "# kiw-vm: kernel=stock")
        self.script("b", "# kiw-vm: kernel=stock")
        self.assertEqual(self.run_main(*self.common(), "--test", "a",
                                       "--with-pair"),
                         ["need stock", "timeout 300 " + a,
                          "boot stock default no " + a])
        self.assertEqual(self.run_main(*self.common(), "--test", "vmpair"),
                         ["need pair", "need other 6.1", "need other 7.2"])
        self.assertEqual(self.run_main(*self.common(), "--test", "nope"),
                         ["fail vm: no such test: t/nope.sh"])

    def test_empty_dir(self):
        self.assertEqual(self.run_main(*self.common()),
                         ["fail vm: no such test: t/*.sh"])


if __name__ == "__main__":
    unittest.main()
