#!/usr/bin/env bash
# Side-by-side: dpdk-testpmd (io, and csum forwarding with software checksums)
# against csumd (io, verify, fill, csum) on the same captures, one forwarding
# lcore each (-l 0-1), net_pcap infinite_rx=1 -> net_null, back to back.
#
#   scripts/compare-testpmd.sh [--quick] [--rows LIST] [--repeats N] [--seconds S]
#                              [--out DIR] [--huge] [--testpmd-burst N]
#
# Rows: tcp64 tcp1420 sctp256 nvme128k (default: all; --quick: tcp64, 1 repeat,
# 2 s windows); also sctp1420 (CRC32C's 768+ class) and tcp6-78 on request.
# Captures come from csumd-bench --write-pcap.
#
# Both tools are measured the same way: the script timestamps the periodic
# counters each prints (testpmd --stats-period 1: port 1 TX-packets; csumd
# --stats-period 1: rx packets), drops the first second as warm-up and takes
# Mpps = packet delta / wall seconds over the rest. The forwarding thread's
# CPU time (/proc/PID/task/*/stat) over the same window gives "Mpps per busy
# core-second", which corrects for other load on a shared machine. csumd's own
# tx_packets/duration_s from --stats-json is reported too. Configurations are
# interleaved per repeat and the median over repeats is reported.
# --testpmd-burst N gives testpmd --burst=N (its default is 32; csumd cuts
# bursts of long packets to a third of L1d, --burst-bytes).
set -euo pipefail
source "$(dirname "$0")/common.sh"

QUICK=0 ROWS="" REPEATS="" SECONDS_PER_RUN="" OUT="" HUGE=0 TP_BURST=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) QUICK=1 ;;
    --rows) ROWS=$2; shift ;;
    --repeats) REPEATS=$2; shift ;;
    --seconds) SECONDS_PER_RUN=$2; shift ;;
    --out) OUT=$2; shift ;;
    --huge) HUGE=1 ;;
    --testpmd-burst) TP_BURST=$2; shift ;;
    -h|--help) sed -n 2,22p "$0"; exit 0 ;;
    *) echo "compare-testpmd.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[[ $TP_BURST =~ ^[0-9]+$ && $TP_BURST -le 512 ]] ||
  { echo "compare-testpmd.sh: --testpmd-burst: expected 0..512 (0: testpmd's 32), got '$TP_BURST'" >&2; exit 2; }
if [[ $QUICK == 1 ]]; then
  ROWS=${ROWS:-tcp64} REPEATS=${REPEATS:-1} SECONDS_PER_RUN=${SECONDS_PER_RUN:-2}
fi
ROWS=${ROWS:-tcp64,tcp1420,sctp256,nvme128k} REPEATS=${REPEATS:-3} SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
OUT=${OUT:-$CSUM_BUILD/compare-testpmd}
CSUMD=${CSUMD:-$CSUM_BUILD/app/csumd/csumd}
BENCH=${CSUMD_BENCH:-$CSUM_BUILD/app/csumd-bench/csumd-bench}
TESTPMD=${TESTPMD:-$(command -v dpdk-testpmd || true)}
for b in "$CSUMD" "$BENCH" "$TESTPMD"; do
  [[ -x $b ]] || { echo "compare-testpmd.sh: missing binary '$b' (build first, or set CSUMD/CSUMD_BENCH/TESTPMD)" >&2; exit 1; }
done
MEM="--no-huge -m 1024"
[[ $HUGE == 1 ]] && MEM=$(csum_eal_mem_args)
# Captures: the same file feeds both tools.
csum_write_captures compare-testpmd.sh "$BENCH" "$OUT/pcap" "$ROWS"

NVME_OPT=0
"$CSUMD" -- --help 2>/dev/null | grep -q -- '--nvme-ports' && NVME_OPT=1

exec /usr/bin/python3 - "$OUT" "$ROWS" "$REPEATS" "$SECONDS_PER_RUN" "$CSUMD" "$TESTPMD" "$MEM" "$NVME_OPT" "$TP_BURST" <<'PY'
import json, os, re, statistics, sys, time

import fwd_measure as fm

out, rows, repeats, secs, csumd, testpmd, mem, nvme_opt, tp_burst = sys.argv[1:]
tp_burst = int(tp_burst)
rows, repeats, secs, nvme_opt = rows.split(","), int(repeats), float(secs), nvme_opt == "1"
CONFIGS = ["testpmd-io", "testpmd-csum", "csumd-io", "csumd-verify", "csumd-fill", "csumd-csum"]


def pcap_info(row):
    text = open(os.path.join(out, "pcap", row + ".info")).read()
    m = re.search(r"mean ([\d.]+) B, nvme data ([\d.]+) B", text)
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


def eal(prefix, pcap):
    return ["-l", "0-1", "--no-pci", *mem.split(), "--file-prefix", f"{prefix}{os.getpid()}",
            "--log-level=lib.eal:error", "--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1",
            "--vdev", "net_null0,no-rx=1"]


def run(config, row, rep):
    tool, mode = config.split("-", 1)
    pcap = os.path.join(out, "pcap", row + ".pcap")
    tag = f"{row}.{config}.{rep}"
    stats_json = os.path.join(out, "runs", tag + ".json")
    if tool == "testpmd":
        cmd = ["stdbuf", "-oL", testpmd, *eal("tp", pcap), "--", "--nb-cores=1", "--stats-period", "1",
               "--total-num-mbufs=16384", f"--forward-mode={mode}"]
        if tp_burst:
            cmd.append(f"--burst={tp_burst}")
        if mode == "csum":
            cmdfile = os.path.join(out, "runs", "testpmd-csum.cmds")
            with open(cmdfile, "w") as f:  # software checksums, set on the TX port only
                f.write("port stop 1\ncsum set ip sw 1\ncsum set tcp sw 1\ncsum set udp sw 1\n"
                        "csum set sctp sw 1\nport start 1\n")
            cmd.append(f"--cmdline-file={cmdfile}")
    else:
        cmd = [csumd, *eal("cs", pcap), "--", "--mode", mode, "--duration", str(secs + 1.6),
               "--stats-period", "1", "--stats-json", stats_json]
        if row == "nvme128k" and nvme_opt:
            cmd += ["--nvme-ports", "4420"]
    if tool == "testpmd":
        parse = fm.testpmd_port1_tx()
    else:
        def parse(line):
            m = re.match(r"csumd:\s+[\d.]+ s\s+rx\s+[\d.]+ Mpps\s+tx\s+[\d.]+ Mpps\s+rx (\d+)", line)
            return int(m.group(1)) if m else None
    # testpmd is stopped after the window; csumd stops itself (--duration).
    rc, samples, _ = fm.sample(cmd, os.path.join(out, "runs", tag + ".log"), parse, secs,
                               interrupt=tool == "testpmd")
    res = {"row": row, "config": config, "repeat": rep, "rc": rc, "samples": len(samples)}
    res.update(fm.window(samples))
    if tool == "csumd" and os.path.exists(stats_json):
        j = json.load(open(stats_json))
        tx = sum(pt["tx_packets"] for pt in j["ports"])
        res["own_mpps"] = tx / j["duration_s"] / 1e6
        res["drops"] = sum(pt["drops"] for pt in j["ports"])
        lay = j["engine"]["layers"]
        res["l4_good"] = sum(lay[k]["good"] for k in ("tcp", "udp", "sctp"))
        res["l4_bad"] = sum(lay[k]["bad"] for k in ("tcp", "udp", "sctp"))
        res["ddgst_good"] = lay.get("nvme-ddgst", {}).get("good", 0)
        # Verified data: the bytes under good data digests, over the run.
        res["verified_gbps"] = j.get("nvme", {}).get("ddgst_good", 0) * 131072 * 8 / j["duration_s"] / 1e9
        res["engine_packets"] = j["engine"]["packets"]
        res["engine_ticks_per_packet"] = j["engine"]["ticks_per_packet"]
    return res


os.makedirs(os.path.join(out, "runs"), exist_ok=True)
results = []
started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
for rep, row, config in fm.interleaved(rows, CONFIGS, repeats):
    r = run(config, row, rep)
    results.append(r)
    print(f"  {row:9s} {config:13s} rep {rep}: {r.get('mpps', float('nan')):7.2f} Mpps"
          f"  (busy core {100 * r.get('cpu_share', 0):3.0f}%,"
          f" {r.get('mpps_per_core_s') or float('nan'):7.2f} Mpps/core-s)", flush=True)


def med(row, config, key):
    v = [r[key] for r in results if r["row"] == row and r["config"] == config and r.get(key) is not None]
    return (statistics.median(v), min(v), max(v)) if v else None


def fmt(x):
    return f"{x[0]:.2f}" if x else "n/a"


def ratio(a, b):
    return f"{a[0] / b[0]:.2f}x" if a and b and b[0] > 0 else "n/a"


lines = []
summary = {"date": started, "cpu": fm.cpu_model(),
           "memory": mem, "testpmd_burst": tp_burst or 32, "repeats": repeats, "window_s": secs, "nvme_ports_option": nvme_opt, "rows": {}}
for key, title in (("mpps", "Mpps over the window (wall clock)"),
                   ("mpps_per_core_s", "Mpps per busy core-second (load-corrected)")):
    lines.append(f"\n{title}, median of {repeats}:\n")
    lines.append("| row | testpmd io | testpmd csum | csumd io | csumd verify | csumd fill | csumd csum |"
                 " verify / tp io | csum / tp csum | fill / tp csum |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        m = {c: med(row, c, key) for c in CONFIGS}
        lines.append(f"| {row} | " + " | ".join(fmt(m[c]) for c in CONFIGS) + " | " +
                     " | ".join([ratio(m["csumd-verify"], m["testpmd-io"]), ratio(m["csumd-csum"], m["testpmd-csum"]),
                                 ratio(m["csumd-fill"], m["testpmd-csum"])]) + " |")
        summary["rows"].setdefault(row, {})[key] = {c: m[c] for c in CONFIGS}
# The host may change speed between runs: a ratio of two medians can pair
# runs from different phases, so the ratios of each repeat's own runs too.
lines.append(f"\nRatios within each repeat (Mpps per busy core-second), then their median:\n")
lines.append("| row | verify / tp io | csum / tp csum | fill / tp csum |")
lines.append("|---|---|---|---|")
for row in rows:
    cells = []
    for num, den in (("csumd-verify", "testpmd-io"), ("csumd-csum", "testpmd-csum"),
                     ("csumd-fill", "testpmd-csum")):
        rs = []
        for rep in range(repeats):
            got = {r["config"]: r.get("mpps_per_core_s") for r in results
                   if r["row"] == row and r["repeat"] == rep}
            if got.get(num) and got.get(den):
                rs.append(got[num] / got[den])
        cells.append(" / ".join(f"{x:.2f}" for x in rs) + (f" (median {statistics.median(rs):.2f}x)" if rs else "n/a"))
        summary["rows"].setdefault(row, {}).setdefault("per_repeat", {})[f"{num}/{den}"] = rs
    lines.append(f"| {row} | " + " | ".join(cells) + " |")
if tp_burst:
    lines.append(f"\ntestpmd ran with --burst={tp_burst}; csumd with its defaults (--burst 32, --burst-bytes auto).")
lines.append("\ncsumd's own count, tx_packets / duration_s from --stats-json (includes start-up of forwarding), median:\n")
lines.append("| row | csumd io | csumd verify | csumd fill | csumd csum |")
lines.append("|---|---|---|---|---|")
for row in rows:
    lines.append(f"| {row} | " + " | ".join(fmt(med(row, c, "own_mpps")) for c in CONFIGS[2:]) + " |")
for row in rows:
    summary["rows"][row]["own_mpps"] = {c: med(row, c, "own_mpps") for c in CONFIGS if c.startswith("csumd")}
    good = [r for r in results if r["row"] == row and r["config"] in ("csumd-verify", "csumd-csum")]
    summary["rows"][row]["verified_l4"] = all(r.get("l4_good", 0) >= r.get("engine_packets", 1) > 0 for r in good)

mean_b, data_b = pcap_info("nvme128k") if "nvme128k" in rows else (0, 0)
if "nvme128k" in rows:
    v = med("nvme128k", "csumd-verify", "mpps")
    ddgst = sum(r.get("ddgst_good", 0) for r in results if r["row"] == "nvme128k")
    if nvme_opt and ddgst > 0 and v:
        gbps = sorted(r.get("verified_gbps", 0) for r in results
                      if r["row"] == "nvme128k" and r["config"] == "csumd-verify")
        g = gbps[len(gbps) // 2]
        lines.append(f"\nNVMe/TCP 128 KiB PDUs: csumd verify checked {g:.2f} Gbit/s of data under good data"
                     f" digests (PDUs with a good DDGST x 128 KiB / run time; the capture ends with an RST,"
                     f" so each pass of the looped replay is a new connection).")
        summary["nvme_verified_data_gbps"] = g
    else:
        why = "csumd has no --nvme-ports option in this tree" if not nvme_opt else "no data digest was verified"
        lines.append(f"\nNVMe/TCP 128 KiB PDUs: verified data rate NOT MEASURABLE ({why}); the nvme128k row"
                     f" above is TCP/IPv4 checksums only ({data_b:.0f} data B per {mean_b:.0f} B frame"
                     + (f", i.e. {v[0] * data_b * 8 / 1e3:.2f} Gbit/s of PDU data carried, digests unchecked)." if v else ")."))
        summary["nvme_verified_data_gbps"] = None

lines.append("\ntestpmd's csum engine computes IPv4/TCP/UDP checksums in software but writes 0 for SCTP"
             " (\"XXX implement CRC32c\"): its SCTP figures do no CRC32C work, csumd's does."
             " testpmd never verifies received checksums; csumd verify/csum check every one.")
text = "\n".join(lines) + "\n"
print(text)
open(os.path.join(out, "compare.md"), "w").write(text)
json.dump({"summary": summary, "runs": results}, open(os.path.join(out, "compare.json"), "w"), indent=1)
print(f"compare-testpmd.sh: wrote {out}/compare.md and compare.json")
PY
