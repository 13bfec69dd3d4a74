"""virtio-user -> vhost-user between two csumd processes.

Sender (A): replays packets whose checksums are all zero, in fill mode. Its
net_virtio_user port offers TCP/UDP checksum offload, so plain TCP/UDP leave
with the offload requested and only a pseudo-header in the field; the rest is
filled in software. Receiver (B): csum mode on net_vhost, which reports
RX_L4_CKSUM_NONE for those; B completes them and writes tx_pcap for tshark.
"""
import json
import os
import signal
import subprocess
import time
import unittest

from csumd_run import (CSUMD, TS_GOOD, engine_cases, read_jsonl, tmpdir, tshark_layers,
                       write_pcap)


def eal(prefix):
    return ["-l", "0-1", "--no-pci", "--no-huge", "-m", "512", "--no-shconf",
            "--file-prefix", f"{prefix}{os.getpid()}", "--log-level=lib.eal:error", "--no-telemetry"]


class VirtioVhost(unittest.TestCase):
    def test_offloaded_checksums_are_completed_on_the_vhost_side(self):
        d = tmpdir()
        fill = [c for c in engine_cases() if c["zeroed"]]
        src, empty = os.path.join(d, "zeroed.pcap"), os.path.join(d, "empty.pcap")
        out, sock = os.path.join(d, "out.pcap"), os.path.join(d, "vhost.sock")
        write_pcap(src, [c["zeroed"] for c in fill])
        write_pcap(empty, [])
        stats_a, stats_b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
        log_b = os.path.join(d, "b.jsonl")
        b = subprocess.Popen([CSUMD] + eal("vhB") + [
            "--vdev", f"net_vhost0,iface={sock}", "--vdev", f"net_pcap1,rx_pcap={empty},tx_pcap={out}",
            "--", "--mode", "csum", "--idle-exit", "4", "--stats-json", stats_b, "--verdict-log", log_b],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            for _ in range(100):
                if os.path.exists(sock):
                    break
                time.sleep(0.05)
            self.assertTrue(os.path.exists(sock), "vhost socket never appeared")
            a = subprocess.run([CSUMD] + eal("vuA") + [
                "--vdev", f"net_pcap0,rx_pcap={src}", "--vdev", f"net_virtio_user0,path={sock},queues=1",
                "--", "--mode", "fill", "--idle-exit", "1", "--stats-json", stats_a],
                capture_output=True, text=True, timeout=60)
            self.assertEqual(a.returncode, 0, a.stdout + a.stderr)
            b_out, _ = b.communicate(timeout=60)
            self.assertEqual(b.returncode, 0, b_out)
        finally:
            if b.poll() is None:
                b.kill()
                b.wait()

        sa, sb = json.load(open(stats_a)), json.load(open(stats_b))
        self.assertGreater(sa["engine"]["hw_offloaded"], 20, "A should offload plain TCP/UDP")
        sent = sa["ports"][1]["tx_packets"]
        self.assertEqual(sent, len(fill))
        vhost, pcap = sb["ports"][0], sb["ports"][1]
        self.assertEqual(vhost["rx_packets"], sent)
        self.assertEqual(vhost["rx_packets"], pcap["tx_packets"] + vhost["drops"])
        # B saw the offloaded ones as intact-but-unfilled and filled exactly those.
        self.assertEqual(sb["engine"]["sw_filled"], sa["engine"]["hw_offloaded"])
        self.assertEqual(sum(sb["engine"]["layers"][p]["bad"] for p in ("tcp", "udp")), 0)
        verdicts = read_jsonl(log_b)
        self.assertEqual(len(verdicts), sent)
        # tshark judges every checksum B sent out.
        for case, layers in zip(fill, tshark_layers(out)):
            for proto, status in layers:
                self.assertEqual(status, TS_GOOD, f"{case['name']}: {proto}")


    def test_a_vhost_peer_that_goes_away_and_comes_back_is_picked_up(self):
        d = tmpdir()
        cases = [c for c in engine_cases() if c["zeroed"]][:10]
        src, empty = os.path.join(d, "in.pcap"), os.path.join(d, "empty.pcap")
        out, sock, stats_b = os.path.join(d, "out.pcap"), os.path.join(d, "vhost.sock"), os.path.join(d, "b.json")
        write_pcap(src, [c["bytes"] for c in cases])
        write_pcap(empty, [])
        b = subprocess.Popen([CSUMD] + eal("vhR") + [
            "--vdev", f"net_vhost0,iface={sock}", "--vdev", f"net_pcap1,rx_pcap={empty},tx_pcap={out}",
            "--", "--mode", "verify", "--duration", "30", "--stats-json", stats_b],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            for _ in range(100):
                if os.path.exists(sock):
                    break
                time.sleep(0.05)
            for round_ in range(2):
                a = subprocess.run([CSUMD] + eal(f"vuR{round_}") + [
                    "--vdev", f"net_pcap0,rx_pcap={src}", "--vdev", f"net_virtio_user0,path={sock},queues=1",
                    "--", "--mode", "io", "--idle-exit", "1"], capture_output=True, text=True, timeout=60)
                self.assertEqual(a.returncode, 0, a.stdout + a.stderr)
                time.sleep(0.5)
        finally:
            b.send_signal(signal.SIGTERM)
            b_out, _ = b.communicate(timeout=60)
        self.assertEqual(b.returncode, 0, b_out)
        s = json.load(open(stats_b))
        self.assertEqual(s["ports"][0]["rx_packets"], 2 * len(cases))
        self.assertGreaterEqual(s["ports"][0]["link_changes"], 3)  # up, down, up (and down)


if __name__ == "__main__":
    unittest.main()
