#!/usr/bin/env bash
# af_packet over veth, by hand: csumd as a bump in the wire between two
# network namespaces (the topology of tests/loopback/test_afpacket_veth.py).
#
#   ns A: va 10.77.0.1 <-veth-> va_dp [csumd port 0 <-> port 1] vb_dp <-veth-> vb 10.77.0.2 :ns B
#
# usage: scripts/loopback-afpacket.sh [MODE [csumd options...]]
#   MODE   io | verify | fill | csum (default csum)
#   e.g.   scripts/loopback-afpacket.sh csum --trusted-ports 0,1
#          scripts/loopback-afpacket.sh io          # the receiving kernel rejects everything
# env:     BYTES   TCP transfer size A -> B (default 20M, as head -c takes it)
#          KEEP    set to keep the temp dir (captures, stats JSON, csumd output)
#          CSUMD   the binary (default build/app/csumd/csumd, built if missing)
# Prints the transfer's outcome, the kernels' checksum error counters, and
# csumd's stats. Everything is torn down on exit, also on Ctrl-C.
set -euo pipefail
source "$(dirname "$0")/common.sh"
[[ $(id -u) -eq 0 ]] || exec sudo -E "$0" "$@"

MODE=${1:-csum}
shift || true
BYTES=${BYTES:-20M}
CSUMD=${CSUMD:-$CSUM_BUILD/app/csumd/csumd}
[[ -x $CSUMD ]] || csum_build Release
PEER=(/usr/bin/python3 "$CSUM_ROOT/tests/loopback/netns_peer.py")

tag=$(($$ % 100000))
NS_A=csumdA$tag NS_B=csumdB$tag
VA=cva$tag VB=cvb$tag VA_DP=cva${tag}d VB_DP=cvb${tag}d
WORK=$(mktemp -d /tmp/csumd-loop-afp.XXXXXX)
CSUMD_PID=

cleanup() {
  [[ -n $CSUMD_PID ]] && kill "$CSUMD_PID" 2>/dev/null && wait "$CSUMD_PID" 2>/dev/null
  ip link del "$VA_DP" 2>/dev/null || true
  ip link del "$VB_DP" 2>/dev/null || true
  ip netns del "$NS_A" 2>/dev/null || true
  ip netns del "$NS_B" 2>/dev/null || true
  if [[ -n ${KEEP:-} ]]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# No IPv6 noise, no segmentation offloads (frames must fit the af_packet ring);
# TX checksum offload stays on, so the kernels send CHECKSUM_PARTIAL packets.
quiet() {  # quiet DEV [NS]
  local x=(); [[ -n ${2:-} ]] && x=(ip netns exec "$2")
  "${x[@]}" sysctl -q -w "net.ipv6.conf.$1.disable_ipv6=1"
  "${x[@]}" ethtool -K "$1" tso off gso off gro off
}

for side in A B; do
  if [[ $side == A ]]; then ns=$NS_A dev=$VA dp=$VA_DP ip=10.77.0.1; else ns=$NS_B dev=$VB dp=$VB_DP ip=10.77.0.2; fi
  ip netns add "$ns"
  ip netns exec "$ns" ip link set lo up
  ip link add "$dp" type veth peer name "$dev"
  quiet "$dp"
  ip link set "$dp" promisc on up
  ip link set "$dev" netns "$ns"
  quiet "$dev" "$ns"
  ip netns exec "$ns" ip addr add "$ip/24" dev "$dev"
  ip netns exec "$ns" ip link set "$dev" up
done
echo "topology: $NS_A:$VA <-> $VA_DP [csumd] $VB_DP <-> $VB:$NS_B"

"$CSUMD" -l 0-1 --no-pci --no-huge -m 512 --no-shconf --file-prefix "loopafp$tag" \
  --log-level=lib.eal:error --no-telemetry \
  --vdev "net_af_packet0,iface=$VA_DP" --vdev "net_af_packet1,iface=$VB_DP" \
  -- --mode "$MODE" --stats-json "$WORK/stats.json" "$@" >"$WORK/csumd.out" 2>&1 &
CSUMD_PID=$!
csum_wait_forwarding "$CSUMD_PID" "$WORK/csumd.out" || exit 1
cat "$WORK/csumd.out"

echo "--- UDP A -> B, echoed back"
ip netns exec "$NS_B" "${PEER[@]}" udp-echo 7000 2 >/dev/null &
sleep 0.3
ip netns exec "$NS_A" "${PEER[@]}" udp-ping 10.77.0.2 7000 2 0.5 1,17,333,1000,1471,1472
wait $!

echo "--- TCP A -> B, $BYTES"
head -c "$BYTES" /dev/urandom >"$WORK/data"
echo "sent   sha256 $(sha256sum <"$WORK/data" | cut -d' ' -f1)"
ip netns exec "$NS_B" "${PEER[@]}" tcp-sink 7001 10 >"$WORK/sink.out" &
SINK=$!
sleep 0.3
ip netns exec "$NS_A" "${PEER[@]}" tcp-send 10.77.0.2 7001 "$WORK/data" 5
if ! wait "$SINK"; then echo "sink failed"; fi
echo "sink: $(tail -1 "$WORK/sink.out")"

for ns in "$NS_A" "$NS_B"; do
  echo "--- nstat $ns"
  ip netns exec "$ns" nstat -asz TcpInCsumErrors UdpInCsumErrors TcpInErrs IpInHdrErrors
done

kill -TERM "$CSUMD_PID"
wait "$CSUMD_PID" || true
CSUMD_PID=
echo "--- csumd"
sed -n '/Forward statistics/,$p' "$WORK/csumd.out"
