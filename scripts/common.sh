# Sourced by csumd's scripts. Paths, privilege, and DPDK memory arguments.
CSUM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CSUM_BUILD=${CSUM_BUILD:-$CSUM_ROOT/build}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "needs root for: $*" >&2; return 1; fi
}

# EAL memory arguments: hugepages when reserved and mounted, else --no-huge.
csum_eal_mem_args() {
  local free
  free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
  if mountpoint -q /dev/hugepages 2>/dev/null && [[ ${free:-0} -ge 256 ]]; then
    echo "--in-memory"
  else
    echo "--no-huge -m 1024"
  fi
}

# csum_wait_forwarding PID LOG: waits (up to 10 s) for csumd's "forwarding"
# line in LOG; prints LOG and fails if csumd exits first.
csum_wait_forwarding() {
  local pid=$1 log=$2
  for _ in $(seq 200); do
    grep -q "csumd: forwarding" "$log" && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log"; return 1; }
    sleep 0.05
  done
}

csum_build() {
  local type=${1:-Release}; shift || true
  cmake -S "$CSUM_ROOT" -B "$CSUM_BUILD" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
  cmake --build "$CSUM_BUILD" --parallel "$(nproc)"
}

# The comparison scripts (compare-testpmd.sh, compare-offload.sh) share their
# measuring loop in scripts/fwd_measure.py and their captures below.
export PYTHONPATH="$CSUM_ROOT/scripts${PYTHONPATH:+:$PYTHONPATH}"

# csumd-bench profiles of the comparison rows: checksums correct, one flow.
declare -gA CSUM_COMPARE_PROFILE=(
  [tcp64]="--proto tcp4 --size 64"
  [tcp1420]="--proto tcp4 --size 1420"
  [sctp256]="--proto sctp4 --size 256 --chunks 1"
  [sctp1420]="--proto sctp4 --size 1420 --chunks 1"
  [tcp6-78]="--proto tcp6 --size 78"
  [nvme128k]="--proto nvme-c2h --nvme-pdu 131072 --nvme-mss 1448"
)

# csum_write_captures NAME CSUMD_BENCH DIR ROWS: DIR/ROW.pcap (and .info) for
# each comma-separated row; exits 2 on an unknown row.
csum_write_captures() {
  local name=$1 bench=$2 dir=$3 row
  mkdir -p "$dir"
  for row in ${4//,/ }; do
    [[ -n ${CSUM_COMPARE_PROFILE[$row]:-} ]] || { echo "$name: unknown row $row" >&2; exit 2; }
    # shellcheck disable=SC2086
    "$bench" ${CSUM_COMPARE_PROFILE[$row]} --pool 1024 --write-pcap "$dir/$row.pcap" > "$dir/$row.info"
  done
}
