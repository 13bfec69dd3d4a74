"""The README's demo, end to end: sample.pcap through csumd over net_pcap."""
import json
import os
import subprocess
import unittest

from csumd_run import SAMPLE, run_csumd, tmpdir, tshark_fields


class PcapReplay(unittest.TestCase):
    def test_io_forwarding_is_byte_exact_and_counted(self):
        d = tmpdir()
        out, stats = os.path.join(d, "out.pcap"), os.path.join(d, "stats.json")
        p = run_csumd([f"net_pcap0,rx_pcap={SAMPLE},tx_pcap={out}"],
                      ["--idle-exit", "0.3", "--stats-json", stats])
        self.assertIn("Forward statistics for port 0", p.stdout)
        s = json.load(open(stats))
        n_in = len(tshark_fields(SAMPLE, ["frame.number"]))
        port = s["ports"][0]
        self.assertEqual(port["rx_packets"], n_in)
        self.assertEqual(port["rx_packets"], port["tx_packets"] + port["drops"])
        self.assertGreater(s["duration_s"], 0)
        # io mode touches nothing: every frame leaves as it came.
        a = tshark_fields(SAMPLE, ["frame.len", "frame.protocols", "ip.checksum", "tcp.checksum"])
        b = tshark_fields(out, ["frame.len", "frame.protocols", "ip.checksum", "tcp.checksum"])
        self.assertEqual(a, b)

    def test_bad_option_is_one_line_and_exit_2(self):
        p = run_csumd([], ["--duration", "soon"], check=False)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.strip().count("\n"), 0, p.stderr)
        self.assertIn("--duration", p.stderr)

    def test_unknown_option_is_rejected(self):
        p = run_csumd([], ["--frobnicate", "1"], check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown option", p.stderr)

    def test_no_ports_is_a_clear_error(self):
        p = run_csumd([], ["--duration", "0.1"], check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no ports", p.stderr)

    def test_duration_stops_an_endless_replay(self):
        d = tmpdir()
        stats = os.path.join(d, "stats.json")
        run_csumd([f"net_pcap0,rx_pcap={SAMPLE},infinite_rx=1", "net_null0,no-rx=1"],
                  ["--duration", "0.5", "--stats-json", stats])
        s = json.load(open(stats))
        self.assertGreater(s["ports"][0]["rx_packets"], 1000)
        self.assertGreaterEqual(s["duration_s"], 0.5)
        self.assertEqual(s["ports"][0]["rx_packets"],
                         s["ports"][1]["tx_packets"] + s["ports"][0]["drops"])


if __name__ == "__main__":
    unittest.main()
