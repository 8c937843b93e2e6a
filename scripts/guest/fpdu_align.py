#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# fpdu_align: how many TCP segments of iWARP connections begin with an
# FPDU (RFC 5044 section 5, MPA-AL-1), from a pcap capture (Ethernet,
# IPv4 or IPv6, as tcpdump -w writes it, microsecond or nanosecond).
#
#   fpdu_align.py PCAP [MIN_PERCENT [MIN_SEGMENTS]]
#
# Each TCP direction that starts with an MPA Request or Reply frame is
# rebuilt from its segments (retransmissions and overlaps taken once),
# its FPDUs walked from the end of that frame (ULPDU_Length, PAD, CRC;
# markers at every 512 octets of that stream when the other side's frame
# asked for them: RFC 5044 7.1, M is the receiver's requirement). A data
# segment (one carrying FPDU octets) is aligned when it begins with an
# FPDU, or with the marker just before one. A segment that does not, but
# follows one that TCP ended at the edge of the peer's receive window
# (see classify()), is TCP's cut, not the sender's: it is counted apart
# (W), not as a segment. One line per direction, with the first segments
# that began inside an FPDU for no such reason, then
#   TOTAL aligned=A segments=N percent=P gaps=G window_cut=W
# Exit 0 when P >= MIN_PERCENT, N >= MIN_SEGMENTS (default 1) and no
# octet of the walked streams was missing (G = 0); 1 otherwise; 2 for an
# unreadable capture. scripts/guest/fpdu_align_test.py tests it.
import bisect
import struct
import sys

KEY_REQ = b"MPA ID Req Frame"
KEY_REP = b"MPA ID Rep Frame"
MARKER = 512


def packets(path):
    """(src, sport, dst, dport, seq, payload) of each TCP segment."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError("short pcap header")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        raise ValueError("not a pcap file")
    linktype = struct.unpack(e + "I", data[20:24])[0]
    if linktype != 1:
        raise ValueError("link type %d, want Ethernet" % linktype)
    off = 24
    while off + 16 <= len(data):
        incl, orig = struct.unpack(e + "II", data[off + 8:off + 16])
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if incl != orig:
            raise ValueError("truncated frame: capture with -s 0")
        seg = tcp_of(frame)
        if seg:
            yield seg


def tcp_of(frame):
    if len(frame) < 14:
        return None
    etype = struct.unpack(">H", frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20:
        ihl = (ip[0] & 15) * 4
        total = struct.unpack(">H", ip[2:4])[0]
        if ip[9] != 6 or struct.unpack(">H", ip[6:8])[0] & 0x3fff:
            return None		# not TCP, or a fragment
        src, dst = ip[12:16], ip[16:20]
        tcp = ip[ihl:total]
    elif etype == 0x86dd and len(ip) >= 40:
        if ip[6] != 6:
            return None
        src, dst = ip[8:24], ip[24:40]
        tcp = ip[40:40 + struct.unpack(">H", ip[4:6])[0]]
    else:
        return None
    if len(tcp) < 20:
        return None
    sport, dport, seq, ack = struct.unpack(">HHII", tcp[:12])
    doff = (tcp[12] >> 4) * 4
    flags = tcp[13]
    win = struct.unpack(">H", tcp[14:16])[0]
    payload = tcp[doff:]
    if flags & 0x02:		# SYN: the stream starts at seq + 1
        return (src, sport, dst, dport, (seq + 1) & 0xffffffff, None,
                ack, wscale(tcp[20:doff]))
    return (src, sport, dst, dport, seq, payload, ack, win)


def wscale(opts):
    """The window scale a SYN's options announce (0 without one)."""
    i = 0
    while i < len(opts):
        kind = opts[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            break
        if kind == 3 and opts[i + 1] == 3 and i + 2 < len(opts):
            return min(opts[i + 2], 14)
        i += opts[i + 1]
    return 0


class Direction:
    def __init__(self, isn, scale):
        self.isn = isn
        self.wscale = scale	# how this side's windows are scaled
        self.segs = []		# (stream offset, length, frame number)
        self.data = {}		# stream offset -> payload
        self.acks = []		# (frame number, ack, window) it sent

    def add(self, seq, payload, n):
        o = (seq - self.isn) & 0xffffffff
        self.segs.append((o, len(payload), n))
        if o not in self.data or len(self.data[o]) < len(payload):
            self.data[o] = payload

    def stream(self):
        """The octets from offset 0, up to the first gap; and whether
        a gap cut it short."""
        buf = bytearray()
        for o in sorted(self.data):
            p = self.data[o]
            if o > len(buf):
                return bytes(buf), True
            if o + len(p) > len(buf):
                buf += p[len(buf) - o:]
        return bytes(buf), False


def mpa_frame(buf):
    """(key, M flag, frame length) of the MPA frame at the stream's
    start, or None."""
    if len(buf) < 20 or buf[:16] not in (KEY_REQ, KEY_REP):
        return None
    pd_len = struct.unpack(">H", buf[18:20])[0]
    return buf[:16], bool(buf[16] & 0x80), 20 + pd_len


def fpdu_starts(buf, base, markers):
    """Stream offsets where a segment may begin: each FPDU's first octet
    and, with markers, the marker just before one. Walks from @base (the
    first FPDU) to the last whole FPDU. Returns (starts, end walked)."""
    starts = set()
    o = base
    while True:
        if markers and (o - base) % MARKER == 0:
            starts.add(o)
            o += 4
        if o + 2 > len(buf):
            return starts, o
        starts.add(o)
        ulen = struct.unpack(">H", buf[o:o + 2])[0]
        left = 2 + ulen + (-(2 + ulen) % 4) + 4
        p = o
        while left:
            if markers and (p - base) % MARKER == 0 and p != o:
                p += 4
                continue
            n = left
            if markers:
                n = min(n, MARKER - (p - base) % MARKER)
            p += n
            left -= n
        if p > len(buf):
            return starts, o
        o = p


def main():
    path = sys.argv[1]
    min_pct = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    min_segs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    dirs = {}
    try:
        for n, (src, sport, dst, dport, seq, payload, ack, win) in \
                enumerate(packets(path)):
            key = (src, sport, dst, dport)
            if payload is None:
                dirs.setdefault(key, Direction(seq, win))
                continue
            if key not in dirs:
                continue
            dirs[key].acks.append((n, ack, win))
            if payload:
                dirs[key].add(seq, payload, n)
    except (OSError, ValueError) as e:
        print("fpdu_align: %s: %s" % (path, e))
        return 2
    frames = {}
    for key, d in dirs.items():
        buf, _ = d.stream()
        frames[key] = mpa_frame(buf)
    total_ok = total = gaps = cut_total = 0
    for key, d in sorted(dirs.items()):
        f = frames[key]
        if not f:
            continue		# not an iWARP connection
        rev = (key[2], key[3], key[0], key[1])
        other = frames.get(rev)
        if not other:
            print("%s: no MPA frame the other way" % fmt(key))
            gaps += 1
            continue
        markers = other[1]	# the receiver's requirement
        buf, gap = d.stream()
        starts, walked = fpdu_starts(buf, f[2], markers)
        ok, bad, cut = classify(d, dirs.get(rev), starts, f[2], walked)
        n = ok + len(bad)
        if gap:
            gaps += 1
        print("%s: markers=%d aligned=%d segments=%d window_cut=%d%s" %
              (fmt(key), markers, ok, n, cut, " GAP" if gap else ""))
        explain(d, bad)
        total_ok += ok
        total += n
        cut_total += cut
    pct = 100.0 * total_ok / total if total else 0.0
    print("TOTAL aligned=%d segments=%d percent=%.2f gaps=%d window_cut=%d" %
          (total_ok, total, pct, gaps, cut_total))
    return 0 if total >= min_segs and pct >= min_pct and not gaps else 1


def window_edges(d, peer, frame, recent=64):
    """Stream offsets of @d where the windows that @peer announced in its
    last @recent segments before capture frame @frame ended."""
    if not peer:
        return set()
    i = bisect.bisect_left(peer.acks, (frame,))
    return {((ack + (win << peer.wscale)) - d.isn) & 0xffffffff
            for _, ack, win in peer.acks[max(0, i - recent):i]}


def classify(d, peer, starts, first, walked):
    """Sort the data segments of direction @d (FPDUs from offset @first
    to @walked) into those that begin an FPDU, those that do not
    (returned as (offset, length, frame)), and those that do not because
    TCP cut the segment before them at the edge of the peer's receive
    window (returned as a count, and not counted as segments).

    With Nagle off, TCP sends as much of a queued write as the peer's
    window allows, ending the segment where the window ends
    (tcp_mss_split_point()), and the rest of that write goes out in
    full-sized segments that all begin at the same distance into an FPDU,
    until the next write. kiw's writes begin with FPDUs, and segments are
    its to shape only while the window is open: a segment that follows
    such a cut, up to the next one that begins an FPDU (or a
    retransmission of one), is TCP's and not the sender's."""
    ok = cut = 0
    bad = []
    shifted = False
    cut_at = set()
    for o, length, frame in d.segs:
        if o + length <= first or o >= walked:
            continue	# the MPA frame, or past the last FPDU
        if o in starts:
            ok += 1
            shifted = False
        elif shifted or o in cut_at:
            cut += 1
            cut_at.add(o)
        else:
            bad.append((o, length, frame))
        end = o + length
        if end not in starts and end in window_edges(d, peer, frame):
            shifted = True
    return ok, bad, cut


def explain(d, bad, most=8):
    """A line for each of the first @most segments that did not begin an
    FPDU (and did not follow a cut at the window's edge): where it began,
    its length, the length of the segment that ended where it begins, and
    how often that offset was sent."""
    seen = {}
    for o, length, frame in d.segs:
        seen[o] = seen.get(o, 0) + 1
    ends = {o + length: length for o, length, _ in d.segs}
    for o, length, frame in bad[:most]:
        print("  frame %d: offset %d, %d octets; the segment before: %d "
              "octets; this offset sent %d time(s)" %
              (frame, o, length, ends.get(o, -1), seen[o]))
    if len(bad) > most:
        print("  (%d more)" % (len(bad) - most))


def fmt(key):
    def a(b):
        if len(b) == 4:
            return ".".join(str(x) for x in b)
        return ":".join("%02x%02x" % (b[i], b[i + 1]) for i in range(0, 16, 2))
    return "%s:%d>%s:%d" % (a(key[0]), key[1], a(key[2]), key[3])


if __name__ == "__main__":
    sys.exit(main())
