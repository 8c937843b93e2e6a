#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# mpa_peer: a raw MPA peer over plain TCP, for kiw's hostile-peer tests.
# A library (frames, CRC32c, FPDUs, observing how a connection ends) and a
# command line that plays one scenario and prints one RESULT line.
#
#   mpa_peer.py initiate HOST PORT [frame options] [--drip SEC] [--extra N]
#       connect to a kiw listener, send a (crafted) Request, read what kiw
#       answers, and watch how the connection ends
#   mpa_peer.py respond HOST PORT [frame options] [--silent] [--linger SEC]
#       listen; when kiw connects, read its Request, answer with a
#       (crafted) frame, and watch how the connection ends; with --linger,
#       after kiw's FIN stay silent and report whether kiw then gives up
#       with a RST (then=rst|open)
#   mpa_peer.py flood HOST PORT -n N
#       open N TCP connections that never send, and count how kiw closes
#       them
#   mpa_peer.py batch < FILE
#       one scenario per line, "NAME MODE HOST PORT [options]", in one
#       process (Python starts slowly in a TCG guest); each prints
#       "CASE NAME" before its lines, and a scenario that fails prints
#       "RESULT error=..."; respond scenarios share one listening socket
#
# Full Operation (--fo ACTION, repeatable, after a startup that kiw
# accepted): the peer speaks just enough DDP/RDMAP (RFC 5041, RFC 5040) to
# exchange Sends with cm_tool (scripts/guest/cm_tool.c -D: message k of
# connection 0 is pd_pattern(size, 10 + k) from the client, 20 + k from
# the server), framed as negotiated: CRC if either frame had C, markers
# towards kiw if kiw's frame had M, from kiw if ours had. Every FPDU kiw
# sends is parsed and checked (markers, CRC, one DDP segment each).
#   send[+MOD...]  our next message (--size octets, segments of at most
#                  --seg octets); MODs apply to its FPDUs:
#                  crc    a wrong CRC (the last FPDU)
#                  ptr    every marker of the last FPDU points 4 octets off
#                  ptrlow FPDUPTR low bits set (receivers mask them)
#                  mkres  marker RESERVED 0xffff (ignored, but in the CRC)
#                  pad    PAD octets 0xff (ignored, but in the CRC)
#                  junk   CRC field 0xdeadbeef (when no CRC was agreed)
#                  split  sent one octet per segment
#   pack:N         our next N messages in one send()
#   len:N          an FPDU whose ULPDU_Length says N, and 64 octets of it
#   rtr            the zero-length RDMA Write RTR (RFC 6581)
#   junk:N         N octets of 0xff where an FPDU belongs
#   recv[:N]       wait (5 s at most) until N (default 1) more of kiw's
#                  messages are in
#   phase          start counting the largest ULPDU anew (max_ulpdu)
#   mtu:NS:DEV:N   set DEV's MTU in netns NS (kiw's side: its EMSS changes)
#   sleep:SEC
# --glue (respond): the Reply and the first action's octets in one send().
# --mss N: our TCP MSS option (TCP_MAXSEG), so kiw's EMSS.
# The RESULT line then also has: rx_msgs= (kiw's messages, intact and in
# order), rx_bad= (wrong content or order, or a DDP/RDMAP version other
# than 1), fpdus=, crc_bad= mk_bad= (kiw's FPDUs whose CRC or markers are
# wrong), max_ulpdu=A,B... (per phase), first= (kiw's first
# FPDU: send, write0, read0, term...), early= (octets kiw sent before our
# first FPDU: the responder must send none), terms= term=LAYER/ETYPE/ECODE
# (kiw's Terminates, the first one's codes), after_term= (FPDUs after it),
# sent_err= (a send failed: kiw had closed).
#
# Frame options: --key req|rep|bad|lower (bad: octet 0 changed), --rev N,
# -M -C -R (the M, C, R bits), --res BITS (the reserved bits of octet 16),
# --pd N (N octets of private data: octet i = (i * 7 + seed) & 0xff, seed
# 1 in a Request, 2 in an accepting Reply, 3 in a reject), --pd-len N (the
# PD_Length field, when it should lie), --v2 IRD,ORD[,A,RTR] (the RFC 6581
# word: S set, RTR a mask of 1 Send, 2 Write, 4 Read), --truncate N (send
# only the first N octets). --wait SEC bounds the watch (default 5).
#
# RESULT line: end=fin|rst|open (how the connection ended, seen from here),
# after=SEC (when), rx=N (octets kiw sent), frame=KIND (what they parse
# as: none, req, rep, bad), and for a frame m= c= r= res= rev= pd_len=
# pd_ok= and the v2 word when S is set; flood: opened= fin= rst= open=.
import argparse
import resource
import select
import selectors
import socket
import struct
import subprocess
import sys
import time

KEY_REQ = b"MPA ID Req Frame"
KEY_REP = b"MPA ID Rep Frame"
FLAG_M, FLAG_C, FLAG_R, FLAG_S = 0x80, 0x40, 0x20, 0x10
RTR_SEND, RTR_WRITE, RTR_READ = 1, 2, 4
HDR_LEN = 20


def pd_pattern(n, seed):
    return bytes((i * 7 + seed) & 0xff for i in range(n))


def v2_word(ird, ord_, p2p=False, rtr=0):
    """The RFC 6581 IRD/ORD word: A|B|IRD, C|D|ORD, big-endian."""
    w_ird = (ird & 0x3fff) | (0x8000 if p2p else 0) | \
        (0x4000 if rtr & RTR_SEND else 0)
    w_ord = (ord_ & 0x3fff) | (0x8000 if rtr & RTR_WRITE else 0) | \
        (0x4000 if rtr & RTR_READ else 0)
    return struct.pack(">HH", w_ird, w_ord)


def frame(key=KEY_REQ, m=False, c=False, r=False, res=0, rev=1, pd=b"",
          pd_len=None, v2=None):
    """A Request/Reply frame. v2: (ird, ord[, p2p, rtr]) sets S and puts
    the word before pd; pd_len overrides PD_Length (a lying frame)."""
    flags = (FLAG_M if m else 0) | (FLAG_C if c else 0) | \
        (FLAG_R if r else 0) | (res & 0x1f)
    body = pd
    if v2 is not None:
        flags |= FLAG_S
        body = v2_word(*v2) + pd
    if pd_len is None:
        pd_len = len(body)
    return key + struct.pack(">BBH", flags, rev, pd_len) + body


def parse_frame(buf):
    """Decode a frame; None if fewer than 20 octets."""
    if len(buf) < HDR_LEN:
        return None
    flags, rev, pd_len = struct.unpack(">BBH", buf[16:HDR_LEN])
    f = {
        "kind": "req" if buf[:16] == KEY_REQ else
                "rep" if buf[:16] == KEY_REP else "bad",
        "m": int(bool(flags & FLAG_M)), "c": int(bool(flags & FLAG_C)),
        "r": int(bool(flags & FLAG_R)), "rev": rev, "pd_len": pd_len,
        # S is a flag at revision 2, a reserved bit at revision 1
        "s": int(bool(rev == 2 and flags & FLAG_S)),
        "res": flags & (0x0f if rev == 2 else 0x1f),
    }
    pd = buf[HDR_LEN:HDR_LEN + pd_len]
    f["complete"] = len(pd) == pd_len
    if rev == 2 and flags & FLAG_S and len(pd) >= 4:
        ird, ord_ = struct.unpack(">HH", pd[:4])
        f.update(ird=ird & 0x3fff, ord=ord_ & 0x3fff,
                 p2p=int(bool(ird & 0x8000)),
                 rtr=(RTR_SEND if ird & 0x4000 else 0) |
                     (RTR_WRITE if ord_ & 0x8000 else 0) |
                     (RTR_READ if ord_ & 0x4000 else 0))
        pd = pd[4:]
    f["pd"] = pd
    return f


# The one CRC32c of the Python peers (iwarp_peer.py and iwarp_corpus.py
# use this one): table-driven, as a bitwise loop is too slow for payloads
# under TCG.
_CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ (0x82f63b78 if _c & 1 else 0)
    _CRC_TABLE.append(_c)


def crc32c(data, crc=0):
    """CRC32c as MPA uses it (RFC 5044 4.4, the iSCSI digest): reflected
    0x82F63B78, preset and final complement. Sent least significant octet
    first (struct.pack("<I", ...))."""
    crc ^= 0xffffffff
    t = _CRC_TABLE
    for b in data:
        crc = t[(crc ^ b) & 0xff] ^ (crc >> 8)
    return crc ^ 0xffffffff


assert crc32c(b"123456789") == 0xe3069283      # the check value
assert crc32c(bytes(32)) == 0x8a9136aa         # RFC 3720 B.4 (32 0s)


def fpdu(ulpdu, crc=True):
    """An FPDU without markers: ULPDU_Length, ULPDU, PAD, CRC (0 if off)."""
    body = struct.pack(">H", len(ulpdu)) + ulpdu
    body += b"\0" * (-len(body) % 4)
    return body + struct.pack("<I", crc32c(body) if crc else 0)


# DDP and RDMAP, just enough to move Sends (RFC 5041 4, RFC 5040 4).
DDP_T, DDP_L, DDP_DV = 0x80, 0x40, 0x01
RDMAP_RV = 0x40
OP_WRITE, OP_RREQ, OP_RRESP, OP_SEND, OP_TERM = 0, 1, 2, 3, 7
OP_NAMES = {0: "write", 1: "read", 2: "rresp", 3: "send", 4: "sendinv",
            5: "sendse", 6: "sendseinv", 7: "term"}
UNTAGGED_HDR, TAGGED_HDR = 18, 14
MARKER = 512


def send_ulpdu(msn, mo, payload, last):
    return struct.pack(">BBIIII", DDP_DV | (DDP_L if last else 0),
                       RDMAP_RV | OP_SEND, 0, 0, msn, mo) + payload


def rtr_ulpdu():
    """Zero-length RDMA Write (a non-zero STag: some stacks refuse 0)."""
    return struct.pack(">BBIQ", DDP_T | DDP_L | DDP_DV, RDMAP_RV | OP_WRITE,
                       0x100, 0)


class FpduTx:
    """Our half of Full Operation: FPDUs with markers where they fall,
    counted from SeqStart (RFC 5044 4.3), and the CRC over everything
    section 4.4 covers."""

    def __init__(self, markers, crc):
        self.markers, self.crc, self.off = markers, crc, 0

    def marker(self, ptr, mods):
        res = 0xffff if "mkres" in mods else 0
        if "ptr" in mods:
            ptr += 4
        if "ptrlow" in mods:
            ptr |= 3
        return struct.pack(">HH", res, ptr & 0xffff)

    def fpdu(self, ulpdu, mods=(), length=None):
        n = len(ulpdu) if length is None else length
        pad = -(2 + len(ulpdu)) % 4
        body = struct.pack(">H", n) + ulpdu + \
            (b"\xff" if "pad" in mods else b"\0") * pad
        wire, len_at = b"", None
        for i in range(len(body) + 1):
            at = self.off + len(wire)
            if self.markers and at % MARKER == 0 and \
                    (i < len(body) or len_at is not None):
                # FPDUPTR: back to ULPDU_Length; 0 when it leads the FPDU
                wire += self.marker(0 if len_at is None else at - len_at,
                                    mods)
            if i == len(body):
                break
            if i == 0:
                len_at = self.off + len(wire)
            wire += body[i:i + 1]
        value = crc32c(wire) if self.crc else 0
        if "crc" in mods:
            value ^= 0x1
        if "junk" in mods:
            value = 0xdeadbeef
        wire += struct.pack("<I", value)
        self.off += len(wire)
        return wire


class FpduRx:
    """kiw's half: parse and check every FPDU, reassemble messages."""

    def __init__(self, markers, crc, seed, size):
        self.markers, self.crc = markers, crc
        self.raw, self.pos = b"", 0
        self.seed, self.size = seed, size
        self.msgs, self.bad, self.fpdus = 0, 0, 0
        self.crc_bad, self.mk_bad = 0, 0
        self.max_ulpdu = [0]
        self.first = None
        self.terms, self.term, self.after_term = 0, None, 0
        self.msg = {}		# MSN -> bytearray of the Send being built

    def feed(self, data):
        self.raw += data
        while self.one():
            pass

    def one(self):
        """Parse the FPDU at self.pos, if it is all in."""
        raw, i, mk_bad = self.raw, self.pos, 0
        body, len_at, need = b"", None, 2
        while len(body) < need:
            if self.markers and i % MARKER == 0:
                if i + 4 > len(raw):
                    return False
                ptr = struct.unpack(">H", raw[i + 2:i + 4])[0] & ~3
                if ptr != (0 if len_at is None else i - len_at):
                    mk_bad += 1
                i += 4
                continue
            if i >= len(raw):
                return False
            if len_at is None:
                len_at = i
            body += raw[i:i + 1]
            i += 1
            if len(body) == 2:
                n = struct.unpack(">H", body)[0]
                need = 2 + n + (-(2 + n) % 4)
        if self.markers and i % MARKER == 0:
            # right before the CRC field: still this FPDU's
            if i + 4 > len(raw):
                return False
            if struct.unpack(">H", raw[i + 2:i + 4])[0] & ~3 != i - len_at:
                mk_bad += 1
            i += 4
        if i + 4 > len(raw):
            return False
        got = struct.unpack("<I", raw[i:i + 4])[0]
        ok = not self.crc or got == crc32c(raw[self.pos:i])
        self.pos = i + 4
        self.fpdus += 1
        self.crc_bad += not ok
        self.mk_bad += mk_bad
        n = struct.unpack(">H", body[:2])[0]
        self.max_ulpdu[-1] = max(self.max_ulpdu[-1], n)
        self.ulpdu(body[2:2 + n])
        return True

    def ulpdu(self, u):
        if not u:
            kind = "empty"
        elif u[0] & DDP_T:
            kind = OP_NAMES.get(u[1] & 0xf, "op?") + \
                ("0" if len(u) == TAGGED_HDR else "")
        else:
            kind = OP_NAMES.get(u[1] & 0xf, "op?") + \
                ("0" if len(u) == UNTAGGED_HDR else "")
        if self.first is None:
            self.first = kind
        if len(u) < 2 or (u[0] & 0x3) != DDP_DV or (u[1] & 0xc0) != RDMAP_RV:
            self.bad += 1	# DDP and RDMAP version 1 (RFC 5044 3)
            return
        if self.terms:
            self.after_term += 1
            return
        if len(u) < UNTAGGED_HDR or u[0] & DDP_T:
            return
        _, rd, _, qn, msn, mo = struct.unpack(">BBIIII", u[:UNTAGGED_HDR])
        data = u[UNTAGGED_HDR:]
        if (rd & 0xf) == OP_TERM:
            self.terms += 1
            if len(data) >= 4:
                w = struct.unpack(">I", data[:4])[0]
                self.term = "%d/%d/%d" % (w >> 28, (w >> 24) & 0xf,
                                          (w >> 16) & 0xff)
            return
        if (rd & 0xf) != OP_SEND or qn != 0:
            return
        m = self.msg.setdefault(msn, bytearray())
        if mo != len(m):
            self.bad += 1
        m[mo:mo + len(data)] = data
        if u[0] & DDP_L:
            del self.msg[msn]
            want = pd_pattern(self.size, (self.seed + self.msgs) & 0xff)
            if bytes(m) == want:
                self.msgs += 1
            else:
                self.bad += 1

    def describe(self):
        out = " fpdus=%d rx_msgs=%d rx_bad=%d crc_bad=%d mk_bad=%d" % (
            self.fpdus, self.msgs, self.bad, self.crc_bad, self.mk_bad)
        out += " max_ulpdu=%s first=%s terms=%d" % (
            ",".join(str(m) for m in self.max_ulpdu), self.first,
            self.terms)
        if self.terms:
            out += " term=%s after_term=%d" % (self.term, self.after_term)
        return out


class FullOp:
    """Play the --fo actions on a connection kiw accepted."""

    def __init__(self, sock, a, tx_markers, rx_markers, crc, client):
        self.s, self.a = sock, a
        self.tx = FpduTx(tx_markers, crc)
        self.rx = FpduRx(rx_markers, crc, 20 if client else 10, a.size)
        self.my_seed = 10 if client else 20
        self.sent, self.msn, self.end = 0, 1, None
        self.sent_err = 0
        self.early = None
        sock.setblocking(False)

    def pump(self, wait=0.0):
        """Read what kiw sent, for up to wait s; note how it ended."""
        deadline = time.monotonic() + wait
        while self.end is None:
            r, _, _ = select.select([self.s], [], [],
                                    max(0, deadline - time.monotonic()))
            if not r:
                return
            try:
                data = self.s.recv(65536)
            except BlockingIOError:
                continue
            except ConnectionResetError:
                self.end = "rst"
                return
            if not data:
                self.end = "fin"
                return
            self.rx.feed(data)

    def message(self, mods):
        """Our next message as FPDUs, segmented at --seg octets."""
        payload = pd_pattern(self.a.size, (self.my_seed + self.sent) & 0xff)
        self.sent += 1
        out, mo = [], 0
        while True:
            n = min(self.a.seg, len(payload) - mo)
            last = mo + n == len(payload)
            out.append(self.tx.fpdu(send_ulpdu(self.msn, mo,
                                               payload[mo:mo + n], last),
                                    mods if last else ()))
            mo += n
            if last:
                break
        self.msn += 1
        return out

    def put(self, chunks, split=False):
        if self.early is None:
            self.pump()
            self.early = len(self.rx.raw)
        try:
            self.s.setblocking(True)
            if split:
                for c in b"".join(chunks):
                    self.s.send(bytes([c]))
                    time.sleep(0.002)
            else:
                self.s.sendall(b"".join(chunks))
        except OSError:
            self.sent_err += 1
        finally:
            self.s.setblocking(False)

    def wire(self, act):
        """The octets of one sending action."""
        name, _, arg = act.partition(":")
        mods = name.split("+")
        if mods[0] == "send":
            return self.message(mods[1:]), "split" in mods
        if name == "pack":
            return sum((self.message(()) for _ in range(int(arg))), []), \
                False
        if name == "len":
            return [self.tx.fpdu(b"\x41" * 64, length=int(arg))], False
        if name == "rtr":
            return [self.tx.fpdu(rtr_ulpdu())], False
        if name == "junk":
            return [b"\xff" * int(arg)], False
        return None, False

    def run(self, acts, glued=b""):
        for i, act in enumerate(acts):
            name, _, arg = act.partition(":")
            chunks, split = self.wire(act)
            if chunks is not None:
                self.put(([glued] if i == 0 and glued else []) + chunks,
                         split)
            elif name == "recv":
                want = self.rx.msgs + int(arg or 1)
                deadline = time.monotonic() + 5
                while self.rx.msgs < want and self.end is None and \
                        time.monotonic() < deadline:
                    self.pump(0.05)
            elif name == "phase":
                self.pump(0.2)
                self.rx.max_ulpdu.append(0)
            elif name == "mtu":
                ns, dev, mtu = arg.split(":")
                subprocess.run(["ip", "-n", ns, "link", "set", dev, "mtu",
                                mtu], check=True)
            elif name == "sleep":
                self.pump(float(arg))
            else:
                raise ValueError("unknown action " + act)
            self.pump()

    def finish(self, wait):
        start = time.monotonic()
        self.pump(wait)
        return self.end or "open", time.monotonic() - start

    def describe(self):
        return self.rx.describe() + " early=%s sent_err=%d" % (
            self.early, self.sent_err)


def read_frame(s, timeout=30):
    """Exactly one Request/Reply frame (20 octets, then PD_Length)."""
    s.settimeout(timeout)
    buf = b""
    want = HDR_LEN
    while len(buf) < want:
        chunk = s.recv(want - len(buf))
        if not chunk:
            break
        buf += chunk
        if len(buf) == HDR_LEN:
            want += struct.unpack(">H", buf[18:20])[0]
    return buf


def watch_end(sock, wait):
    """Read until the peer (kiw) ends the connection or wait runs out.
    Returns (end, seconds, octets): end is fin, rst or open."""
    start = time.monotonic()
    data = b""
    sock.settimeout(0.05)
    while time.monotonic() - start < wait:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return "rst", time.monotonic() - start, data
        if not chunk:
            return "fin", time.monotonic() - start, data
        data += chunk
    return "open", time.monotonic() - start, data


def tcp_state(sock):
    """The socket's TCP state (tcp_info.tcpi_state: 1 ESTABLISHED, 7
    CLOSE, 8 CLOSE_WAIT...)."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def linger(sock, wait):
    """The peer's FIN is in; we neither send nor close (a peer that
    vanished). Does the other side give up with a RST within wait s?
    (After a FIN, recv() returns 0 even once a RST came: look at the TCP
    state, which the RST takes to CLOSE.)"""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        if tcp_state(sock) == 7:
            return "rst"
        time.sleep(0.05)
    return "open"


def describe(end, after, data, want_seed=None):
    out = "end=%s after=%.2f rx=%d" % (end, after, len(data))
    f = parse_frame(data)
    if f is None:
        return out + " frame=none"
    out += " frame=%s m=%d c=%d r=%d s=%d res=%d rev=%d pd_len=%d" % (
        f["kind"], f["m"], f["c"], f["r"], f["s"], f["res"], f["rev"],
        f["pd_len"])
    if "ird" in f:
        out += " ird=%d ord=%d p2p=%d rtr=%d" % (f["ird"], f["ord"],
                                                 f["p2p"], f["rtr"])
    if want_seed is not None:
        seed = 3 if f["r"] else want_seed
        out += " pd_ok=%d" % int(f["pd"] == pd_pattern(len(f["pd"]), seed))
    return out


def frame_from_args(a, default_key, seed):
    keys = {"req": KEY_REQ, "rep": KEY_REP,
            "bad": bytes([KEY_REQ[0] ^ 1]) + KEY_REQ[1:],
            "lower": KEY_REQ.lower()}
    v2 = None
    if a.v2:
        v = [int(x) for x in a.v2.split(",")]
        v2 = (v[0], v[1], bool(v[2]) if len(v) > 2 else False,
              v[3] if len(v) > 3 else 0)
    f = frame(keys[a.key or default_key], a.M, a.C, a.R, a.res, a.rev,
              pd_pattern(a.pd, 3 if a.R else seed), a.pd_len, v2)
    return f[:a.truncate] if a.truncate is not None else f


def tcp_socket(a):
    s = socket.socket(socket.AF_INET6 if ":" in a.host else socket.AF_INET)
    if a.mss:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, a.mss)
    return s


def initiate_fo(a, s, f):
    """Request, kiw's Reply, then Full Operation as --fo says."""
    start = time.monotonic()
    s.sendall(f)
    rep = read_frame(s)
    r = parse_frame(rep)
    if r is None or r["kind"] != "rep" or r["r"] or not r["complete"]:
        end, _, data = watch_end(s, a.wait)
        print("RESULT " + describe(end, time.monotonic() - start,
                                   rep + data), flush=True)
        return
    fo = FullOp(s, a, r["m"], a.M, a.C or r["c"], client=True)
    fo.run(a.fo)
    end, _ = fo.finish(a.wait)
    print("RESULT " + describe(end, time.monotonic() - start, rep) +
          fo.describe(), flush=True)


def initiate(a):
    s = tcp_socket(a)
    s.settimeout(30)
    s.connect((a.host, a.port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    f = frame_from_args(a, "req", 1)
    if a.fo:
        try:
            initiate_fo(a, s, f)
        finally:
            s.close()
        return
    start = time.monotonic()
    try:
        if a.drip:
            for i in range(len(f)):
                s.send(f[i:i + 1])
                time.sleep(a.drip)
        else:
            s.send(f + b"\xee" * a.extra)
        end, after, data = watch_end(s, a.wait)
    except (ConnectionResetError, BrokenPipeError):
        end, data = "rst", b""
    after = time.monotonic() - start
    print("RESULT " + describe(end, after, data, want_seed=2), flush=True)
    s.close()


LISTENERS = {}


def listener(host, port, mss=0):
    """One listening socket per address, shared by the respond cases of a
    batch; made anew when the MSS option asked for changes."""
    ls, had = LISTENERS.get((host, port), (None, None))
    if ls is None or had != mss:
        if ls is not None:
            ls.close()
        ls = socket.socket(socket.AF_INET6 if ":" in host
                           else socket.AF_INET)
        if mss:
            ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, mss)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((host, port))
        ls.listen(4)
        LISTENERS[(host, port)] = (ls, mss)
    return ls


def respond(a):
    ls = listener(a.host, a.port, a.mss)
    print("LISTENING", flush=True)
    # Less than the test waits for a RESULT: a client that never came
    # must not leave this case waiting for the next case's client.
    ls.settimeout(40)
    s, _ = ls.accept()
    with s:
        s.settimeout(a.wait + 60)
        req = b""
        while len(req) < HDR_LEN:
            chunk = s.recv(HDR_LEN - len(req))
            if not chunk:
                break
            req += chunk
        f = parse_frame(req)
        if f:
            while len(req) < HDR_LEN + f["pd_len"]:
                chunk = s.recv(HDR_LEN + f["pd_len"] - len(req))
                if not chunk:
                    break
                req += chunk
            f = parse_frame(req)	# with its private data now
        print("REQUEST " + describe("open", 0, req, want_seed=1),
              flush=True)
        if a.fo and f and f["kind"] == "req" and f["complete"]:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            rep = frame_from_args(a, "rep", 2)
            fo = FullOp(s, a, f["m"], a.M, a.C or f["c"], client=False)
            if a.glue:
                fo.run(a.fo, glued=rep)
            else:
                s.sendall(rep)
                fo.run(a.fo)
            end, after = fo.finish(a.wait)
            out = describe(end, after, b"") + fo.describe()
            print("RESULT " + out, flush=True)
            return
        if not a.silent:
            s.send(frame_from_args(a, "rep", 2))
        end, after, data = watch_end(s, a.wait)
        out = describe(end, after, data)
        if end == "fin" and a.linger:
            out += " then=" + linger(s, a.linger)
        print("RESULT " + out, flush=True)


def flood(a):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = a.n + 64
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(want, hard),
                                                     max(want, hard)))
    sel = selectors.DefaultSelector()
    socks = []
    for _ in range(a.n):
        s = socket.socket(socket.AF_INET6 if ":" in a.host
                          else socket.AF_INET)
        s.setblocking(False)
        s.connect_ex((a.host, a.port))
        sel.register(s, selectors.EVENT_READ)
        socks.append(s)
    print("OPENED %d" % len(socks), flush=True)
    ends = {"fin": 0, "rst": 0}
    left = len(socks)
    deadline = time.monotonic() + a.wait
    while left and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.1):
            s = key.fileobj
            try:
                data = s.recv(4096)
                end = "fin" if not data else None
            except ConnectionResetError:
                end = "rst"
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                end = "rst"	# refused or unreachable: kiw never took it
            if end:
                ends[end] += 1
                left -= 1
                sel.unregister(s)
    print("RESULT opened=%d fin=%d rst=%d open=%d" % (
        len(socks), ends["fin"], ends["rst"], left), flush=True)
    for s in socks:
        s.close()


MODES = {"initiate": initiate, "respond": respond, "flood": flood}


def parser():
    p = argparse.ArgumentParser(description="raw MPA peer")
    p.add_argument("mode", choices=list(MODES))
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("--key", choices=["req", "rep", "bad", "lower"])
    p.add_argument("--rev", type=int, default=1)
    p.add_argument("-M", action="store_true")
    p.add_argument("-C", action="store_true")
    p.add_argument("-R", action="store_true")
    p.add_argument("--res", type=int, default=0)
    p.add_argument("--pd", type=int, default=0)
    p.add_argument("--pd-len", type=int)
    p.add_argument("--v2")
    p.add_argument("--truncate", type=int)
    p.add_argument("--drip", type=float, default=0)
    p.add_argument("--extra", type=int, default=0)
    p.add_argument("--silent", action="store_true")
    p.add_argument("--linger", type=float, default=0)
    p.add_argument("-n", type=int, default=1)
    p.add_argument("--wait", type=float, default=5)
    p.add_argument("--fo", action="append", default=[])
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--seg", type=int, default=1024)
    p.add_argument("--glue", action="store_true")
    p.add_argument("--mss", type=int, default=0)
    return p


def batch():
    for line in sys.stdin:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        print("CASE " + words[0], flush=True)
        try:
            a = parser().parse_args(words[1:])
            MODES[a.mode](a)
        except (OSError, SystemExit) as e:
            print("RESULT error=%s" % type(e).__name__, flush=True)


def main():
    if sys.argv[1:] == ["batch"]:
        batch()
        return 0
    a = parser().parse_args()
    MODES[a.mode](a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
