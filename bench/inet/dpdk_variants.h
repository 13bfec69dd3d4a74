// Out-of-line wrappers of DPDK's checksum code, one per set of build flags.
#pragma once

#include <cstddef>
#include <cstdint>

struct rte_mbuf;

uint16_t dpdk_raw_cksum_native(const void* p, size_t n);
uint16_t dpdk_raw_cksum_corei7(const void* p, size_t n);
uint16_t dpdk_raw_cksum_mbuf_native(const rte_mbuf* m, uint32_t off, uint32_t len);
uint16_t dpdk_raw_cksum_mbuf_corei7(const rte_mbuf* m, uint32_t off, uint32_t len);
