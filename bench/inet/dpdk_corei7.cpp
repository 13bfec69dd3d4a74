// rte_raw_cksum with the flags libdpdk.pc gives users: -march=corei7.
#define DPDK_VARIANT corei7
#include "dpdk_raw_cksum.inc"
