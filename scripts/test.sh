#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run ctest.
# Extra arguments go to ctest (e.g. -L loopback).
set -euo pipefail
source "$(dirname "$0")/common.sh"
as_root "$CSUM_ROOT/scripts/setup.sh"
csum_build Release
cd "$CSUM_BUILD"
ctest --output-on-failure --timeout 600 -j "$(nproc)" "$@"
