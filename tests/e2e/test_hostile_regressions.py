"""Issue 13's findings, each replayed through the real csumd over net_pcap:
the frame that overflowed a stack buffer, the capture that leaked, the
config keys that were refused or ignored, SCTP over UDP in fill mode."""
import json
import os
import struct
import unittest
import warnings

from csumd_run import (eal_args, read_jsonl, run_csumd, tmpdir, tshark_fields, write_pcap)
from test_appliance import run_config, write_ini

warnings.filterwarnings("ignore")
from scapy.all import (IP, UDP, SCTP, SCTPChunkData, Ether, IPv6, IPv6ExtHdrDestOpt,  # noqa: E402
                       IPv6ExtHdrHopByHop, Raw)

ETH = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
V6 = dict(src="2001:db8::1", dst="2001:db8::2")


def ext_header(next_hdr, kind, hdr_ext_len, fill=0xAB):
    """A raw IPv6 extension header of (hdr_ext_len + 1) * 8 bytes (AH: + 2) * 4)."""
    if kind == 51:  # AH counts 4-byte words, minus 2
        n = (hdr_ext_len + 2) * 4
    else:
        n = (hdr_ext_len + 1) * 8
    body = bytearray([fill]) * n
    body[0], body[1] = next_hdr, hdr_ext_len
    if kind == 43:  # routing: type 4 (SRH) with segments left 1, last entry 0
        body[2], body[3], body[4] = 4, 1, 0
    if kind in (0, 60):  # options: PadN options covering the rest
        pos = 2
        while pos < n:
            k = min(n - pos, 257)
            if k == 1:
                body[pos] = 0  # Pad1
            else:
                body[pos], body[pos + 1] = 1, k - 2
                body[pos + 2:pos + k] = bytes(k - 2)
            pos += k
    return bytes(body)


def long_ext_frame(kind, hdr_ext_len=255, payload=64):
    """Ethernet / IPv6 / one long extension header / UDP: the issue's 2110-byte frame."""
    udp = bytes(UDP(sport=1000, dport=2000, chksum=0x1234) / Raw(b"x" * payload))
    eh = ext_header(17, kind, hdr_ext_len)
    ip = IPv6(**V6, nh=kind, plen=len(eh) + len(udp))
    return bytes(ETH / ip) + eh + udp


def stats_of(path):
    with open(path) as f:
        return json.load(f)


class LongExtensionHeaders(unittest.TestCase):
    def replay(self, frames, *extra, mbuf_size=None):
        d = tmpdir()
        pcap, out, stats, log = (os.path.join(d, n) for n in ("in.pcap", "out.pcap", "s.json", "v.jsonl"))
        write_pcap(pcap, frames)
        args = ["--idle-exit", "0.3", "--stats-json", stats, "--verdict-log", log] + list(extra)
        if mbuf_size:
            args += ["--mbuf-size", str(mbuf_size)]
        run_csumd([f"net_pcap0,rx_pcap={pcap},tx_pcap={out}"], args)
        return stats_of(stats), read_jsonl(log)

    def test_headers_longer_than_any_buffer_straddling_segments_are_walked_in_place(self):
        frames = [long_ext_frame(k, n, p) for k in (0, 43, 60, 51) for n in (255, 254, 200, 31)
                  for p in (0, 64)]
        self.assertEqual(len(long_ext_frame(43, 255, 0)), 2110)
        chained, v_chained = self.replay(frames)  # 2 KiB mbufs: chained by net_pcap
        linear, v_linear = self.replay(frames, mbuf_size=12288)
        for s in (chained, linear):
            port = s["ports"][0]
            self.assertEqual(port["rx_packets"], len(frames))
            self.assertEqual(port["rx_packets"], port["tx_packets"] + port["drops"])
            self.assertEqual(s["mbufs_in_use_at_exit"], 0)
        strip = lambda v: {k: v[k] for k in ("ip_summed", "csum_level", "layers") if k in v} | {
            "error": v.get("error")}
        self.assertEqual([strip(v) for v in v_chained], [strip(v) for v in v_linear])
        # The UDP checksum (0x1234) is wrong: every frame is judged, none crashes.
        for v in v_chained:
            self.assertIn({"proto": "udp", "status": "bad"}, v["layers"], v)


class CaptureBad(unittest.TestCase):
    def test_more_bad_packets_than_the_capture_pool_are_all_captured(self):
        d = tmpdir()
        pcap, cap, stats = (os.path.join(d, n) for n in ("in.pcap", "bad.pcapng", "s.json"))
        n = 1500  # the capture pool holds 1023 mbufs: a leak stops capturing there
        good = IP(bytes(IP(src="192.0.2.1", dst="192.0.2.2") / UDP(sport=1, dport=2) / Raw(b"a" * 40)))
        raw = bytearray(bytes(ETH / good))
        raw[14 + 20 + 6] ^= 0xFF  # UDP checksum
        write_pcap(pcap, [bytes(raw)] * n)
        run_csumd([f"net_pcap0,rx_pcap={pcap}"],
                  ["--idle-exit", "0.5", "--stats-json", stats, "--capture-bad", cap])
        s = stats_of(stats)
        self.assertEqual(s["captured"], n)
        self.assertEqual(s["capture_failed"], 0)
        self.assertEqual(s["mbufs_in_use_at_exit"], 0)
        self.assertEqual(len(tshark_fields(cap, ["frame.number"])), n)


class SctpOverUdpFill(unittest.TestCase):
    def test_fill_writes_the_sctp_crc_in_software_and_both_sums_are_right(self):
        d = tmpdir()
        pcap, out, log = (os.path.join(d, n) for n in ("in.pcap", "out.pcap", "v.jsonl"))
        p = ETH / IP(src="192.0.2.1", dst="192.0.2.2") / UDP(sport=9899, dport=9899) / \
            SCTP(sport=5, dport=6, chksum=0) / SCTPChunkData(data=b"d" * 100)
        raw = bytearray(bytes(p))
        raw[14 + 20 + 6:14 + 20 + 8] = b"\0\0"  # and no UDP checksum either
        write_pcap(pcap, [bytes(raw)])
        run_csumd([f"net_pcap0,rx_pcap={pcap},tx_pcap={out}"],
                  ["--idle-exit", "0.3", "--mode", "fill", "--verdict-log", log])
        rows = tshark_fields(out, ["udp.checksum.status", "sctp.checksum.status"],
                             ["-d", "udp.port==9899,sctp"])
        self.assertEqual(rows, [["1", "1"]])
        v = read_jsonl(log)[0]
        self.assertNotIn("offloaded", [l["status"] for l in v["layers"]])


class ConfigKeys(unittest.TestCase):
    def ini(self, csumd_section, ports=""):
        d = tmpdir()
        stats = os.path.join(d, "s.json")
        eal = " ".join(eal_args("cfg13"))
        return write_ini(d, f"""
[eal]
args = {eal}
vdev = net_null0
[csumd]
duration = 0.2
stats-json = {stats}
{csumd_section}
{ports}
"""), stats

    def test_a_flag_key_takes_yes_no_true_false_1_0_and_empty(self):
        for value in ("yes", "no", "true", "false", "1", "0", "on", "off", ""):
            path, _ = self.ini(f"no-hw-offload = {value}")
            p = run_config(path, check=False)
            self.assertEqual(p.returncode, 0, f"{value!r}: {p.stderr}")
        path, _ = self.ini("no-hw-offload = maybe")
        p = run_config(path, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no-hw-offload", p.stderr)

    def test_a_repeated_port_section_is_an_error_naming_both_lines(self):
        path, _ = self.ini("", "[port 0]\nbad = drop\n[port 0]\nbad = forward\n")
        p = run_config(path, check=False)
        self.assertEqual(p.returncode, 2, p.stderr)
        with open(path) as f:
            lines = [i + 1 for i, l in enumerate(f) if l.strip() == "[port 0]"]
        self.assertIn(f"line {lines[1]}", p.stderr)
        self.assertIn(f"line {lines[0]}", p.stderr)


if __name__ == "__main__":
    unittest.main()
