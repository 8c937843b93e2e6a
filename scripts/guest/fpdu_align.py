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
# FPDU, or with the marker just before one. One line per direction, then
#   TOTAL aligned=A segments=N percent=P gaps=G
# Exit 0 when P >= MIN_PERCENT, N >= MIN_SEGMENTS (default 1) and no
# octet of the walked streams was missing (G = 0); 1 otherwise; 2 for an
# unreadable capture.
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
    sport, dport, seq = struct.unpack(">HHI", tcp[:8])
    doff = (tcp[12] >> 4) * 4
    flags = tcp[13]
    payload = tcp[doff:]
    if flags & 0x02:		# SYN: the stream starts at seq + 1
        return (src, sport, dst, dport, (seq + 1) & 0xffffffff, None)
    return (src, sport, dst, dport, seq, payload)


class Direction:
    def __init__(self, isn):
        self.isn = isn
        self.segs = []		# (stream offset, length)
        self.data = {}		# stream offset -> payload

    def add(self, seq, payload):
        o = (seq - self.isn) & 0xffffffff
        self.segs.append((o, len(payload)))
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
        for src, sport, dst, dport, seq, payload in packets(path):
            key = (src, sport, dst, dport)
            if payload is None:
                dirs.setdefault(key, Direction(seq))
            elif payload and key in dirs:
                dirs[key].add(seq, payload)
    except (OSError, ValueError) as e:
        print("fpdu_align: %s: %s" % (path, e))
        return 2
    frames = {}
    for key, d in dirs.items():
        buf, _ = d.stream()
        frames[key] = mpa_frame(buf)
    total_ok = total = gaps = 0
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
        ok = n = 0
        for o, length in d.segs:
            if o + length <= f[2] or o >= walked:
                continue	# the MPA frame, or past the last FPDU
            n += 1
            ok += o in starts
        if gap:
            gaps += 1
        print("%s: markers=%d aligned=%d segments=%d%s" %
              (fmt(key), markers, ok, n, " GAP" if gap else ""))
        total_ok += ok
        total += n
    pct = 100.0 * total_ok / total if total else 0.0
    print("TOTAL aligned=%d segments=%d percent=%.2f gaps=%d" %
          (total_ok, total, pct, gaps))
    return 0 if total >= min_segs and pct >= min_pct and not gaps else 1


def fmt(key):
    def a(b):
        if len(b) == 4:
            return ".".join(str(x) for x in b)
        return ":".join("%02x%02x" % (b[i], b[i + 1]) for i in range(0, 16, 2))
    return "%s:%d>%s:%d" % (a(key[0]), key[1], a(key[2]), key[3])


if __name__ == "__main__":
    sys.exit(main())
