// rte_raw_cksum at -O3 -march=native (flags set in CMakeLists.txt).
#define DPDK_VARIANT native
#include "dpdk_raw_cksum.inc"
