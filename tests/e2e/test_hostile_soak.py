"""Hostile frames of 2-9 KiB (hostile_frames.py: long IPv6 extension headers
of every kind, IPv4 options, tunnels, length lies, truncation, bit flips)
through csumd over net_pcap with default options, which chains every frame
past the 2 KiB data room, and again with a data room that holds each frame
whole. In verify and csum mode, with --capture-bad: exit 0, no sanitizer
report, every packet accounted for, the same verdicts and output bytes
linear or chained, every bad packet captured, no mbuf left at exit."""
import json
import os
import struct
import unittest

import hostile_frames
from csumd_run import read_jsonl, run_csumd, tmpdir

COUNT = int(os.environ.get("CSUM_HOSTILE_FRAMES", "5000"))
CAPTURE_POOL = 1023  # capture.cpp: more bad frames than this, and a leaked copy runs it dry
BAD = ("bad", "illegal", "malformed")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def pcap_frames(path):
    d = read(path)
    out, p = [], 24
    while p < len(d):
        cl = struct.unpack("<I", d[p + 8:p + 12])[0]
        out.append(d[p + 16:p + 16 + cl])
        p += 16 + cl
    return out


def pcapng_packets(path):
    """Enhanced Packet Blocks' data, in order (little-endian sections)."""
    d = read(path)
    out, p = [], 0
    while p + 8 <= len(d):
        btype, blen = struct.unpack("<II", d[p:p + 8])
        if btype == 6:
            caplen = struct.unpack("<I", d[p + 20:p + 24])[0]
            out.append(d[p + 28:p + 28 + caplen])
        p += blen
    return out


class HostileSoak(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tmpdir()
        cls.pcap = os.path.join(cls.dir, "hostile.pcap")
        cls.frames = hostile_frames.frames(COUNT)
        hostile_frames.write_pcap(cls.pcap, cls.frames)

    def replay(self, mode, linear):
        tag = f"{mode}-{'linear' if linear else 'chained'}"
        out, stats, log, cap = (os.path.join(self.dir, f"{tag}.{x}")
                                for x in ("pcap", "json", "jsonl", "pcapng"))
        args = ["--mode", mode, "--idle-exit", "0.5", "--stats-json", stats, "--verdict-log", log,
                "--capture-bad", cap]
        if linear:  # one segment per frame
            args += ["--mbuf-size", "10240", "--mbufs", "2047"]
        p = run_csumd([f"net_pcap0,rx_pcap={self.pcap},tx_pcap={out}"], args, prefix=f"hostile{tag}",
                      timeout=120)
        for marker in ("AddressSanitizer", "LeakSanitizer", "runtime error:", "ThreadSanitizer"):
            self.assertNotIn(marker, p.stderr, f"{tag}: sanitizer report")
        with open(stats) as fh:
            s = json.load(fh)
        port = s["ports"][0]
        self.assertEqual(port["rx_packets"], len(self.frames), tag)
        self.assertEqual(port["rx_packets"], port["tx_packets"] + port["drops"], tag)
        self.assertEqual(s["mbufs_in_use_at_exit"], 0, tag)
        verdicts = read_jsonl(log)
        self.assertEqual(len(verdicts), len(self.frames), tag)
        for v, f in zip(verdicts, self.frames):
            self.assertEqual(v["len"], len(f), tag)
        bad = [i for i, v in enumerate(verdicts)
               if "error" in v or any(l["status"] in BAD for l in v["layers"])]
        captured = pcapng_packets(cap)
        self.assertEqual(s["captured"], len(bad), tag)
        self.assertEqual(s["capture_failed"], 0, tag)
        self.assertEqual(len(captured), len(bad), tag)
        if mode == "verify":  # verify leaves the bytes alone: the capture holds the frames as received
            self.assertEqual(captured, [self.frames[i] for i in bad], tag)
        return verdicts, pcap_frames(out), bad

    def test_linear_and_chained_agree(self):
        for mode in ("verify", "csum"):
            with self.subTest(mode=mode):
                chained, out_c, bad = self.replay(mode, linear=False)
                linear, out_l, _ = self.replay(mode, linear=True)
                self.assertGreater(len(bad), CAPTURE_POOL, "the mix should hold many bad frames")
                for i, (a, b) in enumerate(zip(chained, linear)):
                    self.assertEqual(a, b, f"{mode}: frame {i} ({len(self.frames[i])} bytes)")
                self.assertEqual(len(out_c), len(out_l))
                for i, (a, b) in enumerate(zip(out_c, out_l)):
                    self.assertEqual(a, b, f"{mode}: output frame {i} differs")
                if mode == "verify":
                    self.assertEqual(out_c, self.frames)

    def test_two_workers_capture_every_bad_frame(self):
        """Two RX queues, each replaying the frames, on two worker lcores that
        share one capture file (its lock and counters; scripts/test.sh --tsan)."""
        cap, stats, log = (os.path.join(self.dir, f"two.{x}") for x in ("pcapng", "json", "jsonl"))
        run_csumd([f"net_pcap0,rx_pcap={self.pcap},rx_pcap={self.pcap}"],
                  ["--rxq", "2", "--idle-exit", "0.5", "--capture-bad", cap, "--stats-json", stats,
                   "--verdict-log", log], prefix="hostile2q", timeout=120,
                  eal=["--lcores", "0@0,1@1,2@1"])
        with open(stats) as fh:
            s = json.load(fh)
        port = s["ports"][0]
        self.assertEqual(port["rx_packets"], 2 * len(self.frames))
        self.assertEqual(port["rx_packets"], port["tx_packets"] + port["drops"])
        self.assertEqual(len([l for l in s["lcores"] if l["rx_packets"] > 0]), 2, s["lcores"])
        by_queue = {0: [], 1: []}
        for v in read_jsonl(log):
            by_queue[v["queue"]].append({k: x for k, x in v.items() if k != "queue"})
        self.assertEqual(by_queue[0], by_queue[1])
        bad = [v for v in by_queue[0] if "error" in v or any(l["status"] in BAD for l in v["layers"])]
        self.assertEqual(s["captured"], 2 * len(bad))
        self.assertEqual(s["capture_failed"], 0)
        self.assertEqual(len(pcapng_packets(cap)), 2 * len(bad))
        self.assertEqual(s["mbufs_in_use_at_exit"], 0)


if __name__ == "__main__":
    unittest.main()
