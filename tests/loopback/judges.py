"""What the loopback tests judge by: tshark over captures, csumd's own counters."""
import collections
import os
import shutil
import subprocess
import sys

from csumd_run import TSHARK_PREFS, tmpdir


class TsharkHung(AssertionError):
    pass


def tshark_rows(pcap, fields, extra=()):
    """One list of field values per frame (a field repeated in a frame is comma-joined)."""
    cmd = ["tshark", "-n", "-r", pcap] + TSHARK_PREFS + list(extra) + ["-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    # One retry on a timeout: tshark has hung in CI (under ASan load) on
    # captures it reads in about a second here.
    for attempt in (1, 2):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=120).stdout
            return [line.split("\t") for line in out.splitlines()]
        except subprocess.TimeoutExpired as e:
            if attempt == 2:
                raise TsharkHung(f"tshark hung twice on {pcap} ({os.path.getsize(pcap)} bytes): "
                                 f"{(e.stderr or b'')[-500:]!r}") from e


# Per-frame checksum status needs neither TCP reassembly nor sequence
# analysis; a lossy capture (retransmissions, out-of-order) only makes
# those slower.
PER_FRAME = ["-o", "tcp.desegment_tcp_streams:FALSE", "-o", "tcp.analyze_sequence_numbers:FALSE"]


def checksum_statuses(pcap):
    """Counts (proto, tshark checksum status) over every frame of a capture;
    status 1 is good, 0 bad, 2 unverified, 3 not present. Should tshark hang
    twice, scapy judges instead (said on stderr)."""
    seen = collections.Counter()
    try:
        rows = tshark_rows(pcap, ["ip.checksum.status", "tcp.checksum.status", "udp.checksum.status"],
                           PER_FRAME)
    except TsharkHung as e:
        print(f"judges: {e}; scapy judges the capture instead", file=sys.stderr)
        return scapy_checksum_statuses(pcap)
    for row in rows:
        for proto, value in zip(("ip", "tcp", "udp"), row):
            for v in filter(None, value.split(",")):
                seen[(proto, int(v))] += 1
    return seen


def scapy_checksum_statuses(pcap):
    """checksum_statuses by scapy: every IPv4 header, TCP and UDP segment
    (tunnelled ones too) summed with its checksum field; 1 where that gives
    0, else 0; a zero UDP checksum is 3 (not present)."""
    from scapy.all import IP, TCP, UDP, IPv6, PcapReader
    from scapy.layers.inet import in4_chksum
    from scapy.layers.inet6 import in6_chksum
    from scapy.utils import checksum

    seen = collections.Counter()
    for pkt in PcapReader(pcap):
        layer = pkt
        while layer is not None and layer.name != "NoPayload":
            if isinstance(layer, IP):
                raw = bytes(layer)
                seen[("ip", int(checksum(raw[:layer.ihl * 4]) == 0))] += 1
            if isinstance(layer, (TCP, UDP)):
                ip = layer.underlayer
                if isinstance(ip, (IP, IPv6)):
                    seg = bytes(layer)
                    if isinstance(ip, IP):
                        seg = seg[:max(0, ip.len - ip.ihl * 4)]
                    else:
                        seg = seg[:ip.plen]
                    proto = "tcp" if isinstance(layer, TCP) else "udp"
                    if proto == "udp" and layer.chksum == 0:
                        seen[(proto, 3)] += 1
                    else:
                        sum_fn = in4_chksum if isinstance(ip, IP) else in6_chksum
                        seen[(proto, int(sum_fn(6 if proto == "tcp" else 17, ip, seg) == 0))] += 1
            layer = layer.payload
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
