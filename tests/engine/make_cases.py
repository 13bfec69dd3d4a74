#!/usr/bin/python3
"""Generates tests/engine/data/cases.txt: packets built by scapy (the
independent oracle) with the verdict csumd must reach on each.

Line format (one case per line, '|' separated):
  name | hex of the packet | ip_summed | csum_level | parse error |
  layers as proto:status,... | hex with every checksum zeroed, or '-' |
  hex with every checksum computed by scapy, or '-'
Regenerate with: /usr/bin/python3 tests/engine/make_cases.py
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")
from scapy.all import (Ether, Dot1Q, Dot1AD, IP, IPv6, TCP, UDP, ICMP, ICMPv6EchoRequest,
                       ICMPv6DestUnreach, SCTP, SCTPChunkData, SCTPChunkInit, VXLAN, GRE, Raw,
                       IPv6ExtHdrHopByHop, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                       IPv6ExtHdrSegmentRouting, IPv6ExtHdrRouting, IPerror, UDPerror, conf,
                       bind_layers)
from scapy.contrib.geneve import GENEVE

# Tunnels scapy doesn't bind by default.
bind_layers(UDP, GRE, dport=4754)
bind_layers(UDP, SCTP, dport=9899)

V4 = dict(src="192.0.2.1", dst="198.51.100.2")
V4B = dict(src="10.1.1.1", dst="10.2.2.2")
V6 = dict(src="2001:db8::1", dst="2001:db8::2")
V6B = dict(src="2001:db8:1::10", dst="2001:db8:2::20")
ETH = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
IN_ETH = Ether(src="02:00:00:00:00:03", dst="02:00:00:00:00:04")
COUNTING = {"tcp", "udp", "gre", "sctp"}
FIELD = {"ipv4": 10, "tcp": 16, "udp": 6, "icmp": 2, "icmpv6": 2, "sctp": 8, "gre": 4}


def data(n, seed=1):
    return bytes((seed * 31 + i * 7) & 0xFF for i in range(n))


def checksum_layers(pkt):
    """(proto, byte offset, scapy layer) of every checksum, outermost first."""
    out, raw_len = [], len(bytes(pkt))
    layer = pkt
    while layer and not isinstance(layer, (Raw, conf.padding_layer)):
        off = raw_len - len(bytes(layer))
        if isinstance(layer, (IPerror, UDPerror)):
            break  # quoted by an ICMP error: covered, never judged
        name = None
        if isinstance(layer, IP): name = "ipv4"
        elif isinstance(layer, TCP): name = "tcp"
        elif isinstance(layer, UDP): name = "udp"
        elif isinstance(layer, ICMP): name = "icmp"
        elif layer.__class__.__name__.startswith("ICMPv6"): name = "icmpv6"
        elif isinstance(layer, SCTP): name = "sctp"
        elif isinstance(layer, GRE) and layer.chksum_present: name = "gre"
        if name:
            out.append((name, off, layer))
        if isinstance(layer, (ICMP,)) or name == "icmpv6":
            break
        layer = layer.payload
    return out


def rebuild_with(pkt, which):
    """Rebuilds pkt with the checksums of the layers at indices `which` recomputed."""
    p = pkt.__class__(bytes(pkt))
    layers = checksum_layers(p)
    for i in which:
        name, _, l = layers[i]
        l.chksum = None
    return p.__class__(bytes(p))


def zero_all(raw, layers):
    b = bytearray(raw)
    for name, off, _ in layers:
        width = 4 if name == "sctp" else 2
        b[off + FIELD[name]: off + FIELD[name] + width] = bytes(width)
    return bytes(b)


def expected_level(statuses):
    level, stop = 0, False
    for proto, st in statuses:
        if stop:
            break
        if proto == "ipv4":
            stop = st != "good"
        elif proto in COUNTING:
            if st in ("good", "zero"):
                level += 1
            else:
                stop = True
    # Linux's csum_level is 2 bits (SKB_MAX_CSUM_LEVEL = 3).
    return ("CHECKSUM_UNNECESSARY", min(level - 1, 3)) if level else ("CHECKSUM_NONE", 0)


def udp_zero_status(pkt_layers, idx):
    name, off, l = pkt_layers[idx]
    under_v6 = isinstance(l.underlayer, IPv6) or l.underlayer.__class__.__name__.startswith("IPv6Ext")
    return "illegal" if under_v6 else "zero"


CASES = []


def case(name, pkt, corrupt=None, fillable=True):
    """A well-formed packet; corrupt=k breaks the k-th checksum only."""
    pkt = pkt.__class__(bytes(pkt))
    layers = checksum_layers(pkt)
    statuses = []
    for i, (proto, off, l) in enumerate(layers):
        st = "good"
        if proto == "udp" and l.chksum == 0:
            st = udp_zero_status(layers, i)
        statuses.append([proto, st])
    raw = bytes(pkt)
    if corrupt is not None:
        proto, off, _ = layers[corrupt]
        b = bytearray(raw)
        b[off + FIELD[proto]] ^= 0x5A
        p2 = pkt.__class__(bytes(b))
        # Outer sums cover the corrupted field: recompute those still present.
        outer = [i for i in range(corrupt) if layers[i][0] not in ("ipv4",)
                 and not (layers[i][0] == "udp" and layers[i][2].chksum == 0)]
        raw = bytes(rebuild_with(p2, outer)) if outer else bytes(p2)
        statuses[corrupt][1] = "bad"
        if proto == "ipv4":
            for j in range(corrupt + 1, len(statuses)):
                statuses[j][1] = "unverifiable"
    ip_summed, level = expected_level(statuses)
    zeroed = filled = "-"
    if fillable and corrupt is None:
        zeroed = zero_all(raw, layers).hex()
        p = pkt.__class__(bytes(pkt))
        for _, _, l in checksum_layers(p):
            l.chksum = None
        filled = bytes(p).hex()
    CASES.append((name, raw.hex(), ip_summed, level, "none",
                  ",".join(f"{a}:{b}" for a, b in statuses), zeroed, filled))


def bad_case(name, raw, error, layers, ip_summed="CHECKSUM_NONE", level=0):
    """A hostile or malformed frame, with the statuses csumd must give it."""
    CASES.append((name, raw.hex(), ip_summed, level, error, layers, "-", "-"))


def with_corruptions(name, pkt):
    case(name, pkt)
    for k in range(len(checksum_layers(pkt.__class__(bytes(pkt))))):
        case(f"{name}/bad{k}", pkt, corrupt=k)


def build():
    for size in (0, 1, 17, 300, 1400):
        with_corruptions(f"v4_tcp_{size}", ETH / IP(**V4) / TCP(sport=1, dport=2, flags="PA") / Raw(data(size)))
        with_corruptions(f"v4_udp_{size}", ETH / IP(**V4) / UDP(sport=3, dport=4) / Raw(data(size, 2)))
        with_corruptions(f"v6_tcp_{size}", ETH / IPv6(**V6) / TCP(sport=5, dport=6) / Raw(data(size, 3)))
        with_corruptions(f"v6_udp_{size}", ETH / IPv6(**V6) / UDP(sport=7, dport=8) / Raw(data(size, 4)))
    with_corruptions("v4_icmp", ETH / IP(**V4) / ICMP() / Raw(data(56)))
    with_corruptions("v6_icmpv6", ETH / IPv6(**V6) / ICMPv6EchoRequest(data=data(56)))
    # An ICMP error quotes a packet whose own checksums are not judged.
    with_corruptions("v4_icmp_error", ETH / IP(**V4) / ICMP(type=3, code=3) /
                     IPerror(**V4B) / UDPerror(sport=1, dport=2, chksum=0x1234) / Raw(data(8)))
    with_corruptions("v4_sctp_1chunk", ETH / IP(**V4) / SCTP(sport=9, dport=10, tag=7) /
                     SCTPChunkData(tsn=1, data=data(100)))
    with_corruptions("v6_sctp_4chunks", ETH / IPv6(**V6) / SCTP(sport=9, dport=10, tag=7) /
                     SCTPChunkData(tsn=1, data=data(13)) / SCTPChunkData(tsn=2, data=data(64)) /
                     SCTPChunkData(tsn=3, data=data(3)) / SCTPChunkData(tsn=4, data=data(200)))
    with_corruptions("v4_options_tcp", ETH / IP(options=b"\x01\x01\x01\x00" * 3, **V4) /
                     TCP(sport=11, dport=12) / Raw(data(40)))
    with_corruptions("vlan_v4_udp", ETH / Dot1Q(vlan=5) / IP(**V4) / UDP(sport=1, dport=2) / Raw(data(50)))
    with_corruptions("qinq_v6_tcp", Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") /
                     Dot1AD(vlan=100) / Dot1Q(vlan=5) / IPv6(**V6) / TCP() / Raw(data(50)))
    with_corruptions("v6_ext_hbh_dst_udp", ETH / IPv6(**V6) / IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt() /
                     UDP(sport=1, dport=2) / Raw(data(70)))
    with_corruptions("v6_srh_final_dst_tcp", ETH / IPv6(**V6) /
                     IPv6ExtHdrSegmentRouting(addresses=["2001:db8::99", "2001:db8::2"], segleft=1) /
                     TCP(sport=1, dport=2) / Raw(data(70)))
    # Type 0 routing (deprecated, RFC 5095): followed only once exhausted.
    with_corruptions("v6_rh0_segleft0_udp", ETH / IPv6(**V6) /
                     IPv6ExtHdrRouting(type=0, segleft=0, addresses=["2001:db8::77"]) /
                     UDP(sport=1, dport=2) / Raw(data(40)))
    p = Ether(bytes(ETH / IPv6(**V6) / IPv6ExtHdrRouting(type=0, segleft=1, addresses=["2001:db8::77"]) /
                    UDP(sport=1, dport=2) / Raw(data(40))))
    bad_case("v6_rh0_segments_left_udp", bytes(p), "none", "udp:unverifiable")
    case("v6_atomic_fragment_udp", ETH / IPv6(**V6) / IPv6ExtHdrFragment(offset=0, m=0, id=5) /
         UDP(sport=1, dport=2) / Raw(data(30)))
    # A short frame padded to 60 bytes: L4 length from IP, padding excluded.
    case("v4_udp_padded", ETH / IP(**V4) / UDP(sport=1, dport=2) / Raw(b"x") / Raw(bytes(17)),
         fillable=False)
    # Tunnels.
    with_corruptions("vxlan_zero_outer_tcp", ETH / IP(**V4) / UDP(sport=49152, dport=4789, chksum=0) /
                     VXLAN(vni=1) / IN_ETH / IP(**V4B) / TCP(sport=1, dport=2) / Raw(data(300)))
    with_corruptions("vxlan_csum_outer_tcp", ETH / IP(**V4) / UDP(sport=49152, dport=4789) /
                     VXLAN(vni=1) / IN_ETH / IP(**V4B) / TCP(sport=1, dport=2) / Raw(data(300)))
    with_corruptions("vxlan6_udp", ETH / IPv6(**V6) / UDP(sport=49152, dport=4789) / VXLAN(vni=2) /
                     IN_ETH / IPv6(**V6B) / UDP(sport=3, dport=4) / Raw(data(99)))
    with_corruptions("geneve_opts_tcp", ETH / IP(**V4) / UDP(sport=1, dport=6081) /
                     GENEVE(vni=3, proto=0x6558, optionlen=2, options=b"\x01\x02\x03\x01\x00\x00\x00\x01") /
                     IN_ETH / IP(**V4B) / TCP() / Raw(data(120)))
    with_corruptions("gre_csum_v4_udp", ETH / IP(**V4) / GRE(chksum_present=1, proto=0x0800) /
                     IP(**V4B) / UDP(sport=1, dport=2) / Raw(data(64)))
    with_corruptions("gre_key_seq_v6_tcp", ETH / IP(**V4) / GRE(key_present=1, key=9, seqnum_present=1,
                                                               seqence_number=3, proto=0x86DD) /
                     IPv6(**V6B) / TCP() / Raw(data(64)))
    with_corruptions("nvgre_tcp", ETH / IP(**V4) / GRE(key_present=1, key=0x123400, proto=0x6558) /
                     IN_ETH / IP(**V4B) / TCP() / Raw(data(64)))
    with_corruptions("gre_in_udp", ETH / IP(**V4) / UDP(sport=1, dport=4754) / GRE(proto=0x0800) /
                     IP(**V4B) / UDP(sport=5, dport=6) / Raw(data(40)))
    with_corruptions("sctp_over_udp", ETH / IP(**V4) / UDP(sport=9899, dport=9899) /
                     SCTP(sport=1, dport=2, tag=3) / SCTPChunkData(tsn=1, data=data(77)))
    with_corruptions("ipip_4in4_tcp", ETH / IP(**V4) / IP(**V4B) / TCP() / Raw(data(33)))
    with_corruptions("ipip_6in4_udp", ETH / IP(**V4) / IPv6(**V6B) / UDP() / Raw(data(33)))
    with_corruptions("ipip_4in6_udp", ETH / IPv6(**V6) / IP(**V4B) / UDP() / Raw(data(33)))
    with_corruptions("ipip_6in6_tcp", ETH / IPv6(**V6) / IPv6(**V6B) / TCP() / Raw(data(33)))
    with_corruptions("vxlan_in_gre_csum", ETH / IP(**V4) / GRE(chksum_present=1, proto=0x0800) /
                     IP(**V4B) / UDP(sport=49152, dport=4789) / VXLAN(vni=4) / IN_ETH / IP(**V4) /
                     UDP(sport=1, dport=2) / Raw(data(90)))

    # Fragments: the L4 checksum covers bytes that are elsewhere.
    b = ETH / IP(flags="MF", **V4) / UDP(sport=1, dport=2, len=500) / Raw(data(100))
    b = Ether(bytes(b))
    bad_case("v4_first_fragment", bytes(b), "none", "ipv4:good,udp:unverifiable")
    b = Ether(bytes(ETH / IP(frag=10, **V4, proto=6) / Raw(data(80))))
    bad_case("v4_later_fragment", bytes(b), "none", "ipv4:good")
    b = Ether(bytes(ETH / IPv6(**V6) / IPv6ExtHdrFragment(offset=0, m=1, id=5) / TCP() / Raw(data(30))))
    bad_case("v6_first_fragment", bytes(b), "none", "tcp:unverifiable")

    # Hostile and malformed frames.
    good = bytes(Ether(bytes(ETH / IP(**V4) / TCP() / Raw(data(60)))))
    bad_case("truncated_ethernet", good[:10], "l2_truncated", "")
    bad_case("truncated_ipv4", good[:14 + 12], "ipv4_truncated", "")
    bad_case("truncated_frame_tcp", good[:-20], "ipv4_len_exceeds_frame", "ipv4:malformed")
    b = bytearray(good); b[14] = 0x44
    bad_case("ipv4_ihl_below_5", bytes(b), "ipv4_bad_ihl", "")
    b = bytearray(good); b[16:18] = (2000).to_bytes(2, "big")
    bad_case("ipv4_total_len_past_frame", bytes(b), "ipv4_len_exceeds_frame", "ipv4:malformed")
    b = bytearray(good); b[16:18] = (10).to_bytes(2, "big")
    bad_case("ipv4_total_len_below_ihl", bytes(b), "ipv4_len_below_header", "ipv4:malformed")
    p = Ether(bytes(ETH / IP(**V4) / TCP(dataofs=4) / Raw(data(20))))
    bad_case("tcp_data_offset_below_5", bytes(p), "tcp_bad_data_offset", "ipv4:good,tcp:malformed")
    p = Ether(bytes(ETH / IP(**V4) / TCP(dataofs=15) / Raw(data(20))))
    bad_case("tcp_data_offset_past_end", bytes(p), "tcp_bad_data_offset", "ipv4:good,tcp:malformed")
    # A UDP length below the IP payload: trimmed to and accepted, as Linux does.
    u = IP(bytes(IP(**V4) / UDP(sport=53, dport=53) / Raw(data(12))))[UDP]
    p = Ether(bytes(ETH / IP(**V4, proto=17) / Raw(bytes(u) + data(28, 5))))
    bad_case("udp_len_below_ip_payload", bytes(p), "none", "ipv4:good,udp:good",
             "CHECKSUM_UNNECESSARY", 0)
    b = bytearray(bytes(p))
    b[14 + 20 + 8] ^= 0x5A
    bad_case("udp_len_below_ip_payload/bad", bytes(b), "none", "ipv4:good,udp:bad")
    p = Ether(bytes(ETH / IP(**V4) / UDP(len=60) / Raw(data(40))))
    bad_case("udp_len_past_ip_payload", bytes(p), "udp_len_mismatch", "ipv4:good,udp:malformed")
    # Source routes: the pseudo-header holds the final destination (RFC 1122
    # 4.1.3.4), the last address of an unfinished LSRR/SSRR, as tshark does.
    for opt in (131, 137):
        route = bytes([opt, 11, 4]) + bytes([203, 0, 113, 7]) + bytes([198, 51, 100, 99]) + bytes([1])
        u = IP(bytes(IP(src=V4["src"], dst="198.51.100.99") / UDP(sport=9, dport=10) / Raw(data(20))))[UDP]
        p = Ether(bytes(ETH / IP(**V4, proto=17, options=[]) ))
        ip = IP(src=V4["src"], dst="203.0.113.1", proto=17, ihl=8, options=route)
        p = Ether(bytes(ETH / IP(bytes(ip / Raw(bytes(u))))))
        bad_case(f"ipv4_srr{opt}_final_dst", bytes(p), "none", "ipv4:good,udp:good",
                 "CHECKSUM_UNNECESSARY", 0)
    p = Ether(bytes(ETH / IP(**V4) / SCTP() / SCTPChunkData(data=data(16), len=0)))
    bad_case("sctp_chunk_len_zero", bytes(p), "sctp_bad_chunk_len", "ipv4:good,sctp:malformed")
    p = Ether(bytes(ETH / IP(**V4) / SCTP() / SCTPChunkData(data=data(16), len=300)))
    bad_case("sctp_chunk_past_end", bytes(p), "sctp_bad_chunk_len", "ipv4:good,sctp:malformed")
    p = ETH / IPv6(**V6)
    for _ in range(9):
        p = p / IPv6ExtHdrDestOpt()
    p = Ether(bytes(p / UDP() / Raw(data(8))))
    bad_case("ipv6_ext_chain_too_long", bytes(p), "ipv6_ext_chain_too_long", "")
    p = Ether(bytes(ETH / IPv6(**V6, plen=3000) / UDP() / Raw(data(8))))
    bad_case("ipv6_payload_len_past_frame", bytes(p), "ipv6_len_exceeds_frame", "")
    inner = IP(**V4B) / UDP(sport=1, dport=2) / Raw(data(8))
    for _ in range(9):
        inner = IP(**V4) / inner
    p = Ether(bytes(ETH / inner))
    bad_case("ipip_nested_past_cap", bytes(p), "tunnel_too_deep", ",".join(["ipv4:good"] * 9))
    p = Ether(bytes(ETH / IP(**V4) / UDP(sport=1, dport=6081, chksum=0) /
                    GENEVE(vni=3, proto=0x6558, optionlen=20) / Raw(data(16))))
    bad_case("geneve_opt_len_past_end", bytes(p), "geneve_bad_opt_len", "ipv4:good,udp:zero",
             "CHECKSUM_UNNECESSARY", 0)
    p = Ether(bytes(ETH / IP(**V4) / UDP(sport=1, dport=4789, chksum=0) / Raw(data(4))))
    bad_case("vxlan_truncated", bytes(p), "vxlan_truncated", "ipv4:good,udp:zero",
             "CHECKSUM_UNNECESSARY", 0)


if __name__ == "__main__":
    build()
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "data", "cases.txt")
    with open(out, "w") as f:
        f.write("# generated by tests/engine/make_cases.py; do not edit\n")
        for c in CASES:
            f.write("|".join(str(x) for x in c) + "\n")
    print(f"wrote {len(CASES)} cases to {out}")
