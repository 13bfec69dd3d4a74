#!/usr/bin/env bash
# Installs csum to a scratch prefix, then builds a one-file program against it
# twice: with pkg-config, and with find_package(csum).
set -euo pipefail
build=$1 src=$2 extra=${3:-}
prefix=$(mktemp -d) work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/csumd"
test -f "$prefix/include/csum/crc32c.h"
libdir=$(ls -d "$prefix"/lib*/ | head -1)

# libcsum.so exports its public API and nothing else: every defined dynamic
# symbol is a csum:: (or C csum_) name declared in an installed public header.
syms=$(nm -D --defined-only "$libdir/libcsum.so" | awk '{print $3}' | c++filt)
test -n "$syms"
bad=0
while IFS= read -r sym; do
  case $sym in
    csum::*|csum_*) ;;
    *) echo "install: exported symbol outside the API: $sym" >&2; bad=1; continue ;;
  esac
  if grep -Eq '(::detail::|::Impl::|parse_detail|csum::gen::|csum::nvme::)' <<<"$sym"; then
    echo "install: internal symbol exported: $sym" >&2; bad=1; continue
  fi
  name=${sym%%(*}; name=${name%%\[abi:*}; name=${name##*::}  # drop the [abi:cxx11] tag
  if ! grep -rqw -- "$name" "$prefix/include/csum"; then
    echo "install: exported $sym is not declared in a public header" >&2; bad=1
  fi
done <<<"$syms"
test $bad -eq 0
# ISA-L is only the tests' and benchmarks' peer: the library neither links it
# nor asks consumers for it.
if readelf -d "$libdir/libcsum.so" | grep -qi 'NEEDED.*isal' ||
   grep -qi isal "$libdir/pkgconfig/libcsum.pc" "$libdir/cmake/csum/"*.cmake; then
  echo "install: libcsum depends on ISA-L" >&2; exit 1
fi
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046
# shellcheck disable=SC2086
g++ -std=c++20 -O2 $extra "$src/consumer.cpp" -o "$work/consumer" $(pkg-config --cflags --libs libcsum)
"$work/consumer"
test -f "$prefix/include/csum/csum.h"
test -f "$libdir/libcsum_offload.so"
# shellcheck disable=SC2046
# shellcheck disable=SC2086
gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall $extra "$src/consumer_c.c" -o "$work/consumer_c" $(pkg-config --cflags --libs libcsum)
"$work/consumer_c"

mkdir -p "$work/cm"
cat > "$work/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.22)
project(consumer CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(csum REQUIRED)
add_executable(consumer $src/consumer.cpp)
target_link_libraries(consumer PRIVATE csum::csum)
CM
cmake -S "$work/cm" -B "$work/cm/b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_FLAGS="$extra" >/dev/null
cmake --build "$work/cm/b" >/dev/null
"$work/cm/b/consumer"
echo "install: pkg-config (C++ and C11) and find_package consumers built and ran"
