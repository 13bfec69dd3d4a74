// The CRC32C plan word (select.h's kPlan* bits and kernel per length class),
// read with one relaxed load. Apart from crc32c_entry.h so that code built
// without the kernels' ISA flags can read the plan.
#pragma once

#include <atomic>
#include <cstdint>

#include "csum/crc32c.h"
#include "dispatch/select.h"

namespace csum::detail {

// crc32c(): the first class (up to kClassFrom[1]) runs an xmm-only kernel,
// sse42's crc32 lanes or pclmul's fold (the plan's class-0 id), so calls
// past the short paths and below that edge go straight to it
// (crc32c_lanes_vex, crc32c_fold128_vex): no class decode, no vzeroupper
// (256 B on the lanes: 1.14x -> 1.02x the kernel called directly, Zen 5).
inline constexpr uint32_t kPlanFirstXmm = 1u << 28;
// The first class's kernel id (plan_pack's bits 0..3).
inline constexpr uint32_t kPlanClass0 = 0xFu;
// Under kPlanFirstXmm: whether the first class runs the lanes (else pclmul).
inline bool plan_first_lanes(uint32_t plan) {
    return (plan & kPlanClass0) == static_cast<uint32_t>(Crc32cKernel::sse42);
}
// Whether crc32c() runs the first class on the lanes from its VEX entry,
// short paths inline (crc32c_pair's condition): plan_first_lanes with the
// flags it needs, in one compare.
inline bool plan_vex_lanes(uint32_t plan) {
    constexpr uint32_t kWant =
        kPlanVex | kPlanShortInline | kPlanFirstXmm | static_cast<uint32_t>(Crc32cKernel::sse42);
    return (plan & (kWant | kPlanClass0)) == kWant;
}

// Short paths: 65..127 B take the tree fold too, not the crc32 lanes. Set
// where calibration timed the fold faster (AMD Zen 1, whose crc32 runs one
// per 3 cycles: 96 B 30 ticks against 50); Zen 5 keeps the lanes.
inline constexpr uint32_t kPlanTree = 1u << 29;

// crc32c_pair from kAvx512ShortMin bytes on: the avx512 kernel's
// one-accumulator fold on both buffers, not the crc32 lanes. Set where
// calibration timed pairs of it faster in a burst (crc32c_pair_report());
// AMD Zen 5 at 222 B: 11.2 against 13.8 ticks a buffer.
inline constexpr uint32_t kPlanPairFold = 1u << 30;

// Whether the kernel for len uses ymm or zmm registers: crc32c()'s entry
// runs a vzeroupper before those only, so that callers' dirty upper state
// does not slow them. One call of VEX-128 code (sse42, pclmul, the short
// paths) pays no transition, and on AMD Zen 1 a vzeroupper costs 5-12 ticks
// a call. The chain walks keep theirs: on Zen 1, SCTP 256 B in 2 segments
// cost 150 ticks without it against 131 (docs/perf-crc32c.md).
inline bool plan_wide_at(uint32_t plan, size_t len) {
    return plan_kernel(plan, len) >= static_cast<uint8_t>(Crc32cKernel::vpclmul_avx2);
}

extern std::atomic<uint32_t> g_crc_plan;
uint32_t crc32c_plan_init() noexcept;

inline uint32_t crc32c_plan() noexcept {
    const uint32_t p = g_crc_plan.load(std::memory_order_relaxed);
    return p != 0 ? p : crc32c_plan_init();
}

}  // namespace csum::detail
