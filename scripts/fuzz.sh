#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, seeds their corpora from the
# tests, and runs each target in turn. CI runs the bounded form.
#   scripts/fuzz.sh [SECONDS] [TARGET...]    each target for SECONDS (default 60)
#   scripts/fuzz.sh --runs N [TARGET...]     a campaign: N executions per target
#                                            (e.g. nice -n 19 scripts/fuzz.sh --runs 10000000)
# The corpus grows in $CSUM_FUZZ_BUILD/corpus (default build-fuzz/) from run to run;
# findings go to crashes/TARGET/. Prints executions, rate and coverage (cov/ft).
# CSUM_MAX_SIMD_BITS=256 in the environment fuzzes the loops a CPU without AVX-512 takes.
set -euo pipefail
source "$(dirname "$0")/common.sh"
if [[ ${1:-} == --runs ]]; then
  limit=(-runs="$2"); what="$2 executions"; shift 2
else
  secs=${1:-60}; shift || true
  limit=(-max_total_time="$secs"); what="${secs}s"
fi
all=(fuzz_engine fuzz_engine_diff fuzz_sctp fuzz_nvme_tcp fuzz_config fuzz_chain_calls)
build=${CSUM_FUZZ_BUILD:-$CSUM_ROOT/build-fuzz}
CC=clang CXX=clang++ cmake -S "$CSUM_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCSUM_FUZZ=ON -DCSUM_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target "${all[@]}" >/dev/null
corpus=$build/corpus
for t in "${all[@]}"; do mkdir -p "$corpus/$t"; done
/usr/bin/python3 "$CSUM_ROOT/tests/fuzz/seed_corpora.py" "$CSUM_ROOT" "$corpus"
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for t in "${targets[@]}"; do
  mkdir -p "$build/crashes/$t"
  log=$build/$t.log
  start=$(date +%s)
  if ! "$build/tests/fuzz/$t" "${limit[@]}" -max_len=4096 -rss_limit_mb=4096 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$build/crashes/$t/" "$corpus/$t" >"$log" 2>&1; then
    echo "fuzz: $t FAILED; see $log and $build/crashes/$t/" >&2
    tail -40 "$log" >&2
    exit 1
  fi
  took=$(( $(date +%s) - start ))
  runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*' || echo 0)
  cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || echo 'cov: ?')
  echo "fuzz: $t: $runs executions ($what) in ${took}s, $(( ${runs:-0} / (took > 0 ? took : 1) ))/s," \
    "$cov, corpus $(ls "$corpus/$t" | wc -l) inputs, no crash"
done
