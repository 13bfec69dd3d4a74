"""What the loopback tests judge by: tshark over captures, csumd's own counters."""
import collections
import os
import shutil
import subprocess

from csumd_run import TSHARK_PREFS, tmpdir


def tshark_rows(pcap, fields, extra=()):
    """One list of field values per frame (a field repeated in a frame is comma-joined)."""
    cmd = ["tshark", "-n", "-r", pcap] + TSHARK_PREFS + list(extra) + ["-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    # One retry on a timeout: tshark has hung in CI (under ASan load) on
    # captures it reads in about a second here. A second hang fails the test
    # with the capture's size, so that the next one can be told apart.
    for attempt in (1, 2):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=120).stdout
            return [line.split("\t") for line in out.splitlines()]
        except subprocess.TimeoutExpired as e:
            if attempt == 2:
                raise AssertionError(f"tshark hung twice on {pcap} ({os.path.getsize(pcap)} bytes): "
                                     f"{(e.stderr or b'')[-500:]!r}") from e


# Per-frame checksum status needs neither TCP reassembly nor sequence
# analysis; a lossy capture (retransmissions, out-of-order) only makes
# those slower.
PER_FRAME = ["-o", "tcp.desegment_tcp_streams:FALSE", "-o", "tcp.analyze_sequence_numbers:FALSE"]


def checksum_statuses(pcap):
    """Counts (proto, tshark checksum status) over every frame of a capture;
    status 1 is good, 0 bad, 2 unverified, 3 not present."""
    seen = collections.Counter()
    for row in tshark_rows(pcap, ["ip.checksum.status", "tcp.checksum.status", "udp.checksum.status"], PER_FRAME):
        for proto, value in zip(("ip", "tcp", "udp"), row):
            for v in filter(None, value.split(",")):
                seen[(proto, int(v))] += 1
    return seen


def assert_ports_balance(test, stats):
    """Ports are paired 0<->1: every packet a port received left by its peer
    or was counted as a drop (drops are charged to the receiving port)."""
    ports = stats["ports"]
    for i, p in enumerate(ports):
        test.assertEqual(p["rx_packets"], ports[i ^ 1]["tx_packets"] + p["drops"], f"port {i}: {ports}")


def work_dir(test):
    """A temporary directory removed after the test, unless CSUM_KEEP_TMP is set."""
    d = tmpdir()
    if not os.environ.get("CSUM_KEEP_TMP"):
        test.addCleanup(shutil.rmtree, d, True)
    return d
