#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# iwarp_peer: a raw iWARP peer over plain TCP, for kiw's hostile-peer and
# robustness tests. It completes a valid MPA exchange (mpa_peer.py builds
# the frames) with kiw as responder or as initiator, then speaks FPDUs
# (RFC 5044 framing with CRC32c and markers, RFC 5041 DDP and RFC 5040
# RDMAP headers built here field by field), plays one scenario, reads what
# kiw sends back (FPDUs checked: CRC, markers, padding), and reports it.
#
# The consumer behind kiw is scripts/guest/iw_target.c: its MPA private
# data tells where its regions are (r0 read/write, r1 read-only, rf in
# another PD, rn local-only, rq receive buffers); our Request's private
# data gives it its orders ("case=NAME recv=N ird=N").
#
#   iwarp_peer.py batch < FILE
#       one scenario per line:
#         NAME initiate HOST PORT SCENARIO [key=value...]
#         NAME respond HOST PORT SCENARIO [key=value...]
#       (initiate: we connect to kiw's listener; respond: we listen and
#       kiw's iw_target client connects; respond cases share a listening
#       socket and print LISTENING when ready for the next connection)
#
# The robustness corpus (iwarp_corpus.py) builds on this module, never the
# other way: "iwarp_corpus.py batch" plays the same lines and "corpus"
# lines too, and "iwarp_corpus.py check" summarizes a corpus run.
#
# Keys: rev=1|2 (MPA revision, default 2), crc=0|1 (our C bit, default 1),
# m=0|1 (our M bit: kiw then puts markers in what it sends), ird=, ord=
# (the RFC 6581 word), p2p=0|1 (ask for an RTR: Write), recv=N (receive
# WRs the consumer posts), wait=SEC (how long to watch for the end).
#
# Each scenario prints "CASE NAME", then one line
#   RESULT case=NAME term=L/T/0xCC|none hdrct=[mdr]|- echo=1|0|- seglen=1|0|-
#          tq=1|0|- fpdu_ok=1|0 pre=N end=fin|rst|open after=SEC [extra]
# term: the Terminate kiw sent (layer/etype/ecode); hdrct: its M, D, R
# bits; echo: the Terminated DDP (and RDMA) header equals the offending
# segment's as we sent it; seglen: the DDP Segment Length is that
# segment's length; tq: the Terminate's own DDP header is right (untagged,
# L, QN 2, MSN 1, MO 0, RDMAP RV 1 opcode 7, reserved bits 0); fpdu_ok:
# every FPDU kiw sent had a good CRC (when on), good markers and zero PAD;
# pre: FPDUs kiw sent before its Terminate. And
#   TWANT case=NAME k=v...
# what the consumer's DONE line (iw_target.c) must show. A corpus case
# also prints "VERDICT case=NAME pass=1|0 want=... got=..." (the peer
# checks its own expectation).
import os
import random
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpa_peer as mp  # noqa: E402

# ---------------------------------------------------------------------------
# DDP (RFC 5041 section 4) and RDMAP (RFC 5040 section 4) headers.

OP_WRITE, OP_READ_REQ, OP_READ_RESP, OP_SEND = 0, 1, 2, 3
OP_SEND_INV, OP_SEND_SE, OP_SEND_SE_INV, OP_TERM = 4, 5, 6, 7
QN_SEND, QN_RREQ, QN_TERM = 0, 1, 2


def tagged(op, stag, to, payload=b"", last=True, dv=1, rv=1, rsvd=0):
    """T=1 header: ctrl | RsvdULP (RDMAP ctrl) | STag | TO, then payload."""
    ctrl = 0x80 | (0x40 if last else 0) | ((rsvd & 0xf) << 2) | (dv & 3)
    return bytes([ctrl, ((rv & 3) << 6) | (op & 0xf)]) + \
        struct.pack(">IQ", stag & 0xffffffff, to & (2**64 - 1)) + payload


def untagged(op, qn, msn, mo=0, payload=b"", last=True, inv=0, dv=1, rv=1):
    """T=0 header: ctrl | RDMAP ctrl | Inval STag | QN | MSN | MO."""
    ctrl = (0x40 if last else 0) | (dv & 3)
    return bytes([ctrl, ((rv & 3) << 6) | (op & 0xf)]) + \
        struct.pack(">IIII", inv, qn & 0xffffffff, msn & 0xffffffff,
                    mo & 0xffffffff) + payload


def rr_body(sink_stag, sink_to, size, src_stag, src_to):
    return struct.pack(">IQIIQ", sink_stag, sink_to, size & 0xffffffff,
                       src_stag, src_to & (2**64 - 1))


def read_req(msn, sink_stag, sink_to, size, src_stag, src_to, **kw):
    return untagged(OP_READ_REQ, QN_RREQ, msn, 0,
                    rr_body(sink_stag, sink_to, size, src_stag, src_to),
                    **kw)


def term_msg(layer, etype, ecode, msn=1):
    w = ((layer & 0xf) << 28) | ((etype & 0xf) << 24) | ((ecode & 0xff) << 16)
    return untagged(OP_TERM, QN_TERM, msn, 0, struct.pack(">I", w))


def ddp_hdr_len(ulpdu):
    return 14 if ulpdu and ulpdu[0] & 0x80 else 18


def parse_term(ulpdu):
    """A Terminate kiw sent: its error, M/D/R, and the copied headers."""
    t = {"tq": 0}
    if len(ulpdu) < 22:
        return t
    ctrl, rd = ulpdu[0], ulpdu[1]
    inv, qn, msn, mo = struct.unpack(">IIII", ulpdu[2:18])
    w = struct.unpack(">I", ulpdu[18:22])[0]
    t.update(layer=w >> 28, etype=(w >> 24) & 0xf, ecode=(w >> 16) & 0xff,
             m=(w >> 15) & 1, d=(w >> 14) & 1, r=(w >> 13) & 1)
    t["tq"] = int(ctrl == 0x41 and rd == 0x47 and inv == 0 and qn == 2 and
                  msn == 1 and mo == 0 and w & 0x1fff == 0)
    off = 22
    if t["m"] or t["d"] or t["r"]:
        t["seglen"] = struct.unpack(">H", ulpdu[off:off + 2])[0] \
            if len(ulpdu) >= off + 2 else -1
        off += 2
    if t["d"] and len(ulpdu) > off:
        n = ddp_hdr_len(ulpdu[off:])
        t["ddp"] = bytes(ulpdu[off:off + n])
        off += n
    if t["r"]:
        t["rdma"] = bytes(ulpdu[off:off + 28])
        off += 28
    t["extra"] = len(ulpdu) - off
    return t


def is_term(ulpdu):
    return len(ulpdu) >= 18 and not ulpdu[0] & 0x80 and \
        ulpdu[1] & 0xf == OP_TERM


# ---------------------------------------------------------------------------
# The consumer's memory (iw_target.c): where the regions are and what they
# hold before anyone writes.

RQ_OFF, RQ_STEP = 24576, 512   # iw_target.c: areas[A_RQ], TGT_RSTEP


def tgt_pat(k):
    return (k * 131 + (k >> 8) * 7 + 1) & 0xff


class Target:
    """Parsed "base=... r0=STAG:ADDR:LEN ... rq=N:LEN ird=N" text."""

    def __init__(self, pd):
        self.regions = {}
        self.base = 0
        self.rq = (0, 0)
        self.ird = 0
        text = bytes(pd).split(b"\0")[0].decode("ascii", "replace")
        for tok in text.split():
            k, _, v = tok.partition("=")
            if k == "base":
                self.base = int(v, 16)
            elif k in ("r0", "r1", "rf", "rn"):
                s, a, n = v.split(":")
                self.regions[k] = (int(s, 16), int(a, 16), int(n))
            elif k == "rq":
                n, ln = v.split(":")
                self.rq = (int(n), int(ln))
            elif k == "ird":
                self.ird = int(v)

    def ok(self):
        return len(self.regions) == 4

    def stag(self, r):
        return self.regions[r][0]

    def addr(self, r, off=0):
        return self.regions[r][1] + off

    def length(self, r):
        return self.regions[r][2]

    def content(self, r, off, n):
        """What the region holds at off..off+n before any write."""
        k = self.regions[r][1] - self.base + off
        return bytes(tgt_pat(k + i) for i in range(n))

    def fresh(self, r, off, n):
        """n octets that differ from every octet they overwrite."""
        return bytes(b ^ 0x5a for b in self.content(r, off, n))

    def recv_fresh(self, idx, n):
        """n octets for receive WR idx that differ from what it holds."""
        k = RQ_OFF + 16 + idx * RQ_STEP
        return bytes(tgt_pat(k + i) ^ 0x5a for i in range(n))


# ---------------------------------------------------------------------------
# One MPA connection in Full Operation.

class Stream:
    def __init__(self, sock, crc, tx_markers, rx_markers):
        self.sock = sock
        self.crc = crc
        self.tx_markers = tx_markers    # kiw asked for markers (its M)
        self.rx_markers = rx_markers    # we asked (our M)
        self.tx_off = 0
        self.rx_off = 0
        self.raw = bytearray()
        self.eof = None
        self.msn = {QN_SEND: 1, QN_RREQ: 1, QN_TERM: 1}
        self.bad_fpdu = 0

    def next_msn(self, qn):
        m = self.msn[qn]
        self.msn[qn] = (m + 1) & 0xffffffff
        return m

    def fpdu(self, ulpdu, crc_bad=False, length=None, pad=None,
             mk_delta=0, mk_rsvd=0, advance=True):
        """The wire image of one FPDU at the current stream offset.
        length: a lying ULPDU_Length; pad: PAD octets (default zeros);
        mk_delta: added to every FPDUPTR inside the FPDU (not the
        leading one); mk_rsvd: the markers' RESERVED field."""
        ulen = len(ulpdu) if length is None else length
        body = struct.pack(">H", ulen & 0xffff) + bytes(ulpdu)
        npad = -len(body) % 4
        body += pad[:npad] if pad is not None else bytes(npad)
        out = bytearray()
        o = self.tx_off
        start = None
        i = 0
        while True:
            if self.tx_markers and o % 512 == 0:
                ptr = 0 if start is None else (o - start + mk_delta)
                out += struct.pack(">HH", mk_rsvd, ptr & 0xffff)
                o += 4
                continue
            if i == len(body):
                break
            if start is None:
                start = o
            n = len(body) - i
            if self.tx_markers:
                n = min(n, 512 - o % 512)
            out += body[i:i + n]
            i += n
            o += n
        crc = mp.crc32c(out) if self.crc else 0
        if crc_bad:
            crc ^= 0x00010000
        out += struct.pack("<I", crc)
        o += 4
        if advance:
            self.tx_off = o
        return bytes(out)

    def send(self, data):
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            return False

    def _fill(self, wait):
        if self.eof:
            return False
        r, _, _ = select.select([self.sock], [], [], wait)
        if not r:
            return False
        try:
            chunk = self.sock.recv(65536)
        except (ConnectionResetError, TimeoutError, OSError):
            self.eof = "rst"
            return False
        if not chunk:
            self.eof = "fin"
            return False
        self.raw += chunk
        return True

    def _take(self):
        """One whole FPDU from self.raw, or None. Checks markers, PAD,
        CRC."""
        raw, mk = self.raw, self.rx_markers
        i, o = 0, self.rx_off
        img = bytearray()
        log = bytearray()
        start = None
        target = None
        good = True
        while True:
            if mk and o % 512 == 0:
                if i + 4 > len(raw):
                    return None
                ptr = struct.unpack(">H", raw[i + 2:i + 4])[0]
                want = 0 if start is None else o - start
                if ptr != want or raw[i:i + 2] != b"\0\0":
                    good = False
                img += raw[i:i + 4]
                i += 4
                o += 4
                continue
            if target is not None and len(log) == target:
                if i + 4 > len(raw):
                    return None
                crc_field = bytes(raw[i:i + 4])
                i += 4
                o += 4
                break
            if start is None:
                start = o
            need = (target if target is not None else 2) - len(log)
            n = min(need, len(raw) - i)
            if mk:
                n = min(n, 512 - o % 512)
            if n <= 0:
                return None
            log += raw[i:i + n]
            img += raw[i:i + n]
            i += n
            o += n
            if target is None and len(log) == 2:
                ulen = struct.unpack(">H", log)[0]
                target = 2 + ulen + (-(2 + ulen) % 4)
        ulen = struct.unpack(">H", log[:2])[0]
        if any(log[2 + ulen:]):
            good = False
        if self.crc and crc_field != struct.pack("<I", mp.crc32c(img)):
            good = False
        del self.raw[:i]
        self.rx_off = o
        if not good:
            self.bad_fpdu += 1
        return bytes(log[2:2 + ulen])

    def read_fpdu(self, wait):
        """The next FPDU's ULPDU, or None at the end or after wait s."""
        end = time.monotonic() + wait
        while True:
            u = self._take()
            if u is not None:
                return u
            left = end - time.monotonic()
            if left <= 0 or not self._fill(left):
                u = self._take()
                return u

    def watch(self, wait):
        """Read FPDUs until kiw closes or wait runs out: (ulpdus, end)."""
        got = []
        end = time.monotonic() + wait
        while time.monotonic() < end:
            u = self.read_fpdu(end - time.monotonic())
            if u is None:
                if self.eof:
                    break
                continue
            got.append(u)
        return got, self.eof or "open"


# ---------------------------------------------------------------------------
# Startup.

class Setup:
    def __init__(self, kv, mode):
        # As responder, match kiw's Request (IRD/ORD 1/1 from iw_target).
        dflt = 4 if mode == "initiate" else 1
        self.rev = int(kv.get("rev", 2))
        self.crc = int(kv.get("crc", 1))
        self.m = int(kv.get("m", 0))
        self.ird = int(kv.get("ird", dflt))
        self.ord = int(kv.get("ord", dflt))
        self.p2p = int(kv.get("p2p", 0))
        self.wait = float(kv.get("wait", 8))


def _read_frame(sock, deadline):
    buf = b""
    need = mp.HDR_LEN
    while len(buf) < need:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        chunk = sock.recv(need - len(buf))
        if not chunk:
            return None
        buf += chunk
        if len(buf) == mp.HDR_LEN:
            need += struct.unpack(">H", buf[18:20])[0]
    sock.settimeout(None)
    return mp.parse_frame(buf)


def initiate(host, port, st, orders):
    """Connect, send our Request, take kiw's Reply: (Stream, Target, rep)."""
    s = socket.create_connection((host, port), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    v2 = (st.ird, st.ord, bool(st.p2p), mp.RTR_WRITE if st.p2p else 0) \
        if st.rev == 2 else None
    s.sendall(mp.frame(mp.KEY_REQ, bool(st.m), bool(st.crc), False, 0,
                       st.rev, orders.encode(), None, v2))
    rep = _read_frame(s, time.monotonic() + 30)
    if rep is None or rep["kind"] != "rep" or rep["r"]:
        s.close()
        raise OSError("no accepting Reply: %r" % (rep,))
    stream = Stream(s, bool(st.crc or rep["c"]), bool(rep["m"]), bool(st.m))
    if st.p2p and rep.get("p2p"):
        # RFC 6581: the RTR goes first; kiw picked Write.
        stream.send(stream.fpdu(tagged(OP_WRITE, 0, 0)))
    return stream, Target(rep["pd"]), rep


LISTENERS = {}


def respond(host, port, st, reply_extra=b""):
    """Take kiw's connection and Request; Reply (then reply_extra in the
    same send). Returns (Stream, Target, req)."""
    key = (host, port)
    if key not in LISTENERS:
        ls = socket.socket(socket.AF_INET6 if ":" in host
                           else socket.AF_INET)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((host, port))
        ls.listen(4)
        LISTENERS[key] = ls
    print("LISTENING", flush=True)
    ls = LISTENERS[key]
    ls.settimeout(120)
    s, _ = ls.accept()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    req = _read_frame(s, time.monotonic() + 30)
    if req is None or req["kind"] != "req":
        s.close()
        raise OSError("no Request")
    rev = min(req["rev"], st.rev)
    v2 = (st.ird, st.ord) if rev == 2 and req["s"] else None
    stream = Stream(s, bool(st.crc or req["c"]), bool(req["m"]), bool(st.m))
    rep = mp.frame(mp.KEY_REP, bool(st.m), bool(st.crc), False, 0, rev,
                   b"", None, v2)
    stream.send(rep + reply_extra)
    return stream, Target(req["pd"]), req


# ---------------------------------------------------------------------------
# Scenarios. Each gets a Ctx, sends what it sends, and sets ctx.offender
# (the ULPDU kiw must terminate on, as sent) and ctx.twant (what the
# consumer must see). The default consumer expectation: nothing of the
# consumer's memory changed, no guard octet anywhere.

TWANT_CLEAN = {"r0": 0, "r1": 0, "rf": 0, "rn": 0, "rq": 0, "guard": 0}


class Ctx:
    def __init__(self, name, stream, tgt, kv, wait, ird):
        self.name = name
        self.wait = wait
        self.ird = ird          # kiw's IRD, as its Reply says
        self.s = stream
        self.t = tgt
        self.kv = kv
        self.offender = None
        self.twant = dict(TWANT_CLEAN)
        self.extra = {}
        self.after_write = True     # a valid Write after the offender

    def write(self, region, off, n, **kw):
        return tagged(OP_WRITE, self.t.stag(region), self.t.addr(region, off),
                      self.t.fresh(region, off, n), **kw)

    def send_msg(self, n, **kw):
        msn = self.s.next_msn(QN_SEND)
        return untagged(OP_SEND, QN_SEND, msn, 0,
                        self.t.recv_fresh(msn - 1, n), **kw)

    def hostile(self, ulpdu, **fkw):
        """Send ulpdu as the offending FPDU, then a valid Write that must
        never land (RFC 5044 section 8, RFC 5041 section 7.1)."""
        self.offender = ulpdu
        data = self.s.fpdu(ulpdu, **fkw)
        if self.after_write:
            data += self.s.fpdu(self.write("r0", 2000, 16))
        self.s.send(data)


def sc_good(c):
    """A valid Write, Send and Read; then we close. Nothing terminates."""
    w = c.write("r0", 10, 64)
    sm = c.send_msg(32)
    rr = read_req(c.s.next_msn(QN_RREQ), 0xabcd0001, 0x10, 100,
                  c.t.stag("r1"), c.t.addr("r1", 5))
    c.s.send(c.s.fpdu(w) + c.s.fpdu(sm) + c.s.fpdu(rr))
    resp = c.s.read_fpdu(c.wait)
    ok = resp is not None and len(resp) == 114 and \
        resp[:14] == tagged(OP_READ_RESP, 0xabcd0001, 0x10) and \
        resp[14:] == c.t.content("r1", 5, 100)
    c.extra["rresp"] = "ok" if ok else "bad"
    c.twant.update(r0=64, r0_lo=10, r0_hi=73, rq=32, rq_lo=16, rq_hi=47,
                   wc_ok=1, async_="none")
    c.s.sock.shutdown(socket.SHUT_WR)


def sc_write(c, region, off, n, stag_xor=0, to=None):
    stag = c.t.stag(region) ^ stag_xor
    to = c.t.addr(region, off) if to is None else to
    c.hostile(tagged(OP_WRITE, stag, to, bytes(n)))


SCENARIOS = {
    "good": sc_good,
    # tagged placement (RFC 5041 7.1, RFC 5040 7)
    "w_stag_key": lambda c: sc_write(c, "r0", 0, 64, stag_xor=0x01),
    "w_stag_index": lambda c: sc_write(c, "r0", 0, 64,
                                       stag_xor=0x5a5a5a00),
    "w_foreign_pd": lambda c: sc_write(c, "rf", 0, 64),
    "w_readonly": lambda c: sc_write(c, "r1", 0, 64),
    "w_noremote": lambda c: sc_write(c, "rn", 0, 64),
    "w_past_end": lambda c: sc_write(c, "r0", c.t.length("r0") - 10, 64),
    "w_before": lambda c: sc_write(c, "r0", 0, 64,
                                   to=c.t.addr("r0") - 1),
    "w_to_wrap": lambda c: sc_write(c, "r0", 0, 64, to=2**64 - 16),
    "w_big_region": lambda c: sc_write(c, "r0", 0, c.t.length("r0") + 1),
}


def _rr(c, src, off, size, src_to=None, msn=None):
    return read_req(c.s.next_msn(QN_RREQ) if msn is None else msn,
                    0xabcd0001, 0, size, c.t.stag(src),
                    c.t.addr(src, off) if src_to is None else src_to)


def sc_send_inv_bad(c):
    """Send with Invalidate of r0, which no peer may invalidate (not a
    fast-registered region): placed, then refused (RDMAP 0x1/0x09)."""
    c.hostile(untagged(OP_SEND_INV, QN_SEND, c.s.next_msn(QN_SEND), 0,
                       c.t.recv_fresh(0, 16), inv=c.t.stag("r0")))
    c.twant.update(rq=16, rq_lo=16, rq_hi=31)


def sc_bad_crc(c):
    """A Write whose CRC is wrong: none of its payload lands in the region
    it names (RFC 5044 section 6: the FPDU is verified before DDP sees
    it; MPA-RX-1, MPA-CRC-13), nothing else does, and nothing
    completes."""
    c.hostile(c.write("r0", 100, 64), crc_bad=True)


def sc_bad_crc_send(c):
    """The same with a Send: nothing lands in the receive buffer."""
    c.hostile(c.send_msg(16), crc_bad=True)


def sc_rr_over_ird(c):
    """IRD+1 Read Requests in one send: the one beyond IRD has no
    buffer (RFC 5040 6.4; DDP 2/0x02)."""
    ird = c.ird
    data = b""
    for _ in range(ird):
        data += c.s.fpdu(_rr(c, "r1", 0, 8))
    c.offender = _rr(c, "r1", 0, 8)
    data += c.s.fpdu(c.offender) + c.s.fpdu(c.write("r0", 2000, 16))
    c.s.send(data)
    c.extra["ird"] = ird


SCENARIOS.update({
    "rr_src_stag": lambda c: c.hostile(read_req(
        c.s.next_msn(QN_RREQ), 0xabcd0001, 0, 64, c.t.stag("r1") ^ 1,
        c.t.addr("r1"))),
    "rr_src_foreign": lambda c: c.hostile(_rr(c, "rf", 0, 64)),
    "rr_src_noread": lambda c: c.hostile(_rr(c, "rn", 0, 64)),
    "rr_src_bounds": lambda c: c.hostile(_rr(c, "r1", 0,
                                             c.t.length("r1") + 1)),
    "rr_src_wrap": lambda c: c.hostile(_rr(c, "r1", 0, 64,
                                           src_to=2**64 - 8)),
    "rr_short": lambda c: c.hostile(untagged(
        OP_READ_REQ, QN_RREQ, c.s.next_msn(QN_RREQ), 0, bytes(20))),
    "rr_long": lambda c: c.hostile(untagged(
        OP_READ_REQ, QN_RREQ, c.s.next_msn(QN_RREQ), 0, bytes(32))),
    "rr_over_ird": sc_rr_over_ird,
    # untagged (RFC 5041 7.1)
    "send_msn": lambda c: c.hostile(untagged(OP_SEND, QN_SEND, 7, 0,
                                             bytes(16))),
    "send_msn0": lambda c: c.hostile(untagged(OP_SEND, QN_SEND, 0, 0,
                                              bytes(16))),
    "send_qn": lambda c: c.hostile(untagged(OP_SEND, 3, 1, 0, bytes(16))),
    "send_qn_big": lambda c: c.hostile(untagged(OP_SEND, 0xffffffff, 1, 0,
                                                bytes(16))),
    "send_mo": lambda c: c.hostile(untagged(OP_SEND, QN_SEND, 1, 4,
                                            bytes(16))),
    "send_norecv": lambda c: c.hostile(c.send_msg(16)),
    "send_toolong": lambda c: c.hostile(c.send_msg(c.t.rq[1] + 1)),
    "send_inv_bad": sc_send_inv_bad,
    # versions, opcodes, framing
    "ddp_v2_tagged": lambda c: c.hostile(tagged(OP_WRITE, c.t.stag("r0"),
                                                c.t.addr("r0"), bytes(16),
                                                dv=2)),
    "ddp_v0_untagged": lambda c: c.hostile(untagged(OP_SEND, QN_SEND, 1, 0,
                                                    bytes(16), dv=0)),
    "rdmap_v2": lambda c: c.hostile(untagged(OP_SEND, QN_SEND, 1, 0,
                                             bytes(16), rv=2)),
    "rdmap_op9": lambda c: c.hostile(tagged(9, c.t.stag("r0"),
                                            c.t.addr("r0"), bytes(16))),
    "rdmap_write_untagged": lambda c: c.hostile(untagged(
        OP_WRITE, QN_SEND, 1, 0, bytes(16))),
    "rdmap_send_qn1": lambda c: c.hostile(untagged(OP_SEND, QN_RREQ, 1, 0,
                                                   bytes(16))),
    "rresp_unsolicited": lambda c: c.hostile(tagged(
        OP_READ_RESP, c.t.stag("r0"), c.t.addr("r0"), bytes(16))),
    "trunc_tagged": lambda c: c.hostile(tagged(OP_WRITE, c.t.stag("r0"),
                                               c.t.addr("r0"))[:10]),
    "trunc_untagged": lambda c: c.hostile(untagged(OP_SEND, QN_SEND, 1,
                                                   0)[:17]),
    "ulpdu_zero": lambda c: c.hostile(b""),
    "bad_crc": sc_bad_crc,
    "bad_crc_send": sc_bad_crc_send,
})


def sc_two_segs(c, second, first_send=True):
    """A message in two segments; the first is valid, the second breaks
    the continuity rules (RFC 5041 7.1; kiw_ddp.h, in-order checks)."""
    if first_send:
        first = untagged(OP_SEND, QN_SEND, 1, 0, c.t.recv_fresh(0, 16),
                         last=False)
    else:
        first = tagged(OP_WRITE, c.t.stag("r0"), c.t.addr("r0", 8),
                       c.t.fresh("r0", 8, 16), last=False)
    c.s.send(c.s.fpdu(first))
    c.hostile(second)
    if first_send:
        c.twant.update(rq=16, rq_lo=16, rq_hi=31)
    else:
        c.twant.update(r0=16, r0_lo=8, r0_hi=23)


SCENARIOS.update({
    "seg_mo_gap": lambda c: sc_two_segs(c, untagged(
        OP_SEND, QN_SEND, 1, 20, bytes(8))),
    "seg_op_change": lambda c: sc_two_segs(c, untagged(
        OP_SEND_SE, QN_SEND, 1, 16, bytes(8))),
    "seg_msn_next": lambda c: sc_two_segs(c, untagged(
        OP_SEND, QN_SEND, 2, 0, bytes(8))),
    "seg_stag_change": lambda c: sc_two_segs(c, tagged(
        OP_WRITE, c.t.stag("r0") ^ 0x100, c.t.addr("r0", 24), bytes(8)),
        first_send=False),
    "seg_to_gap": lambda c: sc_two_segs(c, tagged(
        OP_WRITE, c.t.stag("r0"), c.t.addr("r0", 28), bytes(8)),
        first_send=False),
})


def sc_seg_past_end(c):
    """A Write in two segments whose second, in sequence, runs 60 octets
    past r0's end (RFC 5041 7.1, base or bounds; DDP-ERR-12): the first
    segment lands; of the second not one octet, not even the 4 that fit
    in r0, nor the valid Write sent after it. Every octet sent differs
    from what it would overwrite, so any placement shows."""
    n = c.t.length("r0")
    first = tagged(OP_WRITE, c.t.stag("r0"), c.t.addr("r0", n - 20),
                   c.t.fresh("r0", n - 20, 16), last=False)
    c.s.send(c.s.fpdu(first))
    c.hostile(tagged(OP_WRITE, c.t.stag("r0"), c.t.addr("r0", n - 4),
                     c.t.fresh("r0", n - 4, 64)))
    c.twant.update(r0=16, r0_lo=n - 20, r0_hi=n - 5)


SCENARIOS["seg_past_end"] = sc_seg_past_end


def sc_half_fin(c):
    """Half an FPDU (header and 20 octets of a 64-octet Write), then our
    FIN: the FPDU never completes. With CRC nothing of it lands (it
    cannot be verified); without, its first octets may have
    (cut-through). Nothing completes, the connection ends."""
    w = c.s.fpdu(c.write("r0", 300, 64))
    c.s.send(w[:2 + 14 + 20])
    time.sleep(0.2)
    c.s.sock.shutdown(socket.SHUT_WR)
    if not c.s.crc:
        c.twant.update(r0=20, r0_lo=300, r0_hi=319)


SCENARIOS["half_fin"] = sc_half_fin


def sc_mk_ptr(c):
    """A Write across a marker whose FPDUPTR is 4 off (RFC 5044 8, code
    3): the CRC is right, the marker is not. With CRC the FPDU is
    checked whole before any of it is placed: nothing lands. Without,
    what precedes the marker may have (cut-through); nothing after it."""
    start = c.s.tx_off + (4 if c.s.tx_off % 512 == 0 else 0)
    before = (start // 512 + 1) * 512 - (start + 2 + 14)
    c.hostile(c.write("r0", 0, 600), mk_delta=4)
    if not c.s.crc:
        c.twant.update(r0=before, r0_lo=0, r0_hi=before - 1)


def sc_mk_lowbits(c):
    """FPDUPTR's low two bits set and RESERVED non-zero: both ignored
    (RFC 5044 4.2); the Write lands."""
    data = c.s.fpdu(c.write("r0", 0, 600), mk_delta=3, mk_rsvd=0xffff)
    c.s.send(data)
    c.twant.update(r0=600, r0_lo=0, r0_hi=599)
    time.sleep(0.3)
    c.s.sock.shutdown(socket.SHUT_WR)


def sc_crc_ignored(c):
    """Both sides C=0: the CRC field's content is not checked (RFC 5044
    4.4); the Write lands."""
    data = c.s.fpdu(c.write("r0", 0, 64), crc_bad=True)
    c.s.send(data)
    c.twant.update(r0=64, r0_lo=0, r0_hi=63)
    time.sleep(0.3)
    c.s.sock.shutdown(socket.SHUT_WR)


def sc_big_ulpdu(c):
    """A ULPDU far above kiw's MULPDU (4000 octets at MSS 1448): MPA may
    accept it (RFC 5044 3), and kiw does."""
    c.s.send(c.s.fpdu(c.write("r0", 500, 4000)))
    c.twant.update(r0=4000, r0_lo=500, r0_hi=4499)
    time.sleep(0.3)
    c.s.sock.shutdown(socket.SHUT_WR)


def sc_pad_ff(c):
    """PAD octets 0xff, covered by the CRC: ignored (RFC 5044 4.1)."""
    c.s.send(c.s.fpdu(c.write("r0", 0, 63), pad=b"\xff\xff\xff"))
    c.twant.update(r0=63, r0_lo=0, r0_hi=62)
    time.sleep(0.3)
    c.s.sock.shutdown(socket.SHUT_WR)


def sc_peer_term(c):
    """We terminate (RDMAP remote protection, invalid STag): kiw reports
    it to its consumer and sends no Terminate back."""
    c.after_write = False
    c.s.send(c.s.fpdu(term_msg(0, 1, 0)))
    c.twant.update(async_="ACCESS_ERR")


def sc_split(c):
    """A Write and a Send sent one octet per TCP segment: reassembled
    (RFC 5044 App. A.4, MPA-FR-8)."""
    data = c.s.fpdu(c.write("r0", 1, 30)) + c.s.fpdu(c.send_msg(5))
    for i in range(len(data)):
        c.s.send(data[i:i + 1])
        time.sleep(0.002)
    c.twant.update(r0=30, r0_lo=1, r0_hi=30, rq=5, rq_lo=16, rq_hi=20,
                   wc_ok=1)
    time.sleep(0.3)
    c.s.sock.shutdown(socket.SHUT_WR)


SCENARIOS.update({
    "mk_ptr": sc_mk_ptr,
    "mk_lowbits": sc_mk_lowbits,
    "crc_ignored": sc_crc_ignored,
    "big_ulpdu": sc_big_ulpdu,
    "pad_ff": sc_pad_ff,
    "peer_term": sc_peer_term,
    "split": sc_split,
})


# Responder scenarios (kiw initiated; iw_target client -R 64 posts a
# Read of 64 octets into r0 from STag 0x1234, TO 0x1000).

def _await_rreq(c):
    u = c.s.read_fpdu(c.wait)
    if u is None or len(u) != 46 or u[0] != 0x41 or u[1] != 0x41:
        c.extra["rreq"] = "none"
        return None
    sink_stag, sink_to, size, src_stag, src_to = \
        struct.unpack(">IQIIQ", u[18:46])
    ok = src_stag == 0x1234 and src_to == 0x1000 and size == 64 and \
        sink_stag == c.t.stag("r0") and sink_to == c.t.addr("r0")
    c.extra["rreq"] = "ok" if ok else "bad"
    return sink_stag, sink_to, size


def sc_rresp(c, stag_xor=0, extra=0, to_off=0):
    r = _await_rreq(c)
    if r is None:
        return
    sink_stag, sink_to, size = r
    c.hostile(tagged(OP_READ_RESP, sink_stag ^ stag_xor, sink_to + to_off,
                     c.t.fresh("r0", 0, size + extra)))


def sc_rresp_good(c):
    r = _await_rreq(c)
    if r is None:
        return
    sink_stag, sink_to, size = r
    c.s.send(c.s.fpdu(tagged(OP_READ_RESP, sink_stag, sink_to,
                             c.t.fresh("r0", 0, size))))
    c.twant.update(r0=64, r0_lo=0, r0_hi=63, wc_ok=1)
    time.sleep(0.3)
    c.s.sock.shutdown(socket.SHUT_WR)


SCENARIOS.update({
    "rresp_good": sc_rresp_good,
    "rresp_stag": lambda c: sc_rresp(c, stag_xor=1),
    "rresp_long": lambda c: sc_rresp(c, extra=8),
    "rresp_to": lambda c: sc_rresp(c, to_off=8),
    "init_w_stag": lambda c: sc_write(c, "r0", 0, 64, stag_xor=1),
    "init_send_msn": lambda c: c.hostile(untagged(OP_SEND, QN_SEND, 9, 0,
                                                  bytes(8))),
})

# Scenarios whose FPDUs go right behind our Reply (respond mode).
REPLY_EXTRA = {
    # garbage after the Reply: taken as an FPDU (RFC 5044 7.1, MPA-SU-4);
    # its ULPDU_Length (0x0020) is short enough to be complete, its CRC
    # cannot match
    "garbage": bytes([0, 0x20]) + bytes((i * 37 + 11) & 0xff
                                         for i in range(38)),
}


# ---------------------------------------------------------------------------
# Running a scenario and describing the outcome.

def describe(c, got, end, after):
    terms = [u for u in got if is_term(u)]
    pre = len(got) - len(terms)
    if terms:
        t = parse_term(terms[0])
        pre = got.index(terms[0])
    else:
        t = None
    out = "case=%s" % c.name
    if t is None or "layer" not in t:
        out += " term=none hdrct=- echo=- seglen=- tq=-"
    else:
        out += " term=%d/%d/0x%02x" % (t["layer"], t["etype"], t["ecode"])
        hdrct = "".join(k for k in "mdr" if t[k]) or "-"
        out += " hdrct=" + hdrct
        off = c.offender
        if t["d"] and off is not None:
            n = ddp_hdr_len(off)
            echo = t.get("ddp") == bytes(off[:n])
            if t["r"]:
                echo = echo and t.get("rdma") == bytes(off[n:n + 28])
            out += " echo=%d" % int(echo)
        else:
            out += " echo=-"
        if "seglen" in t and off is not None:
            out += " seglen=%d" % int(t["seglen"] == len(off))
        else:
            out += " seglen=-"
        out += " tq=%d" % t["tq"]
        if t.get("extra"):
            out += " term_extra=%d" % t["extra"]
    out += " nterm=%d fpdu_ok=%d pre=%d end=%s after=%.2f" % (
        len(terms), int(c.s.bad_fpdu == 0), pre, end, after)
    for k, v in c.extra.items():
        out += " %s=%s" % (k, v)
    return out, t


def twant_line(c):
    kv = " ".join("%s=%s" % (k.rstrip("_"), v) for k, v in c.twant.items())
    return "TWANT case=%s %s" % (c.name, kv)


def run_case(name, mode, host, port, scen, kv):
    st = Setup(kv, mode)
    orders = "case=%s recv=%s ird=%s" % (name, kv.get("recv", 4),
                                          kv.get("tird", 1))
    start = time.monotonic()
    if mode == "initiate":
        stream, tgt, frame = initiate(host, port, st, orders)
    else:
        stream, tgt, frame = respond(host, port, st,
                                     REPLY_EXTRA.get(scen, b""))
    ird = tgt.ird
    if frame.get("s") and "ird" in frame:
        ird = frame["ird"] if mode == "initiate" else frame["ord"]
    c = Ctx(name, stream, tgt, kv, st.wait, ird)
    if not tgt.ok():
        raise OSError("no region descriptor in the private data")
    if scen in REPLY_EXTRA:
        c.offender = REPLY_EXTRA[scen][2:]
    else:
        SCENARIOS[scen](c)
    got, end = stream.watch(st.wait)
    line, t = describe(c, got, end, time.monotonic() - start)
    stream.sock.close()
    return c, line, t


def batch_line(words):
    name, mode, host, port, scen = words[:5]
    kv = dict(w.split("=", 1) for w in words[5:])
    c, line, _ = run_case(name, mode, host, int(port), scen, kv)
    print("RESULT " + line, flush=True)
    print(twant_line(c), flush=True)


def batch(commands=None):
    """Play the scenarios on stdin, one a line. commands maps a line's
    first word to a handler of the line's words, for lines that are not a
    scenario (iwarp_corpus.py adds "corpus")."""
    commands = commands or {}
    for line in sys.stdin:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] in commands:
            commands[words[0]](words)
            continue
        print("CASE " + words[0], flush=True)
        try:
            batch_line(words)
        except (OSError, KeyError, ValueError) as e:
            print("RESULT case=%s error=%s %s" % (words[0], type(e).__name__,
                                                  str(e).replace(" ", "_")),
                  flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["batch"]:
        batch()
    else:
        sys.exit("usage: iwarp_peer.py batch < FILE")
