"""Random traffic through csumd, scapy and tshark as the judges: runs of one
shape with every field drawn at random (addresses of all ones and zeros
among them, as broadcasts have), every kind the engine fills, plain and in
tunnels. Fill must write what scapy computes, byte for byte; verify must
find scapy's frames good and every damaged one bad."""
import json
import os
import random
import unittest

from csumd_run import read_jsonl, run_csumd, tmpdir, tshark_layers, write_pcap
from test_engine_verdicts import read_pcap_frames

from scapy.all import (GRE, ICMP, IP, SCTP, TCP, UDP, Ether, ICMPv6EchoRequest, IPv6, Raw,
                       SCTPChunkData, conf)
from scapy.contrib.geneve import GENEVE
from scapy.layers.vxlan import VXLAN

conf.verb = 0
SEED = 20261203
EDGE_V4 = ["255.255.255.255", "0.0.0.0", "192.255.255.255", "255.255.255.254", "1.0.0.0"]
EDGE_V6 = ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::", "fe80::ffff:ffff:ffff:ffff"]


def eth():
    return Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")


def addr4(rng):
    if rng.random() < 0.3:
        return rng.choice(EDGE_V4)
    return ".".join(str(rng.randrange(256)) for _ in range(4))


def addr6(rng):
    if rng.random() < 0.3:
        return rng.choice(EDGE_V6)
    return ":".join(f"{rng.randrange(65536):x}" for _ in range(8))


def payload(rng, most):
    return Raw(bytes(rng.randrange(256) for _ in range(rng.randrange(most + 1))))


def ip(rng, v6, proto=None):
    if v6:
        return IPv6(src=addr6(rng), dst=addr6(rng), hlim=rng.randrange(1, 256))
    return IP(src=addr4(rng), dst=addr4(rng), id=rng.randrange(65536), ttl=rng.randrange(1, 256),
              flags=rng.choice([0, 2]))


def l4(rng, kind):
    sport = rng.randrange(20000, 30000)
    if kind == "tcp":
        return TCP(sport=sport, dport=rng.choice([80, 443, rng.randrange(20000, 30000)]),
                   seq=rng.randrange(1 << 32), flags="PA") / payload(rng, 1400)
    return UDP(sport=sport, dport=rng.randrange(20000, 30000)) / payload(rng, 1400)


def inner(rng):
    v6 = rng.random() < 0.4
    return eth() / ip(rng, v6) / l4(rng, rng.choice(["tcp", "udp"]))


# Each shape: a function of rng returning one scapy frame of that shape.
SHAPES = {
    "tcp4": lambda r: eth() / ip(r, False) / l4(r, "tcp"),
    "udp4": lambda r: eth() / ip(r, False) / l4(r, "udp"),
    "tcp6": lambda r: eth() / ip(r, True) / l4(r, "tcp"),
    "udp6": lambda r: eth() / ip(r, True) / l4(r, "udp"),
    "icmp4": lambda r: eth() / ip(r, False) / ICMP(id=r.randrange(65536)) / payload(r, 600),
    "icmp6": lambda r: eth() / ip(r, True) / ICMPv6EchoRequest(id=r.randrange(65536))
    / payload(r, 600),
    "sctp4": lambda r: eth() / ip(r, False) / SCTP(sport=r.randrange(1, 65536), dport=9)
    / SCTPChunkData(data=bytes(payload(r, 900))),
    "vxlan": lambda r: eth() / ip(r, False) / UDP(sport=r.randrange(49152, 65536), dport=4789)
    / VXLAN(vni=r.randrange(1 << 24)) / inner(r),
    "geneve": lambda r: eth() / ip(r, False) / UDP(sport=r.randrange(49152, 65536), dport=6081)
    / GENEVE(vni=r.randrange(1 << 24), proto=0x6558) / inner(r),
    "vxlan6": lambda r: eth() / ip(r, True) / UDP(sport=r.randrange(49152, 65536), dport=4789)
    / VXLAN(vni=r.randrange(1 << 24)) / inner(r),
    "gre": lambda r: eth() / ip(r, False) / GRE(chksum_present=1) / ip(r, False)
    / l4(r, r.choice(["tcp", "udp"])),
    "ipip": lambda r: eth() / ip(r, False) / ip(r, False) / l4(r, r.choice(["tcp", "udp"])),
}


# Where each layer keeps its checksum: (offset in its header, bytes).
FIELDS = {IP: (10, 2), TCP: (16, 2), UDP: (6, 2), ICMP: (2, 2), ICMPv6EchoRequest: (2, 2),
          SCTP: (8, 4), GRE: (4, 2)}


def checksum_fields(frame):
    """(offset, length) of every checksum field in the frame, outermost first."""
    out, layer, off = [], frame, 0
    while layer.name not in ("NoPayload", "Raw"):
        hdr = len(layer) - len(layer.payload)
        where = FIELDS.get(type(layer))
        if where and (type(layer) is not GRE or layer.chksum_present):
            out.append((off + where[0], where[1]))
        off += hdr
        layer = layer.payload
    return out


def runs(rng, count):
    """count frames in runs of one shape (1 to 40 long), every field random."""
    frames = []
    names = list(SHAPES)
    while len(frames) < count:
        shape = rng.choice(names)
        for _ in range(min(rng.randrange(1, 41), count - len(frames))):
            frames.append((shape, SHAPES[shape](rng)))
    return frames


class RandomTraffic(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = random.Random(SEED)
        cls.frames = []
        for shape, pkt in runs(rng, 1200):  # checksums computed by scapy
            cls.frames.append((shape, bytes(pkt), checksum_fields(pkt)))

    def replay(self, frames, mode, mbuf_size=2048):
        d = tmpdir()
        inp, out = os.path.join(d, "in.pcap"), os.path.join(d, "out.pcap")
        log, stats = os.path.join(d, "verdicts.jsonl"), os.path.join(d, "stats.json")
        write_pcap(inp, frames)
        run_csumd([f"net_pcap0,rx_pcap={inp},tx_pcap={out}"],
                  ["--mode", mode, "--idle-exit", "0.3", "--verdict-log", log,
                   "--stats-json", stats, "--mbuf-size", str(mbuf_size)], timeout=120)
        with open(stats) as f:
            return out, read_jsonl(log), json.load(f)

    # 256-B mbufs: net_pcap chains every frame past 256 B (up to 6 segments).
    def test_fill_writes_what_scapy_computes(self):
        for mbuf_size in (2048, 256):
            with self.subTest(mbuf_size=mbuf_size):
                self.fill_writes_what_scapy_computes(mbuf_size)

    def test_verify_finds_scapys_frames_good_and_damaged_ones_bad(self):
        for mbuf_size in (2048, 256):
            with self.subTest(mbuf_size=mbuf_size):
                self.verify_finds_good_and_bad(mbuf_size)

    def fill_writes_what_scapy_computes(self, mbuf_size):
        rng = random.Random(SEED + 1)
        garbled = []
        for _, good, fields in self.frames:
            b = bytearray(good)
            for off, width in fields:
                for i in range(width):
                    b[off + i] = rng.randrange(256)
                if width == 2 and b[off] == 0 and b[off + 1] == 0:
                    b[off + 1] = 1  # a UDP checksum of 0 says "none": not garbage
            garbled.append(bytes(b))
        out, log, stats = self.replay(garbled, "fill", mbuf_size)
        got = read_pcap_frames(out)
        self.assertEqual(len(got), len(self.frames))
        wrong = [(i, shape) for i, ((shape, good, _), frame) in enumerate(zip(self.frames, got))
                 if frame != good]
        self.assertEqual(wrong[:10], [], f"{len(wrong)} frames differ from scapy's")
        for layers in tshark_layers(out):
            for proto, status in layers:
                self.assertEqual(status, 1, proto)

    def verify_finds_good_and_bad(self, mbuf_size):
        rng = random.Random(SEED + 2)
        frames, damaged = [], []
        for _, good, fields in self.frames:
            b = bytearray(good)
            hit = rng.random() < 0.3 and fields
            if hit:
                off, width = rng.choice(fields)
                b[off + width - 1] ^= 1 + rng.randrange(255)
                if width == 2 and b[off] == 0 and b[off + 1] == 0:
                    b[off] = 0x80  # not "no UDP checksum"
            frames.append(bytes(b))
            damaged.append(bool(hit))
        _, log, _ = self.replay(frames, "verify", mbuf_size)
        self.assertEqual(len(log), len(frames))
        for i, (v, bad) in enumerate(zip(log, damaged)):
            statuses = [l["status"] for l in v["layers"]]
            shape = self.frames[i][0]
            if bad:
                self.assertIn("bad", statuses, f"#{i} {shape}: {statuses}")
            else:
                self.assertNotIn("bad", statuses, f"#{i} {shape}: {statuses}")
                self.assertIn("good", statuses, f"#{i} {shape}: {statuses}")


if __name__ == "__main__":
    unittest.main()
