// CRC32Cs for runs of packets whose CRCs are independent (SCTP), where
// throughput counts, not one CRC's latency. Two of one length at once: under
// kPlanPairFold, from kAvx512ShortMin bytes (plan_folds_runs), the avx512
// kernel's short fold of each in one call; else the sse42 kernel's crc32
// lanes of both in one loop (x86::crc_lanes_x2) when the plan runs those
// lanes at that length; else two crc32c() calls. One alone: the short fold
// under kPlanPairFold, else crc32c(). Readable without the kernels' ISA
// flags.
#pragma once

#include <cstddef>
#include <cstdint>

#include "crc32c/crc32c_kernels.h"
#include "csum/crc32c.h"
#include "dispatch/crc32c_plan.h"

namespace csum {
namespace detail {

// The lengths crc32c() runs on the three crc32 lanes (x86::kTreeMax <
// len <= x86::kLanesMax, under kPlanShortInline and kPlanFirstXmm on sse42).
inline constexpr size_t kPairMin = 65, kPairMax = 287;
static_assert(kPairMax < kAvx512PairEnd);

// Whether a run's CRC of len bytes takes the avx512 kernel's short fold
// (crc32c_avx512_short): under kPlanPairFold, kAvx512ShortMin..kPairMax.
inline bool plan_folds_runs(uint32_t plan, size_t len) {
    return (plan & kPlanPairFold) && len - kAvx512ShortMin <= kPairMax - kAvx512ShortMin;
}

uint64_t crc32c_pair_vex(const uint8_t* p, const uint8_t* q, size_t len, uint32_t cp,
                         uint32_t cq) noexcept;

}  // namespace detail

// crc32c(p, len, crc), one CRC of a run's. Out of line, one call as
// crc32c() is: inlined, its test cost the SCTP chain loop ~2.5 ticks a
// packet (256 B in 2 segments, Zen 5).
uint32_t crc32c_in_run(const void* p, size_t len, uint32_t crc) noexcept;

// crc32c(p, len, cp) in the low half, crc32c(q, len, cq) in the high.
inline uint64_t crc32c_pair(const void* p, const void* q, size_t len, uint32_t cp,
                            uint32_t cq) noexcept {
    const uint32_t plan = detail::g_crc_plan.load(std::memory_order_relaxed);
    if (detail::plan_folds_runs(plan, len)) {
        // One call for both: two cost 0.6 ticks a packet (SCTP 256 B, Zen 5).
        const uint64_t r = detail::crc32c_avx512_pair(~cp, static_cast<const uint8_t*>(p), ~cq,
                                                      static_cast<const uint8_t*>(q), len);
        return ~r;
    }
    // Under kPlanTree crc32c() folds below 128 B: no pair there.
    const bool tree = (plan & detail::kPlanTree) && len < detail::kClassFrom[0];
    if (detail::plan_vex_lanes(plan) && !tree &&
        len - detail::kPairMin <= detail::kPairMax - detail::kPairMin)
        return detail::crc32c_pair_vex(static_cast<const uint8_t*>(p),
                                       static_cast<const uint8_t*>(q), len, cp, cq);
    return crc32c(p, len, cp) | static_cast<uint64_t>(crc32c(q, len, cq)) << 32;
}

}  // namespace csum
