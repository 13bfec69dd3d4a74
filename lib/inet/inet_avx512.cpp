// AVX-512 kernel: the low and the high 16-bit word of each dword go to
// separate 32-bit accumulators (no bias to correct), four pairs, 256 bytes a
// step, and a masked load for the tail. Only dispatched when CPUID reports
// avx512f, dq, bw and vl; the development VM has none, so it has not run
// there (its test skips).
// GCC 12's AVX-512 intrinsics use _mm512_undefined_*() and trip a false
// -Wmaybe-uninitialized when inlined (GCC PR105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "inet/inet_kernels.h"

namespace csum::detail {
namespace {

// As in the AVX2 kernel: 8 accumulators' lanes must sum within 32 bits.
constexpr size_t kBlockIters = 8000;
static_assert(8 * (kBlockIters + 4) * 0xFFFFull < (1ull << 32));

inline uint64_t hsum_epu32(__m512i v) {
    const __m512i lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(v));
    const __m512i hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(v, 1));
    return static_cast<uint64_t>(_mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi)));
}

}  // namespace

uint32_t inet_sum_avx512(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    if (len < 64) return sum_short(p, len, sum);
    const __m512i mask = _mm512_set1_epi32(0xFFFF);
    uint64_t total = sum;
    while (len > 0) {
        __m512i l0 = _mm512_setzero_si512(), h0 = l0, l1 = l0, h1 = l0;
        __m512i l2 = l0, h2 = l0, l3 = l0, h3 = l0;
        size_t iters = kBlockIters;
        for (; len >= 256 && iters > 0; --iters, p += 256, len -= 256) {
            const __m512i x0 = _mm512_loadu_si512(p);
            const __m512i x1 = _mm512_loadu_si512(p + 64);
            const __m512i x2 = _mm512_loadu_si512(p + 128);
            const __m512i x3 = _mm512_loadu_si512(p + 192);
            l0 = _mm512_add_epi32(l0, _mm512_and_si512(x0, mask));
            h0 = _mm512_add_epi32(h0, _mm512_srli_epi32(x0, 16));
            l1 = _mm512_add_epi32(l1, _mm512_and_si512(x1, mask));
            h1 = _mm512_add_epi32(h1, _mm512_srli_epi32(x1, 16));
            l2 = _mm512_add_epi32(l2, _mm512_and_si512(x2, mask));
            h2 = _mm512_add_epi32(h2, _mm512_srli_epi32(x2, 16));
            l3 = _mm512_add_epi32(l3, _mm512_and_si512(x3, mask));
            h3 = _mm512_add_epi32(h3, _mm512_srli_epi32(x3, 16));
        }
        if (iters > 0) {  // last block: up to three full vectors and a tail
            while (len > 0) {
                const size_t n = len < 64 ? len : 64;
                const __mmask64 m = n == 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
                const __m512i x = _mm512_maskz_loadu_epi8(m, p);
                l0 = _mm512_add_epi32(l0, _mm512_and_si512(x, mask));
                h0 = _mm512_add_epi32(h0, _mm512_srli_epi32(x, 16));
                p += n;
                len -= n;
            }
        }
        const __m512i s =
            _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(l0, h0), _mm512_add_epi32(l1, h1)),
                             _mm512_add_epi32(_mm512_add_epi32(l2, h2), _mm512_add_epi32(l3, h3)));
        total = add64c(total, hsum_epu32(s));
    }
    return fold64(total);
}

}  // namespace csum::detail
