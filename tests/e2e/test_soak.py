"""A bounded soak: every hostile and valid case replayed at memory speed
through each mode, with the drop policy on and off. No crash, no leak, and
received = transmitted + drops by reason. scripts/soak.sh runs the long one."""
import json
import os
import unittest

from csumd_run import engine_cases, run_csumd, tmpdir, write_pcap

PACKETS = int(os.environ.get("CSUM_SOAK_PACKETS", "300000"))


class Soak(unittest.TestCase):
    def test_every_mode_accounts_for_every_packet(self):
        d = tmpdir()
        mix = os.path.join(d, "mix.pcap")
        write_pcap(mix, [c["bytes"] for c in engine_cases()])
        for mode in ("io", "verify", "fill", "csum"):
            for bad in ("forward", "drop"):
                with self.subTest(mode=mode, bad=bad):
                    stats = os.path.join(d, f"{mode}-{bad}.json")
                    run_csumd([f"net_pcap0,rx_pcap={mix},infinite_rx=1", "net_null0,no-rx=1"],
                              ["--mode", mode, "--bad", bad, "--max-packets", str(PACKETS), "--duration", "120",
                               "--stats-json", stats], prefix=f"soak{mode}{bad}", timeout=300)
                    s = json.load(open(stats))
                    src, sink = s["ports"]
                    self.assertGreaterEqual(src["rx_packets"], PACKETS)
                    self.assertEqual(src["rx_packets"], sink["tx_packets"] + src["drops"])
                    self.assertEqual(src["drops"], sum(src["drops_by_reason"].values()))
                    self.assertEqual(s["mbufs_in_use_at_exit"], 0)
                    if mode != "io":
                        self.assertEqual(s["engine"]["packets"], src["rx_packets"])
                        self.assertGreater(sum(s["engine"]["parse_errors"].values()), 0)
                    if bad == "drop" and mode in ("verify", "csum"):
                        self.assertGreater(src["drops_by_reason"]["bad_checksum"], 0)
                        self.assertGreater(src["drops_by_reason"]["malformed"], 0)


if __name__ == "__main__":
    unittest.main()
