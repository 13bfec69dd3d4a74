// The pclmul kernel's loop: carry-less folding on four xmm accumulators (64
// bytes), for CPUs with PCLMULQDQ but no VPCLMULQDQ (Haswell to Skylake, AMD
// Zen 1 and 2). The vpclmul_avx2 kernel's scheme on 16-byte lanes; the
// arithmetic is explained there. Where crc32 is slow (AMD Zen 1: one crc32
// r64 per 3 cycles, so the sse42 kernel's three lanes run no faster than
// one) folding alone is fastest: crc32 lanes alongside, as the wider kernels
// run them, cost Zen 1 15% at 1420 B (docs/perf-crc32c.md). They stay as
// variants for CPUs where crc32 is fast.
// Include only from files compiled with CSUM_ISA_SSE42_FLAGS or wider: the
// dispatch's entries run it from their own SSE- and VEX-encoded copies.
#pragma once

#include "crc32c/crc32c_x86.h"

namespace csum::detail::x86 {
namespace {

inline constexpr size_t kFold128Block = 64;  // 4 accumulators x 16 bytes
// Below this the pclmul kernel runs crc_3way.
inline constexpr size_t kFold128Min = 128;

template <size_t D>
inline __m128i fold128_const() {
    constexpr auto lo = static_cast<int64_t>(fold_lo(D)), hi = static_cast<int64_t>(fold_hi(D));
    return _mm_set_epi64x(hi, lo);
}

inline __m128i fold128(__m128i x, __m128i k) {
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

// S = qwords per crc32 lane per stride (0: fold only). len >= kFold128Block.
template <size_t S>
inline uint32_t crc_fold128(uint32_t state, const uint8_t* p, size_t len) {
    __m128i x0 = _mm_xor_si128(load128(p), _mm_cvtsi32_si128(static_cast<int>(state)));
    __m128i x1 = load128(p + 16), x2 = load128(p + 32), x3 = load128(p + 48);
    p += kFold128Block;
    len -= kFold128Block;

    if constexpr (S > 0) {
        constexpr size_t L = 8 * S, kStride = 3 * L + kFold128Block;
        const __m128i ks = fold128_const<kStride>();
        const __m128i kab = _mm_set_epi64x(static_cast<int64_t>(shift_const(L + 8)),
                                           static_cast<int64_t>(shift_const(2 * L + 8)));
        for (; len >= kStride; p += kStride, len -= kStride) {
            uint64_t a = 0, b = 0, c = 0;
            for (size_t i = 0; i < L; i += 8) {
                a = _mm_crc32_u64(a, load64(p + i));
                b = _mm_crc32_u64(b, load64(p + L + i));
                c = _mm_crc32_u64(c, load64(p + 2 * L + i));
            }
            const __m128i ab = _mm_set_epi64x(static_cast<int64_t>(b), static_cast<int64_t>(a));
            const __m128i t =
                _mm_xor_si128(fold128(ab, kab), _mm_cvtsi64_si128(static_cast<int64_t>(c)));
            const uint8_t* q = p + 3 * L;
            x0 = _mm_xor_si128(_mm_xor_si128(fold128(x0, ks), load128(q)), t);
            x1 = _mm_xor_si128(fold128(x1, ks), load128(q + 16));
            x2 = _mm_xor_si128(fold128(x2, ks), load128(q + 32));
            x3 = _mm_xor_si128(fold128(x3, ks), load128(q + 48));
        }
    }

    const __m128i k64 = fold128_const<kFold128Block>();
    for (; len >= kFold128Block; p += kFold128Block, len -= kFold128Block) {
        x0 = _mm_xor_si128(fold128(x0, k64), load128(p));
        x1 = _mm_xor_si128(fold128(x1, k64), load128(p + 16));
        x2 = _mm_xor_si128(fold128(x2, k64), load128(p + 32));
        x3 = _mm_xor_si128(fold128(x3, k64), load128(p + 48));
    }

    const __m128i k16 = fold128_const<16>();
    __m128i y = _mm_xor_si128(
        _mm_xor_si128(fold128(x0, fold128_const<48>()), fold128(x1, fold128_const<32>())),
        _mm_xor_si128(fold128(x2, k16), x3));
    for (; len >= 16; p += 16, len -= 16) y = _mm_xor_si128(fold128(y, k16), load128(p));
    uint64_t c = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(y)));
    c = _mm_crc32_u64(c, static_cast<uint64_t>(_mm_extract_epi64(y, 1)));
    return crc_serial(static_cast<uint32_t>(c), p, len);
}

// crc32 lane length in the pclmul kernel's loop, in qwords (0: none).
inline constexpr size_t kFold128MixQwords = 0;

// The pclmul kernel: any length.
inline uint32_t crc_pclmul(uint32_t state, const uint8_t* p, size_t len) {
    if (len < kFold128Min) return crc_3way(state, p, len);
    return crc_fold128<kFold128MixQwords>(state, p, len);
}

}  // namespace
}  // namespace csum::detail::x86
