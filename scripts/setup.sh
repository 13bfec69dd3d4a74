#!/usr/bin/env bash
# Installs every Debian 12 package csumd's build, tests, benchmarks and demo
# need, then prepares DPDK's runtime (hugepages). Idempotent; run as root.
set -euo pipefail

log() { printf '[setup] %s\n' "$*"; }

if [[ $(id -u) -ne 0 ]]; then
  echo "setup.sh: must run as root (apt-get, sysctl, mount)" >&2
  exit 1
fi

PACKAGES=(
  dpdk dpdk-dev libdpdk-dev libisal-dev
  build-essential g++ clang libclang-rt-14-dev lld cmake ninja-build pkg-config
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  tshark python3 python3-scapy python3-matplotlib tcpdump iproute2 ethtool
  clang-format procps gcovr
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
  log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # tshark asks whether non-root users may capture; answer once, no prompt.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  log "all ${#PACKAGES[@]} packages already installed"
fi

# DPDK runtime: 2 MB hugepages when the kernel lets us, else tests use --no-huge.
want_pages=512
have_pages=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)
if ((have_pages < want_pages)); then
  if sysctl -q -w vm.nr_hugepages=$want_pages 2>/dev/null; then
    log "reserved $(cat /proc/sys/vm/nr_hugepages) x 2 MB hugepages"
  else
    log "could not reserve hugepages; DPDK runs fall back to --no-huge / --in-memory"
  fi
else
  log "hugepages already reserved: $have_pages"
fi
if ! mountpoint -q /dev/hugepages 2>/dev/null; then
  mkdir -p /dev/hugepages
  if mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null; then
    log "mounted hugetlbfs at /dev/hugepages"
  else
    log "could not mount hugetlbfs; csumd's scripts use --no-huge instead"
  fi
else
  log "hugetlbfs already mounted at /dev/hugepages"
fi
log "done"
