// The Internet sum along a segment chain with its vector state carried from
// segment to segment (AVX2): each piece adds its 32-byte blocks to the same
// accumulators, so a chain pays one set-up and one horizontal sum, not one
// kernel entry and reduction per segment. A piece at an odd packet position
// has its bytes swapped within words as it is loaded (the sum is taken mod
// 0xFFFF, where a swap is multiplication by 256 and distributes over it).
#include <immintrin.h>

#include <algorithm>

#include <rte_mbuf.h>

#include "inet/inet_kernels.h"
#include "mbuf/inet_mbuf_chain.h"

namespace csum::detail {
namespace {

// Pieces from this length on go to the calibrated kernel, whose set-up they
// amortise (select.h's class 1).
constexpr uint32_t kOwnKernelFrom = 768;
// Vector bytes between reductions: every 32-bit lane add is within
// [-0x10000, 0xFFFE], so 0x4000 per byte in magnitude, and with at most
// 65536 bytes pending the horizontal sum stays within int32.
constexpr uint32_t kReduceAfter = 65536;

// A piece's whole 32-byte blocks into four named accumulators (an array
// would live on the stack); swapped within words when it lies at an odd
// packet position. Returns the bytes not summed (< 32).
template <bool kSwap>
[[gnu::always_inline]] inline const uint8_t* blocks(__m256i& a0, __m256i& a1, __m256i& a2,
                                                    __m256i& a3, const uint8_t* p, uint32_t k,
                                                    __m256i bias, __m256i ones, __m256i sh) {
    auto step = [&](__m256i a, const uint8_t* q) {
        __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
        if constexpr (kSwap) x = _mm256_shuffle_epi8(x, sh);
        return _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_xor_si256(x, bias), ones));
    };
    for (; k >= 128; k -= 128, p += 128) {
        a0 = step(a0, p), a1 = step(a1, p + 32);
        a2 = step(a2, p + 64), a3 = step(a3, p + 96);
    }
    if (k >= 64) a0 = step(a0, p), a1 = step(a1, p + 32), p += 64, k -= 64;
    if (k >= 32) a2 = step(a2, p), p += 32;
    return p;
}

inline int32_t hsum_epi32(__m256i v) {
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return _mm_cvtsi128_si32(x);
}

}  // namespace

bool inet_chain_sum_avx2(const rte_mbuf* s, uint32_t seg_off, uint32_t len, uint32_t pos,
                         uint64_t* even_io, uint64_t* odd_io) noexcept {
    const __m256i bias = _mm256_set1_epi16(static_cast<int16_t>(0x8000));
    const __m256i ones = _mm256_set1_epi16(1);
    const __m256i swap = _mm256_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14, 1,
                                          0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    uint64_t even = *even_io, odd = *odd_io, vec = 0;
    uint32_t pending = 0;
    auto reduce = [&] {
        // Each lane add lost 2 * 0x8000 of bias: 0x4000 per byte summed.
        const int64_t block = int64_t{hsum_epi32(_mm256_add_epi32(_mm256_add_epi32(a0, a1),
                                                                  _mm256_add_epi32(a2, a3)))} +
                              int64_t{0x4000} * pending;
        vec += static_cast<uint64_t>(block);  // 0 <= block < 2^32
        a0 = a1 = a2 = a3 = _mm256_setzero_si256();
        pending = 0;
    };
    while (len > 0) {
        if (s == nullptr) return false;  // chain shorter than pkt_len says
        uint32_t n = s->data_len - seg_off;
        if (n > len) n = len;
        const uint8_t* p = rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off);
        if (n <= kInetShortMax || n >= kOwnKernelFrom) {
            // Short pieces inline (scalar: no vector latency for a
            // reduction), long ones on the calibrated kernel.
            const uint64_t seg = n <= kInetShortMax ? sum_small64(p, n) : inet_sum_active(p, n, 0);
            if (pos & 1)
                odd = add64c(odd, seg);
            else
                even = add64c(even, seg);
        } else {
            const uint32_t k = n & ~31u;
            if (pending + k > kReduceAfter) reduce();
            pending += k;
            p = (pos & 1) ? blocks<true>(a0, a1, a2, a3, p, k, bias, ones, swap)
                          : blocks<false>(a0, a1, a2, a3, p, k, bias, ones, swap);
            if (n & 31) {  // the tail keeps the piece's parity: k is even
                const uint64_t t = sum_tiny64(p, n & 31);
                if (pos & 1)
                    odd = add64c(odd, t);
                else
                    even = add64c(even, t);
            }
        }
        pos += n;
        len -= n;
        seg_off = 0;
        s = s->next;
    }
    if (pending != 0) reduce();
    *even_io = add64c(even, vec);
    *odd_io = odd;
    return true;
}

}  // namespace csum::detail
