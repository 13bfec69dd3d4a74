// The planned CRC32C path built with -mavx (VEX encoding). Up to
// x86::kTreeMax bytes the inline short path runs at once: VEX-128 code pays
// no transition for a caller's dirty upper state. Longer calls go out of line
// and clear that state first (vzeroupper), so the kernels we call never see it.
#include <immintrin.h>

#include "dispatch/crc32c_entry.h"

namespace csum::detail {
namespace {

__attribute__((noinline)) uint32_t entry_vex_long(uint32_t plan, const uint8_t* p, size_t len,
                                                  uint32_t crc) noexcept {
    _mm256_zeroupper();
    return ~run_planned(plan, ~crc, p, len);
}

}  // namespace

uint32_t crc32c_entry_vex(uint32_t plan, const uint8_t* p, size_t len, uint32_t crc) noexcept {
    if (len <= x86::kTreeMax && (plan & kPlanShortInline)) [[likely]]
        return ~x86::crc_short_path(~crc, p, len);
    return entry_vex_long(plan, p, len, crc);
}

uint32_t crc32c_raw_vex(uint32_t plan, uint32_t state, const uint8_t* p, size_t len) noexcept {
    _mm256_zeroupper();
    return run_planned(plan, state, p, len);
}

}  // namespace csum::detail
