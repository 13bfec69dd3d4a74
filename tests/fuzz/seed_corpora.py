#!/usr/bin/python3
"""Seeds the fuzz corpora from the tests: the engine cases, their SCTP
packets, and the shipped config files."""
import hashlib
import os
import sys

root, corpus = sys.argv[1], sys.argv[2]


def put(target, data):
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(corpus, target, name), "wb") as f:
        f.write(data)


for line in open(os.path.join(root, "tests", "engine", "data", "cases.txt")):
    if line.startswith("#"):
        continue
    f = line.rstrip("\n").split("|")
    frame = bytes.fromhex(f[1])
    for mode in range(3):
        put("fuzz_engine", bytes([mode, 0, 3, 0, 0, 0]) + frame)
        put("fuzz_engine", bytes([mode, 0x08, 2, 9, 9, 9]) + frame)
    if "sctp" in f[0] and len(frame) > 34 and frame[23] == 132:
        put("fuzz_sctp", bytes([3, 0, 0, 0, 0]) + frame[34:])
# NVMe/TCP: the e2e conversations as records [dir|flags][delta][len][shape][payload].
sys.path.insert(0, os.path.join(root, "tests", "e2e"))
import struct  # noqa: E402
from nvme_pcap import conversation  # noqa: E402
for bad in ((), (1,)):
    rec = bytearray([0])
    for frame in conversation(bad_d_at=bad, pdus=3, data_len=700):
        payload = frame[54:]
        d = 1 if frame[34:36] == bytes([0x11, 0x44]) else 0  # from port 4420: controller to host
        rec += bytes([d << 7 | 0x10]) + struct.pack("<hH", 0, len(payload)) + bytes([3]) + payload
    put("fuzz_nvme_tcp", bytes(rec))
    put("fuzz_nvme_tcp", bytes([1]) + bytes(rec[1:]))
for name in os.listdir(os.path.join(root, "drivers-config")):
    if name.endswith(".ini"):
        put("fuzz_config", open(os.path.join(root, "drivers-config", name), "rb").read())
