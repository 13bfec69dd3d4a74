#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, seeds their corpora from the
# tests, and runs each for SECONDS (default 60). CI runs a bounded version.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
source "$(dirname "$0")/common.sh"
secs=${1:-60}; shift || true
build=${CSUM_FUZZ_BUILD:-$CSUM_ROOT/build-fuzz}
CC=clang CXX=clang++ cmake -S "$CSUM_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCSUM_FUZZ=ON -DCSUM_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target fuzz_engine fuzz_sctp fuzz_nvme_tcp fuzz_config >/dev/null
corpus=$build/corpus
mkdir -p "$corpus"/{fuzz_engine,fuzz_sctp,fuzz_nvme_tcp,fuzz_config}
/usr/bin/python3 "$CSUM_ROOT/tests/fuzz/seed_corpora.py" "$CSUM_ROOT" "$corpus"
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz_engine fuzz_sctp fuzz_nvme_tcp fuzz_config)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for t in "${targets[@]}"; do
  mkdir -p "$build/crashes/$t"
  log=$build/$t.log
  if ! "$build/tests/fuzz/$t" -max_total_time="$secs" -max_len=4096 -rss_limit_mb=4096 -timeout=10 \
      -artifact_prefix="$build/crashes/$t/" "$corpus/$t" >"$log" 2>&1; then
    echo "fuzz: $t FAILED; see $log and $build/crashes/$t/" >&2
    tail -40 "$log" >&2
    exit 1
  fi
  runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*' || echo '?')
  echo "fuzz: $t: $runs executions in ${secs}s, no crash (corpus $(ls "$corpus/$t" | wc -l) inputs)"
done
