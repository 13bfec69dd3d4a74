"""af_packet over veth: csumd as a bump in the wire between two namespaces.

    ns A: va 10.77.0.1 <-veth-> va_dp [csumd 0 <-> 1] vb_dp <-veth-> vb 10.77.0.2 :ns B

The kernel ends keep TX checksum offload on, so their TCP and UDP leave as
CHECKSUM_PARTIAL: the checksum field holds only the pseudo-header sum. The
af_packet PMD hands those to csumd flagged RX_L4_CKSUM_UNKNOWN and ignores the
socket's TP_STATUS_CSUMNOTREADY; whoever forwards them must complete them, or
the receiving kernel drops them. The kernels in A and B are the judges (nstat
counters, delivered bytes), tshark the third one on B's capture.

UDP payloads stay at or below 1472 bytes: the PMD joins its socket to a fanout
group with PACKET_FANOUT_FLAG_DEFRAG, so the kernel reassembles IP fragments
before csumd sees them, into frames that no longer fit the af_packet ring.
"""
import hashlib
import os
import random
import unittest

from csumd_run import CSUMD, eal_args
from judges import assert_ports_balance, checksum_statuses, work_dir
from netns_topo import (Capture, Csumd, VethBump, finish_peer, nstat, run_peer, start_peer, stop)

TCP_PORT, UDP_PORT = 7001, 7000
UDP_SIZES = "1,17,333,1000,1471,1472"  # odd and even lengths, up to a full frame
N_UDP = len(UDP_SIZES.split(","))
TRANSFER_BYTES = 20 << 20


class AfPacketVeth(unittest.TestCase):
    def setUp(self):
        self.dir = work_dir(self)
        self.topo = VethBump()
        self.addCleanup(self.topo.down)  # registered first, runs last
        self.topo.up()
        self.counters_before = {ns: nstat(ns) for ns in (self.topo.ns_a, self.topo.ns_b)}

    def start_csumd(self, *app_args):
        c = Csumd(CSUMD, eal_args("afp"), self.dir, "csumd", self.topo.vdevs(), app_args)
        self.addCleanup(c.stop)
        return c.start()

    def stop_csumd(self, c):
        self.assertEqual(c.stop(), 0, c.output())
        return c.stats()

    def counter_delta(self, ns):
        after = nstat(ns)
        return {k: after[k] - self.counters_before[ns][k] for k in after}

    # --- traffic -------------------------------------------------------------

    def udp_ping(self, tries=3, wait=1.0):
        """UDP A -> B, each datagram echoed back by B: both directions judged."""
        echo = start_peer(self.topo.ns_b, "udp-echo", UDP_PORT, wait * tries + 1)
        self.addCleanup(stop, echo)
        ping = run_peer(self.topo.ns_a, "udp-ping", self.topo.B_IP, UDP_PORT, tries, wait, UDP_SIZES)
        return ping, finish_peer(echo)

    def tcp_transfer(self, connect_timeout=10):
        """TRANSFER_BYTES of random data A -> B; returns (sent sha256, client, sink)."""
        data = random.Random(9).randbytes(TRANSFER_BYTES)
        path = os.path.join(self.dir, "transfer.bin")
        with open(path, "wb") as f:
            f.write(data)
        sink = start_peer(self.topo.ns_b, "tcp-sink", TCP_PORT, 30)
        self.addCleanup(stop, sink)
        client = run_peer(self.topo.ns_a, "tcp-send", self.topo.B_IP, TCP_PORT, path, connect_timeout)
        if not client["connected"]:
            sink.terminate()  # it would wait for its accept timeout
        return hashlib.sha256(data).hexdigest(), client, finish_peer(sink)

    # --- tests ---------------------------------------------------------------

    def test_io_mode_forwards_partial_checksums_and_the_kernel_rejects_them(self):
        c = self.start_csumd("--mode", "io")
        ping, echo = self.udp_ping(tries=1, wait=0.5)
        _, client, sink = self.tcp_transfer(connect_timeout=2)
        stats = self.stop_csumd(c)

        b = self.counter_delta(self.topo.ns_b)
        self.assertEqual(b["UdpInCsumErrors"], N_UDP, "B drops each datagram for its checksum")
        self.assertGreater(b["TcpInCsumErrors"], 0, "B drops the SYNs for their checksum")
        self.assertEqual((ping["answered"], echo["echoed"]), (0, 0))
        self.assertFalse(client["connected"], client)
        self.assertEqual(sink["bytes"], 0)
        assert_ports_balance(self, stats)

    def test_trusted_csum_mode_completes_every_checksum_in_software(self):
        c = self.start_csumd("--mode", "csum", "--trusted-ports", "0,1")
        cap = Capture(self.topo.ns_b, self.topo.vb, os.path.join(self.dir, "vb-in.pcap")).start()
        self.addCleanup(cap.stop)
        ping, echo = self.udp_ping()
        sent_sha, client, sink = self.tcp_transfer()
        cap.stop()
        stats = self.stop_csumd(c)

        self.assertEqual((ping["answered"], echo["echoed"]), (N_UDP, N_UDP), (ping, echo))
        self.assertTrue(client["connected"], client)
        self.assertEqual(sink["bytes"], TRANSFER_BYTES, sink)
        self.assertEqual(sink["sha256"], sent_sha)
        for ns in (self.topo.ns_a, self.topo.ns_b):
            d = self.counter_delta(ns)
            self.assertEqual((d["TcpInCsumErrors"], d["UdpInCsumErrors"]), (0, 0), f"{ns}: {d}")

        assert_ports_balance(self, stats)
        e = stats["engine"]
        self.assertEqual(e["skipped_trusted"], e["packets"], "trusted ports: nothing verified")
        self.assertGreater(e["packets"], TRANSFER_BYTES // 1500)
        # af_packet offers no checksum TX offload: every IPv4/TCP/UDP checksum is software's.
        self.assertEqual(e["hw_offloaded"], 0)
        layers = e["layers"]
        filled = sum(layers[p]["filled"] for p in ("ipv4", "tcp", "udp"))
        self.assertEqual(e["sw_filled"], filled)
        self.assertGreaterEqual(layers["udp"]["filled"], 2 * N_UDP)
        self.assertGreater(layers["tcp"]["filled"], TRANSFER_BYTES // 1500)

        # tshark: every checksum B received is right.
        seen = checksum_statuses(cap.path)
        self.assertEqual({s for _, s in seen}, {1}, seen)
        self.assertGreater(seen[("tcp", 1)], 1000, f"too little captured to judge: {seen}")
        self.assertGreaterEqual(seen[("udp", 1)], N_UDP, seen)  # more if a ping was retried

    def test_verify_mode_names_the_kernels_partial_checksums(self):
        c = self.start_csumd("--mode", "verify")
        self.udp_ping(tries=1, wait=0.5)
        _, client, _ = self.tcp_transfer(connect_timeout=2)
        stats = self.stop_csumd(c)
        self.assertFalse(client["connected"], "verify mode forwards the partial checksums unchanged")

        layers = stats["engine"]["layers"]
        self.assertEqual(layers["udp"]["partial"], N_UDP)
        self.assertGreater(layers["tcp"]["partial"], 0)
        self.assertEqual(layers["tcp"]["bad"] + layers["udp"]["bad"], 0, layers)
        self.assertEqual(layers["ipv4"]["good"], layers["tcp"]["partial"] + N_UDP,
                         "IPv4 headers are always complete in software")
        # The verdict log says the same packet by packet.
        l4 = [lay for v in c.verdicts() for lay in v["layers"] if lay["proto"] in ("tcp", "udp")]
        self.assertEqual(len(l4), layers["tcp"]["partial"] + N_UDP)
        self.assertEqual({lay["status"] for lay in l4}, {"partial"})
        # Unchanged, they are what the receiving kernel rejects.
        b = self.counter_delta(self.topo.ns_b)
        self.assertEqual(b["UdpInCsumErrors"], N_UDP)
        self.assertEqual(b["TcpInCsumErrors"], layers["tcp"]["partial"])

    def test_untrusted_csum_mode_completes_the_partial_checksums(self):
        c = self.start_csumd("--mode", "csum")
        ping, _ = self.udp_ping()
        sent_sha, client, sink = self.tcp_transfer()
        stats = self.stop_csumd(c)

        self.assertEqual(ping["answered"], N_UDP, ping)
        self.assertEqual(sink["sha256"], sent_sha, (client, sink))
        for ns in (self.topo.ns_a, self.topo.ns_b):
            d = self.counter_delta(ns)
            self.assertEqual((d["TcpInCsumErrors"], d["UdpInCsumErrors"]), (0, 0), f"{ns}: {d}")
        assert_ports_balance(self, stats)
        e = stats["engine"]
        layers = e["layers"]
        self.assertEqual(e["skipped_trusted"], 0)
        # Verified first: the IPv4 headers were good and stay so; only partial L4 fields are filled.
        self.assertEqual(layers["ipv4"]["filled"], 0)
        self.assertEqual(layers["tcp"]["bad"] + layers["udp"]["bad"], 0, layers)
        self.assertEqual(layers["tcp"]["partial"] + layers["udp"]["partial"], 0, "all completed")
        self.assertGreater(layers["tcp"]["filled"], TRANSFER_BYTES // 1500)
        self.assertEqual(e["sw_filled"], layers["tcp"]["filled"] + layers["udp"]["filled"])


if __name__ == "__main__":
    unittest.main()
