// The Internet sum along a segment chain with its vector state carried from
// segment to segment (AVX2): each piece adds its 32-byte blocks to the same
// accumulators, so a chain pays one set-up and one horizontal sum, not one
// kernel entry and reduction per segment. A piece at an odd packet position
// has its bytes swapped within words as it is loaded (the sum is taken mod
// 0xFFFF, where a swap is multiplication by 256 and distributes over it).
#include <immintrin.h>

#include "mbuf/inet_mbuf_chain.h"
#include "mbuf/inet_mbuf_walk.h"

namespace csum::detail {
namespace {

struct Avx2 {
    using V = __m256i;
    // Vector bytes between reductions: every 32-bit lane add is within
    // [-0x10000, 0xFFFE], so 0x4000 per byte in magnitude, and with at most
    // 65536 bytes pending the horizontal sum stays within int32.
    static constexpr uint32_t kReduceAfter = 65536;
    static constexpr uint32_t kTailMask = 31;  // whole 32-byte blocks only
    static uint32_t counted(uint32_t n) { return n & ~31u; }
    static V zero() { return _mm256_setzero_si256(); }
    static V add(V a, V b) { return _mm256_add_epi32(a, b); }
    static int32_t hsum(V v) {
        __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
        x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
        return _mm_cvtsi128_si32(x);
    }

    const V bias = _mm256_set1_epi16(static_cast<int16_t>(0x8000));
    const V ones = _mm256_set1_epi16(1);
    const V sh = _mm256_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14, 1, 0, 3, 2,
                                  5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);

    // A piece's whole 32-byte blocks into four named accumulators (an array
    // would live on the stack). Returns where the bytes not summed (< 32) start.
    template <bool kSwap>
    [[gnu::always_inline]] const uint8_t* piece(V& a0, V& a1, V& a2, V& a3, const uint8_t* p,
                                                uint32_t n) const {
        auto step = [&](V a, const uint8_t* q) {
            V x = _mm256_loadu_si256(reinterpret_cast<const V*>(q));
            if constexpr (kSwap) x = _mm256_shuffle_epi8(x, sh);
            return _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_xor_si256(x, bias), ones));
        };
        uint32_t k = n & ~31u;
        for (; k >= 128; k -= 128, p += 128) {
            a0 = step(a0, p), a1 = step(a1, p + 32);
            a2 = step(a2, p + 64), a3 = step(a3, p + 96);
        }
        if (k >= 64) a0 = step(a0, p), a1 = step(a1, p + 32), p += 64, k -= 64;
        if (k >= 32) a2 = step(a2, p), p += 32;
        return p;
    }
};

}  // namespace

bool inet_chain_sum_avx2(const rte_mbuf* s, uint32_t seg_off, uint32_t len, uint32_t pos,
                         uint64_t* even, uint64_t* odd) noexcept {
    return chain_walk<Avx2>(s, seg_off, len, pos, even, odd);
}

}  // namespace csum::detail
