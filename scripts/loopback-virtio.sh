#!/usr/bin/env bash
# virtio-user -> vhost-user between two csumd processes, by hand (the topology
# of tests/loopback/test_virtio_vhost.py):
#
#   csumd A: net_pcap0 (rx IN) -> net_virtio_user0 ==vhost-user socket==> csumd B: net_vhost0 -> net_pcap1 (tx OUT)
#
# A fills in A_MODE (default fill): its virtio_user port offers TCP/UDP checksum
# offload, so plain TCP/UDP leave with the offload requested and only the
# pseudo-header sum in the field. B sees those as RX_L4_CKSUM_NONE ("partial")
# and, in csum mode, completes them before writing OUT.
#
# usage: scripts/loopback-virtio.sh [B_MODE [csumd options for B...]]
#   B_MODE  io | verify | fill | csum (default csum)
#   e.g.    scripts/loopback-virtio.sh            # B completes what A offloaded
#           scripts/loopback-virtio.sh io         # B forwards the partial checksums: tshark flags them
# env:      IN      pcap A replays (default: the engine cases' all-zero-checksum packets)
#           OUT     B's output capture (default: in a temp dir, summarised by tshark)
#           A_MODE  A's mode (default fill)
#           KEEP    set to keep the temp dir (captures, stats JSON, csumd output)
#           CSUMD   the binary (default build/app/csumd/csumd, built if missing)
set -euo pipefail
source "$(dirname "$0")/common.sh"
[[ $(id -u) -eq 0 ]] || exec sudo -E "$0" "$@"

B_MODE=${1:-csum}
shift || true
A_MODE=${A_MODE:-fill}
CSUMD=${CSUMD:-$CSUM_BUILD/app/csumd/csumd}
[[ -x $CSUMD ]] || csum_build Release

tag=$$
WORK=$(mktemp -d /tmp/csumd-loop-virtio.XXXXXX)
OUT=${OUT:-$WORK/out.pcap}
SOCK=$WORK/vhost.sock
B_PID=

cleanup() {
  [[ -n $B_PID ]] && kill "$B_PID" 2>/dev/null && wait "$B_PID" 2>/dev/null
  if [[ -n ${KEEP:-} ]]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

if [[ -z ${IN:-} ]]; then
  IN=$WORK/in.pcap
  CSUMD=$CSUMD CSUM_SOURCE_DIR=$CSUM_ROOT PYTHONPATH=$CSUM_ROOT/tests/e2e /usr/bin/python3 -c '
import sys
from csumd_run import engine_cases, write_pcap
write_pcap(sys.argv[1], [c["zeroed"] for c in engine_cases() if c["zeroed"]])' "$IN"
fi
/usr/bin/python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<IHHiIII",0xA1B2C3D4,2,4,0,0,65535,1))' \
  "$WORK/empty.pcap"

eal() {  # eal PREFIX
  echo -l 0-1 --no-pci --no-huge -m 512 --no-shconf --file-prefix "$1$tag" --log-level=lib.eal:error --no-telemetry
}

# B first: it creates the vhost-user socket A connects to, and exits 4 s after its last packet.
# shellcheck disable=SC2046
"$CSUMD" $(eal loopvhB) --vdev "net_vhost0,iface=$SOCK" \
  --vdev "net_pcap1,rx_pcap=$WORK/empty.pcap,tx_pcap=$OUT" \
  -- --mode "$B_MODE" --idle-exit 4 --stats-json "$WORK/b.json" "$@" >"$WORK/b.out" 2>&1 &
B_PID=$!
for _ in $(seq 100); do [[ -S $SOCK ]] && break; sleep 0.05; done
[[ -S $SOCK ]] || { echo "vhost socket never appeared"; cat "$WORK/b.out"; exit 1; }

echo "--- csumd A ($A_MODE): $IN -> virtio_user"
# shellcheck disable=SC2046
"$CSUMD" $(eal loopvuA) --vdev "net_pcap0,rx_pcap=$IN" --vdev "net_virtio_user0,path=$SOCK,queues=1" \
  -- --mode "$A_MODE" --idle-exit 1 --stats-json "$WORK/a.json" 2>&1 | grep -v '^$'
wait "$B_PID" || true
B_PID=
echo "--- csumd B ($B_MODE): vhost -> $OUT"
grep -v '^$' "$WORK/b.out"
echo "--- tshark on B's output, layer by layer as the tests judge (quoted packets inside ICMP errors are not judged)"
CSUMD=$CSUMD CSUM_SOURCE_DIR=$CSUM_ROOT PYTHONPATH=$CSUM_ROOT/tests/e2e /usr/bin/python3 -c '
import collections, sys
from csumd_run import tshark_layers
names = {0: "bad", 1: "good", 2: "unverified", 3: "not present", 4: "illegal"}
seen = collections.Counter((p, names[s]) for layers in tshark_layers(sys.argv[1]) for p, s in layers)
for (proto, status), n in sorted(seen.items()):
    print(f"  {proto:7} {status:12} {n}")' "$OUT"
