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


def run_csumd(vdevs, app_args, prefix="e2e", timeout=60, check=True):
    cmd = [CSUMD] + eal_args(prefix)
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
