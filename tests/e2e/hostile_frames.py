"""Hostile frames of 2-9 KiB for the soak through csumd (issue 13): long IPv6
extension headers of every kind, IPv4 options, tunnels, lengths that lie,
truncation and bit flips. Built with scapy from a fixed seed, so every run
replays the same frames.

    /usr/bin/python3 hostile_frames.py OUT.pcap [COUNT] [SEED]
"""
import random
import struct
import sys

from scapy.all import (GRE, ICMP, IP, SCTP, TCP, UDP, VXLAN, Ether, ICMPv6EchoRequest, IPv6, Raw,
                       SCTPChunkData, raw)

MIN_LEN, MAX_LEN = 2048, 9216
SRC6, DST6 = "2001:db8::1", "2001:db8::2"
ETH = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
INNER_ETH = Ether(src="02:00:00:00:01:01", dst="02:00:00:00:01:02")  # explicit: no ARP lookups


def pad(rng, n):
    return bytes(rng.randrange(256) for _ in range(min(n, 64))) * (n // 64 + 1)


def ext_len(rng):
    return rng.choice([0, 1, 2, 31, 32, 33, 100, 200, 254, 255, rng.randrange(256)])


def ext_header(rng, kind):
    """One IPv6 extension header as bytes, its next-header byte 0 (set later)."""
    if kind == 44:  # fragment: atomic, first (M), later
        fo = rng.choice([0, 1, (1 + rng.randrange(100)) << 3, rng.randrange(65536)])
        return bytes([0, 0]) + struct.pack("!HI", fo, rng.randrange(1 << 32))
    if kind == 51:  # AH: (payload len + 2) * 4 bytes
        pl = rng.choice([4, 0, 255, rng.randrange(256)])
        body = struct.pack("!HII", 0, 0x100, rng.randrange(1 << 32)) + pad(rng, 1024)
        return (bytes([0, pl]) + body)[:(pl + 2) * 4].ljust((pl + 2) * 4, b"\0")
    hel = ext_len(rng)
    size = (hel + 1) * 8
    if kind == 43:  # routing types 0, 2 (home address), 3 (RPL), 4 (SRH), others
        rtype = rng.choice([0, 2, 3, 4, 4, 0, rng.randrange(256)])
        if rtype == 2 and rng.random() < 0.5:
            hel, size = 2, 24
        naddr = (size - 8) // 16
        left = rng.choice([0, 0, 1, naddr, rng.randrange(256)])
        if rtype == 4:
            extra = bytes([max(naddr - 1, 0), 0, 0, 0])
        elif rtype == 3:
            extra = bytes([rng.randrange(256), rng.randrange(16) << 4, 0, 0])
        else:
            extra = bytes(4)
        addrs = b"".join(bytes.fromhex("20010db8") + bytes(11) + bytes([i % 256 + 1]) for i in range(naddr + 1))
        return (bytes([0, hel, rtype, left]) + extra + addrs)[:size]
    # hop-by-hop / destination options: PadN runs, or option-shaped noise
    if rng.random() < 0.5:
        opts, left = b"", size - 2
        while left > 0:
            if left == 1:
                opts += b"\0"
                break
            n = min(left - 2, 255)
            opts += bytes([1, n]) + bytes(n)
            left -= n + 2
        return bytes([0, hel]) + opts
    return (bytes([0, hel, 0xC2, rng.choice([4, 0, 255])]) + pad(rng, size))[:size]


def l4_for_v6(rng, proto, n):
    """An L4 segment over IPv6 with its checksum computed for DST6 (right only
    when no routing header names another final destination)."""
    payload = Raw(pad(rng, n))
    if proto == 17:
        seg = UDP(sport=1000, dport=rng.choice([53, 2000, 9899, 4789])) / payload
    elif proto == 6:
        seg = TCP(sport=1000, dport=rng.choice([80, 4420]), flags="PA") / payload
    elif proto == 58:
        seg = ICMPv6EchoRequest(data=pad(rng, n))
    else:
        seg = SCTP(sport=2905, dport=2905) / SCTPChunkData(data=pad(rng, n))
        return raw(seg)
    return raw(IPv6(src=SRC6, dst=DST6) / seg)[40:]


def ipv6_frame(rng, size):
    kinds = [rng.choice([0, 43, 43, 44, 60, 51, 43]) for _ in range(rng.choice([1, 1, 2, 3, 5, 9]))]
    if rng.random() < 0.3:
        kinds[0] = 0
    exts = [bytearray(ext_header(rng, k)) for k in kinds]
    proto = rng.choice([17, 17, 6, 58, 132])
    for i, e in enumerate(exts):
        e[0] = kinds[i + 1] if i + 1 < len(kinds) else proto
    ext = b"".join(exts)
    l4 = l4_for_v6(rng, proto, max(size - 14 - 40 - len(ext) - 40, 0))
    hdr = raw(IPv6(src=SRC6, dst=DST6, nh=kinds[0], plen=(len(ext) + len(l4)) & 0xFFFF))
    return raw(ETH) + hdr + ext + l4


def ipv4_options(rng):
    """Option bytes: source routes (pointer at the start or used up), record
    route, timestamp, router alert or noise with any length byte."""
    k = rng.randrange(1, 10)
    addrs = b"".join(bytes([192, 0, 2, i + 1]) for i in range(k))
    pick = rng.choice(["lsrr", "ssrr", "rr", "ts", "noise", "lsrr_used", "ra"])
    if pick in ("lsrr", "ssrr", "lsrr_used"):
        ptr = 4 + 4 * k if pick == "lsrr_used" else 4
        o = bytes([0x89 if pick == "ssrr" else 0x83, 3 + 4 * k, ptr]) + addrs
    elif pick == "rr":
        o = bytes([7, 3 + 4 * k, 4]) + bytes(4 * k)
    elif pick == "ts":
        o = bytes([0x44, 4 + 4 * k, 5, 0]) + bytes(4 * k)
    elif pick == "ra":
        o = bytes([0x94, 4, 0, 0])
    else:
        o = bytes([rng.randrange(256), rng.randrange(256)]) + pad(rng, 38)[:rng.randrange(38)]
    o = o[:40]
    return o + bytes(-len(o) % 4)


def ipv4_frame(rng, size):
    n = max(size - 14 - 60 - 32, 0)
    l4 = rng.choice([UDP(sport=1000, dport=2000) / Raw(pad(rng, n)),
                     TCP(sport=1000, dport=80, flags="PA") / Raw(pad(rng, n)),
                     SCTP(sport=2905, dport=2905) / SCTPChunkData(data=pad(rng, n)),
                     ICMP() / Raw(pad(rng, n))])
    # L4 checksums as scapy computes them (for the header's destination), then
    # the options spliced in with IHL, total length and header checksum fixed.
    f = bytearray(raw(ETH / IP(src="10.0.0.1", dst="10.0.0.2") / l4))
    opts = ipv4_options(rng)
    f[34:34] = opts
    f[14] = 0x40 | (5 + len(opts) // 4)
    struct.pack_into("!H", f, 16, len(f) - 14)
    f[24:26] = b"\0\0"
    hl = 20 + len(opts)
    s = sum(struct.unpack("!%dH" % (hl // 2), bytes(f[14:14 + hl])))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    struct.pack_into("!H", f, 24, ~s & 0xFFFF)
    return bytes(f)


def inner(rng, n):
    return rng.choice([IP(src="10.1.0.1", dst="10.1.0.2") / TCP(sport=1, dport=80) / Raw(pad(rng, n)),
                       IP(src="10.1.0.1", dst="10.1.0.2") / UDP(sport=1, dport=53) / Raw(pad(rng, n)),
                       IPv6(src=SRC6, dst=DST6) / UDP(sport=1, dport=53) / Raw(pad(rng, n))])


def tunnel_frame(rng, size):
    n = max(size - 14 - 20 - 8 - 8 - 14 - 40 - 20, 0)
    outer = IP(src="10.0.0.1", dst="10.0.0.2")
    kind = rng.choice(["vxlan", "geneve", "gre", "gre_csum", "gre_udp", "ipip", "ip6ip", "sctp_udp",
                       "vxlan6"])
    if kind == "vxlan":
        p = outer / UDP(sport=1000, dport=4789) / VXLAN(vni=1) / INNER_ETH / inner(rng, n)
    elif kind == "vxlan6":
        p = IPv6(src=SRC6, dst=DST6) / UDP(sport=1000, dport=4789) / VXLAN(vni=1) / INNER_ETH / inner(rng, n)
    elif kind == "geneve":
        opt = rng.randrange(0, 64)
        p = outer / UDP(sport=1000, dport=6081) / Raw(struct.pack("!BBHI", opt, 0, 0x6558, 0x100) + pad(rng, opt * 4)) \
            / INNER_ETH / inner(rng, n)
    elif kind == "gre":
        p = outer / GRE(key_present=1, key=7) / inner(rng, n)
    elif kind == "gre_csum":
        p = outer / GRE(chksum_present=1) / inner(rng, n)
    elif kind == "gre_udp":
        p = outer / UDP(sport=1000, dport=4754) / GRE() / inner(rng, n)
    elif kind == "ipip":
        p = outer / inner(rng, n)
    elif kind == "ip6ip":
        p = outer / IPv6(src=SRC6, dst=DST6) / TCP(sport=1, dport=80) / Raw(pad(rng, n))
    else:
        p = outer / UDP(sport=9899, dport=9899) / SCTP(sport=2905, dport=2905) / SCTPChunkData(data=pad(rng, n))
    return raw(ETH / p)


def big_routing_header():
    """The frame of issue 13: IPv6 / Routing (Hdr Ext Len 255) / UDP, 2110 bytes."""
    udp = raw(IPv6(src=SRC6, dst=DST6) / UDP(sport=1000, dport=2000))[40:]
    rh = bytes([17, 255, 0, 0]) + bytes(2044)
    return raw(ETH) + raw(IPv6(src=SRC6, dst=DST6, nh=43, plen=len(rh) + 8)) + rh + udp


def lie(rng, f):
    """Overwrites one length field (IPv4 total, IPv6 payload, UDP, a Hdr Ext Len) with a lie."""
    f = bytearray(f)
    at = rng.choice([16, 18, 19, 55, 38, 39, 58, 59, 94, 95])
    if at < len(f):
        f[at] = rng.randrange(256)
    return bytes(f)


def hostile(rng):
    size = rng.randrange(MIN_LEN, MAX_LEN + 1)
    kind = rng.random()
    f = ipv6_frame(rng, size) if kind < 0.45 else ipv4_frame(rng, size) if kind < 0.7 else tunnel_frame(rng, size)
    f = f[:MAX_LEN]
    if len(f) < MIN_LEN:
        f += bytes(MIN_LEN - len(f))  # trailing bytes past the IP length: a lie of its own
    r = rng.random()
    if r < 0.15:
        f = lie(rng, f)
    elif r < 0.25:
        f = f[:rng.randrange(MIN_LEN, len(f) + 1)]  # truncated capture
    elif r < 0.4:
        f = bytearray(f)
        for _ in range(rng.randrange(1, 9)):
            f[rng.randrange(len(f))] ^= 1 << rng.randrange(8)
        f = bytes(f)
    return f


def frames(count, seed=13):
    rng = random.Random(seed)
    out = [big_routing_header()] * 3
    while len(out) < count:
        out.append(hostile(rng))
    return out


def write_pcap(path, frames_):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames_):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000, (i % 1000) * 1000, len(fr), len(fr)))
            f.write(fr)


if __name__ == "__main__":
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 13
    write_pcap(sys.argv[1], frames(n, seed))
