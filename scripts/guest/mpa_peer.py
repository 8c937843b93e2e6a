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
import selectors
import socket
import struct
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


def crc32c(data, crc=0):
    """CRC32c as MPA uses it (RFC 5044 4.4, the iSCSI digest): reflected
    0x82F63B78, preset and final complement. Sent least significant octet
    first (struct.pack("<I", ...))."""
    crc ^= 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff


def fpdu(ulpdu, crc=True):
    """An FPDU without markers: ULPDU_Length, ULPDU, PAD, CRC (0 if off)."""
    body = struct.pack(">H", len(ulpdu)) + ulpdu
    body += b"\0" * (-len(body) % 4)
    return body + struct.pack("<I", crc32c(body) if crc else 0)


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


def initiate(a):
    s = socket.create_connection((a.host, a.port), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    f = frame_from_args(a, "req", 1)
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


def listener(host, port):
    if (host, port) not in LISTENERS:
        ls = socket.socket(socket.AF_INET6 if ":" in host
                           else socket.AF_INET)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((host, port))
        ls.listen(4)
        LISTENERS[(host, port)] = ls
    return LISTENERS[(host, port)]


def respond(a):
    ls = listener(a.host, a.port)
    print("LISTENING", flush=True)
    ls.settimeout(a.wait + 120)
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
        print("REQUEST " + describe("open", 0, req, want_seed=1),
              flush=True)
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
