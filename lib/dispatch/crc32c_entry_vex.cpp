// The planned CRC32C path built with -mavx (VEX encoding). vzeroupper on
// entry: callers' dirty upper state must not leak into the kernels we call.
#include <immintrin.h>

#include "dispatch/crc32c_entry.h"

namespace csum::detail {

uint32_t crc32c_entry_vex(uint32_t plan, const uint8_t* p, size_t len, uint32_t crc) noexcept {
    _mm256_zeroupper();
    return ~run_planned(plan, ~crc, p, len);
}

uint32_t crc32c_raw_vex(uint32_t plan, uint32_t state, const uint8_t* p, size_t len) noexcept {
    _mm256_zeroupper();
    return run_planned(plan, state, p, len);
}

}  // namespace csum::detail
