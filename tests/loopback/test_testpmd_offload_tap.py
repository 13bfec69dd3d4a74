"""Unmodified dpdk-testpmd with LD_PRELOAD=libcsum_offload.so on net_tap,
whose PMD flags what it checks itself:

    ns T: kernel <-> tap <-> testpmd port 0 (net_tap) <-> port 1 (net_pcap, tx_pcap out)

net_tap names GRE and IP-in-IP in packet_type (rte_net_get_ptype) but
checks only the outer IPv4 header, and flags it GOOD with no OUTER_* flag.
The kernel side sends tunnels whose inner IPv4 header is bad: with the shim,
testpmd's csum engine must count them in Bad-ipcsum (the flags describe the
inner headers, as a tunnel-parsing NIC's do); without it the PMD's GOOD
stands and testpmd counts none."""
import os
import shutil
import subprocess
import time
import unittest

from judges import work_dir
from netns_topo import TapNamespace, in_ns, stop
from test_testpmd_offload_afpacket import port_stats

SHIM = os.environ.get("CSUM_OFFLOAD_SO", "")
TESTPMD = shutil.which("dpdk-testpmd")
N_BAD, N_GOOD = 3, 2  # each of IP-in-IP and GRE


@unittest.skipUnless(TESTPMD and SHIM, "needs dpdk-testpmd and CSUM_OFFLOAD_SO")
class TestpmdOffloadTap(unittest.TestCase):
    def setUp(self):
        self.dir = work_dir(self)
        self.topo = TapNamespace()
        self.addCleanup(self.topo.down)
        self.topo.up()

    def frames(self):
        from scapy.all import GRE, IP, UDP, Ether, Raw
        eth = Ether(src=self.topo.PEER_MAC, dst=self.topo.T_MAC)
        outer = IP(src=self.topo.PEER_IP, dst=self.topo.T_IP)
        out = []
        for i in range(N_BAD + N_GOOD):
            inner = IP(src="192.0.2.1", dst="198.51.100.2", id=100 + i) / UDP(sport=1000, dport=2000 + i) / \
                Raw(b"x" * (20 + i))
            at = len(eth) + 20 + 10  # the inner IPv4 header's checksum behind IP-in-IP
            for f, off in ((bytearray(bytes(eth / outer / inner)), at),
                           (bytearray(bytes(eth / outer / GRE() / inner)), at + 4)):
                if i < N_BAD:
                    f[off] ^= 0x5A
                out.append(bytes(f))
        return out

    def run_testpmd(self, shim):
        empty = os.path.join(self.dir, "empty.pcap")
        with open(empty, "wb") as f:
            f.write(bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000"))
        cmds = os.path.join(self.dir, "cmds")
        with open(cmds, "w") as f:  # the tap checks IPv4 headers (and L4) only when asked
            f.write("port stop 0\n" + "".join(f"port config 0 rx_offload {o} on\n"
                                              for o in ("ipv4_cksum", "udp_cksum", "tcp_cksum")) +
                    "port start 0\n")
        env = dict(os.environ)
        if shim:
            first = os.environ.get("CSUM_PRELOAD_FIRST", "")
            env["LD_PRELOAD"] = f"{first} {SHIM}" if first else SHIM
            env["CSUM_OFFLOAD"] = "ports=0;rx=on;tx=none"
            if first:  # testpmd's own exit-time leaks are not ours to judge
                env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        argv = in_ns(self.topo.ns, [
            "stdbuf", "-oL", TESTPMD, "-l", "0-1", "--no-pci", "--no-huge", "-m", "1024", "--no-shconf",
            "--file-prefix", f"tptap{os.getpid()}{int(shim)}", "--log-level=lib.eal:error",
            "--vdev", self.topo.vdev(),
            "--vdev", f"net_pcap1,rx_pcap={empty},tx_pcap={os.path.join(self.dir, 'out.pcap')}",
            "--", "--nb-cores=1", "--forward-mode=csum", f"--cmdline-file={cmds}"])
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=env)
        self.addCleanup(stop, p)
        lines = []
        for line in p.stdout:
            lines.append(line)
            if "Press enter to exit" in line:
                break
        else:
            self.fail("testpmd did not start forwarding:\n" + "".join(lines))
        self.topo.attached()
        send = os.path.join(self.dir, "send.pcap")
        from scapy.all import Ether, wrpcap
        wrpcap(send, [Ether(f) for f in self.frames()])
        subprocess.run(in_ns(self.topo.ns, [
            "/usr/bin/python3", "-c",
            f"from scapy.all import *; conf.verb=0; [sendp(p, iface='{self.topo.tap}') for p in rdpcap('{send}')]"]),
            check=True, timeout=60)
        time.sleep(1.0)
        try:
            rest, _ = p.communicate(input="\n", timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            rest, _ = p.communicate()
        text = "".join(lines) + rest
        self.assertEqual(p.returncode, 0, text[-3000:])
        return text

    def test_shim_reports_the_bad_inner_headers_the_tap_flagged_good(self):
        text = self.run_testpmd(shim=True)
        self.assertIn("software checksum offload attached", text)
        st = port_stats(text, 0)
        self.assertGreaterEqual(st["RX-packets"], 2 * (N_BAD + N_GOOD), text[-3000:])
        self.assertEqual(st["Bad-ipcsum"], 2 * N_BAD, text[-3000:])
        self.assertEqual(st["Bad-outer-ipcsum"], 0, st)

    def test_without_shim_the_taps_good_stands(self):
        st = port_stats(self.run_testpmd(shim=False), 0)
        self.assertGreaterEqual(st["RX-packets"], 2 * (N_BAD + N_GOOD), st)
        self.assertEqual(st["Bad-ipcsum"], 0, st)


if __name__ == "__main__":
    unittest.main()
