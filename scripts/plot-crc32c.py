#!/usr/bin/python3
"""Plot bytes per TSC tick against buffer length from bench_crc32c's CSV.

usage: scripts/plot-crc32c.py crc32c-bench.csv out.png [impl ...]
       scripts/plot-crc32c.py --table crc32c-bench.csv
Without impl names, plots the kernels, the default path, ISA-L and
rte_hash_crc (not the mbuf shapes or tuning variants). --table prints the
Markdown tables used in docs/perf-crc32c.md instead.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

DEFAULT = ["portable", "sse42", "vpclmul_avx2", "avx512", "default", "isal_direct",
           "isal_2halves", "rte_hash_crc", "mbuf_2seg"]


def load(src):
    rows = defaultdict(dict)
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            rows[row["impl"]][int(row["bytes"])] = row
    return rows


def table(src: str) -> int:
    rows = load(src)
    sizes = sorted({n for r in rows.values() for n in r})
    head = "| impl | " + " | ".join(f"{n} B" for n in sizes) + " |"
    sep = "|---|" + "---:|" * len(sizes)
    for title, fmt in (("TSC ticks per call (median; p10 in brackets)",
                        lambda r: f"{float(r['ticks_median']):.1f} ({float(r['ticks_p10']):.1f})"),
                       ("Bytes per tick (median)", lambda r: f"{float(r['bytes_per_tick']):.2f}"),
                       ("Ratio to ISA-L crc32_iscsi (median ticks / median ticks)",
                        lambda r: f"{float(r['ratio_to_isal']):.2f}")):
        print(f"\n{title}\n\n{head}\n{sep}")
        for impl, r in rows.items():
            cells = [fmt(r[n]) if n in r else "n/a" for n in sizes]
            print(f"| {impl} | " + " | ".join(cells) + " |")
    print("\nChains: crc32c_mbuf (default kernel) vs linear\n")
    print("| bytes | crc32c() flat | mbuf 1 seg | mbuf 2 seg | mbuf 4 seg | 2seg / 1seg |"
          " 2seg - 1seg | 2seg / flat | ISA-L 2 halves / ISA-L |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    med = lambda impl, n: float(rows[impl][n]["ticks_median"]) if n in rows.get(impl, {}) else None
    for n in sizes:
        flat, lin, two, four = (med(i, n) for i in ("default", "mbuf_linear", "mbuf_2seg", "mbuf_4seg"))
        i1, i2 = med("isal_direct", n), med("isal_2halves", n)
        if None in (flat, two, four, i1, i2):
            continue
        lin_s = f"{lin:.1f}" if lin else "n/a"
        r1 = f"{two / lin:.2f}" if lin else "n/a"
        d1 = f"{two - lin:+.1f}" if lin else "n/a"
        print(f"| {n} | {flat:.1f} | {lin_s} | {two:.1f} | {four:.1f} | {r1} | {d1} |"
              f" {two / flat:.2f} | {i2 / i1:.2f} |")
    return 0


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--table":
        return table(sys.argv[2])
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
