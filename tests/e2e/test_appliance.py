"""csumd as an appliance: config files, queues and lcores, telemetry,
bad-packet captures and shutdown, through real vdevs."""
import json
import os
import signal
import subprocess
import time
import unittest

from csumd_run import (CSUMD, SAMPLE, SRC, eal_args, engine_cases, read_jsonl, run_csumd, tmpdir,
                       write_pcap)


def write_ini(d, text):
    path = os.path.join(d, "csumd.ini")
    with open(path, "w") as f:
        f.write(text)
    return path


def run_config(path, extra=(), check=True, timeout=60):
    p = subprocess.run([CSUMD, "--config", path] + list(extra), capture_output=True, text=True,
                       timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError(f"csumd exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


EAL = "-l 0-1 --no-pci --no-huge -m 512 --no-shconf --file-prefix cfg{} --log-level=lib.eal:error --no-telemetry"


class ConfigFile(unittest.TestCase):
    def test_a_config_file_starts_a_whole_setup(self):
        d = tmpdir()
        out, stats = os.path.join(d, "out.pcap"), os.path.join(d, "s.json")
        path = write_ini(d, f"""
[eal]
args = {EAL.format(os.getpid())}
vdev = net_pcap0,rx_pcap={SAMPLE},tx_pcap={out}
[csumd]
mode = verify
idle-exit = 0.3
stats-json = {stats}
[port 0]
bad = drop
verify = ipv4,udp
""")
        run_config(path)
        s = json.load(open(stats))
        port = s["ports"][0]
        self.assertEqual(port["rx_packets"], 20)
        # Only IPv4 and UDP are judged on this port; the bad TCP one is skipped and forwarded.
        self.assertEqual(s["engine"]["layers"]["tcp"]["bad"], 0)
        self.assertGreater(s["engine"]["layers"]["tcp"]["skipped"], 0)
        self.assertEqual(port["drops_by_reason"]["bad_checksum"], 2)  # the bad IPv4 and bad UDP/IPv6
        self.assertEqual(port["rx_packets"], port["tx_packets"] + port["drops"])

    def test_command_line_overrides_the_file(self):
        d = tmpdir()
        stats = os.path.join(d, "s.json")
        path = write_ini(d, f"""
[eal]
args = {EAL.format(os.getpid())}
vdev = net_pcap0,rx_pcap={SAMPLE}
[csumd]
mode = verify
idle-exit = 0.3
stats-json = {stats}
""")
        run_config(path, ["--", "--mode", "io"])
        self.assertEqual(json.load(open(stats))["engine"]["mode"], "io")

    def expect_error(self, ini_text, *fragments, code=2):
        d = tmpdir()
        path = write_ini(d, ini_text)
        p = run_config(path, check=False)
        self.assertEqual(p.returncode, code, p.stdout + p.stderr)
        line = [l for l in p.stderr.splitlines() if l.startswith("csumd:")]
        self.assertEqual(len(line), 1, p.stderr)
        for frag in fragments:
            self.assertIn(frag.replace("FILE", path), line[0])

    def test_missing_file(self):
        p = subprocess.run([CSUMD, "--config", "/nonexistent/csumd.ini"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("/nonexistent/csumd.ini: cannot open", p.stderr)

    def test_unknown_key_names_file_line_and_key(self):
        self.expect_error("[csumd]\nmode = verify\n\n[port 0]\ntrusted = yes\nbogus = 1\n",
                          "FILE:6:", "[port 0] bogus", "unknown key")

    def test_bad_value_names_file_line_and_key(self):
        self.expect_error("[eal]\nargs = --no-pci\n[csumd]\nidle-exit = 1\nmode = fast\n",
                          "FILE:5:", "[csumd]", "--mode", "'fast'")

    def test_unknown_section(self):
        self.expect_error("[csumd]\nmode = verify\n[ports]\npeer = 1\n", "FILE:3:", "unknown section [ports]")

    def test_port_out_of_range(self):
        self.expect_error(f"""[eal]
args = {EAL.format(os.getpid())}
vdev = net_pcap0,rx_pcap={SAMPLE}
[csumd]
idle-exit = 0.2
[port 7]
trusted = yes
""", "FILE:6:", "[port 7]", "no such port")


class RingLoopback(unittest.TestCase):
    def test_two_queues_two_lcores_every_packet_accounted_for(self):
        d = tmpdir()
        stats = os.path.join(d, "ring-stats.json")
        text = open(os.path.join(SRC, "drivers-config", "ring-loopback.ini")).read()
        text = text.replace("drivers-config/", SRC + "/drivers-config/").replace("out/", d + "/")
        text = text.replace("--file-prefix csumd_ring", f"--file-prefix ring{os.getpid()} --no-telemetry")
        path = write_ini(d, text)
        run_config(path)
        s = json.load(open(stats))
        pcap, ring_a, ring_b = s["ports"]
        self.assertEqual(pcap["rx_packets"], 40)  # the sample once per RX queue
        self.assertEqual(pcap["rx_packets"], ring_a["tx_packets"] + pcap["drops"])
        self.assertEqual(ring_a["rx_packets"], ring_b["tx_packets"] + ring_a["drops"])
        self.assertEqual(ring_b["rx_packets"], pcap["tx_packets"] + ring_b["drops"])
        self.assertEqual(pcap["tx_packets"], 40)
        # Both queues and both workers carried traffic.
        ring_queues = {(q["port"], q["queue"]) for q in s["queues"] if q["rx_packets"] > 0}
        self.assertEqual(ring_queues, {(p, q) for p in range(3) for q in range(2)}, s["queues"])
        self.assertEqual(len([l for l in s["lcores"] if l["rx_packets"] > 0]), 2, s["lcores"])
        # The ring ports are trusted: their packets were skipped, then filled.
        self.assertEqual(s["engine"]["skipped_trusted"], ring_a["rx_packets"] + ring_b["rx_packets"])
        self.assertEqual(s["mbufs_in_use_at_exit"], 0)


class LiveService(unittest.TestCase):
    def start(self, d, prefix, extra_app=(), telemetry=False):
        stats = os.path.join(d, "live.json")
        eal = ["-l", "0-1", "--no-pci", "--no-huge", "-m", "512", "--no-shconf", "--file-prefix", prefix,
               "--log-level=lib.eal:error", "--vdev", f"net_pcap0,rx_pcap={SAMPLE},infinite_rx=1",
               "--vdev", "net_null0,no-rx=1"]
        if not telemetry:
            eal.append("--no-telemetry")
        p = subprocess.Popen([CSUMD] + eal + ["--", "--stats-json", stats] + list(extra_app),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return p, stats

    def test_sigterm_mid_traffic_exits_cleanly_with_every_mbuf_back(self):
        d = tmpdir()
        p, stats = self.start(d, f"term{os.getpid()}", ["--mode", "csum", "--stats-period", "0.2"])
        head = ""
        for line in p.stdout:  # the signal handlers are in place (slow starts: sanitizers)
            head += line
            if line.startswith("csumd: forwarding"):
                break
        time.sleep(1.0)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        out = head + out
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("Forward statistics for port 0", out)
        self.assertTrue(any("Mpps" in l for l in out.splitlines()), out)  # progress lines
        s = json.load(open(stats))
        self.assertGreater(s["ports"][0]["rx_packets"], 10000)
        self.assertEqual(s["ports"][0]["rx_packets"], s["ports"][1]["tx_packets"] + s["ports"][0]["drops"])
        self.assertEqual(s["mbufs_in_use_at_exit"], 0)

    def test_telemetry_client_reads_live_stats(self):
        d = tmpdir()
        prefix = f"tel{os.getpid()}"
        p, _ = self.start(d, prefix, ["--mode", "verify", "--duration", "20"], telemetry=True)
        try:
            sock = f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2"
            for _ in range(100):
                if os.path.exists(sock):
                    break
                time.sleep(0.05)
            # The socket is the EAL's; csumd's commands are registered once
            # its ports and engines are made (kernel calibration included),
            # which under a sanitizer on a busy host takes a while: ask again
            # until each answers.
            replies = {}
            for cmd in ("/csumd/stats", "/csumd/ports", "/csumd/config"):
                for _ in range(60):
                    q = subprocess.run(["dpdk-telemetry.py", "-f", prefix], input=cmd + "\n",
                                       capture_output=True, text=True, timeout=20)
                    lines = [l for l in q.stdout.splitlines() if l.startswith("{")]
                    replies[cmd] = json.loads(lines[-1])[cmd] if lines else None
                    if replies[cmd] is not None and (cmd != "/csumd/stats" or
                                                     replies[cmd]["rx_packets"] > 0):
                        break
                    time.sleep(0.25)
                self.assertIsNotNone(replies[cmd], cmd + " never answered")
            self.assertGreater(replies["/csumd/stats"]["rx_packets"], 0)
            self.assertGreater(replies["/csumd/stats"]["tcp_good"], 0)
            self.assertGreater(replies["/csumd/ports"]["0"]["rx_packets"], 0)
            self.assertEqual(replies["/csumd/config"]["mode"], "verify")
            self.assertEqual(replies["/csumd/config"]["0"]["driver"], "net_pcap")
        finally:
            p.send_signal(signal.SIGTERM)
            p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0)


class BadCapture(unittest.TestCase):
    def test_pcapng_of_bad_packets_opens_in_tshark_with_reasons(self):
        d = tmpdir()
        cases = engine_cases()
        inp, cap = os.path.join(d, "in.pcap"), os.path.join(d, "bad.pcapng")
        log, stats = os.path.join(d, "v.jsonl"), os.path.join(d, "s.json")
        write_pcap(inp, [c["bytes"] for c in cases])
        run_csumd([f"net_pcap0,rx_pcap={inp}"], ["--idle-exit", "0.3", "--capture-bad", cap,
                                                  "--verdict-log", log, "--stats-json", stats])
        verdicts = read_jsonl(log)
        bad = [v for v in verdicts if v.get("error") or
               any(l["status"] in ("bad", "illegal", "malformed") for l in v["layers"])]
        rows = subprocess.run(["tshark", "-r", cap, "-T", "fields", "-e", "frame.len", "-e", "frame.comment"],
                              capture_output=True, text=True, check=True).stdout.splitlines()
        self.assertEqual(len(rows), len(bad))
        self.assertEqual(json.load(open(stats))["captured"], len(bad))
        for v, row in zip(bad, rows):
            length, comment = row.split("\t")
            self.assertEqual(int(length), v["len"])
            self.assertTrue(comment, row)
            if v.get("error"):
                self.assertIn(v["error"], comment)
            for l in v["layers"]:
                if l["status"] in ("bad", "illegal", "malformed"):
                    self.assertIn(f"{l['proto']} {l['status']}", comment)


if __name__ == "__main__":
    unittest.main()


MAC_A, MAC_B = "02:00:00:00:00:01", "02:00:00:00:00:02"


def long_frames(count, seed):
    """TCP/IPv4 and UDP/IPv6 frames of 1000..1500 B; about one in six with a
    wrong L4 checksum, one in nine with an IPv4 length past the frame."""
    import random

    from scapy.all import IP, TCP, UDP, Ether, IPv6, Raw
    rng = random.Random(seed)
    out = []
    for i in range(count):
        data = Raw(bytes(rng.getrandbits(8) for _ in range(rng.randint(930, 1420))))
        if i % 2:
            fr = bytearray(bytes(Ether(src=MAC_A, dst=MAC_B) / IPv6(src="2001:db8::1", dst="2001:db8::2") /
                                 UDP(sport=1000 + i, dport=2000) / data))
        else:
            fr = bytearray(bytes(Ether(src=MAC_A, dst=MAC_B) / IP(src="10.0.0.1", dst="10.0.0.2") /
                                 TCP(sport=1000 + i, dport=80) / data))
        if i % 6 == 5:
            fr[-1] ^= 0x5A  # payload changed after the checksum
        if i % 9 == 4 and i % 2 == 0:
            fr[16:18] = (len(fr) + 40).to_bytes(2, "big")  # IPv4 total length past the frame
        out.append(bytes(fr))
    return out


def pcap_frames(path):
    from scapy.all import rdpcap
    return [bytes(p) for p in rdpcap(path)]


class ByteBoundedBursts(unittest.TestCase):
    """Bursts of long packets are cut to about --burst-bytes (so that a PMD
    that copies packets reuses buffers still in L1): the same packets out,
    the same verdicts and counts, as bursts of --burst packets."""

    def run_bursts(self, d, frames, burst_bytes):
        tag = f"b{burst_bytes}"
        src, out = os.path.join(d, "in.pcap"), os.path.join(d, f"out-{tag}.pcap")
        stats, log = os.path.join(d, f"{tag}.json"), os.path.join(d, f"{tag}.jsonl")
        write_pcap(src, frames)
        run_csumd([f"net_pcap0,rx_pcap={src},tx_pcap={out}"],
                  ["--mode", "verify", "--bad", "drop", "--idle-exit", "0.3", "--burst", "32",
                   "--burst-bytes", str(burst_bytes), "--stats-json", stats,
                   "--verdict-log", log], prefix=f"bb{tag}")
        return pcap_frames(out), read_jsonl(log), json.load(open(stats))

    def test_short_bursts_forward_and_judge_as_whole_bursts(self):
        d = tmpdir()
        frames = long_frames(200, seed=7)
        whole_out, whole_log, whole = self.run_bursts(d, frames, 0)
        # 4096 B / ~1200 B a packet: bursts of 4 (the least) after the first.
        short_out, short_log, short = self.run_bursts(d, frames, 4096)
        for s in (whole, short):
            port = s["ports"][0]
            self.assertEqual(port["rx_packets"], 200)
            self.assertEqual(port["rx_packets"], port["tx_packets"] + port["drops"])
            self.assertEqual(s["mbufs_in_use_at_exit"], 0)
        self.assertGreater(whole["ports"][0]["drops_by_reason"]["bad_checksum"], 20)
        self.assertGreater(whole["ports"][0]["drops_by_reason"]["malformed"], 5)
        self.assertEqual(whole["ports"][0]["drops_by_reason"], short["ports"][0]["drops_by_reason"])
        self.assertEqual(whole["engine"]["layers"], short["engine"]["layers"])
        self.assertEqual(len(short_out), whole["ports"][0]["tx_packets"])
        self.assertEqual(short_out, whole_out)
        self.assertEqual(short_log, whole_log)
        # seq is each packet's RX index, dropped ones too.
        self.assertEqual([e["seq"] for e in whole_log], list(range(200)))
        self.assertEqual([e["len"] for e in whole_log], [len(f) for f in frames])
        # Bursts of 32 (the file's last one short); then bursts of 4.
        self.assertEqual(whole["queues"][0]["rx_bursts"], 7)
        self.assertGreaterEqual(short["queues"][0]["rx_bursts"], 1 + (200 - 32) // 4)

    def test_auto_is_a_third_of_the_l1_data_cache_and_bad_values_are_refused(self):
        p = run_csumd([f"net_pcap0,rx_pcap={SAMPLE}"], ["--idle-exit", "0.2", "--burst-bytes", "auto"],
                      prefix="bbauto")
        out = subprocess.run(["getconf", "LEVEL1_DCACHE_SIZE"], capture_output=True, text=True).stdout
        l1d = int(out) if out.strip().isdigit() else 0
        want = min(max((l1d if l1d > 0 else 32768) // 3, 4096), 65536)
        self.assertIn(f"bursts of long packets cut to ~{want} bytes", p.stdout)
        p = run_csumd([f"net_pcap0,rx_pcap={SAMPLE}"], ["--idle-exit", "0.2", "--burst-bytes", "0"],
                      prefix="bbzero")
        self.assertNotIn("bursts of long packets cut", p.stdout)
        for bad in ("-1", "16777217", "lots"):
            p = run_csumd([f"net_pcap0,rx_pcap={SAMPLE}"], ["--burst-bytes", bad], prefix="bbbad",
                          check=False)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("--burst-bytes", p.stderr)
        # --burst's bound is the forwarder's array size: 512 runs, 513 is refused.
        p = run_csumd([f"net_pcap0,rx_pcap={SAMPLE}"], ["--idle-exit", "0.2", "--burst", "512"],
                      prefix="bbmax")
        self.assertEqual(p.returncode, 0)
        for bad in ("0", "513"):
            p = run_csumd([f"net_pcap0,rx_pcap={SAMPLE}"], ["--burst", bad], prefix="bbbad", check=False)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("--burst", p.stderr)
