"""Helpers for end-to-end tests: run csumd over real vdevs, read what it wrote."""
import json
import os
import subprocess
import tempfile

CSUMD = os.environ["CSUMD"]
SRC = os.environ["CSUM_SOURCE_DIR"]
SAMPLE = os.path.join(SRC, "drivers-config", "sample.pcap")

TSHARK_PREFS = [
    "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
    "-o", "udp.check_checksum:TRUE", "-o", "sctp.checksum:CRC 32c",
    "-o", "nvme-tcp.check_hdgst:TRUE", "-o", "nvme-tcp.check_ddgst:TRUE",
]


def eal_args(prefix):
    return ["-l", "0-1", "--no-pci", "--no-huge", "-m", "512", "--no-shconf",
            "--file-prefix", f"{prefix}_{os.getpid()}", "--log-level=lib.eal:error",
            "--no-telemetry"]


def run_csumd(vdevs, app_args, prefix="e2e", timeout=60, check=True, eal=None):
    """eal: EAL arguments replacing the default "-l 0-1" (e.g. --lcores)."""
    cmd = [CSUMD] + (eal + eal_args(prefix)[2:] if eal else eal_args(prefix))
    for v in vdevs:
        cmd += ["--vdev", v]
    cmd += ["--"] + app_args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError(f"csumd exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def tshark_fields(pcap, fields, extra=()):
    cmd = ["tshark", "-n", "-r", pcap] + TSHARK_PREFS + list(extra) + ["-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def tmpdir():
    return tempfile.mkdtemp(prefix="csumd-e2e-")


def write_pcap(path, frames):
    """Writes raw Ethernet frames (bytes) as a classic pcap, no dissection."""
    import struct
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000, (i % 1000) * 1000, len(fr), len(fr)))
            f.write(fr)


def engine_cases():
    """The scapy-built cases of tests/engine/data/cases.txt, as dicts."""
    path = os.path.join(SRC, "tests", "engine", "data", "cases.txt")
    out = []
    for line in open(path):
        if line.startswith("#"):
            continue
        f = line.rstrip("\n").split("|")
        out.append(dict(name=f[0], bytes=bytes.fromhex(f[1]), ip_summed=f[2], csum_level=int(f[3]),
                        error=f[4], layers=[tuple(x.split(":")) for x in f[5].split(",") if x],
                        zeroed=bytes.fromhex(f[6]) if f[6] != "-" else None,
                        filled=bytes.fromhex(f[7]) if f[7] != "-" else None))
    return out


TSHARK_PROTO = {"ip": "ipv4", "tcp": "tcp", "udp": "udp", "sctp": "sctp", "icmp": "icmp",
                "icmpv6": "icmpv6", "gre": "gre"}
# tshark's checksum.status values.
TS_BAD, TS_GOOD, TS_UNVERIFIED, TS_NOT_PRESENT, TS_ILLEGAL = 0, 1, 2, 3, 4
TSHARK_DECODE = ["-d", "udp.port==4754,gre", "-d", "udp.port==9899,sctp"]


def tshark_layers(pcap, extra=()):
    """Per frame, [(proto, tshark status)] outermost first, as csumd names them.
    Stops after ICMP: the packet an ICMP error quotes is not judged."""
    import xml.etree.ElementTree as ET
    cmd = ["tshark", "-n", "-r", pcap] + TSHARK_PREFS + TSHARK_DECODE + list(extra) + ["-T", "pdml"]
    xml = subprocess.run(cmd, capture_output=True, check=True).stdout
    frames = []
    for packet in ET.fromstring(xml).findall("packet"):
        layers = []
        for proto in packet.findall("proto"):
            name = TSHARK_PROTO.get(proto.get("name"))
            if name is None:
                continue
            status = None
            for f in proto.iter("field"):
                if f.get("name", "").endswith(".checksum.status"):
                    status = int(f.get("show"))
                    break
            if status is None:
                continue  # GRE without the C bit; SCTP's later chunks shown as their own proto
            layers.append((name, status))
            if name in ("icmp", "icmpv6"):
                break
        frames.append(layers)
    return frames


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]
