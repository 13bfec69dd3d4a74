"""net_tap: csumd's tap port against the kernel stack of a namespace.

    ns T: kernel 10.78.0.1 <-> tap <-> csumd port 0 (net_tap) <-> port 1 (net_pcap: rx_pcap in, tx_pcap out)

The tap is made persistent in T beforehand and csumd, run in T, attaches to
it. Two directions, two checksum stories:
  kernel -> tap -> csumd: the kernel has filled every checksum (a tap without
  vnet_hdr offers no checksum offload), and the PMD checks them itself and flags
  RX_IP/L4_CKSUM_GOOD, so verify mode has nothing left to sum.
  csumd -> tap -> kernel: net_tap offers IPV4/TCP/UDP_CKSUM TX offload (done in
  software inside the PMD); csumd in fill mode requests it for packets whose
  checksums are all zero, and the kernel judges the result.
"""
import os
import subprocess
import time
import unittest

from csumd_run import CSUMD, eal_args, write_pcap
from judges import assert_ports_balance, checksum_statuses, tshark_rows, work_dir
from netns_topo import (Capture, Csumd, TapNamespace, finish_peer, in_ns, nstat, run_peer, start_peer,
                        stop)
from scapy.all import GRE, IP, TCP, UDP, Ether, IPOption_LSRR, Padding, Raw, rdpcap

UDP_SIZES = [1, 17, 333, 1000, 1471, 1472]
UDP_PORT, TCP_PORT = 7000, 7001
N_SYN = 5


class Tap(unittest.TestCase):
    def setUp(self):
        self.dir = work_dir(self)
        self.topo = TapNamespace()
        self.addCleanup(self.topo.down)  # registered first, runs last
        self.topo.up()

    def start_csumd(self, rx_frames, *app_args):
        rx, tx = os.path.join(self.dir, "in.pcap"), os.path.join(self.dir, "out.pcap")
        write_pcap(rx, rx_frames)
        vdevs = [self.topo.vdev(), f"net_pcap1,rx_pcap={rx},tx_pcap={tx}"]
        c = Csumd(CSUMD, eal_args("tap"), self.dir, "csumd", vdevs, app_args, ns=self.topo.ns)
        self.addCleanup(c.stop)
        c.start()
        self.topo.attached()
        return c, tx

    def stop_csumd(self, c):
        self.assertEqual(c.stop(), 0, c.output())
        return c.stats()

    def test_kernel_packets_arrive_flagged_good_and_cost_no_software_sum(self):
        c, out = self.start_csumd([], "--mode", "verify")
        sent = run_peer(self.topo.ns, "udp-send", self.topo.PEER_IP, 9, ",".join(map(str, UDP_SIZES)))
        self.assertEqual(sent["sent"], len(UDP_SIZES))
        # No one answers: the SYN and its retransmissions reach csumd, then the connect times out.
        run_peer(self.topo.ns, "tcp-connect", self.topo.PEER_IP, 80, 1.5)
        stats = self.stop_csumd(c)

        assert_ports_balance(self, stats)
        e = stats["engine"]
        layers = e["layers"]
        n_syn = layers["tcp"]["good"]
        self.assertGreaterEqual(n_syn, 1)
        self.assertEqual(layers["udp"]["good"], len(UDP_SIZES))
        self.assertEqual(layers["ipv4"]["good"], len(UDP_SIZES) + n_syn)
        for proto in ("ipv4", "tcp", "udp"):
            self.assertEqual(sum(layers[proto].values()), layers[proto]["good"], f"{proto}: {layers[proto]}")
        self.assertEqual(e["packets"], len(UDP_SIZES) + n_syn, "nothing else crossed the tap")
        # The PMD's GOOD flags were taken: csumd summed no byte itself.
        self.assertEqual(e["sum_bytes"], 0)
        self.assertEqual(e["ip_summed"]["CHECKSUM_UNNECESSARY"], e["packets"])
        verdicts = c.verdicts()
        self.assertEqual(len(verdicts), e["packets"])
        self.assertEqual({lay["status"] for v in verdicts for lay in v["layers"]}, {"good"})
        # And the flags were honest: tshark finds the kernel's checksums right.
        seen = checksum_statuses(out)
        self.assertEqual(seen, {("ip", 1): e["packets"], ("udp", 1): len(UDP_SIZES), ("tcp", 1): n_syn})

    def test_fill_mode_offloads_to_the_tap_and_the_kernel_accepts(self):
        frames = self.topo.zeroed_frames(UDP_SIZES, UDP_PORT, N_SYN, TCP_PORT)
        ns = self.topo.ns
        udp = start_peer(ns, "udp-recv", UDP_PORT, 3)
        self.addCleanup(stop, udp)
        listener = start_peer(ns, "tcp-sink", TCP_PORT, 4)  # never accepts: no final ACK comes
        self.addCleanup(stop, listener)
        cap = Capture(ns, self.topo.tap, os.path.join(self.dir, "tap-in.pcap"), direction="in").start()
        self.addCleanup(cap.stop)
        c, out = self.start_csumd(frames, "--mode", "fill")
        got = finish_peer(udp)
        finish_peer(listener)
        cap.stop()
        stats = self.stop_csumd(c)

        self.assertRegex(c.output(), r"port 0 \(net_tap\).*fills checksums in hardware for ipv4 tcp udp")
        # The kernel delivered every datagram and took every SYN.
        self.assertEqual(sorted(got["sizes"]), sorted(UDP_SIZES), got)
        counters = nstat(ns)
        self.assertEqual((counters["IpInHdrErrors"], counters["UdpInCsumErrors"], counters["TcpInCsumErrors"]),
                         (0, 0, 0), counters)
        synacks = tshark_rows(out, ["tcp.dstport"], ["-Y", "tcp.flags.syn==1 && tcp.flags.ack==1"])
        self.assertEqual({int(r[0]) for r in synacks}, {41000 + i for i in range(N_SYN)})

        assert_ports_balance(self, stats)
        e = stats["engine"]
        n = len(frames)
        self.assertEqual(stats["ports"][1]["rx_packets"], n)
        # IPv4 header and L4 checksum of each packet handed to the tap PMD.
        self.assertEqual(e["hw_offloaded"], 2 * n)
        self.assertEqual(e["layers"]["ipv4"]["offloaded"], n)
        self.assertEqual(e["layers"]["udp"]["offloaded"], len(UDP_SIZES))
        self.assertEqual(e["layers"]["tcp"]["offloaded"], N_SYN)
        # What the kernel sent the other way (SYN-ACKs, ARP) left by net_pcap: software.
        self.assertEqual(e["sw_filled"], e["layers"]["ipv4"]["filled"] + e["layers"]["tcp"]["filled"])
        # tshark on the frames the tap handed to the kernel: all filled, all right.
        seen = checksum_statuses(cap.path)
        self.assertEqual(seen, {("ip", 1): n, ("udp", 1): len(UDP_SIZES), ("tcp", 1): N_SYN})

    # net_tap's flags where they speak for less than they seem to.
    def test_tap_flags_on_tunnels_and_source_routes_give_way_to_software(self):
        """rte_net_get_ptype names GRE and IP-in-IP, but the PMD checks only the
        outer header; and it sums L4 with the header's destination, not a
        source route's. The kernel sends each frame as built."""
        c, out = self.start_csumd([], "--mode", "verify")
        eth = Ether(src=self.topo.PEER_MAC, dst=self.topo.T_MAC)
        outer = IP(src=self.topo.PEER_IP, dst=self.topo.T_IP)
        inner = IP(src="192.0.2.1", dst="198.51.100.2", id=7) / UDP(sport=1000, dport=2000) / Raw(b"x" * 20)
        at = len(eth) + 20 + 10  # the inner IPv4 field behind IP-in-IP
        ipip = bytearray(bytes(eth / outer / inner))
        ipip[at] ^= 0x5A
        gre = bytearray(bytes(eth / outer / GRE() / inner))
        gre[at + 4] ^= 0x5A
        lsrr = IP(src=self.topo.PEER_IP, dst=self.topo.T_IP,
                  options=[IPOption_LSRR(routers=["203.0.113.9"], pointer=4)])
        frames = [bytes(ipip), bytes(gre), bytes(eth / lsrr / UDP(sport=1000, dport=2000) / Raw(b"y" * 10))]
        send = os.path.join(self.dir, "send.pcap")
        write_pcap(send, frames)
        subprocess.run(in_ns(self.topo.ns, [
            "/usr/bin/python3", "-c",
            f"from scapy.all import *; conf.verb=0; [sendp(p, iface='{self.topo.tap}') for p in rdpcap('{send}')]"]),
            check=True)
        time.sleep(1.0)
        self.stop_csumd(c)
        statuses = [[(lay["proto"], lay["status"]) for lay in v["layers"]] for v in c.verdicts()]
        # The two inner headers found bad (the PMD's IP GOOD was the outer one's).
        self.assertEqual(statuses.count([("ipv4", "good"), ("ipv4", "bad"), ("udp", "unverifiable")]), 2,
                         statuses)
        # The source-routed UDP packet is right (the PMD's BAD was about another pseudo-header).
        self.assertIn([("ipv4", "good"), ("udp", "good")], statuses)
        self.assertNotIn(("udp", "bad"), [lay for st in statuses for lay in st])

    def test_fill_keeps_source_routes_and_trailers_from_the_taps_offload(self):
        """The tap's TX offload sums with the header's destination and to the
        frame's end: a source-routed packet and a frame with a trailer are
        filled in software; the kernel side's capture is judged by tshark."""
        eth = Ether(src=self.topo.PEER_MAC, dst=self.topo.T_MAC)
        lsrr = IP(src=self.topo.PEER_IP, dst=self.topo.T_IP,
                  options=[IPOption_LSRR(routers=["203.0.113.9"], pointer=4)])
        plain = IP(src=self.topo.PEER_IP, dst=self.topo.T_IP)
        good = [bytes(eth / lsrr / UDP(sport=1000, dport=2000) / Raw(b"y" * 10)),
                bytes(eth / lsrr / TCP(sport=1000, dport=2000, flags="PA") / Raw(b"z" * 11)),
                bytes(eth / plain / UDP(sport=1000, dport=2000) / Raw(b"y" * 31) / Padding(b"\x11\x22\x33\x44\x55")),
                bytes(eth / plain / TCP(sport=1000, dport=2000, flags="PA") / Raw(b"z" * 7) / Padding(b"\xab" * 9))]

        def garbled(f):
            b = bytearray(f)
            b[24:26] = b"\0\0"
            l4 = 14 + 4 * (b[14] & 15)
            at = l4 + (6 if b[23] == 17 else 16)
            b[at:at + 2] = b"\x12\x34"
            return bytes(b)

        cap = Capture(self.topo.ns, self.topo.tap, os.path.join(self.dir, "tap-in.pcap"), direction="in").start()
        self.addCleanup(cap.stop)
        c, out = self.start_csumd([garbled(f) for f in good], "--mode", "fill")
        time.sleep(1.0)
        cap.stop()
        stats = self.stop_csumd(c)
        self.assertEqual(stats["engine"]["layers"]["udp"].get("offloaded", 0), 0)
        self.assertEqual(stats["engine"]["layers"]["tcp"].get("offloaded", 0), 0)
        sent = [bytes(p) for p in rdpcap(cap.path) if IP in p and p[IP].src == self.topo.PEER_IP]
        self.assertEqual(sent, good)


if __name__ == "__main__":
    unittest.main()
