"""NVMe/TCP digests through csumd, judged by tshark frame by frame."""
import json
import os
import unittest

from csumd_run import read_jsonl, run_csumd, tmpdir, tshark_fields, write_pcap
from nvme_pcap import conversation

TS = ["-o", "nvme-tcp.check_hdgst:TRUE", "-o", "nvme-tcp.check_ddgst:TRUE"]


def digest_layers(verdict):
    return [(l["proto"], l["status"]) for l in verdict["layers"] if l["proto"].startswith("nvme")]


def tshark_digests(pcap):
    """Per frame: [(nvme-hdgst|nvme-ddgst, good|bad)] as tshark judges them."""
    out = []
    for row in tshark_fields(pcap, ["nvme-tcp.hdgst.status", "nvme-tcp.ddgst.status"], TS):
        layers = []
        for proto, col in (("nvme-hdgst", row[0] if row else ""), ("nvme-ddgst", row[1] if len(row) > 1 else "")):
            for v in filter(None, col.split(",")):
                if v in ("0", "1"):
                    layers.append((proto, "good" if v == "1" else "bad"))
        out.append(layers)
    return out


class NvmeTcp(unittest.TestCase):
    def replay(self, frames, mode, extra=()):
        d = tmpdir()
        inp, out = os.path.join(d, "in.pcap"), os.path.join(d, "out.pcap")
        log, stats = os.path.join(d, "v.jsonl"), os.path.join(d, "s.json")
        write_pcap(inp, frames)
        run_csumd([f"net_pcap0,rx_pcap={inp},tx_pcap={out}"],
                  ["--mode", mode, "--idle-exit", "0.3", "--verdict-log", log, "--stats-json", stats] + list(extra))
        return inp, out, read_jsonl(log), json.load(open(stats))

    def test_digest_verdicts_match_tshark_frame_by_frame(self):
        frames = conversation(bad_h_at={2}, bad_d_at={1, 4})
        inp, _, log, stats = self.replay(frames, "verify")
        oracle = tshark_digests(inp)
        # A data digest completes with its PDU: same frame for both judges.
        def ddgst(frames):
            return [[s for p, s in f if p == "nvme-ddgst"] for f in frames]
        self.assertEqual(ddgst(digest_layers(v) for v in log), ddgst(oracle))
        # A header digest completes with the header, where csumd reports it;
        # tshark reports it with the whole PDU: compare them PDU by PDU.
        def hdgst(frames):
            return [s for f in frames for p, s in f if p == "nvme-hdgst"]
        self.assertEqual(hdgst(digest_layers(v) for v in log), hdgst(oracle))
        n = stats["nvme"]
        self.assertEqual(n["hdgst_bad"], 1)
        self.assertEqual(n["ddgst_bad"], 2)
        self.assertGreater(n["hdgst_good"], 8)
        self.assertEqual(n["desyncs"], 0)

    def test_bad_drop_drops_the_packets_completing_bad_digests(self):
        frames = conversation(bad_d_at={3})
        _, out, log, stats = self.replay(frames, "verify", ["--bad", "drop"])
        bad = [v["seq"] for v in log if ("nvme-ddgst", "bad") in digest_layers(v)]
        self.assertEqual(len(bad), 1)
        port = stats["ports"][0]
        self.assertEqual(port["drops_by_reason"]["bad_checksum"], 1)
        self.assertEqual(port["tx_packets"], len(frames) - 1)

    def test_fill_mode_generates_digests_tshark_accepts(self):
        frames = conversation(zero=True)
        _, out, log, stats = self.replay(frames, "fill")
        judged = [x for f in tshark_digests(out) for x in f]
        self.assertGreater(len(judged), 10)
        self.assertTrue(all(s == "good" for _, s in judged), judged)
        self.assertEqual(stats["nvme"]["filled"], len(judged))
        # And the TCP checksums over the rewritten payload are right.
        tcp = [r[0] for r in tshark_fields(out, ["tcp.checksum.status"])]
        self.assertTrue(all(s == "1" for s in tcp), tcp)


if __name__ == "__main__":
    unittest.main()
