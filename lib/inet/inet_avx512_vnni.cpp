// AVX-512 Internet sum with vpdpwssd (AVX512_VNNI): the multiply-add and
// the accumulate in one op. See inet_avx512.cpp.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "inet/inet_avx512_body.h"

namespace csum::detail {

uint32_t inet_sum_avx512_vnni(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    return sum512<true>(p, len, sum);
}

}  // namespace csum::detail
