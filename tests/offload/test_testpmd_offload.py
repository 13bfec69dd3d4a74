"""Unmodified dpdk-testpmd with LD_PRELOAD=libcsum_offload.so over net_pcap
(no checksum offload at all): csum forwarding with every checksum set to hw
on the TX port. tshark judges every checksum of the output, SCTP's CRC32C
included, on plain and VXLAN traffic; testpmd's own Bad-* RX counters must
count exactly the frames corrupted on purpose. Without the shim testpmd
refuses the hw settings."""
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

SHIM = os.environ.get("CSUM_OFFLOAD_SO", "")
TESTPMD = shutil.which("dpdk-testpmd")
TSHARK_PREFS = ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
                "-o", "udp.check_checksum:TRUE", "-o", "sctp.checksum:CRC 32c"]
CMDS = """port stop 1
csum set ip hw 1
csum set tcp hw 1
csum set udp hw 1
csum set sctp hw 1
csum set outer-ip hw 1
csum set outer-udp hw 1
csum parse-tunnel on 1
port start 1
"""


def make_traffic(path):
    """Returns the expected Bad-* counts. testpmd offloads SCTP only when
    (its unconverted read of) the IPv4 total length is a multiple of 4 in the
    high byte: keep IPv4 SCTP lengths below 256 or in 1024..1279."""
    from scapy.all import IP, TCP, UDP, SCTP, Ether, IPv6, Raw, SCTPChunkData, VXLAN, wrpcap

    def eth():
        return Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")

    v4 = dict(src="10.1.0.1", dst="10.2.0.2")
    v6 = dict(src="2001:db8::1", dst="2001:db8::2")
    good = []
    for n in (6, 200, 1400):
        good.append(eth() / IP(**v4) / TCP(sport=1000 + n, dport=80) / Raw(bytes(range(256)) * (n // 256) + b"t" * (n % 256)))
        good.append(eth() / IP(**v4) / UDP(sport=2000, dport=5000 + n) / Raw(b"u" * n))
        good.append(eth() / IPv6(**v6) / TCP(sport=3000, dport=443) / Raw(b"s" * n))
        good.append(eth() / IPv6(**v6) / UDP(sport=3000, dport=53) / Raw(b"d" * n))
        good.append(eth() / IPv6(**v6) / SCTP(sport=7, dport=9) / SCTPChunkData(data=b"c" * n))
    for n in (20, 150, 1000):  # IPv4 total length 68, 198, 1048
        good.append(eth() / IP(**v4) / SCTP(sport=2905, dport=2905) / SCTPChunkData(data=b"m" * n))
    good.append(eth() / IP(options=[b"\x01\x01\x01\x00"], **v4) / TCP(sport=5, dport=6) / Raw(b"opt" * 30))
    for inner in (IP(src="192.168.0.1", dst="192.168.0.2") / TCP(sport=11, dport=22) / Raw(b"i" * 300),
                  IP(src="192.168.0.1", dst="192.168.0.2") / UDP(sport=11, dport=22) / Raw(b"j" * 90),
                  IPv6(**v6) / TCP(sport=11, dport=22) / Raw(b"k" * 500)):
        good.append(eth() / IP(src="172.16.0.1", dst="172.16.0.2") / UDP(sport=49152, dport=4789) /
                    VXLAN(vni=42) / eth() / inner)
    frames = [bytes(p) for p in good]

    def corrupt(p, off):
        b = bytearray(bytes(p))
        b[off] ^= 0x01
        return bytes(b)

    bad = [
        corrupt(eth() / IP(**v4) / TCP(sport=1, dport=2) / Raw(b"a" * 50), 14 + 11),   # IPv4 header
        corrupt(eth() / IP(**v4) / UDP(sport=1, dport=2) / Raw(b"a" * 50), 14 + 10),   # IPv4 header
        corrupt(eth() / IP(**v4) / TCP(sport=1, dport=2) / Raw(b"b" * 50), 60),        # TCP payload
        corrupt(eth() / IP(**v4) / UDP(sport=1, dport=2) / Raw(b"b" * 50), 50),        # UDP payload
        corrupt(eth() / IP(**v4) / SCTP(sport=1, dport=2) / SCTPChunkData(data=b"b" * 50), 70),  # CRC32C
        corrupt(eth() / IPv6(**v6) / TCP(sport=1, dport=2) / Raw(b"b" * 50), 100),     # TCP over IPv6
    ]
    vx = eth() / IP(src="172.16.0.1", dst="172.16.0.2") / UDP(sport=49152, dport=4789) / VXLAN(vni=7) / \
        eth() / IP(src="192.168.0.1", dst="192.168.0.2") / TCP(sport=11, dport=22) / Raw(b"v" * 64)
    vxb = bytes(vx)
    bad.append(corrupt(vx, len(vxb) - 1))   # inner TCP bad, and so the outer UDP
    bad.append(corrupt(vx, 14 + 8))         # outer IPv4 header (TTL)
    frames += bad
    wrpcap(path, [Ether(f) for f in frames])
    return len(frames), {"Bad-ipcsum": 2, "Bad-l4csum": 5, "Bad-outer-l4csum": 1, "Bad-outer-ipcsum": 1}


def run_testpmd(tmp, inp, out, shim, setting="ports=0,1;rx=on;tx=ip,tcp,udp,sctp,outer-ip,outer-udp"):
    empty = os.path.join(tmp, "empty.pcap")
    with open(empty, "wb") as f:
        f.write(bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000"))
    cmds = os.path.join(tmp, "cmds")
    with open(cmds, "w") as f:
        f.write(CMDS)
    env = dict(os.environ)
    if shim:
        first = os.environ.get("CSUM_PRELOAD_FIRST", "")
        env["LD_PRELOAD"] = f"{first} {SHIM}" if first else SHIM
        if first:  # testpmd's own exit-time leaks are not ours to judge
            env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        env["CSUM_OFFLOAD"] = setting
    # Line-buffered, so "Press enter to exit" arrives when printed.
    cmd = ["stdbuf", "-oL", TESTPMD, "-l", "0-1", "--no-pci", "--no-huge", "-m", "1024", "--no-shconf",
           "--file-prefix", f"tpoff{os.getpid()}{int(shim)}", "--log-level=lib.eal:error",
           "--vdev", f"net_pcap0,rx_pcap={inp}",
           "--vdev", f"net_pcap1,rx_pcap={empty},tx_pcap={out}",
           "--", "--no-flush-rx", "--nb-cores=1", "--forward-mode=csum", f"--cmdline-file={cmds}"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env)
    # Once forwarding runs ("Press enter to exit"), a second is plenty for a
    # few dozen frames; then Enter stops it and testpmd prints its statistics.
    lines = []
    timer = threading.Timer(120, p.kill)  # never hang the suite
    timer.start()
    for line in p.stdout:
        lines.append(line)
        if "Press enter to exit" in line:
            time.sleep(1.0)
            break
    try:
        rest, _ = p.communicate(input="\n", timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        rest, _ = p.communicate()
    timer.cancel()
    return p.returncode, "".join(lines) + rest


def port_stats(text, port):
    m = re.search(rf"Forward statistics for port {port}\s+-+\n(.*?)\n\s+-{{20,}}", text, re.S)
    block = m.group(1) if m else ""
    return {k: int(v) for k, v in re.findall(r"(Bad-[a-z0-9-]+|RX-packets|TX-packets): (\d+)", block)}


@unittest.skipUnless(TESTPMD and SHIM, "needs dpdk-testpmd and CSUM_OFFLOAD_SO")
class TestpmdOffload(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="csum-offload-")
        cls.inp = os.path.join(cls.tmp, "in.pcap")
        cls.n, cls.expected_bad = make_traffic(cls.inp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_with_shim_every_checksum_right(self):
        out = os.path.join(self.tmp, "out.pcap")
        rc, text = run_testpmd(self.tmp, self.inp, out, shim=True)
        self.assertEqual(rc, 0, text)
        self.assertNotIn("not supported by port", text)
        self.assertIn("software checksum offload attached", text)
        rx, tx = port_stats(text, 0), port_stats(text, 1)
        self.assertEqual(rx["RX-packets"], self.n, text)
        self.assertEqual(tx["TX-packets"], self.n, text)
        # testpmd's own RX counters, from the flags the shim set as a NIC would.
        for k, v in self.expected_bad.items():
            self.assertEqual(rx[k], v, f"{k}\n{text[-3000:]}")
        # The shim's own account: it filled every request, refused none.
        # The last account of port 1: its first start (before "csum set") logs one too.
        m = re.findall(r"port 1: rx \d+ verified .*tx (\d+) seen: ip (\d+) tcp (\d+) udp (\d+) sctp (\d+) "
                      r"outer-ip (\d+) outer-udp (\d+) filled, (\d+) refused", text)
        self.assertTrue(m, text)
        seen, ip, tcp, udp, sctp, oip, oudp, refused = map(int, m[-1])
        self.assertEqual(seen, self.n)
        self.assertEqual(refused, 0)
        self.assertGreater(sctp, 0)
        self.assertEqual(oip, 5)  # the VXLAN frames
        self.assertEqual(oudp, 5)

        fields = ["frame.number", "ip.checksum.status", "tcp.checksum.status", "udp.checksum.status",
                  "sctp.checksum.status", "vxlan.vni"]
        cmd = ["tshark", "-n", "-r", out] + TSHARK_PREFS + ["-T", "fields"]
        for f in fields:
            cmd += ["-e", f]
        rows = [line.split("\t") for line in
                subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()]
        self.assertEqual(len(rows), self.n)
        judged = {"ip": 0, "tcp": 0, "udp": 0, "sctp": 0}
        vxlan = 0
        for row in rows:
            for name, col in zip(("ip", "tcp", "udp", "sctp"), row[1:5]):
                for status in filter(None, col.split(",")):
                    self.assertEqual(status, "1", f"frame {row[0]}: {name} checksum status {status}")
                    judged[name] += 1
            vxlan += row[5] != ""
        self.assertEqual(vxlan, 5)
        self.assertGreaterEqual(judged["sctp"], 7)
        self.assertGreaterEqual(judged["tcp"], 10)
        self.assertGreaterEqual(judged["udp"], 10)

    def test_without_shim_testpmd_refuses(self):
        out = os.path.join(self.tmp, "out_plain.pcap")
        rc, text = run_testpmd(self.tmp, self.inp, out, shim=False)
        self.assertEqual(rc, 0, text)
        self.assertIn("SCTP checksum offload is not supported by port 1", text)
        self.assertIn("Outer IP checksum offload is not supported by port 1", text)
        # Nobody sets RX flags: testpmd sees no bad checksum at all.
        self.assertEqual(port_stats(text, 0)["Bad-l4csum"], 0)

    def test_bad_setting_is_logged_and_emulates_nothing(self):
        out = os.path.join(self.tmp, "out_bad.pcap")
        rc, text = run_testpmd(self.tmp, self.inp, out, shim=True, setting="ports=0,1;tx=ip,crc64")
        self.assertEqual(rc, 0, text)
        self.assertIn("CSUM_OFFLOAD: unknown tx kind 'crc64'", text)
        self.assertIn("SCTP checksum offload is not supported by port 1", text)
        self.assertNotIn("software checksum offload attached", text)

    def test_tx_only_on_port_1(self):
        """rx=off: testpmd's RX counters see no flags; TX still fills everything."""
        out = os.path.join(self.tmp, "out_tx.pcap")
        rc, text = run_testpmd(self.tmp, self.inp, out, shim=True, setting="ports=1;rx=off")
        self.assertEqual(rc, 0, text)
        self.assertNotIn("not supported by port 1", text)
        self.assertEqual(port_stats(text, 0)["Bad-l4csum"], 0)
        cmd = ["tshark", "-n", "-r", out] + TSHARK_PREFS + ["-T", "fields", "-e", "ip.checksum.status",
                                                           "-e", "tcp.checksum.status", "-e", "udp.checksum.status",
                                                           "-e", "sctp.checksum.status"]
        rows = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
        self.assertEqual(len(rows), self.n)
        statuses = {v for row in rows for col in row.split("\t") for v in col.split(",") if v}
        self.assertEqual(statuses, {"1"})


if __name__ == "__main__":
    unittest.main()
