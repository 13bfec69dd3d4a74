#!/usr/bin/env bash
# Software checksum offload for an unmodified application: dpdk-testpmd's csum
# forwarding with its own software checksums ("csum set * sw") against the
# same testpmd with LD_PRELOAD=libcsum_offload.so and "csum set * hw", in the
# same run, configurations interleaved per repeat. One forwarding lcore
# (-l 0-1), net_pcap infinite_rx=1 -> net_null, csum set on the TX port only.
#
#   scripts/compare-offload.sh [--rows LIST] [--repeats N] [--seconds S] [--out DIR]
#
# Rows: tcp64 tcp6-78 tcp1420 sctp256. Configurations:
#   io         testpmd io forwarding (the ceiling, no checksum work)
#   sw         testpmd csum, software checksums (SCTP: testpmd writes 0, no CRC)
#   shim-tx    csum hw + shim TX emulation on port 1 (fills every checksum)
#   shim-rxtx  as shim-tx, and the shim verifies every received packet on port 0
# Mpps = port 1 TX-packet delta / wall time from --stats-period 1, first
# second dropped as warm-up; median over repeats. The shim's own TSC ticks per
# packet in its callbacks come from its log at port stop.
set -euo pipefail
source "$(dirname "$0")/common.sh"
ROWS=tcp64,tcp6-78,tcp1420,sctp256 REPEATS=3 SECS=4 OUT=
while [[ $# -gt 0 ]]; do
  case $1 in
    --rows) ROWS=$2; shift ;;
    --repeats) REPEATS=$2; shift ;;
    --seconds) SECS=$2; shift ;;
    --out) OUT=$2; shift ;;
    *) echo "compare-offload.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
OUT=${OUT:-$CSUM_BUILD/compare-offload}
BENCH=${CSUMD_BENCH:-$CSUM_BUILD/app/csumd-bench/csumd-bench}
SHIM=${CSUM_OFFLOAD_SO:-$CSUM_BUILD/lib/offload/libcsum_offload.so}
TESTPMD=${TESTPMD:-$(command -v dpdk-testpmd || true)}
for b in "$BENCH" "$SHIM" "$TESTPMD"; do
  [[ -e $b ]] || { echo "compare-offload.sh: missing '$b' (build csumd-bench and csum_offload first)" >&2; exit 1; }
done
mkdir -p "$OUT/runs"
case ",$ROWS," in *,nvme128k,*) echo "compare-offload.sh: no nvme128k row here" >&2; exit 2 ;; esac
csum_write_captures compare-offload.sh "$BENCH" "$OUT/pcap" "$ROWS"

exec /usr/bin/python3 - "$OUT" "$ROWS" "$REPEATS" "$SECS" "$TESTPMD" "$SHIM" <<'PY'
import os, re, sys

import fwd_measure as fm

out, rows, repeats, secs, testpmd, shim = sys.argv[1:]
rows, repeats, secs = rows.split(","), int(repeats), float(secs)
CONFIGS = ["io", "sw", "shim-tx", "shim-rxtx"]
CPU = fm.cpu_model()


def run(config, row, rep):
    pcap = os.path.join(out, "pcap", row + ".pcap")
    mode = "io" if config == "io" else "csum"
    kind = "sw" if config == "sw" else "hw"
    cmd = ["stdbuf", "-oL", testpmd, "-l", "0-1", "--no-pci", "--no-huge", "-m", "1024", "--no-shconf",
           "--file-prefix", f"cmpoff{os.getpid()}", "--log-level=lib.eal:error",
           "--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1", "--vdev", "net_null0,no-rx=1",
           "--", "--nb-cores=1", "--stats-period", "1", "--total-num-mbufs=16384", f"--forward-mode={mode}"]
    env = dict(os.environ)
    if mode == "csum":
        cmdfile = os.path.join(out, "runs", f"{kind}.cmds")
        with open(cmdfile, "w") as f:
            f.write("port stop 1\n" + "".join(f"csum set {p} {kind} 1\n" for p in ("ip", "tcp", "udp", "sctp"))
                    + "port start 1\n")
        cmd.append(f"--cmdline-file={cmdfile}")
    if config.startswith("shim"):
        env["LD_PRELOAD"] = shim
        env["CSUM_OFFLOAD"] = ("ports=1;rx=off" if config == "shim-tx" else "ports=0,1;rx=on") + \
            ";tx=ip,tcp,udp,sctp"
    _, samples, text = fm.sample(cmd, os.path.join(out, "runs", f"{row}.{config}.{rep}.log"),
                                 fm.testpmd_port1_tx(), secs, env=env, slack=40)
    w = fm.window(samples)
    mpps, per_core = w.get("mpps", 0.0), w.get("mpps_per_core_s") or 0.0
    ticks = {}
    for m in re.finditer(r"port (\d): rx (\d+) verified .*?TSC ticks per packet: rx ([\d.]+), tx ([\d.]+)",
                         text):
        if int(m.group(1)) == 0 and int(m.group(2)) > 0:
            ticks["rx"] = float(m.group(3))
        if int(m.group(1)) == 1:
            ticks["tx"] = float(m.group(4))
    return mpps, per_core, ticks


res = {(r, c): [] for r in rows for c in CONFIGS}
core = {(r, c): [] for r in rows for c in CONFIGS}
tick = {(r, c): {"rx": [], "tx": []} for r in rows for c in CONFIGS}
for rep, row, c in fm.interleaved(rows, CONFIGS, repeats):
    mpps, pc, t = run(c, row, rep)
    res[(row, c)].append(mpps)
    core[(row, c)].append(pc)
    for k, v in t.items():
        tick[(row, c)][k].append(v)
    print(f"rep {rep} {row:8} {c:10} {mpps:6.2f} Mpps {pc:6.2f} Mpps/busy-core-s {t}", flush=True)

med = fm.median
lines = [f"CPU: {CPU}, {os.cpu_count()} cores (shared); dpdk-testpmd 22.11 (Debian), one forwarding lcore, "
         f"net_pcap infinite_rx -> net_null, {repeats} interleaved repeats of {secs:g} s, medians. "
         "Mpps per busy core-second (the forwarding thread's CPU time from /proc) corrects for other load; "
         "wall-clock Mpps in brackets.\n",
         "| row | testpmd io | testpmd csum sw | csum hw + shim (TX fill) | csum hw + shim (RX verify + TX fill) |"
         " shim TX / sw | shim TX ticks/pkt | shim RX ticks/pkt |",
         "|---|---|---|---|---|---|---|---|"]
for row in rows:
    m = {c: med(core[(row, c)]) for c in CONFIGS}
    w = {c: med(res[(row, c)]) for c in CONFIGS}
    ratio = f"{m['shim-tx'] / m['sw']:.2f}x" if m["sw"] else "-"
    cell = lambda c: f"{m[c]:.2f} ({w[c]:.2f})"
    lines.append(f"| {row} | {cell('io')} | {cell('sw')} | {cell('shim-tx')} | {cell('shim-rxtx')} | {ratio} |"
                 f" {med(tick[(row, 'shim-tx')]['tx']):.0f} | {med(tick[(row, 'shim-rxtx')]['rx']):.0f} |")
lines.append("\ntestpmd's software csum writes 0 for SCTP (no CRC32C); the shim computes the CRC32C. "
             "Ticks are TSC ticks inside the shim's callbacks (tx: per packet seen; rx: per packet verified), "
             "wall time, so they include any time the thread was preempted.")
text = "\n".join(lines) + "\n"
print(text)
open(os.path.join(out, "compare.md"), "w").write(text)
PY
