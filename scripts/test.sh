#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run ctest.
#   scripts/test.sh                 Release build in build/
#   scripts/test.sh --sanitize      ASan + UBSan build in build-asan/ (leak checks on)
#   scripts/test.sh --tsan          ThreadSanitizer build in build-tsan/: csumd only, and only
#                                   the tests where several lcores share state (ring loopback,
#                                   telemetry, bad-frame capture); any race fails them
# Further arguments go to ctest (e.g. -L loopback).
set -euo pipefail
source "$(dirname "$0")/common.sh"
as_root "$CSUM_ROOT/scripts/setup.sh"
if [[ ${1:-} == --sanitize ]]; then
  shift
  CSUM_BUILD=$CSUM_ROOT/build-asan
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:suppressions=$CSUM_ROOT/tests/asan.supp
  export LSAN_OPTIONS=suppressions=$CSUM_ROOT/tests/lsan.supp:print_suppressions=0
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  csum_build Release -DCSUM_SANITIZE=ON -DCSUM_BUILD_BENCH=OFF
elif [[ ${1:-} == --tsan ]]; then
  shift
  CSUM_BUILD=$CSUM_ROOT/build-tsan
  export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$CSUM_ROOT/tests/tsan.supp"
  cmake -S "$CSUM_ROOT" -B "$CSUM_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCSUM_SANITIZE=thread \
    -DCSUM_BUILD_BENCH=OFF >/dev/null
  cmake --build "$CSUM_BUILD" --parallel "$(nproc)" --target csumd
  cd "$CSUM_BUILD"
  exec ctest --output-on-failure --timeout 900 -L tsan "$@"
else
  csum_build Release
fi
cd "$CSUM_BUILD"
ctest --output-on-failure --timeout 900 -j "$(nproc)" "$@"
