#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# iwarp_corpus: kiw's robustness corpus (issue 8), played with the raw peer
# of iwarp_peer.py (which this module imports; it does not import this one).
#
#   iwarp_corpus.py batch < FILE
#       iwarp_peer.py's batch lines, and
#         corpus HOST PORT seed=S count=N [first=K] [kinds=a,b] [key=value...]
#   iwarp_corpus.py check PEER_OUT DONE_OUT
#       a corpus run's verdicts and the consumer's view, per kind
#
# Case i of a corpus is built from random.Random(seed * 1000003 + i) alone,
# so any case can be replayed by itself (first=i count=1). Kinds take turns
# (case i is kind i mod len(kinds)); each builds crafted input around a
# valid stream and knows the outcome RFC 5044/5041/5040 (and kiw's error
# table, include/kiw/*.h) prescribe:
#
#   startup   a mutated MPA Request: key octet, Rev, PD_Length, Res bits,
#             truncation
#   crcflip   one bit flipped anywhere in FPDU k of a valid stream (CRC on)
#   random    1-8 octets changed, inserted or deleted in a valid stream
#   hdr       one DDP/RDMAP header field of a Write, Send or Read Request
#             set to a random value (CRC valid over the result)
#   len       ULPDU_Length shorter than the DDP header, or the largest
#   term      a Terminate from the peer, random control word and length
#   marker    (markers on) FPDUPTR off, low bits, RESERVED, leading marker
#
# Every case prints CASE, RESULT (as iwarp_peer.py), TWANT (what the
# consumer must see; for every case at least: no guard octet, and the
# regions the peer may not write unchanged) and
#   VERDICT case=NAME kind=K pass=1|0 want=... got=...
import collections
import random
import socket
import struct
import sys
import time

import mpa_peer as mp
import iwarp_peer as ip

KINDS = ["startup", "crcflip", "random", "hdr", "len", "term"]
# What a case that lets the peer place data must still leave alone.
SAFE = {"r1": 0, "rf": 0, "rn": 0, "guard": 0}
FILLER = bytes(66000)   # completes any ULPDU_Length a mutation makes up


class Case:
    def __init__(self, name, kind, rng):
        self.name = name
        self.kind = kind
        self.rng = rng
        self.want = {}          # facts the RESULT must show
        self.twant = dict(ip.TWANT_CLEAN)
        self.note = ""


# ---------------------------------------------------------------------------
# A valid stream of a few messages, as (ulpdu, kind) pairs.

def valid_msgs(c, t, s, n):
    rng = c.rng
    msgs = []
    for _ in range(n):
        k = rng.choice("wsr")
        if k == "w":
            off = rng.randrange(0, 4000)
            ln = rng.randrange(1, 300)
            u = ip.tagged(ip.OP_WRITE, t.stag("r0"), t.addr("r0", off),
                          t.fresh("r0", off, ln))
        elif k == "s" and s.msn[ip.QN_SEND] <= t.rq[0]:
            msn = s.next_msn(ip.QN_SEND)
            u = ip.untagged(ip.OP_SEND, ip.QN_SEND, msn, 0,
                            t.recv_fresh(msn - 1, rng.randrange(0, 65)))
        else:
            k = "r"
            off = rng.randrange(0, 900)
            u = ip.read_req(s.next_msn(ip.QN_RREQ), 0x77000000 + len(msgs),
                            0, rng.randrange(0, 100), t.stag("r1"),
                            t.addr("r1", off))
        msgs.append((u, k))
    return msgs


def connect(host, port, c, kv, m=0, crc=1):
    st = ip.Setup(dict(kv, m=m, crc=crc, wait=kv.get("wait", 8)),
                  "initiate")
    orders = "case=%s recv=4 ird=1" % c.name
    stream, t, rep = ip.initiate(host, port, st, orders)
    return stream, t, rep


def expect_term(c, code, hdrct="-"):
    c.want.update(term=code, hdrct=hdrct, nterm="1", tq="1",
                  fpdu_ok="1", end="fin")
    if hdrct != "-":
        c.want.update(echo="1", seglen="1")


def expect_none(c):
    c.want.update(term="none", fpdu_ok="1", end="fin")


# ---------------------------------------------------------------------------
# Kinds. Each gets (case, host, port, kv) and returns the RESULT line's
# facts as a dict (after watching the connection end).

def facts_of(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def play(c, stream, data, offender, wait):
    stream.send(data)
    got, end = stream.watch(wait)
    ctx = ip.Ctx(c.name, stream, None, {}, wait, 0)
    ctx.offender = offender
    line, _ = ip.describe(ctx, got, end, 0)
    stream.sock.close()
    return facts_of(line), got


def k_startup(c, host, port, kv):
    rng = c.rng
    pd = ("case=%s recv=4 ird=1" % c.name).encode()
    sub = rng.choice(["key", "rev", "pdlen", "res", "trunc"])
    f = bytearray(mp.frame(mp.KEY_REQ, False, True, False, 0, 2, pd, None,
                           (4, 4)))
    accepted = False
    if sub == "key":
        i = rng.randrange(16)
        f[i] = (f[i] + rng.randrange(1, 256)) & 0xff
        c.note = "key[%d]=0x%02x" % (i, f[i])
    elif sub == "rev":
        f[17] = rng.choice([0] + list(range(3, 256)))
        c.note = "rev=%d" % f[17]
    elif sub == "pdlen":
        v = rng.randrange(513, 65536)
        f[18:20] = struct.pack(">H", v)
        c.note = "pd_len=%d" % v
    elif sub == "res":
        f[16] |= rng.randrange(1, 16)     # Res bits of a Rev 2 frame
        c.note = "flags=0x%02x" % f[16]
        accepted = True
    else:
        n = rng.randrange(1, len(f))
        f = f[:n]
        c.note = "truncated to %d" % n
    s = socket.create_connection((host, port), timeout=30)
    s.sendall(bytes(f))
    if sub == "trunc":
        s.shutdown(socket.SHUT_WR)
    end, after, data = mp.watch_end(s, 1.5 if accepted else 6)
    rep = mp.parse_frame(data)
    got = {"end": end, "rx": str(len(data))}
    if accepted:
        got["reply"] = "1" if rep and rep["kind"] == "rep" and \
            not rep["r"] and rep["res"] == 0 else "0"
        c.want.update(reply="1")
        c.twant = {"established": 1, "guard": 0, "r0": 0}
    else:
        c.want.update(rx="0")
        # a malformed frame: RST at once; a truncated one: kiw sees our
        # FIN before a whole frame and closes too
        c.want.update(end="fin|rst" if sub == "trunc" else "rst")
        c.twant = None      # the consumer never hears of it
    s.close()
    return got


def k_crcflip(c, host, port, kv, m=0):
    rng = c.rng
    stream, t, _ = connect(host, port, c, kv, m=m)
    if m and not stream.tx_markers:
        raise OSError("kiw did not ask for markers")
    msgs = valid_msgs(c, t, stream, rng.randrange(1, 5))
    k = rng.randrange(len(msgs))
    data = b""
    for i, (u, _) in enumerate(msgs):
        w = bytearray(stream.fpdu(u))
        if i == k:
            bit = rng.randrange(len(w) * 8)
            w[bit // 8] ^= 1 << (bit % 8)
            c.note = "fpdu %d of %d bit %d" % (k, len(msgs), bit)
        data += bytes(w)
    expect_term(c, "2/0/0x02")
    c.twant = dict(SAFE)
    c.twant["wc_ok"] = sum(1 for u, kk in msgs[:k] if kk == "s")
    facts, got = play(c, stream, data + FILLER, None, stream_wait(kv))
    facts["rresp_bad"] = str(bad_responses(msgs[:k], got, t))
    c.want["rresp_bad"] = "0"
    return facts


def stream_wait(kv):
    return float(kv.get("wait", 8))


def bad_responses(msgs, got, t):
    """Read Responses kiw sent for the Read Requests in msgs that are
    wrong (a response may not have left before the Terminate)."""
    rrs = [u for u, k in msgs if k == "r"]
    resp = [u for u in got if not ip.is_term(u)]
    bad = 0
    for u, r in zip(resp, rrs):
        sink, _, size, _, src_to = struct.unpack(">IQIIQ", r[18:46])
        want = ip.tagged(ip.OP_READ_RESP, sink, 0) + \
            t.content("r1", src_to - t.addr("r1"), size)
        bad += u != want
    return bad + max(0, len(resp) - len(rrs))


def k_random(c, host, port, kv):
    rng = c.rng
    stream, t, _ = connect(host, port, c, kv)
    msgs = valid_msgs(c, t, stream, rng.randrange(1, 5))
    data = bytearray(b"".join(stream.fpdu(u) for u, _ in msgs))
    ops = []
    for _ in range(rng.randrange(1, 9)):
        pos = rng.randrange(len(data))
        op = rng.choice("cid")
        if op == "c":
            data[pos] ^= rng.randrange(1, 256)
        elif op == "i":
            data[pos:pos] = bytes([rng.randrange(256)])
        elif len(data) > 1:
            del data[pos]
        ops.append("%s%d" % (op, pos))
    c.note = " ".join(ops)
    expect_term(c, "2/0/0x02")
    c.twant = dict(SAFE)
    facts, _ = play(c, stream, bytes(data) + FILLER, None, stream_wait(kv))
    return facts


# hdr: (field, template) -> how to mutate and the outcome.
def k_hdr(c, host, port, kv):
    rng = c.rng
    stream, t, _ = connect(host, port, c, kv)
    tmpl = rng.choice("wsr")
    off = rng.randrange(0, 1000)
    ln = rng.randrange(1, 200)
    msn = 1
    fields = {
        "w": ["dv", "rv", "op", "stag", "to", "rsvd", "rdmap_rsvd"],
        "s": ["dv", "rv", "op", "qn", "msn", "mo", "rsvd", "inv"],
        "r": ["dv", "rv", "op", "qn", "msn", "mo", "src_stag", "src_to",
              "size", "sink"],
    }[tmpl]
    f = rng.choice(fields)
    p = dict(dv=1, rv=1, op={"w": 0, "s": 3, "r": 1}[tmpl], qn=None,
             msn=msn, mo=0, rsvd=0, inv=0)
    stag, to = t.stag("r0"), t.addr("r0", off)
    src_stag, src_to, size = t.stag("r1"), t.addr("r1", off % 800), ln
    sink, sink_to = 0x66000000 | rng.randrange(1 << 24), rng.randrange(2**64)
    accept = False
    hdrct = "md"
    if f == "dv":
        p["dv"] = rng.choice([0, 2, 3])
        code, hdrct = ("1/1/0x04" if tmpl == "w" else "1/2/0x06"), "-"
    elif f == "rv":
        p["rv"] = rng.choice([0, 2, 3])
        code = "0/2/0x05"
    elif f == "op":
        p["op"] = rng.choice({"w": [1, 3, 4, 5, 6, 7] + list(range(8, 16)),
                              "s": [0, 1, 2, 7] + list(range(8, 16)),
                              "r": [0, 2, 3, 7] + list(range(8, 16))}[tmpl])
        code = "0/2/0x06"
    elif f == "qn":
        p["qn"] = rng.randrange(3, 2**32)
        code = "1/2/0x01"
    elif f == "msn":
        p["msn"] = rng.choice([0, 2, rng.randrange(3, 2**32)])
        code = "1/2/0x03"
    elif f == "mo":
        p["mo"] = rng.randrange(1, 2**32)
        code = "1/2/0x04"
    elif f == "stag":
        stag = rng.randrange(2**32)
        if stag in [t.stag(r) for r in t.regions]:
            stag ^= 0x100
        code = "1/1/0x00"
    elif f == "to":
        to = rng.randrange(2**64)
        code = "1/1/0x03" if to + ln >= 2**64 else "1/1/0x01"
    elif f == "src_stag":
        src_stag = rng.randrange(2**32)
        if src_stag in [t.stag(r) for r in t.regions]:
            src_stag ^= 0x100
        code, hdrct = "0/1/0x00", "mdr"
    elif f == "src_to":
        src_to = rng.randrange(2**64)
        code = "0/1/0x04" if src_to + size >= 2**64 else "0/1/0x01"
        hdrct = "mdr"
    elif f == "size":
        size = rng.randrange(1000 - off % 800 + 1, 2**32)
        code, hdrct = "0/1/0x01", "mdr"
    else:       # rsvd, rdmap_rsvd, inv, sink: ignored, accepted
        accept = True
        p["rsvd"] = rng.randrange(1, 16)
        p["inv"] = rng.randrange(2**32)
    c.note = "%s.%s" % (tmpl, f)
    if tmpl == "w":
        u = bytearray(ip.tagged(p["op"], stag, to, t.fresh("r0", off, ln),
                                dv=p["dv"], rv=p["rv"],
                                rsvd=p["rsvd"] if f == "rsvd" else 0))
        if f == "rdmap_rsvd":
            u[1] |= rng.randrange(1, 4) << 4
        if accept:
            c.twant.update(r0=ln, r0_lo=off, r0_hi=off + ln - 1)
    elif tmpl == "s":
        u = bytearray(ip.untagged(
            p["op"], ip.QN_SEND if p["qn"] is None else p["qn"], p["msn"],
            p["mo"], t.recv_fresh(0, ln), dv=p["dv"], rv=p["rv"],
            inv=p["inv"] if f == "inv" else 0))
        if f == "rsvd":
            u[0] |= p["rsvd"] << 2
        if accept:
            c.twant.update(rq=ln, rq_lo=16, rq_hi=16 + ln - 1, wc_ok=1)
    else:
        if f != "sink":
            sink, sink_to = 0x77000001, 0
        u = bytearray(ip.untagged(
            p["op"], ip.QN_RREQ if p["qn"] is None else p["qn"], p["msn"],
            p["mo"], ip.rr_body(sink, sink_to, size, src_stag, src_to),
            dv=p["dv"], rv=p["rv"]))
    u = bytes(u)
    if accept:
        expect_none(c)
        data = stream.fpdu(u)
        if tmpl == "r":
            c.want["rresp"] = "ok"
    else:
        expect_term(c, code, hdrct)
        data = stream.fpdu(u) + stream.fpdu(ip.tagged(
            ip.OP_WRITE, t.stag("r0"), t.addr("r0", 2000),
            t.fresh("r0", 2000, 16)))
    stream.send(data)
    if accept:
        if tmpl == "r":
            r = stream.read_fpdu(stream_wait(kv))
            ok = r == ip.tagged(ip.OP_READ_RESP, sink, sink_to) + \
                t.content("r1", off % 800, size)
        time.sleep(0.2)
        stream.sock.shutdown(socket.SHUT_WR)
    facts, _ = play(c, stream, b"", u, stream_wait(kv))
    if accept and tmpl == "r":
        facts["rresp"] = "ok" if ok else "bad"
    return facts


def k_len(c, host, port, kv):
    rng = c.rng
    stream, t, _ = connect(host, port, c, kv)
    sub = rng.choice(["short_t", "short_u", "max_w", "max_s"])
    if sub == "short_t":
        n = rng.randrange(0, 14)
        u = ip.tagged(ip.OP_WRITE, t.stag("r0"), t.addr("r0"))[:n]
        code, hdrct = "1/0/0x00", "-"
    elif sub == "short_u":
        n = rng.randrange(0, 18)
        u = ip.untagged(ip.OP_SEND, 0, 1, 0)[:n]
        if n and u[0] & 0x80:
            u = bytes([u[0] & 0x7f]) + u[1:]
        code, hdrct = "1/0/0x00", "-"
    elif sub == "max_w":
        # the largest ULPDU_Length a receiver takes (64768, RFC 5044
        # section 3; above it kiw stops at once with MPA code 3, which
        # kiw_fpdu_rx_test.c covers): a Write far past r0's end
        u = ip.tagged(ip.OP_WRITE, t.stag("r0"), t.addr("r0"),
                      bytes(64768 - 14))
        code, hdrct = "1/1/0x01", "md"
    else:
        u = ip.untagged(ip.OP_SEND, 0, 1, 0, bytes(64768 - 18))
        code, hdrct = "1/2/0x05", "md"
        c.twant.update(wc_err="LOC_LEN")
    c.note = "%s len=%d" % (sub, len(u))
    expect_term(c, code, hdrct)
    facts, _ = play(c, stream, stream.fpdu(u), u, stream_wait(kv))
    return facts


def term_event(w):
    """The async event kiw gives its consumer for a received Terminate
    with control word w (kiw_rdmap.c, kiw_term_report())."""
    layer, etype, ecode = w >> 28, (w >> 24) & 0xf, (w >> 16) & 0xff
    if layer == 0 and etype == 1:
        return "ACCESS_ERR"
    if layer == 0 and etype == 2:
        return "FATAL" if ecode in (7, 8) else "REQ_ERR"
    if layer == 1 and etype == 1:
        return "REQ_ERR" if ecode == 4 else "ACCESS_ERR"
    if layer == 1 and etype == 2:
        return "REQ_ERR"
    return "FATAL"


def k_term(c, host, port, kv):
    rng = c.rng
    stream, t, _ = connect(host, port, c, kv)
    w = rng.randrange(2**32)
    n = rng.choice([0, 1, 3, 4, 6, 20, 24, 52, rng.randrange(53, 300)])
    body = struct.pack(">I", w) + bytes(rng.randrange(256)
                                        for _ in range(max(0, n - 4)))
    body = body[:n]
    u = ip.untagged(ip.OP_TERM, ip.QN_TERM, 1, 0, body)
    c.note = "ctrl=0x%08x len=%d" % (w, n)
    if n > 52:
        # more than the Terminate buffer: DDP message too long
        expect_term(c, "1/2/0x05", "md")
    else:
        # kiw sends nothing back and closes abortively
        expect_none(c)
        c.want["end"] = "rst"
        c.twant["async"] = term_event(w if n >= 4 else 0x02ff0000)
    facts, _ = play(c, stream, stream.fpdu(u), u, stream_wait(kv))
    return facts


def k_marker(c, host, port, kv):
    rng = c.rng
    # Choose before connecting: the consumer must see one connection per
    # case (check() matches its DONE line to the case by name).
    sub = rng.choice(["ptr", "lowbits", "rsvd", "lead", "crcflip"])
    if sub == "crcflip":
        return None
    stream, t, rep = connect(host, port, c, kv, m=1)
    if not stream.tx_markers:
        raise OSError("kiw did not ask for markers")
    # a Write long enough to hold one or two markers
    off = rng.randrange(0, 3000)
    ln = rng.randrange(520, 1500)
    u = ip.tagged(ip.OP_WRITE, t.stag("r0"), t.addr("r0", off),
                  t.fresh("r0", off, ln))
    if sub == "ptr":
        delta = rng.choice([4, 8, -4, 512, rng.randrange(1, 16000) * 4])
        data = stream.fpdu(u, mk_delta=delta)
        expect_term(c, "2/0/0x03")
        c.twant = dict(SAFE)
    elif sub == "lead":
        # stream offset 0 carries a leading marker (FPDUPTR 0); make it
        # point elsewhere
        data = bytearray(stream.fpdu(u))
        data[2:4] = struct.pack(">H", rng.randrange(1, 0x4000) * 4)
        data = bytes(data)
        expect_term(c, "2/0/0x02")    # the CRC covers it: CRC first
        c.twant = dict(SAFE)
    else:
        if sub == "lowbits":
            data = stream.fpdu(u, mk_delta=rng.randrange(1, 4))
        else:
            data = stream.fpdu(u, mk_rsvd=rng.randrange(1, 65536))
        expect_none(c)
        c.twant.update(r0=ln, r0_lo=off, r0_hi=off + ln - 1)
    c.note = "%s off=%d len=%d" % (sub, off, ln)
    if c.want.get("term") == "none":
        stream.send(data)
        time.sleep(0.2)
        stream.sock.shutdown(socket.SHUT_WR)
        data = b""
    facts, _ = play(c, stream, data, u, stream_wait(kv))
    return facts


KIND_FN = {"startup": k_startup, "crcflip": k_crcflip, "random": k_random,
           "hdr": k_hdr, "len": k_len, "term": k_term, "marker": k_marker}


def matches(want, got):
    for k, v in want.items():
        if got.get(k) not in v.split("|"):
            return False
    return True


def run_one(i, seed, kinds, host, port, kv):
    kind = kinds[i % len(kinds)]
    c = Case("c%d_%s" % (i, kind), kind,
             random.Random(seed * 1000003 + i))
    print("CASE " + c.name, flush=True)
    try:
        got = KIND_FN[kind](c, host, port, kv)
    except Exception as e:      # a case must never stop the corpus
        got = {"error": type(e).__name__}
    if got is None:         # marker/crcflip: the crcflip kind, markers on
        c.want = {}
        c.twant = dict(ip.TWANT_CLEAN)
        got = k_crcflip(c, host, port, kv, m=1)
    got.pop("case", None)
    got.pop("after", None)
    want = {k: str(v) for k, v in c.want.items()}
    ok = matches(want, got)
    print("RESULT case=%s %s" % (c.name, " ".join(
        "%s=%s" % kv_ for kv_ in sorted(got.items()))), flush=True)
    if c.twant is not None:
        print("TWANT case=%s %s" % (c.name, " ".join(
            "%s=%s" % (k, v) for k, v in c.twant.items())), flush=True)
    print("VERDICT case=%s kind=%s pass=%d note=%s want=%s" % (
        c.name, kind, int(ok), c.note.replace(" ", "_"),
        ",".join("%s:%s" % x for x in sorted(want.items()))), flush=True)
    return ok


def run(host, port, kv):
    seed = int(kv.get("seed", 1))
    count = int(kv.get("count", 10))
    first = int(kv.get("first", 0))
    kinds = kv.get("kinds", ",".join(KINDS)).split(",")
    budget = float(kv.get("budget", 1e9))
    start = time.monotonic()
    passed = ran = 0
    for i in range(first, first + count):
        if time.monotonic() - start > budget:
            break
        passed += run_one(i, seed, kinds, host, port, kv)
        ran += 1
    print("CORPUS seed=%d ran=%d passed=%d failed=%d secs=%.0f" % (
        seed, ran, passed, ran - passed, time.monotonic() - start),
        flush=True)


def _words(line):
    return dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)


def check(peer_out, target_out):
    """Summarize a corpus run per kind, for the VM test: the peer's
    verdicts, and the consumer's DONE lines against the peer's TWANT.
    Prints "KIND kind=K verdicts=P/T consumer=P/T" and "BAD ..." lines."""
    done, seen = {}, collections.Counter()
    for line in open(target_out, errors="replace"):
        if line.startswith("DONE "):
            name = _words(line).get("case")
            done.setdefault(name, line.split())
            seen[name] += 1
    for name, n in sorted(seen.items()):
        if n > 1:
            # a case's DONE line would be ambiguous
            print("BAD consumer %s: %d connections for one case" % (name, n))
    twant, kinds = {}, {}
    for line in open(peer_out, errors="replace"):
        if line.startswith("TWANT "):
            w = line.split()
            twant[w[1][5:]] = w[2:]
        elif line.startswith("VERDICT "):
            w = _words(line)
            k = kinds.setdefault(w["kind"], [0, 0, 0, 0])
            k[1] += 1
            if w["pass"] == "1":
                k[0] += 1
            else:
                print("BAD verdict %s" % line.strip())
            name = w["case"]
            k[3] += 1
            got = done.get(name)
            if name not in twant:
                # never a valid Request: the consumer never hears of it
                if got:
                    print("BAD consumer %s saw a connection" % name)
                else:
                    k[2] += 1
                continue
            miss = [kv for kv in twant[name] if not got or kv not in got]
            if miss:
                print("BAD consumer %s want %s got %s" % (
                    name, " ".join(miss), " ".join(got or ["nothing"])))
            else:
                k[2] += 1
    for kind, k in sorted(kinds.items()):
        print("KIND kind=%s verdicts=%d/%d consumer=%d/%d" % (
            kind, k[0], k[1], k[2], k[3]))


def corpus_line(words):
    """A batch line "corpus HOST PORT key=value...": run() it."""
    run(words[1], int(words[2]), dict(w.split("=", 1) for w in words[3:]))


if __name__ == "__main__":
    if sys.argv[1:] == ["batch"]:
        ip.batch({"corpus": corpus_line})
    elif sys.argv[1:2] == ["check"] and len(sys.argv) == 4:
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: iwarp_corpus.py batch < FILE | "
                 "check PEER_OUT DONE_OUT")
