#!/usr/bin/python3
"""Writes drivers-config/sample.pcap: a small mix csumd's README demo replays.

Every packet's checksums are computed by scapy (the independent oracle); a
few are deliberately corrupted so the demo has bad packets to report.
Deterministic: the same file every run.
"""
import sys
from scapy.all import (Ether, IP, IPv6, TCP, UDP, ICMP, ICMPv6EchoRequest, SCTP,
                       SCTPChunkData, VXLAN, GRE, Raw, wrpcap)

def payload(n, seed):
    return bytes((seed + i * 7) & 0xFF for i in range(n))

def build():
    eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    v4 = dict(src="192.0.2.1", dst="198.51.100.2")
    v6 = dict(src="2001:db8::1", dst="2001:db8::2")
    pkts = []
    for i, size in enumerate((18, 200, 1400)):
        pkts.append(eth / IP(**v4) / TCP(sport=1000 + i, dport=80, flags="PA", seq=i) / Raw(payload(size, i)))
        pkts.append(eth / IP(**v4) / UDP(sport=2000 + i, dport=53) / Raw(payload(size, i + 1)))
        pkts.append(eth / IPv6(**v6) / TCP(sport=3000 + i, dport=443) / Raw(payload(size, i + 2)))
        pkts.append(eth / IPv6(**v6) / UDP(sport=4000 + i, dport=5353) / Raw(payload(size, i + 3)))
    pkts.append(eth / IP(**v4) / ICMP() / Raw(payload(56, 9)))
    pkts.append(eth / IPv6(**v6) / ICMPv6EchoRequest(data=payload(56, 10)))
    pkts.append(eth / IP(**v4) / SCTP(sport=2905, dport=2905, tag=0x1234) /
                SCTPChunkData(tsn=1, stream_id=0, proto_id=3, data=payload(100, 11)))
    pkts.append(eth / IP(**v4) / UDP(sport=49152, dport=4789) / VXLAN(vni=42) /
                Ether() / IP(**v4) / TCP(sport=5000, dport=80) / Raw(payload(300, 12)))
    pkts.append(eth / IP(**v4) / GRE() / IP(**v4) / UDP(sport=6000, dport=7000) / Raw(payload(64, 13)))
    # Freeze scapy's checksums, then corrupt a few on purpose.
    pkts = [Ether(bytes(p)) for p in pkts]
    bad_tcp = eth / IP(**v4) / TCP(sport=1111, dport=80, chksum=0xBEEF) / Raw(payload(100, 14))
    bad_ip = eth / IP(chksum=0x1234, **v4) / UDP(sport=2222, dport=53) / Raw(payload(40, 15))
    bad_udp6 = eth / IPv6(**v6) / UDP(sport=3333, dport=53, chksum=0x4321) / Raw(payload(40, 16))
    pkts += [Ether(bytes(p)) for p in (bad_tcp, bad_ip, bad_udp6)]
    for i, p in enumerate(pkts):
        p.time = 1700000000 + i * 0.001
    return pkts

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "drivers-config/sample.pcap"
    pkts = build()
    wrpcap(out, pkts)
    print(f"wrote {len(pkts)} packets to {out}")
