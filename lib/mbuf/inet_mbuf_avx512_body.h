// The AVX-512 chain sum, shared by inet_mbuf_avx512.cpp and
// inet_mbuf_avx512_vnni.cpp (each built with its own ISA flags, hence the
// internal linkage). As inet_mbuf_avx2.cpp, on zmm: each piece adds its
// 64-byte vectors to accumulators carried along the chain, its tail as one
// masked load (masked bytes read as zero, an odd last byte as the low byte of
// its word), and a piece at an odd packet position has its bytes swapped
// within words.
#pragma once

#include <immintrin.h>

#include "mbuf/inet_mbuf_chain.h"
#include "mbuf/inet_mbuf_walk.h"

namespace csum::detail {
namespace {

template <bool kVnni>
struct Avx512 {
    using V = __m512i;
    // Vector bytes between reductions: a lane add is within [-0x10000, 0xFFFE],
    // 0x4000 per byte in magnitude; with at most 32768 + 65536 bytes pending
    // (a piece is <= 65535, rounded up to 64) the horizontal sum stays in int32.
    static constexpr uint32_t kReduceAfter = 32768;
    static constexpr uint32_t kTailMask = 0;  // the tail is a masked load
    static uint32_t counted(uint32_t n) {
        return (n + 63) & ~63u;
    }  // the bias hit every word loaded
    static V zero() { return _mm512_setzero_si512(); }
    static V add(V a, V b) { return _mm512_add_epi32(a, b); }
    static int32_t hsum(V v) { return _mm512_reduce_add_epi32(v); }

    const V bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    const V ones = _mm512_set1_epi16(1);
    const V sh = _mm512_set_epi8(62, 63, 60, 61, 58, 59, 56, 57, 54, 55, 52, 53, 50, 51, 48, 49, 46,
                                 47, 44, 45, 42, 43, 40, 41, 38, 39, 36, 37, 34, 35, 32, 33, 30, 31,
                                 28, 29, 26, 27, 24, 25, 22, 23, 20, 21, 18, 19, 16, 17, 14, 15, 12,
                                 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);

    // Four named accumulators, not an array: GCC kept an array of them on the stack.
    template <bool kSwap>
    [[gnu::always_inline]] const uint8_t* piece(V& a0, V& a1, V& a2, V& a3, const uint8_t* p,
                                                uint32_t n) const {
        auto step = [&](V a, V x) {
            if constexpr (kSwap) x = _mm512_shuffle_epi8(x, sh);
            if constexpr (kVnni) {
#ifdef __AVX512VNNI__
                return _mm512_dpwssd_epi32(a, _mm512_xor_si512(x, bias), ones);
#else
                static_assert(!kVnni, "kVnni needs -mavx512vnni");
#endif
            } else {
                return _mm512_add_epi32(a, _mm512_madd_epi16(_mm512_xor_si512(x, bias), ones));
            }
        };
        for (; n >= 256; n -= 256, p += 256) {
            a0 = step(a0, _mm512_loadu_si512(p));
            a1 = step(a1, _mm512_loadu_si512(p + 64));
            a2 = step(a2, _mm512_loadu_si512(p + 128));
            a3 = step(a3, _mm512_loadu_si512(p + 192));
        }
        if (n >= 128) {
            a0 = step(a0, _mm512_loadu_si512(p));
            a1 = step(a1, _mm512_loadu_si512(p + 64));
            p += 128, n -= 128;
        }
        if (n >= 64) a2 = step(a2, _mm512_loadu_si512(p)), p += 64, n -= 64;
        if (n > 0) a3 = step(a3, _mm512_maskz_loadu_epi8((__mmask64{1} << n) - 1, p));
        return p;
    }
};

template <bool kVnni>
[[gnu::always_inline]] inline bool chain_sum512(const rte_mbuf* s, uint32_t seg_off, uint32_t len,
                                                uint32_t pos, uint64_t* even,
                                                uint64_t* odd) noexcept {
    return chain_walk<Avx512<kVnni>>(s, seg_off, len, pos, even, odd);
}

}  // namespace
}  // namespace csum::detail
