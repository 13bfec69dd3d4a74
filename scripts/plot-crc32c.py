#!/usr/bin/python3
"""Plot bytes per TSC tick against buffer length from bench_crc32c's CSV.

usage: scripts/plot-crc32c.py crc32c-bench.csv out.png [impl ...]
Without impl names, plots the kernels, the default path, ISA-L and
rte_hash_crc (not the mbuf shapes or tuning variants).
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

DEFAULT = ["portable", "sse42", "vpclmul_avx2", "avx512", "default", "isal_direct",
           "isal_2halves", "rte_hash_crc", "mbuf_2seg"]


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, out, wanted = sys.argv[1], sys.argv[2], sys.argv[3:] or DEFAULT
    series = defaultdict(list)
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            series[row["impl"]].append((int(row["bytes"]), float(row["bytes_per_tick"])))
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for name in wanted:
        if name not in series:
            continue
        pts = sorted(series[name])
        style = "--" if name.startswith(("isal", "rte")) else "-"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", ms=3, label=name)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("buffer length (bytes)")
    ax.set_ylabel("bytes per TSC tick (higher is better)")
    ax.set_title("CRC32C, hot cache, dependent calls, median")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
