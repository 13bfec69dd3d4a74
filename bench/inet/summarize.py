#!/usr/bin/env python3
"""Runs bench_inet several times and prints Markdown tables of the per-row
median ticks/call across runs, with ratios against native rte_raw_cksum.

summarize.py BENCH_BINARY [RUNS] [--csv OUT.csv] [--json OUT.json]
"""
import csv, json, statistics, subprocess, sys, tempfile, os

def main():
    args = sys.argv[1:]
    out_csv = out_json = None
    if "--csv" in args:
        i = args.index("--csv"); out_csv = args[i + 1]; del args[i:i + 2]
    if "--json" in args:
        i = args.index("--json"); out_json = args[i + 1]; del args[i:i + 2]
    binary = args[0]
    runs = int(args[1]) if len(args) > 1 else 5
    samples = {}
    header = ""
    for _ in range(runs):
        with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as f:
            path = f.name
        out = subprocess.run([binary, "--csv", path], check=True, capture_output=True, text=True).stdout
        header = out.splitlines()[0]
        with open(path) as f:
            for r in csv.DictReader(f):
                key = (r["kind"], int(r["segs"]), int(r["bytes"]), r["impl"])
                samples.setdefault(key, []).append(float(r["ticks_per_call"]))
        os.unlink(path)
    med = {k: statistics.median(v) for k, v in samples.items()}
    rows = []
    for (kind, segs, n, impl), t in med.items():
        base = med[(kind, segs, n, "dpdk_native")]
        rows.append({"kind": kind, "segs": segs, "bytes": n, "impl": impl,
                     "ticks_per_call": round(t, 1), "ratio_vs_dpdk_native": round(base / t, 2)})
    print(header.lstrip("# ") + f"; median of {runs} runs\n")
    impls = list(dict.fromkeys(r["impl"] for r in rows if r["kind"] == "linear"))
    print("| bytes | " + " | ".join(impls) + " |")
    print("|---:|" + "---:|" * len(impls))
    for n in sorted({r["bytes"] for r in rows if r["kind"] == "linear"}):
        cells = []
        for impl in impls:
            k = ("linear", 1, n, impl)
            cells.append("" if k not in med else
                         f"{med[k]:.1f} ({med[('linear', 1, n, 'dpdk_native')] / med[k]:.2f}x)")
        print(f"| {n} | " + " | ".join(cells) + " |")
    chain_impls = list(dict.fromkeys(r["impl"] for r in rows if r["kind"] == "chain"))
    print("\n| segs | bytes | " + " | ".join(chain_impls) + " |")
    print("|---:|---:|" + "---:|" * len(chain_impls))
    for segs, n in sorted({(r["segs"], r["bytes"]) for r in rows if r["kind"] == "chain"}):
        base = med[("chain", segs, n, "dpdk_native")]
        cells = [f"{med[('chain', segs, n, i)]:.1f} ({base / med[('chain', segs, n, i)]:.2f}x)"
                 for i in chain_impls]
        print(f"| {segs} | {n} | " + " | ".join(cells) + " |")
    if out_csv:
        with open(out_csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader(); w.writerows(rows)
    if out_json:
        with open(out_json, "w") as f:
            json.dump(rows, f, indent=1)

main()
