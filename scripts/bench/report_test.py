#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Tests of report.py (make bench's table and targets), on made-up
results: every target can be MET and MISSED, a failed run shows, the
1000-connection check counts its parts. No guest, no gnuplot needed.

Usage: python3 scripts/bench/report_test.py [-v]
"""

import csv
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def cells(rows):
    """rows: (rep, stack, test, value); value a number or "FAILED"."""
    f = io.StringIO()
    w = csv.writer(f)
    w.writerow(["rep", "stack", "test", "value", "unit"])
    for r in rows:
        w.writerow(list(r) + ["u"])
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as t:
        t.write(f.getvalue())
    try:
        return report.Report(report.load(t.name))
    finally:
        os.unlink(t.name)


def verdicts(rep):
    """{what (up to " = "): verdict}"""
    return {what.split(" = ")[0]: v for v, what, _ in rep.targets()}


def conn_rows(stack, ok=1000, leak=100, unload=1, mem=60, rep=1):
    return [(rep, stack, "conn1000/ok", ok), (rep, stack, "conn1000/leak", leak),
            (rep, stack, "conn1000/unload", unload),
            (rep, stack, "mem/1000", mem)]


class Targets(unittest.TestCase):
    def test_bandwidth_headline_not_q1(self):
        rep = cells([(1, "siw-crc", "write_bw/4K", 0.1),
                     (1, "kiw-crc", "write_bw/4K", 0.25),
                     (1, "siw-crc", "write_bw/4K/Q1", 0.1),
                     (1, "kiw-crc", "write_bw/4K/Q1", 0.1),
                     (1, "siw-crc", "read_bw/1M", 0.1),
                     (1, "kiw-crc", "read_bw/1M", 0.15)])
        v = verdicts(rep)
        self.assertEqual(v["write_bw/4K: kiw+crc / siw+crc"], "MET")
        self.assertEqual(v["read_bw/1M: kiw+crc / siw+crc"], "MISSED")
        self.assertFalse(any("/Q1" in k for k in v))

    def test_latency_both_pairs(self):
        rep = cells([(1, "siw", "send_lat/4K", 50), (1, "kiw", "send_lat/4K", 50),
                     (1, "siw-crc", "send_lat/4K", 50),
                     (1, "kiw-crc", "send_lat/4K", 51)])
        v = verdicts(rep)
        self.assertEqual(v["send_lat/4K: kiw / siw latency"], "MET")
        self.assertEqual(v["send_lat/4K: kiw+crc / siw+crc latency"], "MISSED")

    def test_setup_rate(self):
        rep = cells([(1, "siw", "cm_connect/100", 500),
                     (1, "kiw", "cm_connect/100", 500),
                     (1, "siw", "cm_connect/1000", 300),
                     (1, "kiw", "cm_connect/1000", 390)])
        v = verdicts(rep)
        self.assertEqual(v["cm_connect/100: setup rate kiw / siw"], "MET")
        self.assertEqual(v["cm_connect/1000: setup rate kiw / siw"], "MET")
        self.assertEqual(v["kiw setup rate, cm_connect/1000 / cm_connect/100"],
                         "MISSED")

    def test_setup_rate_50(self):
        rep = cells([(1, "siw", "cm_connect/50", 400),
                     (1, "kiw", "cm_connect/50", 300)])
        v = verdicts(rep)
        self.assertEqual(v["cm_connect/50: setup rate kiw / siw"], "MISSED")
        self.assertNotIn("kiw setup rate, cm_connect/1000 / cm_connect/100",
                         v)

    def test_memory(self):
        rep = cells([(1, "siw", "mem/100", 60), (1, "kiw", "mem/100", 59),
                     (1, "siw", "mem/1000", 60), (1, "kiw", "mem/1000", 61),
                     (1, "siw", "mem/1", 10), (1, "kiw", "mem/1", 1000)])
        v = verdicts(rep)
        self.assertEqual(v["mem/100: memory per connection kiw / siw"], "MET")
        self.assertEqual(v["mem/1000: memory per connection kiw / siw"],
                         "MISSED")
        self.assertFalse(any(k.startswith("mem/1:") for k in v))
        # The defaults' row only once kiw-crc was measured.
        self.assertFalse(any("defaults" in k for k in v))
        rep = cells([(1, "siw", "mem/100", 60), (1, "kiw", "mem/100", 59),
                     (1, "kiw-crc", "mem/100", 61)])
        v = verdicts(rep)
        self.assertEqual(
            v["mem/100: memory per connection, defaults, kiw+crc / siw"],
            "MISSED")
        rep = cells([(1, "siw", "mem/100", 60), (1, "kiw-crc", "mem/100", 55)])
        self.assertEqual(
            verdicts(rep)[
                "mem/100: memory per connection, defaults, kiw+crc / siw"],
            "MET")

    def test_conn1000(self):
        # Tolerance: max(1024, mem/1000 * 1000 / 10) KiB = 6000 here.
        ok = cells(conn_rows("kiw", leak=5999))
        self.assertEqual(ok.conn_check("kiw")[0], "MET")
        for bad in (dict(ok=999), dict(leak=6001), dict(unload=0)):
            rep = cells(conn_rows("kiw", **bad))
            self.assertEqual(rep.conn_check("kiw")[0], "MISSED", bad)
        # Without a memory reading the tolerance is 1 MiB.
        rep = cells(conn_rows("kiw", leak=2000)[:3])
        self.assertEqual(rep.conn_check("kiw")[0], "MISSED")
        # Every repetition must pass.
        rep = cells(conn_rows("kiw") + conn_rows("kiw", ok=998, rep=2) +
                    conn_rows("kiw", rep=3))
        self.assertEqual(rep.conn_check("kiw")[0], "MISSED")
        rep = cells(conn_rows("kiw") + [(2, "kiw", "conn1000/ok", "FAILED")])
        self.assertEqual(rep.conn_check("kiw")[0], "MISSED")
        # The run's own tolerance comes first.
        rep = cells(conn_rows("kiw", leak=5999) +
                    [(1, "kiw", "conn1000/tol", 5000)])
        self.assertEqual(rep.conn_check("kiw")[0], "MISSED")
        rep = cells(conn_rows("kiw", leak=2000, mem=1)[:3] +
                    [(1, "kiw", "conn1000/tol", 2048)])
        self.assertEqual(rep.conn_check("kiw")[0], "MET")
        rep = cells([(1, "kiw", "conn1000/ok", "FAILED"),
                     (1, "kiw", "conn1000/leak", "FAILED"),
                     (1, "kiw", "conn1000/unload", "FAILED")])
        self.assertEqual(rep.conn_check("kiw")[0], "FAILED")
        self.assertIsNone(rep.conn_check("siw"))

    def test_failed_cell(self):
        rep = cells([(1, "siw-crc", "send_bw/64K", 0.1),
                     (1, "kiw-crc", "send_bw/64K", "FAILED")])
        self.assertEqual(verdicts(rep)["send_bw/64K: kiw+crc / siw+crc"],
                         "FAILED")


class Table(unittest.TestCase):
    def test_sections_and_rows(self):
        rep = cells([(1, "kiw", "write_bw/64K", 0.3),
                     (1, "kiw", "write_bw/64K/Q1", 0.2),
                     (1, "kiw", "cm_connect/1000", 250),
                     (1, "kiw", "mem/100", 120.5)] + conn_rows("kiw"))
        text = "\n".join(rep.table())
        for want in ("the headline", "-Q 1", "write_bw/64K/Q1",
                     "cm_connect/1000", "mem/100", "KiB/conn",
                     "MET     kiw: 1000 of 1000"):
            self.assertIn(want, text)
        self.assertNotIn("latency", text)


if __name__ == "__main__":
    unittest.main()
