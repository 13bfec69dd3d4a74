// The CRC32C plan word (select.h's kPlan* bits and kernel per length class),
// read with one relaxed load. Apart from crc32c_entry.h so that code built
// without the kernels' ISA flags can read the plan.
#pragma once

#include <atomic>
#include <cstdint>

#include "dispatch/select.h"

namespace csum::detail {

extern std::atomic<uint32_t> g_crc_plan;
uint32_t crc32c_plan_init() noexcept;

inline uint32_t crc32c_plan() noexcept {
    const uint32_t p = g_crc_plan.load(std::memory_order_relaxed);
    return p != 0 ? p : crc32c_plan_init();
}

}  // namespace csum::detail
