// AVX2 kernel: each 32-bit lane takes the low and the high 16-bit word of a
// dword in separate accumulators, so lanes cannot overflow within a block;
// four accumulator pairs keep the adds off one dependency chain.
#include <immintrin.h>

#include "inet/inet_kernels.h"

namespace csum::detail {
namespace {

// Per block a lane of each of the 8 accumulators gains at most
// (kBlockIters + 3) * 0xFFFF, and their sum must still fit 32 bits.
constexpr size_t kBlockIters = 8000;
static_assert(8 * (kBlockIters + 3) * 0xFFFFull < (1ull << 32));

inline uint64_t hsum_epu32(__m256i v) {
    const __m256i lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v));
    const __m256i hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1));
    const __m256i s = _mm256_add_epi64(lo, hi);
    const __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    return uint64_t(_mm_cvtsi128_si64(t)) + uint64_t(_mm_extract_epi64(t, 1));
}

}  // namespace

uint32_t inet_sum_avx2(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    if (len < 64) return sum_short(p, len, sum);
    const __m256i mask = _mm256_set1_epi32(0xFFFF);
    uint64_t total = sum;
    while (len >= 32) {
        __m256i l0 = _mm256_setzero_si256(), h0 = l0, l1 = l0, h1 = l0;
        __m256i l2 = l0, h2 = l0, l3 = l0, h3 = l0;
        size_t iters = kBlockIters;
        for (; len >= 128 && iters > 0; --iters, p += 128, len -= 128) {
            const auto* v = reinterpret_cast<const __m256i*>(p);
            const __m256i x0 = _mm256_loadu_si256(v);
            const __m256i x1 = _mm256_loadu_si256(v + 1);
            const __m256i x2 = _mm256_loadu_si256(v + 2);
            const __m256i x3 = _mm256_loadu_si256(v + 3);
            l0 = _mm256_add_epi32(l0, _mm256_and_si256(x0, mask));
            h0 = _mm256_add_epi32(h0, _mm256_srli_epi32(x0, 16));
            l1 = _mm256_add_epi32(l1, _mm256_and_si256(x1, mask));
            h1 = _mm256_add_epi32(h1, _mm256_srli_epi32(x1, 16));
            l2 = _mm256_add_epi32(l2, _mm256_and_si256(x2, mask));
            h2 = _mm256_add_epi32(h2, _mm256_srli_epi32(x2, 16));
            l3 = _mm256_add_epi32(l3, _mm256_and_si256(x3, mask));
            h3 = _mm256_add_epi32(h3, _mm256_srli_epi32(x3, 16));
        }
        if (iters > 0) {  // last block: up to three 32-byte steps remain
            for (; len >= 32; p += 32, len -= 32) {
                const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
                l0 = _mm256_add_epi32(l0, _mm256_and_si256(x, mask));
                h0 = _mm256_add_epi32(h0, _mm256_srli_epi32(x, 16));
            }
        }
        const __m256i s =
            _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(l0, h0), _mm256_add_epi32(l1, h1)),
                             _mm256_add_epi32(_mm256_add_epi32(l2, h2), _mm256_add_epi32(l3, h3)));
        total = add64c(total, hsum_epu32(s));
    }
    return sum_short(p, len, fold64(total));
}

}  // namespace csum::detail
