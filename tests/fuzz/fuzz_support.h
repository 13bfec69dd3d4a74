// Shared by the fuzz targets: one EAL, one pool, chains cut from the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <rte_mbuf.h>

namespace csum::fuzz {

// Starts the EAL (no hugepages, no PCI) once and returns a pool whose in-use
// count must be back to zero after every input.
rte_mempool* pool();

// A chain holding data[0..len), cut into segments whose lengths come from
// `shape` (zero-length segments included); nullptr if the pool is dry.
rte_mbuf* make_chain(const uint8_t* data, size_t len, uint32_t shape);

// A pool of mbufs large enough for any frame in one segment (the linear
// twin of a chain); shares the EAL with pool().
rte_mempool* linear_pool();

// data[0..len) cut as seg says (lengths summing to len, zero-length ones
// included), every segment starting at `headroom`; from `mp` (pool() if
// null). nullptr if the pool is dry.
rte_mbuf* make_chain_split(const uint8_t* data, size_t len, const uint32_t* seg, size_t n_seg,
                           uint16_t headroom, rte_mempool* mp = nullptr);

// The bytes of a chain, in order.
void chain_bytes(const rte_mbuf* m, std::vector<uint8_t>* out);

// Aborts (a finding) if any mbuf is still out of either pool.
void check_no_leak();

}  // namespace csum::fuzz
