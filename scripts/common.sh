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

csum_build() {
  local type=${1:-Release}; shift || true
  cmake -S "$CSUM_ROOT" -B "$CSUM_BUILD" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
  cmake --build "$CSUM_BUILD" --parallel "$(nproc)"
}
