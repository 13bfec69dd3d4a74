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
for name in os.listdir(os.path.join(root, "drivers-config")):
    if name.endswith(".ini"):
        put("fuzz_config", open(os.path.join(root, "drivers-config", name), "rb").read())
