// AVX-512 kernels: vpmaddwd against ones adds each pair of 16-bit words into
// a 32-bit lane, as the AVX2 kernel does (words biased by 0x8000 with one xor,
// the bias added back exactly per block), on zmm: three ops per 64 bytes,
// against the AVX2 kernel's three per 32. With AVX512_VNNI, vpdpwssd does the
// multiply-add and the accumulate in one op: two per 64 bytes. The tail
// (< 64 bytes) is one masked load: masked-off bytes read as zero, and an odd
// last byte lands as the low byte of a word, as the sum requires.
// Built whole with AVX-512 flags: GCC's false warning off for the file.
#include "simd/target_region.h"
CSUM_AVX512_INTRINSIC_WARNINGS_OFF
#include "inet/inet_avx512_body.h"

namespace csum::detail {

uint32_t inet_sum_avx512(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    return sum512<false>(p, len, sum);
}

}  // namespace csum::detail
