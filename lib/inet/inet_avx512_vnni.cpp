// AVX-512 Internet sum with vpdpwssd (AVX512_VNNI): the multiply-add and
// the accumulate in one op. See inet_avx512.cpp.
// Built whole with AVX-512 flags: GCC's false warning off for the file.
#include "simd/target_region.h"
CSUM_AVX512_INTRINSIC_WARNINGS_OFF
#include "inet/inet_avx512_body.h"

namespace csum::detail {

uint32_t inet_sum_avx512_vnni(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    return sum512<true>(p, len, sum);
}

}  // namespace csum::detail
