"""csumd's engine end to end over net_pcap, with tshark as the judge."""
import json
import os
import unittest

from csumd_run import (TS_BAD, TS_GOOD, TS_ILLEGAL, TS_NOT_PRESENT, engine_cases, read_jsonl,
                       run_csumd, tmpdir, tshark_layers, write_pcap)

# What tshark may say where csumd says this.
COMPATIBLE = {"good": {TS_GOOD}, "bad": {TS_BAD}, "zero": {TS_NOT_PRESENT},
              "illegal": {TS_ILLEGAL, TS_NOT_PRESENT}}


class EngineVerdicts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cases = engine_cases()

    def replay(self, frames, mode, extra=()):
        d = tmpdir()
        inp, out = os.path.join(d, "in.pcap"), os.path.join(d, "out.pcap")
        log, stats = os.path.join(d, "verdicts.jsonl"), os.path.join(d, "stats.json")
        write_pcap(inp, frames)
        run_csumd([f"net_pcap0,rx_pcap={inp},tx_pcap={out}"],
                  ["--mode", mode, "--idle-exit", "0.3", "--verdict-log", log, "--stats-json", stats]
                  + list(extra))
        return inp, out, read_jsonl(log), json.load(open(stats))

    def test_verdict_log_matches_tshark_layer_by_layer(self):
        inp, _, log, stats = self.replay([c["bytes"] for c in self.cases], "verify")
        self.assertEqual(len(log), len(self.cases))
        self.assertEqual([v["seq"] for v in log], list(range(len(self.cases))))
        ts = tshark_layers(inp)
        compared = 0
        for case, verdict, oracle in zip(self.cases, log, ts):
            ours = [(l["proto"], l["status"]) for l in verdict["layers"]]
            self.assertEqual(ours, case["layers"], case["name"])
            self.assertEqual(verdict["ip_summed"], case["ip_summed"], case["name"])
            self.assertEqual(verdict["csum_level"], case["csum_level"], case["name"])
            if case["error"] != "none":
                self.assertEqual(verdict.get("error"), case["error"], case["name"])
                continue  # hostile frames: tshark's dissection of them is its own business
            if len(ours) != len(oracle):
                # tshark doesn't dissect L4 inside an unreassembled fragment.
                ours = [l for l in ours if l[1] != "unverifiable"]
            self.assertEqual([p for p, _ in ours], [p for p, _ in oracle], case["name"])
            for (proto, status), (_, ts_status) in zip(ours, oracle):
                if status == "unverifiable":
                    continue  # under a bad IPv4 header, or a fragment: tshark judges regardless
                self.assertIn(ts_status, COMPATIBLE[status], f"{case['name']}: {proto}")
                compared += 1
        self.assertGreater(compared, 250)
        self.assertEqual(stats["engine"]["packets"], len(self.cases))

    def test_fill_output_is_what_scapy_computes_and_tshark_finds_good(self):
        fill = [c for c in self.cases if c["zeroed"]]
        _, out, log, stats = self.replay([c["zeroed"] for c in fill], "fill")
        written = tshark_layers(out)
        self.assertEqual(len(written), len(fill))
        for case, oracle in zip(fill, written):
            for proto, ts_status in oracle:
                self.assertEqual(ts_status, TS_GOOD, f"{case['name']}: {proto} after fill")
        self.assertEqual(stats["ports"][0]["tx_packets"], len(fill))
        self.assertEqual(stats["engine"]["sw_filled"], sum(len(c["layers"]) for c in fill))
        # Byte for byte what scapy computes.
        got = read_pcap_frames(out)
        for case, frame in zip(fill, got):
            self.assertEqual(frame.hex(), case["filled"].hex(), case["name"])

    def test_drop_policy_accounts_for_every_packet(self):
        _, out, log, stats = self.replay([c["bytes"] for c in self.cases], "verify", ["--bad", "drop"])
        port = stats["ports"][0]
        reasons = port["drops_by_reason"]
        self.assertEqual(port["rx_packets"], len(self.cases))
        self.assertEqual(port["rx_packets"], port["tx_packets"] + port["drops"])
        self.assertEqual(port["drops"], sum(reasons.values()))
        self.assertGreater(reasons["bad_checksum"], 50)
        self.assertGreater(reasons["malformed"], 10)
        # What went out is exactly what had nothing wrong.
        clean = [c for c in self.cases if c["error"] == "none" and
                 not any(s in ("bad", "illegal", "malformed") for _, s in c["layers"])]
        self.assertEqual(port["tx_packets"], len(clean))


def read_pcap_frames(path):
    import struct
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), hex(magic)
    off, frames = 24, []
    while off < len(data):
        _, _, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        frames.append(data[off + 16: off + 16 + incl])
        off += 16 + incl
    return frames


if __name__ == "__main__":
    unittest.main()
