#!/usr/bin/env bash
# How much bench_engine's figures move with where the linker puts libcsum's
# code: builds bench_engine with 0, 64, ..., 448 bytes of padding before it
# (CSUM_BENCH_LAYOUT_PAD), runs the same arguments on each build in turn,
# REPS times, and prints each row's median ticks per layout, their min, max
# and max / min. A row whose spread stays high across repeats depends on
# code placement (a loop or branch the CPU predicts at some addresses only).
#   scripts/layout-sweep.sh [REPS] [-- BENCH_ENGINE_ARGS...]
#   e.g. scripts/layout-sweep.sh 3 -- --size 256
# Builds in $CSUM_LAYOUT_BUILD (default build-layout/); EAL on hugepages if
# /dev/hugepages has free pages (bench_engine --hugepages), else --no-huge.
set -euo pipefail
source "$(dirname "$0")/common.sh"
reps=${1:-3}; shift || true
[[ ${1:-} == -- ]] && shift
args=("$@")
build=${CSUM_LAYOUT_BUILD:-$CSUM_ROOT/build-layout}
out=$build/sweep; mkdir -p "$out"; rm -f "$out"/*.txt
pads=(0 64 128 192 256 320 384 448)
for pad in "${pads[@]}"; do
  cmake -S "$CSUM_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCSUM_BUILD_TESTS=OFF \
    -DCSUM_BENCH_LAYOUT_PAD="$pad" >/dev/null
  cmake --build "$build" --parallel "$(nproc)" --target bench_engine >/dev/null
  cp "$build/bench/engine/bench_engine" "$out/bench_engine.$pad"
done
mem=()
free=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
[[ $free -ge 256 ]] && mem=(--hugepages)
for r in $(seq "$reps"); do
  for pad in "${pads[@]}"; do
    "$out/bench_engine.$pad" "${mem[@]}" -- "${args[@]}" \
      2>/dev/null >"$out/$pad.$r.txt"
  done
done
/usr/bin/python3 - "$out" "${pads[@]}" <<'PY'
import collections, glob, statistics, sys
out, pads = sys.argv[1], [int(p) for p in sys.argv[2:]]
rows = collections.defaultdict(lambda: collections.defaultdict(list))
order = []
for f in sorted(glob.glob(f"{out}/*.txt")):
    pad = int(f.rsplit("/", 1)[1].split(".")[0])
    for line in open(f):
        w = line.split()
        # Rows whose first number follows their words: the ticks.
        k = next((i for i, x in enumerate(w) if x.replace(".", "", 1).isdigit() and "." in x), None)
        if not w or w[0].startswith("#") or k is None:
            continue
        key = " ".join(w[:k])
        if key not in rows:
            order.append(key)
        rows[key][pad].append(float(w[k]))
print(f"{'row':40s} " + " ".join(f"{p:>6d}" for p in pads) + "    min    max  max/min")
for key in order:
    med = [statistics.median(rows[key][p]) for p in pads if rows[key][p]]
    if len(med) != len(pads):
        continue
    print(f"{key:40s} " + " ".join(f"{m:6.1f}" for m in med) +
          f" {min(med):6.1f} {max(med):6.1f} {max(med) / min(med):8.2f}")
PY
