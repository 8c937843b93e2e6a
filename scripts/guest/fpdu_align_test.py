#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Tests of fpdu_align.py (dp_align's parser) on made-up captures: FPDUs
one to a segment are aligned, a sender's cuts inside FPDUs are not, the
marker before an FPDU is a start, a cut at the peer's window edge and
the segments it shifts are TCP's and counted apart (and only with such an
edge), a missing segment is a gap. No VM needed.

Usage: python3 scripts/guest/fpdu_align_test.py [-v]
"""

import contextlib
import io
import os
import struct
import sys
import tempfile
import unittest
import unittest.mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fpdu_align  # noqa: E402

CLI = (bytes([10, 0, 0, 2]), 40000)
SRV = (bytes([10, 0, 0, 1]), 5000)
ISN = {CLI: 1000, SRV: 7000}
WSCALE = 7


def mpa_frame(key, markers):
    return key + bytes([0x80 if markers else 0, 1]) + struct.pack(">H", 0)


def fpdus(sizes, markers):
    """A stream of FPDUs with ULPDU lengths @sizes (markers every 512
    octets from the first one, when asked): (octets, where each FPDU
    may begin: at its marker when one comes just before it)."""
    out = bytearray()
    starts = []
    for n in sizes:
        body = struct.pack(">H", n) + bytes([0x5a]) * n
        body += bytes(-len(body) % 4) + b"CRC!"
        for i, c in enumerate(body):
            if markers and len(out) % 512 == 0:
                if i == 0:
                    starts.append(len(out))
                out += b"MRKR"
            elif i == 0:
                starts.append(len(out))
            out.append(c)
    return bytes(out), starts


def frame(src, dst, seq, ack, win, payload=b"", syn=False):
    opts = bytes([1, 3, 3, WSCALE]) if syn else b""
    tcp = struct.pack(">HHIIBBHHH", src[1], dst[1], seq, ack,
                      (20 + len(opts)) // 4 << 4, 0x02 if syn else 0x10,
                      win, 0, 0) + opts + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0x4000,
                     64, 6, 0, src[0], dst[0]) + tcp
    return bytes(6) + bytes(6) + b"\x08\x00" + ip


class Capture:
    """Frames of one connection, written as a pcap file."""

    def __init__(self, markers=False):
        self.frames = []
        self.rep = mpa_frame(fpdu_align.KEY_REP, markers)
        self.req = mpa_frame(fpdu_align.KEY_REQ, markers)
        self.add(CLI, SRV, -1, 0, 64, syn=True)
        self.add(SRV, CLI, -1, 0, 64, syn=True)
        self.add(CLI, SRV, 0, 0, 512, self.req)
        self.add(SRV, CLI, 0, len(self.req), 512, self.rep)

    def add(self, src, dst, off, ack_off, win, payload=b"", syn=False):
        """A segment of @src's stream at offset @off, acknowledging
        @ack_off of @dst's stream and announcing @win (scaled)."""
        self.frames.append(frame(src, dst, (ISN[src] + off) & 0xffffffff,
                                 (ISN[dst] + ack_off) & 0xffffffff, win,
                                 payload, syn))

    def data(self, stream, cuts, lo=0, hi=None):
        """The client's FPDU @stream from offset @lo to @hi (relative to
        the first FPDU), sent in segments cut at the offsets @cuts."""
        base = len(self.req)
        edges = [lo] + list(cuts) + [len(stream) if hi is None else hi]
        for a, b in zip(edges, edges[1:]):
            self.add(CLI, SRV, base + a, len(self.rep), 512, stream[a:b])

    def ack(self, acked, window):
        """The server acknowledges @acked octets of FPDUs, with room
        for @window octets after them."""
        base = len(self.req)
        self.add(SRV, CLI, len(self.rep), base + acked, window >> WSCALE)

    def run(self, *args):
        with tempfile.NamedTemporaryFile(suffix=".pcap") as f:
            f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535,
                                1))
            for fr in self.frames:
                f.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)) + fr)
            f.flush()
            return run_main(f.name, *args)


def run_main(path, *args):
    """fpdu_align.main() on @path with @args: (exit code, output)."""
    out = io.StringIO()
    argv = ["fpdu_align.py", path] + [str(a) for a in args]
    with unittest.mock.patch.object(sys, "argv", argv), \
            contextlib.redirect_stdout(out):
        rc = fpdu_align.main()
    return rc, out.getvalue()


def total(out):
    """The TOTAL line's fields."""
    line = [x for x in out.splitlines() if x.startswith("TOTAL ")][-1]
    return dict(kv.split("=") for kv in line.split()[1:])


class Align(unittest.TestCase):
    def test_one_fpdu_a_segment(self):
        stream, starts = fpdus([1000, 1001, 998, 1442, 7], False)
        c = Capture()
        c.data(stream, starts[1:])
        rc, out = c.run(99, 5)
        t = total(out)
        self.assertEqual(rc, 0, out)
        self.assertEqual((t["aligned"], t["segments"], t["gaps"]),
                         ("5", "5", "0"))
        self.assertEqual(t["window_cut"], "0")

    def test_too_few_segments(self):
        stream, starts = fpdus([1000, 1000], False)
        c = Capture()
        c.data(stream, starts[1:])
        rc, out = c.run(99, 3)
        self.assertEqual(rc, 1, out)

    def test_sender_cut_inside_fpdus(self):
        stream, starts = fpdus([3000] * 4, False)
        c = Capture()
        cuts = list(range(1448, len(stream), 1448))
        c.data(stream, cuts)
        rc, out = c.run(50)
        t = total(out)
        self.assertEqual(rc, 1, out)
        aligned = sum(1 for x in [0] + cuts if x in starts)
        self.assertEqual(int(t["aligned"]), aligned)
        self.assertEqual(int(t["segments"]), len(cuts) + 1)
        self.assertIn("frame ", out)	# the first of them explained

    def test_marker_before_fpdu_is_a_start(self):
        # 4 + 2 + 502 + 4 = 512: every FPDU has a marker
        # just before it.
        stream, starts = fpdus([502] * 6, True)
        self.assertTrue(all(stream[s:s + 4] == b"MRKR" for s in starts))
        c = Capture(markers=True)
        c.data(stream, starts[1:])
        rc, out = c.run(99, 6)
        self.assertEqual(rc, 0, out)
        self.assertEqual(total(out)["aligned"], "6")

    def test_markers_walked_inside_fpdus(self):
        # FPDUs of 1000 and 2000 octets: markers fall inside them, and the
        # walk must step over them to find the next FPDU.
        stream, starts = fpdus([1000, 2000, 1000, 300], True)
        c = Capture(markers=True)
        c.data(stream, starts[1:])
        rc, out = c.run(99, 4)
        self.assertEqual(rc, 0, out)
        # Cut one octet late, and the next segment is not aligned.
        c = Capture(markers=True)
        c.data(stream, [starts[1] + 1] + starts[2:])
        rc, out = c.run(99)
        self.assertEqual(rc, 1, out)

    def window_cut(self, announce):
        """Ten FPDUs of 1448 octets each, one a segment; the peer's
        window ends 560 octets into the third; TCP sends up to the edge,
        then the rest of that write, shifted, and the next write begins
        an FPDU again."""
        stream, starts = fpdus([1442] * 10, False)
        c = Capture()
        c.data(stream, starts[1:2], hi=starts[2])
        edge = starts[2] + 560
        if announce:
            c.ack(0, edge)
        shifted = [edge + 1448 * i for i in range(4)]
        c.data(stream, shifted, lo=starts[2], hi=starts[7])
        # the retransmission of a shifted segment
        c.add(CLI, SRV, len(c.req) + shifted[1], len(c.rep), 512,
              stream[shifted[1]:shifted[2]])
        c.data(stream, starts[8:10], lo=starts[7])
        return c.run(99, 5)

    def test_window_cut_is_tcps(self):
        rc, out = self.window_cut(True)
        t = total(out)
        self.assertEqual(rc, 0, out)
        self.assertEqual(t["window_cut"], "5")	# 4 shifted, 1 again
        self.assertEqual((t["aligned"], t["segments"]), ("6", "6"))

    def test_no_window_edge_no_excuse(self):
        rc, out = self.window_cut(False)
        t = total(out)
        self.assertEqual(rc, 1, out)
        self.assertEqual(t["window_cut"], "0")
        self.assertEqual((t["aligned"], t["segments"]), ("6", "11"))

    def test_gap(self):
        stream, starts = fpdus([1000] * 4, False)
        c = Capture()
        c.data(stream, [], hi=starts[1])
        c.data(stream, starts[3:], lo=starts[2])	# [1] is missing
        rc, out = c.run(0)
        self.assertEqual(rc, 1, out)
        self.assertEqual(total(out)["gaps"], "1")

    def test_not_a_pcap(self):
        with tempfile.NamedTemporaryFile() as f:
            f.write(b"x" * 40)
            f.flush()
            self.assertEqual(run_main(f.name)[0], 2)


if __name__ == "__main__":
    unittest.main()
