"""Unmodified dpdk-testpmd as a bump in the wire over net_af_packet on veth,
with LD_PRELOAD=libcsum_offload.so and csum forwarding set to hw:

    ns A: va 10.77.0.1 <-veth-> va_dp [testpmd 0 <-> 1] vb_dp <-veth-> vb 10.77.0.2 :ns B

The kernels send TCP/UDP as CHECKSUM_PARTIAL. The shim flags them
RX_L4_CKSUM_NONE (intact, not bad: testpmd counts no Bad-l4csum), testpmd
asks for TX checksum offload the af_packet port does not have, and the shim
fills every checksum, so both kernels accept every segment: the receiving
kernels (nstat) and tshark on B's capture judge."""
import hashlib
import os
import random
import re
import shutil
import subprocess
import threading
import unittest

from judges import checksum_statuses, work_dir
from netns_topo import Capture, VethBump, finish_peer, link_mac, nstat, run_peer, start_peer, stop

SHIM = os.environ.get("CSUM_OFFLOAD_SO", "")
TESTPMD = shutil.which("dpdk-testpmd")
TCP_PORT, UDP_PORT = 7101, 7100
UDP_SIZES = "1,17,333,1000,1472"
N_UDP = len(UDP_SIZES.split(","))
TRANSFER_BYTES = 4 << 20
CMDS = "port stop all\n" + "".join(f"csum set {p} hw {port}\n" for port in (0, 1)
                                   for p in ("ip", "tcp", "udp", "sctp")) + "port start all\n"


class Testpmd:
    def __init__(self, topo, workdir, shim):
        self.topo, self.dir, self.shim = topo, workdir, shim
        self.proc, self.lines = None, []

    def start(self):
        cmds = os.path.join(self.dir, "cmds")
        with open(cmds, "w") as f:
            f.write(CMDS)
        env = dict(os.environ)
        if self.shim:
            first = os.environ.get("CSUM_PRELOAD_FIRST", "")
            env["LD_PRELOAD"] = f"{first} {SHIM}" if first else SHIM
            env["CSUM_OFFLOAD"] = "ports=0,1;rx=on;tx=ip,tcp,udp,sctp"
            if first:
                env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        peers = [f"--eth-peer=0,{link_mac(self.topo.va, self.topo.ns_a)}",
                 f"--eth-peer=1,{link_mac(self.topo.vb, self.topo.ns_b)}"]
        argv = ["stdbuf", "-oL", TESTPMD, "-l", "0-1", "--no-pci", "--no-huge", "-m", "1024", "--no-shconf",
                "--file-prefix", f"tpafp{os.getpid()}", "--log-level=lib.eal:error"]
        for v in self.topo.vdevs():
            argv += ["--vdev", v]
        argv += ["--", "--nb-cores=1", "--forward-mode=csum", f"--cmdline-file={cmds}"] + peers
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env=env)
        self.timer = threading.Timer(180, self.proc.kill)  # never hang the suite
        self.timer.start()
        for line in self.proc.stdout:
            self.lines.append(line)
            if "Press enter to exit" in line:
                return self
        raise AssertionError("testpmd did not start forwarding:\n" + "".join(self.lines))

    def finish(self):
        try:
            rest, _ = self.proc.communicate(input="\n", timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rest, _ = self.proc.communicate()
        self.timer.cancel()
        self.lines.append(rest)
        return self.proc.returncode, "".join(self.lines)

    def kill(self):
        if self.proc and self.proc.poll() is None:
            stop(self.proc)
            self.timer.cancel()


def port_stats(text, port):
    m = re.search(rf"Forward statistics for port {port}\s+-+\n(.*?)\n\s+-{{20,}}", text, re.S)
    return {k: int(v) for k, v in re.findall(r"(Bad-[a-z0-9-]+|RX-packets|TX-packets): (\d+)",
                                             m.group(1) if m else "")}


@unittest.skipUnless(TESTPMD and SHIM, "needs dpdk-testpmd and CSUM_OFFLOAD_SO")
class TestpmdOffloadAfPacket(unittest.TestCase):
    def setUp(self):
        self.dir = work_dir(self)
        self.topo = VethBump()
        self.addCleanup(self.topo.down)
        self.topo.up()
        self.before = {ns: nstat(ns) for ns in (self.topo.ns_a, self.topo.ns_b)}

    def delta(self, ns):
        after = nstat(ns)
        return {k: after[k] - self.before[ns][k] for k in after}

    def test_shim_fills_every_checksum_the_kernels_left_partial(self):
        tp = Testpmd(self.topo, self.dir, shim=True)
        self.addCleanup(tp.kill)
        tp.start()
        cap = Capture(self.topo.ns_b, self.topo.vb, os.path.join(self.dir, "vb-in.pcap")).start()
        self.addCleanup(cap.stop)

        echo = start_peer(self.topo.ns_b, "udp-echo", UDP_PORT, 4)
        self.addCleanup(stop, echo)
        ping = run_peer(self.topo.ns_a, "udp-ping", self.topo.B_IP, UDP_PORT, 3, 1.0, UDP_SIZES)
        finish_peer(echo)
        data = random.Random(5).randbytes(TRANSFER_BYTES)
        path = os.path.join(self.dir, "transfer.bin")
        with open(path, "wb") as f:
            f.write(data)
        sink = start_peer(self.topo.ns_b, "tcp-sink", TCP_PORT, 30)
        self.addCleanup(stop, sink)
        client = run_peer(self.topo.ns_a, "tcp-send", self.topo.B_IP, TCP_PORT, path, 10)
        got = finish_peer(sink)
        dropped = cap.stop()
        rc, text = tp.finish()

        self.assertEqual(rc, 0, text[-3000:])
        self.assertNotIn("not supported by port", text)
        self.assertEqual(ping["answered"], N_UDP, ping)
        self.assertTrue(client["connected"], client)
        self.assertEqual(got["sha256"], hashlib.sha256(data).hexdigest(), got)
        for ns in (self.topo.ns_a, self.topo.ns_b):
            d = self.delta(ns)
            self.assertEqual((d["TcpInCsumErrors"], d["UdpInCsumErrors"]), (0, 0), f"{ns}: {d}")
        # Partial is not bad: testpmd's RX counters stay at zero.
        for port in (0, 1):
            st = port_stats(text, port)
            self.assertGreater(st["RX-packets"], 0, text[-3000:])
            self.assertEqual((st["Bad-ipcsum"], st["Bad-l4csum"]), (0, 0), st)
        accounts = re.findall(r"port (\d): rx (\d+) verified .*?tx (\d+) seen: ip (\d+) tcp (\d+) udp (\d+)"
                              r" .*?(\d+) refused", text)
        last = {int(a[0]): list(map(int, a[1:])) for a in accounts}  # the final account per port
        _, _, _, tcp, udp, _ = last[1]
        self.assertGreater(tcp, TRANSFER_BYTES // 1500, last)  # TCP filled towards B
        self.assertGreaterEqual(udp, N_UDP, last)
        self.assertEqual(last[0][-1] + last[1][-1], 0, "nothing refused")
        seen = checksum_statuses(cap.path)
        self.assertEqual({s for _, s in seen}, {1}, seen)
        # tcpdump may drop frames on a busy machine; the shim's account above
        # already shows every segment filled, this judges what was captured.
        self.assertGreater(seen[("tcp", 1)], TRANSFER_BYTES // 1500 // 2, (seen, dropped))

    def test_without_shim_testpmd_refuses_hw_checksums(self):
        tp = Testpmd(self.topo, self.dir, shim=False)
        self.addCleanup(tp.kill)
        tp.start()
        rc, text = tp.finish()
        self.assertEqual(rc, 0, text[-3000:])
        for kind in ("IP", "TCP", "UDP", "SCTP"):
            self.assertIn(f"{kind} checksum offload is not supported by port 1", text)


if __name__ == "__main__":
    unittest.main()
