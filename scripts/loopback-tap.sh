#!/usr/bin/env bash
# net_tap against a namespace's kernel, by hand (the topology of
# tests/loopback/test_tap.py):
#
#   ns T: kernel 10.78.0.1 <-> tap <-> csumd port 0 (net_tap) <-> port 1 (net_pcap: IN -> , -> out.pcap)
#
# A persistent tap is made in T first; csumd runs inside T and attaches to it.
#
# usage: scripts/loopback-tap.sh [MODE [csumd options...]]
#   MODE   io | verify | fill | csum (default fill)
#   e.g.   scripts/loopback-tap.sh fill                   # zeroed packets in, the tap offload fills them
#          scripts/loopback-tap.sh fill --no-hw-offload   # the same, filled in software
#          scripts/loopback-tap.sh io                     # zeroed packets reach the kernel: dropped
# env:     IN      pcap replayed towards the kernel (default: UDP datagrams to
#                  10.78.0.1:7000 and TCP SYNs to :7001, every checksum zero,
#                  from 10.78.0.2 / 02:00:4e:00:00:02 to 02:00:4e:00:00:01)
#          OUT     where port 1 writes what the kernel sent (default: kept in a temp dir, summarised)
#          KEEP    set to keep the temp dir (captures, stats JSON, csumd output)
#          CSUMD   the binary (default build/app/csumd/csumd, built if missing)
# Kernel -> csumd: T also sends UDP and a TCP SYN to 10.78.0.2 (csumd's pcap side).
set -euo pipefail
source "$(dirname "$0")/common.sh"
[[ $(id -u) -eq 0 ]] || exec sudo -E "$0" "$@"

MODE=${1:-fill}
shift || true
CSUMD=${CSUMD:-$CSUM_BUILD/app/csumd/csumd}
[[ -x $CSUMD ]] || csum_build Release
PY=/usr/bin/python3
LOOP=$CSUM_ROOT/tests/loopback
PEER=("$PY" "$LOOP/netns_peer.py")

tag=$(($$ % 100000))
NS=csumdT$tag TAP=ctap$tag
T_MAC=02:00:4e:00:00:01 PEER_MAC=02:00:4e:00:00:02
WORK=$(mktemp -d /tmp/csumd-loop-tap.XXXXXX)
OUT=${OUT:-$WORK/out.pcap}
CSUMD_PID=

cleanup() {
  [[ -n $CSUMD_PID ]] && kill "$CSUMD_PID" 2>/dev/null && wait "$CSUMD_PID" 2>/dev/null
  ip netns del "$NS" 2>/dev/null || true  # takes the tap with it
  if [[ -n ${KEEP:-} ]]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
in_t() { ip netns exec "$NS" "$@"; }

if [[ -z ${IN:-} ]]; then
  IN=$WORK/in.pcap
  "$PY" "$LOOP/netns_topo.py" tap-zeroed-pcap "$IN" 7000 7001
fi

ip netns add "$NS"
in_t ip link set lo up
in_t sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
in_t ip tuntap add dev "$TAP" mode tap multi_queue
in_t ip addr add 10.78.0.1/24 dev "$TAP"
in_t ip link set "$TAP" address "$T_MAC" up
echo "topology: $NS: kernel 10.78.0.1 <-> $TAP <-> csumd net_tap0 <-> net_pcap1 ($IN -> $OUT)"

# Listeners first: port 1 replays IN as soon as csumd starts. Background jobs
# use ip netns exec directly (it execs), so $! is the program itself.
ip netns exec "$NS" "${PEER[@]}" udp-recv 7000 3 >"$WORK/udp.out" &
UDP=$!
ip netns exec "$NS" "${PEER[@]}" tcp-sink 7001 3 >/dev/null &
sleep 0.3

ip netns exec "$NS" "$CSUMD" -l 0-1 --no-pci --no-huge -m 512 --no-shconf --file-prefix "looptap$tag" \
  --log-level=lib.eal:error --no-telemetry \
  --vdev "net_tap0,iface=$TAP,mac=$T_MAC" --vdev "net_pcap1,rx_pcap=$IN,tx_pcap=$OUT" \
  -- --mode "$MODE" --stats-json "$WORK/stats.json" "$@" >"$WORK/csumd.out" 2>&1 &
CSUMD_PID=$!
csum_wait_forwarding "$CSUMD_PID" "$WORK/csumd.out" || exit 1
grep '^csumd:' "$WORK/csumd.out"
# The PMD set the tap's MAC, which flushed the neighbour table.
in_t ip neigh replace 10.78.0.2 lladdr "$PEER_MAC" nud permanent dev "$TAP"

echo "--- kernel -> csumd: UDP and a TCP SYN from T to 10.78.0.2"
in_t "${PEER[@]}" udp-send 10.78.0.2 9 1,17,333,1000,1472
in_t "${PEER[@]}" tcp-connect 10.78.0.2 80 1.5 || true

wait "$UDP" || true
echo "--- csumd -> kernel: datagrams delivered to 10.78.0.1:7000: $(tail -1 "$WORK/udp.out")"
echo "--- nstat $NS"
in_t nstat -asz TcpInCsumErrors UdpInCsumErrors IpInHdrErrors TcpInSegs UdpInDatagrams

kill -TERM "$CSUMD_PID"
wait "$CSUMD_PID" || true
CSUMD_PID=
echo "--- csumd"
sed -n '/Forward statistics/,$p' "$WORK/csumd.out"
echo "--- tshark on what the kernel sent out of the tap ($OUT)"
tshark -n -r "$OUT" -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE -o udp.check_checksum:TRUE 2>/dev/null
