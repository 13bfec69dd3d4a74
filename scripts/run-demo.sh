#!/usr/bin/env bash
# The main job on its built-in default: install what is missing, build, and
# replay drivers-config/sample.pcap through csumd over net_pcap.
# Output capture: out/sample-out.pcap; stats: out/stats.json.
set -euo pipefail
source "$(dirname "$0")/common.sh"
as_root "$CSUM_ROOT/scripts/setup.sh"
csum_build Release
mkdir -p "$CSUM_ROOT/out"
# shellcheck disable=SC2046
"$CSUM_BUILD/app/csumd/csumd" -l 0-1 --no-pci $(csum_eal_mem_args) --log-level=lib.eal:error \
  --vdev "net_pcap0,rx_pcap=$CSUM_ROOT/drivers-config/sample.pcap,tx_pcap=$CSUM_ROOT/out/sample-out.pcap" \
  -- --idle-exit 0.5 --stats-json "$CSUM_ROOT/out/stats.json" "$@"
echo "output capture: out/sample-out.pcap   stats: out/stats.json"
