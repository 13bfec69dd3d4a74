// AVX2 kernel: vpmaddwd against ones adds each pair of 16-bit words into a
// 32-bit lane. It treats words as signed, so they are first biased by
// 0x8000 (one xor) and the bias is added back exactly per block. Three
// vector ops per 32 bytes, four accumulators to keep the adds independent.
#include <immintrin.h>

#include <algorithm>

#include "inet/inet_kernels.h"

namespace csum::detail {
namespace {

// Each lane add is within [-0x10000, 0xFFFE]. Over a block of at most
// kBlockIters + 3 adds per accumulator, all 4 x 8 lanes together stay within
// int32, so the horizontal sum is a short 32-bit one.
constexpr size_t kBlockIters = 1000;
static_assert(32 * (kBlockIters + 3) * 0x10000ull < (1ull << 31));

inline int32_t hsum_epi32(__m256i v) {
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return _mm_cvtsi128_si32(x);
}

inline __m256i pair_sums(const uint8_t* p, __m256i bias, __m256i ones) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm256_madd_epi16(_mm256_xor_si256(x, bias), ones);
}

}  // namespace

uint32_t inet_sum_avx2(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    if (len < 64) return sum_short(p, len, sum);
    const __m256i bias = _mm256_set1_epi16(static_cast<int16_t>(0x8000));
    const __m256i ones = _mm256_set1_epi16(1);
    uint64_t total = sum;
    while (len >= 32) {
        __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
        const uint8_t* const start = p;
        const size_t n = std::min(len / 128, kBlockIters);
        const uint8_t* const end = p + n * 128;
        len -= n * 128;
        for (; p != end; p += 128) {
            a0 = _mm256_add_epi32(a0, pair_sums(p, bias, ones));
            a1 = _mm256_add_epi32(a1, pair_sums(p + 32, bias, ones));
            a2 = _mm256_add_epi32(a2, pair_sums(p + 64, bias, ones));
            a3 = _mm256_add_epi32(a3, pair_sums(p + 96, bias, ones));
        }
        if (len < 128) {  // last block: up to three 32-byte steps remain
            for (; len >= 32; p += 32, len -= 32)
                a0 = _mm256_add_epi32(a0, pair_sums(p, bias, ones));
        }
        const __m256i s = _mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3));
        // Each 32-bit lane add lost 2 * 0x8000: 0x4000 per byte summed.
        const int64_t block = int64_t{hsum_epi32(s)} + int64_t{0x4000} * (p - start);
        // 0 <= block < 2^33, so plain adds cannot wrap for any real length.
        total += static_cast<uint64_t>(block);
    }
    // The tail's sum starts from 0, so it need not wait for the vector sum.
    return fold64(total + sum_short(p, len, 0));
}

}  // namespace csum::detail
