#!/usr/bin/python3
"""Seeds the fuzz corpora from the tests: the engine cases and the frames of
issue 13 (scapy), their SCTP packets, the NVMe/TCP conversations and the
shipped config files."""
import hashlib
import os
import struct
import sys

root, corpus = sys.argv[1], sys.argv[2]


def put(target, data):
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(corpus, target, name), "wb") as f:
        f.write(data)


def engine_input(mode, frame, flags=0, tx=0, split=(0, 128)):
    """fuzz_engine / fuzz_engine_diff input (tests/fuzz/frame_gen.h): [config]
    [RX flags u16][TX offloads][0xFF, raw frame][no damage][split kind, headroom].
    mode: 0 verify, 1 fill, 2 csum. Split kind 0 cuts at 2 KiB as net_pcap does."""
    return (bytes([mode]) + struct.pack("<HB", flags, tx) + b"\xff" + struct.pack("<H", len(frame))
            + frame + b"\x00\x00" + bytes(split))


def put_engine(data):
    put("fuzz_engine", data)
    put("fuzz_engine_diff", data)


frames = []
for line in open(os.path.join(root, "tests", "engine", "data", "cases.txt")):
    if line.startswith("#"):
        continue
    f = line.rstrip("\n").split("|")
    frame = bytes.fromhex(f[1])
    frames.append(frame)
    for mode in range(3):
        put_engine(engine_input(mode, frame))
        put_engine(engine_input(mode, frame, tx=0x0F, split=(5, 61)))  # small segments, odd headroom
    if "sctp" in f[0] and len(frame) > 34 and frame[23] == 132:
        put("fuzz_sctp", bytes([3, 0, 0, 0, 0]) + frame[34:])

# The frames of issue 13, built with scapy (checksums right unless said).
from scapy.all import (IP, TCP, UDP, Ether, IPv6, Raw, SCTP, SCTPChunkData,  # noqa: E402
                       IPOption_LSRR, raw)
eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
# 1. IPv6 Routing header with Hdr Ext Len 255 (2048 bytes) straddling the 2 KiB mbuf: 2110 bytes.
# Segments Left 0: the UDP checksum's destination is the IPv6 header's.
ip6 = IPv6(src="2001:db8::1", dst="2001:db8::2")
udp6 = raw(ip6 / UDP(sport=1000, dport=2000))[40:]
rh = bytes([17, 255, 0, 0, 0, 0, 0, 0]) + bytes(2040)
big_rh = raw(eth / IPv6(src="2001:db8::1", dst="2001:db8::2", nh=43, plen=len(rh) + 8)) + rh + udp6
assert len(big_rh) == 2110 and big_rh[55] == 255, (len(big_rh), big_rh[55])
# 4. IPv4 header checksum 0 with RX_IP_CKSUM_NONE | RX_L4_CKSUM_GOOD in csum mode.
v4 = bytearray(raw(eth / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=53) / Raw(b"x" * 18)))
v4[24:26] = b"\0\0"
# 3. SCTP over UDP 9899 in fill mode, with every TX offload.
sctp_udp = raw(eth / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=9899, dport=9899) /
               SCTP(sport=2905, dport=2905) / SCTPChunkData(data=b"y" * 100))
# 5. IPv4 loose source route: the pseudo-header takes the option's final destination.
lsrr = raw(eth / IP(src="10.0.0.1", dst="10.0.0.2", options=[IPOption_LSRR(routers=["192.0.2.1", "192.0.2.9"])]) /
           UDP(sport=1000, dport=2000) / Raw(b"z" * 64))
for mode in range(3):
    put_engine(engine_input(mode, big_rh))
    put_engine(engine_input(mode, big_rh, split=(2, 0x30, 0x08, 0)))  # one split inside the header
    put_engine(engine_input(mode, lsrr))
    put_engine(engine_input(mode, sctp_udp, tx=0x0F))
put_engine(engine_input(2, bytes(v4), flags=3 | 1 << 2))  # IP NONE, L4 GOOD
# Found by fuzz_engine_diff: csum mode, RX IP GOOD over a wrong IPv4 header
# checksum, L4 NONE on SCTP, chained. The walker rewrote the IPv4 checksum as
# "dependent" on the SCTP CRC it filled (an IPv4 header covers no payload);
# the fast path left it. Verdicts matched, bytes did not.
sctp4 = bytearray(raw(eth / IP(src="10.0.0.1", dst="10.0.0.2") / SCTP(sport=2905, dport=2905) /
                      SCTPChunkData(data=b"w" * 20)))
sctp4[24] ^= 0x01
put_engine(engine_input(2, bytes(sctp4), flags=1 | 3 << 2, split=(2, 128, 40, 0)))
put_engine(engine_input(1, sctp_udp, tx=0x0F))
# Tunnel shapes for fuzz_engine_diff (config bit 0x20: tests/fuzz/frame_gen.h
# gen_tunnel_frame): outer/inner IPv4 or IPv6, TCP or UDP, VXLAN or GENEVE
# (with options, carrying IP), prefilled, every mode, linear and cut small.
for mode in range(3):
    for sel in list(range(16)) + [0x18, 0x1C, 0x38, 0x3E]:
        body = bytes([sel, 0]) + bytes(40)
        put("fuzz_engine_diff", bytes([0x28 | mode, 0, 0, 0]) + body)
        put("fuzz_engine_diff", bytes([0x28 | mode, 0x80, 0, 0]) + body + bytes([0, 0, 5, 61]))
# NVMe/TCP: the e2e conversations as records [dir|flags][delta][len][shape][payload].
sys.path.insert(0, os.path.join(root, "tests", "e2e"))
from nvme_pcap import conversation  # noqa: E402
for bad in ((), (1,)):
    rec = bytearray([0])
    for frame in conversation(bad_d_at=bad, pdus=3, data_len=700):
        payload = frame[54:]
        d = 1 if frame[34:36] == bytes([0x11, 0x44]) else 0  # from port 4420: controller to host
        rec += bytes([d << 7 | 0x10]) + struct.pack("<hH", 0, len(payload)) + bytes([3]) + payload
    put("fuzz_nvme_tcp", bytes(rec))
    put("fuzz_nvme_tcp", bytes([1]) + bytes(rec[1:]))
for name in os.listdir(os.path.join(root, "drivers-config")):
    if name.endswith(".ini"):
        put("fuzz_config", open(os.path.join(root, "drivers-config", name), "rb").read())
# fuzz_chain_calls: [n_seg][len u16, off u16 per segment][n_lie][lies: kind,
# a, b][n_call][calls: kind, arg, off u16, len u16, 10 bytes][payload]. Lengths
# with bit 15 set run to 2176. Every call kind over 3 odd-aligned segments
# holding a UDP, a TCP and an SCTP frame (tx_emulate asked for every checksum),
# honest and with one lie each (nb_segs - 1, pkt_len + 400, the last segment's
# buf_len shrunk, linked to itself, linked to the head);
# DescriptorLoops' chains: an empty segment linked to itself, the tail linked
# to the head, pkt_len 400 over.


def chain_input(lens, lies, calls, payload):
    out = bytes([len(lens) - 1]) + b"".join(struct.pack("<HH", n, 3 + 5 * i) for i, n in enumerate(lens))
    out += bytes([len(lies)]) + b"".join(bytes(l) for l in lies) + bytes([len(calls)])
    return out + b"".join(bytes(c[:2]) + struct.pack("<HH", *c[2:4]) + bytes(c[4:]).ljust(10, b"\0")
                          for c in calls) + payload


ip4 = IP(src="10.0.0.1", dst="10.0.0.2")
for l4, l4req in ((UDP(sport=1, dport=2), 3), (TCP(sport=1, dport=2), 1), (SCTP(sport=1, dport=2), 2)):
    frame = raw(eth / ip4 / l4 / Raw(b"q" * 300))
    tx = (8, 0, 14, 0, l4req, 3, 0xFF, 20, 0, 0, 0, 0, 0, 0xFF)
    calls = [(k, 7, 9, 250) for k in range(7)] + [tx]
    for lie in ([], [(0, 0, 2)], [(1, 0x90, 0x01)], [(2, 2, 0)], [(3, 2, 2)], [(3, 2, 0)]):
        put("fuzz_chain_calls", chain_input([34, 0x8000 | 100, 0x8000 | 1000], lie, calls, frame))
for lens, link in (([100, 0, 0x8000 | 500], (3, 1, 1)), ([100, 0x8000 | 500], (3, 1, 0))):
    lies = [link, (1, 0x90, 0x01)]
    calls = [(k, 0, 50, 400) for k in range(7)] + [(7, 0x10, 0, 600)]
    put("fuzz_chain_calls", chain_input(lens, lies, calls, bytes(range(256)) * 3))
