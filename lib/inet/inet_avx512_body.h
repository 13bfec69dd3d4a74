// The AVX-512 Internet-sum loop, shared by inet_avx512.cpp and
// inet_avx512_vnni.cpp (each built with its own ISA flags, hence the
// internal linkage). See inet_avx512.cpp for the method.
#pragma once

#include <immintrin.h>

#include "inet/inet_kernels.h"
#include "simd/masked_load.h"

namespace csum::detail {
namespace {

// Each lane add is within [-0x10000, 0xFFFE]. Over a block of at most
// kBlockIters + 2 adds per accumulator, all K x 16 lanes together stay
// within int32, so the horizontal sum is a plain 32-bit one.
constexpr size_t kBlockIters = 250;

template <bool kVnni>
[[gnu::always_inline]] inline __m512i step(__m512i acc, __m512i x, __m512i bias, __m512i ones) {
    if constexpr (kVnni) {
#ifdef __AVX512VNNI__
        // In acc's own register: from _mm512_dpwssd_epi32 GCC 12 copies each
        // of sum_lines' accumulators twice a step (docs/perf-inet.md). (The
        // chain walks keep the intrinsic: there the tie added copies.)
        asm("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(_mm512_xor_si512(x, bias)), "v"(ones));
        return acc;
#else
        static_assert(!kVnni, "kVnni needs -mavx512vnni");
#endif
    } else {
        return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_xor_si512(x, bias), ones));
    }
}

// The exact sum of all lanes of the K accumulators: an add tree, then the
// four 128-bit lanes extracted side by side (one cross-lane latency, not two).
template <int K>
[[gnu::always_inline]] inline int64_t hsum(const __m512i* a) {
    static_assert(K == 8);
    const __m512i s = _mm512_add_epi32(
        _mm512_add_epi32(_mm512_add_epi32(a[0], a[1]), _mm512_add_epi32(a[2], a[3])),
        _mm512_add_epi32(_mm512_add_epi32(a[4], a[5]), _mm512_add_epi32(a[6], a[7])));
    const __m128i x = _mm_add_epi32(
        _mm_add_epi32(_mm512_castsi512_si128(s), _mm512_extracti32x4_epi32(s, 1)),
        _mm_add_epi32(_mm512_extracti32x4_epi32(s, 2), _mm512_extracti32x4_epi32(s, 3)));
    const __m128i y = _mm_add_epi32(x, _mm_unpackhi_epi64(x, x));
    return _mm_cvtsi128_si32(_mm_add_epi32(y, _mm_shuffle_epi32(y, 1)));
}

// Sums from base the bytes [head, end) (head < 64 < end). kAligned: base is
// 64-byte aligned, so no load splits a line and a masked one never reaches
// another page; else head is 0 and the tail load is page-checked. K
// accumulators, 64 * K bytes a step; the last step's vectors go to different
// accumulators, the calls being often latency-bound (a sum feeds a verdict).
template <bool kVnni, bool kAligned>
[[gnu::always_inline]] inline uint64_t sum_lines(const uint8_t* base, size_t head, size_t end) {
    constexpr int K = 8;
    static_assert(16 * K * (kBlockIters + 2) * 0x10000ull < (1ull << 31));
    constexpr size_t kStep = 64 * K;
    const __m512i bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    const __m512i ones = _mm512_set1_epi16(1);
    auto load = [](const uint8_t* q) {
        return kAligned ? _mm512_load_si512(q) : _mm512_loadu_si512(q);
    };
    // Each 32-bit lane add loses 2 * 0x8000: 0x4000 per byte loaded.
    uint64_t total = uint64_t{0x4000} * ((end + 63) & ~size_t{63});
    __m512i a[K];
    // Unrolled: as a loop GCC makes it a memset and keeps a[] on the stack.
#pragma GCC unroll 8
    for (auto& x : a) x = _mm512_setzero_si512();
    const __m512i first =
        kAligned ? _mm512_maskz_loadu_epi8(~uint64_t{0} << head, base) : load(base);
    a[K - 1] = step<kVnni>(a[K - 1], first, bias, ones);
    const uint8_t* p = base + 64;
    size_t len = end - 64;
    while (len >= (kBlockIters + 1) * kStep) {
        for (const uint8_t* const stop = p + kBlockIters * kStep; p != stop; p += kStep)
#pragma GCC unroll 8
            for (int j = 0; j < K; ++j) a[j] = step<kVnni>(a[j], load(p + 64 * j), bias, ones);
        len -= kBlockIters * kStep;
        total += static_cast<uint64_t>(hsum<K>(a));
#pragma GCC unroll 8
        for (auto& x : a) x = _mm512_setzero_si512();
    }
    for (; len >= kStep; p += kStep, len -= kStep)
#pragma GCC unroll 8
        for (int j = 0; j < K; ++j) a[j] = step<kVnni>(a[j], load(p + 64 * j), bias, ones);
    const size_t whole = len / 64;  // < K
    // A constant trip count, unrolled: constant indices keep a[] in registers.
#pragma GCC unroll 7
    for (size_t j = 0; j + 1 < K; ++j)
        if (j < whole) a[j] = step<kVnni>(a[j], load(p + 64 * j), bias, ones);
    p += 64 * whole;
    len &= 63;
    if (len > 0) {
        const uint64_t keep = (uint64_t{1} << len) - 1;
        const __m512i x = kAligned ? _mm512_maskz_loadu_epi8(keep, p) : simd::maskz_loadu(keep, p);
        a[K - 1] = step<kVnni>(a[K - 1], x, bias, ones);
    }
    return total + static_cast<uint64_t>(hsum<K>(a));  // < 2^41: no wrap
}

// From kAlignMin bytes the sum starts at the aligned line below p: one more
// load, but none splits a line (on Zen 5, 16 KiB at p % 64 == 54: 216 ->
// 167 ticks). That puts every word at the parity it has from the line: for
// an odd p the byte-swapped sum, which a 32-bit rotate by 8 turns back
// (x * 2^8 mod 2^32 - 1, a multiple of 0xFFFF); `sum` goes in rotated the
// other way.
constexpr size_t kAlignMin = 768;

template <bool kVnni>
[[gnu::always_inline]] inline uint32_t sum512(const uint8_t* p, size_t len, uint32_t sum) {
    if (len < 64) return sum_short(p, len, sum);
    if (len < kAlignMin) return fold64(sum + sum_lines<kVnni, false>(p, 0, len));
    const auto head = static_cast<size_t>(reinterpret_cast<uintptr_t>(p) & 63);
    const bool odd = head & 1;
    const uint64_t in = odd ? (sum >> 8) | (uint64_t{sum & 0xFF} << 24) : sum;
    const uint32_t s = fold64(in + sum_lines<kVnni, true>(p - head, head, head + len));
    return odd ? (s << 8) | (s >> 24) : s;
}

}  // namespace
}  // namespace csum::detail
