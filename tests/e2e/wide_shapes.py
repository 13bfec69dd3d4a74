"""Random frames of the shapes test_random_traffic.py leaves out, built by
scapy (test_random_traffic_wide.py judges csumd on them): VLAN and QinQ
tags, IPv4 options, IPv6 extension headers, TCP options, fragments, GENEVE
with options or carrying IP, tunnels over IPv6 and nested, GRE without a
checksum and in UDP, IP-in-IP, ICMP/ICMPv6/SCTP in VXLAN, SCTP in UDP,
absent and trimmed UDP sums, Ethernet trailers, tiny payloads, lengths
around the mbuf sizes, and sums at the 0x0000/0xFFFF edge. Each frame
comes with where its checksums lie (Field), from scapy's dissection."""
from dataclasses import dataclass

import test_random_traffic as base
from test_random_traffic import addr6, eth, ip, payload

from scapy.all import (GRE, ICMP, IP, SCTP, TCP, UDP, Dot1Q, Ether, HBHOptUnknown,
                       ICMPv6EchoRequest, IPOption, IPOption_LSRR, IPOption_SSRR, IPv6,
                       IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                       IPv6ExtHdrRouting, IPv6ExtHdrSegmentRouting,
                       IPv6ExtHdrSegmentRoutingTLVPadN, PadN, Raw, RouterAlert, SCTPChunkData,
                       bind_layers)
from scapy.contrib.geneve import GENEVE, GeneveOptions
from scapy.layers.vxlan import VXLAN

# csumd's defaults that scapy doesn't dissect by itself
bind_layers(Ether, Dot1Q, type=0x9100)
bind_layers(Ether, Dot1Q, type=0x88A8)
bind_layers(UDP, GRE, dport=4754)
bind_layers(UDP, SCTP, dport=9899)

PROTO = {IP: "ipv4", TCP: "tcp", UDP: "udp", ICMP: "icmp", ICMPv6EchoRequest: "icmpv6",
         SCTP: "sctp", GRE: "gre"}


def rbytes(r, n):
    return bytes(r.randrange(256) for _ in range(n))


def pay(r):
    """Tiny (0..3 bytes) a quarter of the time, else up to 700."""
    return Raw(rbytes(r, r.randrange(4))) if r.random() < 0.25 else payload(r, 700)


def ip4opts(r, room=None):
    """IPv4 with IHL 6..15: NOP, EOL, record route, timestamp, router alert,
    unknown options, or one loose/strict source route: under way, its last
    hop is the pseudo-header's destination (RFC 1122 4.1.3.4); done (pointer
    past its length), the IP destination is. scapy takes the last hop either
    way: a route done is handed to it as an option it doesn't know."""
    o, room = b"", room or 4 * r.randrange(1, 11)
    while len(o) < room and r.random() < 0.85:
        left, kind = room - len(o), r.choice([0, 1, 1, 1, 2, 3, 4, 5, 6])
        n = max(1, r.randrange((left - 3) // 4 + 1)) if left >= 7 else 0
        if kind == 0:
            o += b"\x01"
        elif kind == 1 and n and b"\x83" not in o and b"\x89" not in o:
            o += bytes([r.choice([0x83, 0x89]), 3 + 4 * n, 4 + 4 * r.randrange(n + 1)]) \
                + rbytes(r, 4 * n)
        elif kind == 2 and n:
            o += bytes([7, 3 + 4 * n, 4 + 4 * r.randrange(n + 1)]) + rbytes(r, 4 * n)
        elif kind == 3 and left >= 12:
            # one entry: scapy reads no more, and parses the rest as options
            n, flg = r.choice([(1, 0), (2, 3)])
            o += bytes([0x44, 4 + 4 * n, 5 + 4 * n * r.randrange(2), flg]) + rbytes(r, 4 * n)
        elif kind == 4 and left >= 4:
            o += b"\x94\x04\x00\x00"
        elif kind == 5 and left >= 2:
            ln = r.randrange(2, left + 1)
            o += bytes([r.choice([0x0a, 0x1e, 0x5e, 0x9e, 0xde]), ln]) + rbytes(r, ln - 2)
        elif kind == 6:
            # EOL: what follows is never read. scapy reads on, and takes any
            # byte whose low 5 bits are 3 or 9 for a source route: none here
            o += b"\x00" + bytes(b if b & 0x1F not in (3, 9) else 0 for b in rbytes(r, left - 1))
    o = (o or b"\x01") + bytes(-len(o or b"\x01") % 4)
    p = ip(r, False)
    p.options = IP(bytes([0x40 | (5 + len(o) // 4)]) + bytes(19) + o).options
    for i, opt in enumerate(p.options):
        if isinstance(opt, (IPOption_LSRR, IPOption_SSRR)) and opt.pointer > opt.length:
            p.options[i] = IPOption(copy_flag=1, option=opt.option, length=opt.length,
                                    value=bytes(opt)[2:])
    return p


def ext6(r, frag=None):
    """IPv6 extension headers in their order: hop-by-hop first (up to ~300
    bytes), destination options, a routing header (type 2, or 4 with TLVs,
    segments left or not; type 0 or unknown used up), a fragment header
    (atomic unless `frag` gives offset, M and next header), destination
    options."""
    def opts():
        return [r.choice([PadN(optdata=rbytes(r, r.randrange(40))), RouterAlert(),
                          HBHOptUnknown(otype=r.choice([0x1e, 0x3e, 0x7e]),
                                        optdata=rbytes(r, r.randrange(12)))])
                for _ in range(r.randrange(1, 4))]
    out = ip(r, True)
    if r.random() < 0.6:
        big = [PadN(optdata=rbytes(r, r.randrange(150, 256)))] if r.random() < 0.3 else []
        out = out / IPv6ExtHdrHopByHop(options=big + opts())
    if r.random() < 0.4:
        out = out / IPv6ExtHdrDestOpt(options=opts())
    kind = r.randrange(4)
    if kind == 0:
        out = out / IPv6ExtHdrRouting(type=2, addresses=[addr6(r)], segleft=r.randrange(2))
    elif kind == 1:
        n = r.randrange(1, 5)
        tlvs = [IPv6ExtHdrSegmentRoutingTLVPadN(padding=rbytes(r, k))
                for k in r.choice([[], [6], [14]])]
        out = out / IPv6ExtHdrSegmentRouting(addresses=[addr6(r) for _ in range(n)],
                                             segleft=r.randrange(n + 1), tlv_objects=tlvs)
    elif kind == 2:  # type 0, or unknown, used up
        out = out / IPv6ExtHdrRouting(type=r.choice([0, 3, 5, 253]), segleft=0,
                                      addresses=[addr6(r) for _ in range(r.randrange(1, 4))])
    if frag or r.random() < 0.4:
        offset, m, nh = frag or (0, 0, None)
        nh = {} if nh is None else {"nh": nh}  # else the next header's
        out = out / IPv6ExtHdrFragment(offset=offset, m=m, id=r.randrange(1 << 32), **nh)
    if r.random() < 0.3:
        out = out / IPv6ExtHdrDestOpt(options=opts())
    return out


TCP_OPT_LEN = {"MSS": 4, "SAckOK": 2, "Timestamp": 10, "WScale": 3, "NOP": 1}


def tcp(r):
    """TCP with options (MSS, SACK, timestamps, window scale): data offset 5..15."""
    opts = []
    for _ in range(r.randrange(7)):
        k = r.choice(["MSS", "SAckOK", "Timestamp", "WScale", "NOP", "SAck"])
        v = {"MSS": r.randrange(65536), "SAckOK": b"", "WScale": r.randrange(15), "NOP": None,
             "Timestamp": (r.randrange(1 << 32), r.randrange(1 << 32)),
             "SAck": tuple(r.randrange(1 << 32) for _ in range(2 * r.randrange(1, 5)))}[k]
        opts.append((k, v))
    while sum(TCP_OPT_LEN.get(k) or 2 + 4 * len(v) for k, v in opts) > 40:
        opts.pop()
    return TCP(sport=r.randrange(20000, 30000), dport=r.randrange(20000, 30000),
               seq=r.randrange(1 << 32), ack=r.randrange(1 << 32), flags="PA",
               window=r.randrange(65536), options=opts) / pay(r)


def l4(r, kind, v6=False):
    if kind == "tcp":
        return tcp(r)
    if kind == "udp":
        return UDP(sport=r.randrange(20000, 30000), dport=r.randrange(20000, 30000)) / pay(r)
    if kind == "sctp":
        out = SCTP(sport=r.randrange(1, 65536), dport=9)
        for _ in range(r.randrange(1, 4)):  # chunks padded to 4 bytes but the last
            out = out / SCTPChunkData(tsn=r.randrange(1 << 32),
                                      data=rbytes(r, 1 + r.randrange(200)))
        return out
    echo = ICMPv6EchoRequest if v6 else ICMP
    return echo(id=r.randrange(65536), seq=r.randrange(65536)) / pay(r)


ALL_L4 = ("tcp", "udp", "icmp", "sctp")


def any_l4(r, v6, kinds=("tcp", "udp")):
    return l4(r, r.choice(kinds), v6)


def tag(r, n):
    """Ethernet with one 802.1Q tag, or two (QinQ: outer TPID 0x88A8, 0x9100 or 0x8100)."""
    if n == 2:
        outer = Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01",
                      type=r.choice([0x88A8, 0x9100, 0x8100]))
        return outer / Dot1Q(vlan=r.randrange(4096)) / Dot1Q(vlan=r.randrange(4096))
    return eth() / Dot1Q(vlan=r.randrange(4096), prio=r.randrange(8))


def inner(r, kinds=("tcp", "udp"), iv6=None, vlan=False):
    v6 = r.random() < 0.4 if iv6 is None else iv6
    return (tag(r, 1) if vlan else eth()) / ip(r, v6) / any_l4(r, v6, kinds)


def udp_to(r, port, chksum=None):
    return UDP(sport=r.randrange(49152, 65536), dport=port, chksum=chksum)


def vxlan(r, v6=False, l2=None, l3=None, chksum=None, body=None, **kw):
    return (l2 or eth()) / (l3 or ip(r, v6)) / udp_to(r, 4789, chksum) \
        / VXLAN(vni=r.randrange(1 << 24)) / (body or inner(r, **kw))


def geneve(r, v6=False, carry_ip=False, body=None):
    opts, words = [], 0
    while r.random() < 0.75 and words < 56:
        n = r.randrange(min(8, 62 - words))
        opts.append(GeneveOptions(classid=r.randrange(65536), type=r.randrange(256), length=n,
                                  data=rbytes(r, 4 * n)))
        words += n + 1
    iv6 = r.random() < 0.4
    body = body or (ip(r, iv6) / any_l4(r, iv6) if carry_ip else inner(r))
    # optionlen given: scapy would mask its own count with 0x2f
    g = GENEVE(vni=r.randrange(1 << 24), optionlen=words, options=opts,
               proto=(0x86DD if iv6 else 0x0800) if carry_ip else 0x6558)
    return eth() / ip(r, v6) / udp_to(r, 6081) / g / body


def gre_body(r, csum=1):
    g = GRE(chksum_present=csum, key_present=r.randrange(2), seqnum_present=r.randrange(2),
            key=r.randrange(1 << 32), seqence_number=r.randrange(1 << 32))
    kind = r.randrange(3)  # Ethernet (NVGRE-like), IPv4, IPv6
    return g / (inner(r) if kind == 0 else ip(r, kind == 2) / any_l4(r, kind == 2))


def frag4(r, first):
    """A first fragment (MF, offset 0: its L4 sum can't be judged) or a later one."""
    p = ip(r, False)
    if first:
        p.flags = "MF"
    else:
        p.frag, p.flags, p.proto = r.randrange(1, 8192), r.choice([0, 1]), r.choice([6, 17])
    return p


def trimmed(r, pkt):
    """A UDP length short of the IP payload: the sum covers the UDP length
    (Linux trims to it; what a tunnel carries ends there too). scapy would
    sum to the IP length: the IP length is stretched after the sums are made."""
    extra = rbytes(r, r.randrange(1, 9))
    p = Ether(bytes(pkt))
    outer = next(l for l in p.iterpayloads() if type(l) in (IP, IPv6))
    if type(outer) is IPv6:
        outer.plen += len(extra)
    else:
        outer.len, outer.chksum = outer.len + len(extra), None
    return Ether(bytes(p) + extra)


def straddle(r, at):
    """The innermost L4 header at frame offset `at` (even, 112..312): behind a
    hop-by-hop header of the right length (and a VLAN tag), or for offsets
    that are multiples of 4, inside VXLAN over it (inner IPv4 options)."""
    hbh = lambda n: IPv6ExtHdrHopByHop(options=[PadN(optdata=rbytes(r, n - 4))])
    if at % 4 == 2:  # 54 + 4 * tags + 8 * m
        tags = (at - 54) % 8 // 4
        l2 = tag(r, 1) if tags else eth()
        return l2 / ip(r, True) / hbh(at - 54 - 4 * tags) / any_l4(r, True, ALL_L4)
    o = (at - 104) % 8 // 4  # 104 + 8 * m + 4 * options
    i4 = ip4opts(r, room=4) if o else ip(r, False)
    return vxlan(r, l3=ip(r, True) / hbh(at - 104 - 4 * o), body=eth() / i4 / any_l4(r, False))


def vxlan_inner_padded(r):
    """An inner frame with a trailer inside VXLAN: the inner sum stops at the
    inner IP length, the outer UDP sum covers the trailer."""
    f = inner(r)
    return eth() / ip(r, False) / udp_to(r, 4789) / VXLAN(vni=r.randrange(1 << 24)) \
        / Raw(bytes(f) + rbytes(r, r.randrange(1, 30)))


SHAPES = {
    "rh0_left": lambda r: eth() / ip(r, True) / IPv6ExtHdrRouting(  # or unknown types
        type=r.choice([0, 0, 3, 253]), addresses=[addr6(r) for _ in range(2)],
        segleft=r.randrange(1, 3))
    / any_l4(r, True),
    "udp4_zero": lambda r: eth() / ip(r, False) / UDP(sport=1024, dport=2000, chksum=0) / pay(r),
    "udp6_zero": lambda r: eth() / ip(r, True) / UDP(sport=1024, dport=2000, chksum=0) / pay(r),
    "udp4_trimmed": lambda r: trimmed(r, eth() / ip(r, False) / l4(r, "udp")),
    "udp6_trimmed": lambda r: trimmed(r, eth() / ip(r, True) / l4(r, "udp", True)),
    "vxlan_trimmed": lambda r: trimmed(r, vxlan(r, v6=r.random() < 0.5)),
    "frag4_first": lambda r: eth() / frag4(r, True) / any_l4(r, False, ALL_L4),
    "frag4_later": lambda r: eth() / frag4(r, False) / pay(r),
    "frag6_first": lambda r: eth() / ext6(r, frag=(0, 1, None)) / any_l4(r, True, ALL_L4),
    "frag6_later": lambda r: eth() / ext6(r, frag=(r.randrange(1, 8192), r.randrange(2), 17))
    / pay(r),
    "vxlan_zero": lambda r: vxlan(r, chksum=0),
    "vxlan6_zero": lambda r: vxlan(r, v6=True, chksum=0),
    "vxlan_inner_zero": lambda r: vxlan(r, body=eth() / ip(r, r.random() < 0.5) / UDP(
        sport=1024, dport=2000, chksum=0) / pay(r)),
    "vxlan_icmp": lambda r: vxlan(r, kinds=("icmp",)),
    "vxlan_sctp": lambda r: vxlan(r, kinds=("sctp",), iv6=False),
    "vxlan6_icmp6": lambda r: vxlan(r, v6=True, kinds=("icmp",), iv6=True),
    "vxlan_inner_vlan": lambda r: vxlan(r, vlan=True),
    "vxlan_inner_padded": vxlan_inner_padded,
    "vxlan_inner_ext6": lambda r: vxlan(r, body=eth() / ext6(r) / any_l4(r, True)),
    "vxlan_ip4opts": lambda r: vxlan(r, l3=ip4opts(r)),
    "geneve_opts": lambda r: geneve(r),
    "geneve6_opts": lambda r: geneve(r, v6=True),
    "geneve_ip": lambda r: geneve(r, carry_ip=True),
    "vxlan_in_geneve": lambda r: geneve(r, body=eth() / ip(r, False) / udp_to(r, 4789) / VXLAN()
                                        / inner(r)),
    "gre_in_vxlan": lambda r: vxlan(r, body=eth() / ip(r, False) / gre_body(r)),
    "gre6": lambda r: eth() / ip(r, True) / gre_body(r, csum=r.randrange(2)),
    "gre_nocsum": lambda r: eth() / ip(r, False) / gre_body(r, csum=0),
    "gre_udp": lambda r: eth() / ip(r, r.random() < 0.5) / udp_to(r, 4754) / gre_body(r),
    "sctp_udp": lambda r: eth() / ip(r, False) / udp_to(r, 9899) / l4(r, "sctp"),
    "ip6in4": lambda r: eth() / ip(r, False) / ip(r, True) / any_l4(r, True, ALL_L4),
    "ip4in6": lambda r: eth() / ip(r, True) / ip(r, False) / any_l4(r, False, ALL_L4),
    "ip6in6": lambda r: eth() / ext6(r) / ip(r, True) / any_l4(r, True),
    "ip4opt_tcp": lambda r: eth() / ip4opts(r) / tcp(r),
    "ip4opt_udp": lambda r: eth() / ip4opts(r) / l4(r, "udp"),
    "ip4opt_icmp": lambda r: eth() / ip4opts(r) / l4(r, "icmp"),
    "ip4opt_vlan_sctp": lambda r: tag(r, 1) / ip4opts(r) / l4(r, "sctp"),
    "ext6_tcp": lambda r: eth() / ext6(r) / tcp(r),
    "ext6_udp": lambda r: eth() / ext6(r) / l4(r, "udp", True),
    "ext6_icmp6": lambda r: eth() / ext6(r) / l4(r, "icmp", True),
    "ext6_sctp": lambda r: eth() / ext6(r) / l4(r, "sctp", True),
    "ext6_vxlan": lambda r: vxlan(r, l3=ext6(r)),
    "tcp4_opts": lambda r: eth() / ip(r, False) / tcp(r),
    "tcp6_opts": lambda r: eth() / ip(r, True) / tcp(r),
}
SHAPES["straddle"] = lambda r: straddle(r, 2 * r.randrange(56, 156))
for _k in ("tcp4", "udp4", "tcp6", "udp6"):  # runs the engine's tunnel runs can take
    SHAPES[f"vxlan_{_k}"] = lambda r, k=_k: vxlan(r, kinds=(k[:3],), iv6=k[3] == "6")
    SHAPES[f"geneve0_{_k}"] = lambda r, k=_k: eth() / ip(r, False) / udp_to(r, 6081, 0) \
        / GENEVE(vni=r.randrange(1 << 24), proto=0x6558) / inner(r, (k[:3],), k[3] == "6")
for _n, _q in ((1, "vlan"), (2, "qinq")):
    for _v6 in (False, True):
        for _k in ("tcp", "udp"):
            SHAPES[f"{_q}_{_k}{6 if _v6 else 4}"] = \
                lambda r, n=_n, v6=_v6, k=_k: tag(r, n) / ip(r, v6) / l4(r, k, v6)
    SHAPES[f"{_q}_vxlan"] = lambda r, n=_n: vxlan(r, l2=tag(r, n))
    SHAPES[f"{_q}_vxlan6"] = lambda r, n=_n: vxlan(r, v6=True, l2=tag(r, n))


@dataclass
class Field:
    proto: str
    off: int  # of the checksum field
    width: int
    v6: bool  # under IPv6: a zero UDP sum is illegal there
    start: int = 0  # TCP/UDP: the region the sum covers
    end: int = 0
    partial: int = None  # TCP/UDP: the folded pseudo-header sum a sender's stack leaves
    fixed: str = None  # a status no field value changes: "unverifiable"
    ip: int = 0  # TCP/UDP: where its IP header starts,
    dst: int = 0  # its destination address, and the pseudo-header's (routing header, LSRR)
    final: int = 0


def fold(b):
    """The ones'-complement sum of b's big-endian words, folded to 16 bits."""
    s = sum(int.from_bytes(b[i:i + 2].ljust(2, b"\0"), "big") for i in range(0, len(b), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def fields_of(raw):
    """Every checksum field in the frame, outermost first, from scapy's dissection."""
    out, layer, off = [], Ether(raw), 0
    v6, end, unknown, ip_off, final = False, len(raw), False, 0, 0
    while layer.name not in ("NoPayload", "Raw", "Padding"):
        cls = type(layer)
        if cls in (IP, IPv6):
            v6, ip_off = cls is IPv6, off
            end = off + (40 + layer.plen if v6 else layer.len)
            unknown = not v6 and (layer.flags.MF or layer.frag)  # a fragment
            final = off + (24 if v6 else 16)
        if cls is IP:
            at = off + 20
            for o in layer.options:
                if isinstance(o, (IPOption_LSRR, IPOption_SSRR)) and o.routers:
                    if o.pointer <= o.length:  # under way
                        final = at + 3 + 4 * (len(o.routers) - 1)
                    break
                at += len(o)
        elif cls is IPv6ExtHdrFragment:
            unknown = unknown or layer.m or layer.offset
        elif cls in (IPv6ExtHdrRouting, IPv6ExtHdrSegmentRouting) and layer.segleft:
            if cls is IPv6ExtHdrRouting:
                final = off + 8 + 16 * (len(layer.addresses) - 1)
            else:
                final = off + 8  # Segment List[0], the last segment
            if cls is IPv6ExtHdrRouting and layer.type != 2:
                unknown = True  # routing type 0: final destination unknown (RFC 8200 4.4)
        if cls in PROTO and (cls is not GRE or layer.chksum_present):
            f = Field(PROTO[cls], off + base.FIELDS[cls][0], base.FIELDS[cls][1], v6)
            if cls in (TCP, UDP):
                n, f.start, f.end = (6, off, end) if cls is TCP else (17, off, off + layer.len)
                f.ip, f.dst, f.final = ip_off, ip_off + (24 if v6 else 16), final
                a = 16 if v6 else 4
                f.partial = fold(raw[ip_off + (8 if v6 else 12):][:a] + raw[final:final + a]
                                 + bytes([0, n]) + (f.end - off).to_bytes(2, "big"))
            if unknown and cls is not IP:
                f.fixed = "unverifiable"
            out.append(f)
        off += len(layer) - len(layer.payload)
        layer = layer.payload
    return out


def needed(f, good, at):
    """The value of the word at `at` that makes f's sum compute to 0."""
    region = bytearray(good[f.start:f.end])
    region[f.off - f.start:f.off - f.start + 2] = b"\0\0"
    s = fold(f.partial.to_bytes(2, "big") + region)
    return fold((0xFFFF - s).to_bytes(2, "big") + good[at:at + 2])


def to_edge(pkt, good, r):
    """Brings a sum to the 0x0000/0xFFFF edge: the innermost TCP/UDP one
    (by two payload bytes), a tunnel's outer UDP one (by the VNI) or an
    IPv4 header's (by its ID)."""
    fields = fields_of(good)
    ips = [l for l in pkt.iterpayloads() if type(l) is IP]
    l4s = [f for f in fields if f.partial is not None and not f.fixed]
    raws = [l for l in pkt.iterpayloads() if type(l) is Raw]
    tun = [l for l in pkt.iterpayloads() if type(l) in (VXLAN, GENEVE)]
    how = r.randrange(3)
    if how == 0 and l4s and raws and len(raws[-1].load) >= 3:
        f, load = l4s[-1], raws[-1].load
        at = f.end - len(load) + (f.end - len(load) - f.start) % 2  # a word of the payload
        if good[f.end - len(load):f.end] == load and at + 2 <= f.end:
            i = at - (f.end - len(load))
            raws[-1].load = load[:i] + needed(f, good, at).to_bytes(2, "big") + load[i + 2:]
    elif how == 1 and tun and l4s and l4s[0].proto == "udp" and not zero_udp(good, l4s[0]):
        at = l4s[0].start + 12  # the VNI's first two bytes
        tun[0].vni = needed(l4s[0], good, at) << 8 | tun[0].vni & 0xFF
    elif ips and len(ips) == sum(f.proto == "ipv4" for f in fields):
        k = r.randrange(len(ips))
        h = [f.off - 10 for f in fields if f.proto == "ipv4"][k]
        hdr = bytearray(good[h:h + 4 * (good[h] & 15)])
        hdr[4:6] = hdr[10:12] = b"\0\0"
        ips[k].id = 0xFFFF - fold(hdr)


def zero_udp(raw, f):
    return f.proto == "udp" and raw[f.off:f.off + 2] == b"\0\0"


@dataclass
class Frame:
    shape: str
    good: bytes  # scapy's bytes, an absent UDP sum left absent
    filled: bytes  # with every sum computed: what fill writes
    fields: list


def build(shape, r, pkt=None):
    pkt = SHAPES[shape](r) if pkt is None else pkt
    raws = [l for l in pkt.iterpayloads() if type(l) is Raw]
    fixed_bytes = shape == "vxlan_inner_padded" or shape.endswith("trimmed")
    if raws and not fixed_bytes and r.random() < 0.3:
        # a total length around 64, 128, 256 or 512 bytes
        delta = r.choice([60, 64, 128, 256, 512]) + r.randrange(-5, 6) - len(pkt)
        load = raws[-1].load
        if len(load) + delta >= 0:
            raws[-1].load = load[:len(load) + delta] + rbytes(r, max(0, delta))
    if not fixed_bytes and r.random() < 0.2:
        to_edge(pkt, bytes(pkt), r)
    good = bytes(pkt)
    filled = pkt.copy()
    for l in filled.iterpayloads():
        if isinstance(l, UDP) and l.chksum == 0:
            l.chksum = None
    filled = bytes(filled)
    trailer = b""
    if len(good) < 60 and r.random() < 0.7:
        trailer = bytes(60 - len(good))  # the Ethernet minimum
    elif r.random() < 0.2:
        trailer = rbytes(r, r.randrange(1, 24))
    return Frame(shape, good + trailer, filled + trailer, fields_of(good + trailer))


def frames(rng, in_runs, mixed):
    """in_runs frames in runs of one shape (1 to 40 long), then `mixed` frames
    whose shape differs from the one before, then the innermost L4 header at
    every even offset from 192 to 278 (with 256- and 257-B mbufs a segment
    ends at each of its bytes, odd and even)."""
    out, names = [], sorted(SHAPES)
    while len(out) < in_runs:
        shape = rng.choice(names)
        out += [build(shape, rng) for _ in range(min(rng.randrange(1, 41), in_runs - len(out)))]
    for _ in range(mixed):
        out.append(build(rng.choice([n for n in names if n != out[-1].shape]), rng))
    return out + [build("straddle", rng, straddle(rng, at)) for at in range(192, 280, 2)]
