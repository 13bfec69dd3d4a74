// The AVX-512 Internet-sum loop, shared by inet_avx512.cpp and
// inet_avx512_vnni.cpp (each built with its own ISA flags, hence the
// internal linkage). See inet_avx512.cpp for the method.
#pragma once

#include <immintrin.h>

#include <algorithm>

#include "inet/inet_kernels.h"
#include "simd/masked_load.h"

namespace csum::detail {
namespace {

// Each lane add is within [-0x10000, 0xFFFE]. Over a block of at most
// kBlockIters + 1 adds per accumulator, all 8 x 16 lanes together stay
// within int32, so the horizontal sum is a plain 32-bit one.
constexpr size_t kBlockIters = 250;
static_assert(128 * (kBlockIters + 1) * 0x10000ull < (1ull << 31));

template <bool kVnni>
__attribute__((always_inline)) inline __m512i step(__m512i acc, __m512i x, __m512i bias,
                                                   __m512i ones) {
    if constexpr (kVnni) {
#ifdef __AVX512VNNI__
        return _mm512_dpwssd_epi32(acc, _mm512_xor_si512(x, bias), ones);
#else
        static_assert(!kVnni, "kVnni needs -mavx512vnni");
#endif
    } else {
        return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_xor_si512(x, bias), ones));
    }
}

// Eight accumulators, 512 bytes a step: the calls are often latency-bound
// (a sum feeds a verdict), so the dependent chain per accumulator is kept
// short, and the last block's vectors go to different accumulators.
template <bool kVnni>
__attribute__((always_inline)) inline uint32_t sum512(const uint8_t* p, size_t len, uint32_t sum) {
    if (len < 64) return sum_short(p, len, sum);
    const __m512i bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    const __m512i ones = _mm512_set1_epi16(1);
    uint64_t total = sum;
    while (len > 0) {
        __m512i a[8];
        for (auto& x : a) x = _mm512_setzero_si512();
        const size_t n = std::min(len / 512, kBlockIters);
        size_t counted = n * 512;
        for (const uint8_t* const end = p + counted; p != end; p += 512)
            for (int j = 0; j < 8; ++j)
                a[j] = step<kVnni>(a[j], _mm512_loadu_si512(p + 64 * j), bias, ones);
        len -= counted;
        if (len < 512) {  // last block: up to seven whole vectors and a masked tail
            const size_t whole = len / 64;  // <= 7
            // A constant trip count, unrolled: constant indices keep a[] in
            // registers (a runtime bound put all eight on the stack).
#pragma GCC unroll 7
            for (size_t j = 0; j < 7; ++j)
                if (j < whole) a[j] = step<kVnni>(a[j], _mm512_loadu_si512(p + 64 * j), bias, ones);
            p += 64 * whole;
            len -= 64 * whole;
            counted += 64 * whole;
            if (len > 0) {
                const __m512i x = simd::maskz_loadu((__mmask64{1} << len) - 1, p);
                a[7] = step<kVnni>(a[7], x, bias, ones);
                p += len;
                len = 0;
                counted += 64;  // the bias hit all 32 words of the vector
            }
        }
        const __m512i s = _mm512_add_epi32(
            _mm512_add_epi32(_mm512_add_epi32(a[0], a[1]), _mm512_add_epi32(a[2], a[3])),
            _mm512_add_epi32(_mm512_add_epi32(a[4], a[5]), _mm512_add_epi32(a[6], a[7])));
        // Each 32-bit lane add lost 2 * 0x8000: 0x4000 per byte summed.
        const int64_t block =
            int64_t{_mm512_reduce_add_epi32(s)} + int64_t{0x4000} * static_cast<int64_t>(counted);
        total += static_cast<uint64_t>(block);  // 0 <= block < 2^40: no wrap
    }
    return fold64(total);
}

}  // namespace
}  // namespace csum::detail
