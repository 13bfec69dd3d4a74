#!/usr/bin/env bash
# The long soak: 10 M packets (or $1) of every hostile and valid test case
# through csumd in each mode, drop policy on and off. CI runs 300 k.
set -euo pipefail
source "$(dirname "$0")/common.sh"
csum_build Release
export CSUM_SOAK_PACKETS=${1:-10000000} CSUMD=$CSUM_BUILD/app/csumd/csumd CSUM_SOURCE_DIR=$CSUM_ROOT
cd "$CSUM_ROOT/tests/e2e"
/usr/bin/python3 -m unittest -v test_soak
