#!/usr/bin/env bash
# Line and branch coverage of lib/ with gcc --coverage and gcovr.
#   scripts/coverage.sh              unit tests only (ctest -L unit), a few minutes on 2 cores
#   scripts/coverage.sh --with-e2e   also the e2e label (csumd over net_pcap, tshark oracles)
# Builds into build-cov/ (Debug, no benchmarks), clears old counters, runs
# ctest, then prints one line/branch row per lib/ folder and writes
# build-cov/coverage/{summary.txt,index.html}. Further arguments go to ctest.
# Branch flags: --exclude-throw-branches --exclude-unreachable-branches (see docs/coverage.md).
set -euo pipefail
source "$(dirname "$0")/common.sh"
command -v gcovr >/dev/null || as_root "$CSUM_ROOT/scripts/setup.sh"

labels=unit
if [[ ${1:-} == --with-e2e ]]; then
  shift
  labels='unit|e2e'
fi

CSUM_BUILD=${CSUM_COV_BUILD:-$CSUM_ROOT/build-cov}
jobs=${CSUM_JOBS:-$(nproc)}
cmake -S "$CSUM_ROOT" -B "$CSUM_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS=--coverage -DCMAKE_CXX_FLAGS=--coverage \
  -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage \
  -DCSUM_BUILD_BENCH=OFF >/dev/null
cmake --build "$CSUM_BUILD" --parallel "$jobs"

# Counters from an earlier run would add up with this one's; notes of objects
# the build no longer makes (a source moved to another target) make gcov fail.
find "$CSUM_BUILD" -name '*.gcda' -delete
ninja -C "$CSUM_BUILD" -t cleandead >/dev/null
find "$CSUM_BUILD" -name '*.gcno' | while read -r n; do
  [[ -e ${n%.gcno}.o ]] || rm -f "$n"
done

start=$(date +%s)
(cd "$CSUM_BUILD" && ctest --output-on-failure --timeout 900 -j "$jobs" -L "$labels" "$@") || rc=$?
echo "ctest (-L '$labels') took $(($(date +%s) - start)) s"

out=$CSUM_BUILD/coverage
mkdir -p "$out"
gcovr_args=(-r "$CSUM_ROOT" --object-directory "$CSUM_BUILD" --filter "$CSUM_ROOT/lib/"
  --exclude-throw-branches --exclude-unreachable-branches -j "$jobs")

# One row per lib/ folder: lines and branches, summed over its files.
gcovr "${gcovr_args[@]}" --json "$out/coverage.json" >/dev/null
gcovr "${gcovr_args[@]}" --html-details "$out/index.html" >/dev/null
python3 - "$out/coverage.json" <<'PY' | tee "$out/summary.txt"
import json, sys, collections
data = json.load(open(sys.argv[1]))
acc = collections.defaultdict(lambda: [0, 0, 0, 0])  # lines hit/total, branches taken/total
for f in data["files"]:
    parts = f["file"].split("/")
    folder = "/".join(parts[:2]) if parts[0] == "lib" else parts[0]
    if parts[:3] == ["lib", "include", "csum"]:
        folder = "lib/include"
    a = acc[folder]
    for line in f["lines"]:
        if line.get("gcovr/noncode"):
            continue
        a[1] += 1
        a[0] += line["count"] > 0
        for b in line["branches"]:
            a[3] += 1
            a[2] += b["count"] > 0
def pct(x, n):
    return f"{100.0 * x / n:5.1f}%" if n else "    -"
print(f"| {'folder':<14} | {'lines':>16} | {'branches':>16} |")
print(f"|{'-' * 16}|{'-' * 18}:|{'-' * 18}:|")
tot = [0, 0, 0, 0]
for k in sorted(acc):
    a = acc[k]
    tot = [x + y for x, y in zip(tot, a)]
    print(f"| {k:<14} | {a[0]:>5}/{a[1]:<5} {pct(a[0], a[1])} | {a[2]:>5}/{a[3]:<5} {pct(a[2], a[3])} |")
print(f"| {'lib/ total':<14} | {tot[0]:>5}/{tot[1]:<5} {pct(tot[0], tot[1])} | {tot[2]:>5}/{tot[3]:<5} {pct(tot[2], tot[3])} |")
PY
echo "details: $out/index.html"
exit "${rc:-0}"
