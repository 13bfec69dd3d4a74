// The planned CRC32C path built with -mavx (VEX encoding).
#include <immintrin.h>

#include "dispatch/crc32c_entry.h"
#include "dispatch/crc32c_pair.h"

namespace csum::detail {

// vzeroupper first where a ymm/zmm kernel runs (plan_wide_at).
uint32_t crc32c_entry_vex(uint32_t plan, const uint8_t* p, size_t len, uint32_t crc) noexcept {
    if (plan_wide_at(plan, len)) _mm256_zeroupper();
    return ~run_planned(plan, ~crc, p, len);
}

// Up to x86::kTreeMax bytes (under kPlanTree up to x86::kCrossover): VEX-128
// code pays no transition for a caller's dirty upper state, so no vzeroupper.
uint32_t crc32c_short_vex(uint32_t plan, const uint8_t* p, size_t len, uint32_t crc) noexcept {
    if (plan & kPlanShortInline) [[likely]] {
        if (len > x86::kTreeMax) return ~x86::crc_tree_fold(~crc, p, len);
        return ~x86::crc_short_path(~crc, p, len);
    }
    return crc32c_entry_vex(plan, p, len, crc);
}

// The first class's kernel under kPlanFirstXmm, one call from crc32c():
// VEX-128 only, so no vzeroupper. One entry per kernel: the lanes save
// callee-saved registers, which pclmul's calls would pay in a shared one
// (256 B: 57 -> 64 ticks, AMD Zen 1).
uint32_t crc32c_lanes_vex(const uint8_t* p, size_t len, uint32_t crc) noexcept {
    // Below kCrossover crc_3way would first test for the short paths'
    // lengths; this call never has them (65 B 12.2 -> 11.8 ticks, Zen 5).
    if (len < x86::kCrossover) return ~x86::crc_lanes_short(~crc, p, len);
    return ~x86::crc_3way(~crc, p, len);
}
uint32_t crc32c_fold128_vex(const uint8_t* p, size_t len, uint32_t crc) noexcept {
    return ~x86::crc_pclmul(~crc, p, len);
}

static_assert(kPairMin == x86::kTreeMax + 1 && kPairMax == x86::kLanesMax &&
              kClassFrom[0] == x86::kCrossover);

// Two buffers' lanes in one loop (x86::crc_lanes_x2); VEX-128 only.
uint64_t crc32c_pair_vex(const uint8_t* p, const uint8_t* q, size_t len, uint32_t cp,
                         uint32_t cq) noexcept {
    return ~x86::crc_lanes_x2(~cp, p, ~cq, q, len);
}

// Calibration times sse42 and pclmul through this: with no vzeroupper before
// them, as crc32c() runs them.
uint32_t crc32c_raw_vex(uint32_t plan, uint32_t state, const uint8_t* p, size_t len) noexcept {
    if (plan_wide_at(plan, len)) _mm256_zeroupper();
    return run_planned(plan, state, p, len);
}

}  // namespace csum::detail
