"""Runs csumd-bench briefly and checks its JSON/CSV/pcap: well-formed, and
the counts add up (every replayed packet judged once, bad ones exactly the
corrupted ones). No timing is asserted."""
import csv
import json
import os
import struct
import subprocess
import sys

bench, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
js, cs, pcap = (os.path.join(out, n) for n in ("r.json", "r.csv", "r.pcap"))
fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)


subprocess.run([bench, "--proto", "tcp4,sctp4,vxlan-tcp4", "--size", "128,imix", "--seg", "linear,2seg",
                "--csum", "corrupt=0.25", "--mode", "io,verify,csum", "--runs", "2", "--run-ms", "20",
                "--warmup-ms", "5", "--pool", "96", "--json", js, "--csv", cs, "--quiet"], check=True, timeout=100)
doc = json.load(open(js))
check(doc["tool"] == "csumd-bench" and doc["tsc_hz"] > 0, "header")
res = doc["results"]
check(len(res) == 3 * 2 * 2 * 3, f"expected 36 results, got {len(res)}")
l4 = {"tcp4": "tcp", "sctp4": "sctp", "vxlan-tcp4": "tcp"}
for r in res:
    name = f'{r["profile"]} {r["mode"]}'
    check(r["runs"] == 2, name + ": runs")
    check(r["packets"] > 0, name + ": no packets")
    for k in ("mpps", "gbps"):
        d = r[k]
        check(d["min"] <= d["q1"] <= d["median"] <= d["q3"] <= d["max"], f"{name}: {k} quantiles out of order")
        check(d["median"] > 0, f"{name}: {k} zero")
    # A quarter of the frames carry a bad innermost L4 checksum.
    check(abs(r["expected_bad"] - r["packets"] / 4) <= 32, f'{name}: expected_bad {r["expected_bad"]}')
    if r["mode"] == "io":
        check(r["engine_packets"] == 0 and r["layers"] == {}, name + ": io must not touch the engine")
        continue
    check(r["engine_packets"] == r["packets"], f'{name}: engine saw {r["engine_packets"]} of {r["packets"]}')
    check(r["parse_errors"] == 0, name + ": parse errors")
    inner = r["layers"][l4[r["proto"]]]
    check(inner.get("bad", 0) == r["expected_bad"], f'{name}: {inner} vs expected_bad {r["expected_bad"]}')
    check(inner.get("good", 0) + inner.get("bad", 0) == r["packets"], f"{name}: good+bad != packets")
    ip_judged = sum(r["layers"]["ipv4"].values())
    per_pkt = 2 if r["proto"] == "vxlan-tcp4" else 1
    check(ip_judged == per_pkt * r["packets"], f"{name}: ipv4 layers {ip_judged}")
    if r["size"] == "imix" and r["proto"] != "vxlan-tcp4":  # tunnels raise 64 B to their minimum
        check(abs(r["mean_frame_bytes"] - (7 * 64 + 4 * 570 + 1518) / 12) < 0.5, name + ": imix mean")

rows = list(csv.DictReader(open(cs)))
check(len(rows) == len(res), "csv rows")
check(all(float(x["mpps"]) > 0 for x in rows), "csv mpps")

p = subprocess.run([bench, "--proto", "nvme-c2h", "--nvme-pdu", "8192", "--pool", "64", "--write-pcap", pcap],
                   check=True, capture_output=True, text=True, timeout=60).stdout
with open(pcap, "rb") as f:
    magic, _, _, _, _, _, link = struct.unpack("<IHHiIII", f.read(24))
    n = 0
    while hdr := f.read(16):
        _, _, incl, orig = struct.unpack("<IIII", hdr)
        check(incl == orig and len(f.read(incl)) == incl, "pcap record")
        n += 1
check(magic == 0xA1B2C3D4 and link == 1, "pcap header")
check(f"wrote {n} frames" in p, f"pcap frame count: {p}")

if fails:
    print("\n".join(fails))
    sys.exit(1)
print(f"ok: {len(res)} results, {n} pcap frames")
