#!/usr/bin/env bash
# The main job on its built-in default: install what is missing, build, and
# replay drivers-config/sample.pcap through csumd over net_pcap.
# Output capture: out/sample-out.pcap; stats: out/stats.json.
set -euo pipefail
source "$(dirname "$0")/common.sh"
as_root "$CSUM_ROOT/scripts/setup.sh"
csum_build Release
mkdir -p "$CSUM_ROOT/out"
cd "$CSUM_ROOT"  # the config's paths are relative to the repository root
"$CSUM_BUILD/app/csumd/csumd" --config drivers-config/pcap-replay.ini -- "$@"
echo "output capture: out/sample-out.pcap  stats: out/stats.json  verdicts: out/verdicts.jsonl  bad packets: out/bad.pcapng"
