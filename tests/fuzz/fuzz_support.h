// Shared by the fuzz targets: one EAL, one pool, chains cut from the input.
#pragma once

#include <cstddef>
#include <cstdint>

#include <rte_mbuf.h>

namespace csum::fuzz {

// Starts the EAL (no hugepages, no PCI) once and returns a pool whose in-use
// count must be back to zero after every input.
rte_mempool* pool();

// A chain holding data[0..len), cut into segments whose lengths come from
// `shape` (zero-length segments included); nullptr if the pool is dry.
rte_mbuf* make_chain(const uint8_t* data, size_t len, uint32_t shape);

// Aborts (a finding) if any mbuf is still out of the pool.
void check_no_leak();

}  // namespace csum::fuzz
