// Inline crc32-instruction paths shared by the x86 kernels and the dispatch:
// a serial loop for tails and a 3-way interleave for everything short.
// Include only from files compiled with CSUM_ISA_SSE42_FLAGS or wider.
//
// Why three streams: crc32 r64 has latency 3 and throughput 1, so one stream
// runs at a third of the unit's speed. Three independent lanes over p[0,L),
// p[L,2L), p[2L,3L) are recombined as
//   crc = shift(a, 2L) ^ shift(b, L) ^ c,   shift(s, n) = s * x^(8n) mod P,
// where each shift is one pclmulqdq with x^(8n-33) plus one crc32 (the
// crc32 instruction multiplies by x^32, the reflected clmul adds one x).
#pragma once

#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "crc32c/crc32c_consts.h"

namespace csum::detail::x86 {

inline uint64_t load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline uint32_t crc_serial(uint32_t crc, const uint8_t* p, size_t n) {
    uint64_t c = crc;
    for (; n >= 8; p += 8, n -= 8) c = _mm_crc32_u64(c, load64(p));
    crc = static_cast<uint32_t>(c);
    if (n & 4) {
        uint32_t v;
        std::memcpy(&v, p, 4);
        crc = _mm_crc32_u32(crc, v);
        p += 4;
    }
    if (n & 2) {
        uint16_t v;
        std::memcpy(&v, p, 2);
        crc = _mm_crc32_u16(crc, v);
        p += 2;
    }
    if (n & 1) crc = _mm_crc32_u8(crc, *p);
    return crc;
}

// Longest lane of one 3-way block; longer lanes amortise the recombination,
// whose latency stalls only lane a of the next block.
inline constexpr size_t kMaxLane = 1024;
// Below this a serial loop wins (the recombine costs about 3 crc32 latencies).
inline constexpr size_t k3WayMin = 48;

// kShift3[L/8] = {x^(8*2L-33), x^(8L-33)}: the two shifts for lanes of L bytes.
inline constexpr auto kShift3 = [] {
    std::array<std::array<uint64_t, 2>, kMaxLane / 8 + 1> t{};
    for (size_t i = 1; i < t.size(); ++i) t[i] = {shift_const(16 * i), shift_const(8 * i)};
    return t;
}();

// Three lanes of `lane` bytes each (a multiple of 8, <= kMaxLane).
inline uint32_t crc_3lanes(uint32_t crc, const uint8_t* p, size_t lane) {
    uint64_t a = crc, b = 0, c = 0;
    const uint8_t* pb = p + lane;
    const uint8_t* pc = p + 2 * lane;
    for (size_t i = 0; i < lane; i += 8) {
        a = _mm_crc32_u64(a, load64(p + i));
        b = _mm_crc32_u64(b, load64(pb + i));
        c = _mm_crc32_u64(c, load64(pc + i));
    }
    const __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kShift3[lane / 8].data()));
    const __m128i ab = _mm_set_epi64x(static_cast<int64_t>(b), static_cast<int64_t>(a));
    const __m128i t =
        _mm_xor_si128(_mm_clmulepi64_si128(ab, k, 0x00), _mm_clmulepi64_si128(ab, k, 0x11));
    return static_cast<uint32_t>(_mm_crc32_u64(0, _mm_cvtsi128_si64(t)) ^ c);
}

// Short path, n <= kShortMax. The incoming state does not enter any lane:
// all lanes start from 0 and the state is shifted over n bytes by one more
// clmul, so when calls are chained (mbuf segments, or a CRC fed into the
// next call) the next call's data work overlaps this one; the state's own
// latency is clmul + crc32 + xor. Lanes hold ceil/round/floor of n/8/3
// qwords; lane c also takes the last n%8 bytes.
inline constexpr size_t kShortMax = 256;
inline constexpr size_t kSerialMax = 15;  // below 16 bytes: plain serial

// kShort[n] = {shift over n - |a|, shift over n - |a| - |b|, shift over n,
// qwords in lanes a | b << 8 | c << 16}: no divisions on the short path.
inline constexpr auto kShort = [] {
    std::array<std::array<uint32_t, 4>, kShortMax + 1> t{};
    for (size_t n = kSerialMax + 1; n <= kShortMax; ++n) {
        const size_t q = n / 8, qa = (q + 2) / 3, qb = (q + 1) / 3, qc = q / 3;
        t[n][2] = static_cast<uint32_t>(shift_const(n));
        t[n][3] = static_cast<uint32_t>(qa | qb << 8 | qc << 16);
        if (qc == 0) continue;  // too short for three lanes
        t[n][0] = static_cast<uint32_t>(shift_const(n - 8 * qa));
        t[n][1] = static_cast<uint32_t>(shift_const(n - 8 * (qa + qb)));
    }
    return t;
}();

inline uint32_t crc_short(uint32_t crc, const uint8_t* p, size_t n) {
    if (n <= kSerialMax) return crc_serial(crc, p, n);
    const __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kShort[n].data()));
    const __m128i init =
        _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(crc)),
                             _mm_cvtsi32_si128(static_cast<int>(kShort[n][2])), 0x00);
    const uint32_t lanes = kShort[n][3];
    const size_t qa = lanes & 0xFF, qb = (lanes >> 8) & 0xFF, qc = lanes >> 16;
    if (qc == 0) {  // 16..23 bytes: one lane
        const uint64_t t = static_cast<uint64_t>(_mm_cvtsi128_si64(init));
        return crc_serial(0, p, n) ^ static_cast<uint32_t>(_mm_crc32_u64(0, t));
    }
    const uint8_t* pb = p + 8 * qa;
    const uint8_t* pc = pb + 8 * qb;
    uint64_t a = 0, b = 0, c = 0;
    for (size_t i = 0; i < 8 * qc; i += 8) {
        a = _mm_crc32_u64(a, load64(p + i));
        b = _mm_crc32_u64(b, load64(pb + i));
        c = _mm_crc32_u64(c, load64(pc + i));
    }
    if (qa > qc) a = _mm_crc32_u64(a, load64(p + 8 * qc));
    if (qb > qc) b = _mm_crc32_u64(b, load64(pb + 8 * qc));
    c = crc_serial(static_cast<uint32_t>(c), pc + 8 * qc, n - 8 * (qa + qb + qc));
    const __m128i ab = _mm_set_epi64x(static_cast<int64_t>(b), static_cast<int64_t>(a));
    const __m128i kab = _mm_cvtepu32_epi64(k);
    const __m128i t = _mm_xor_si128(init, _mm_xor_si128(_mm_clmulepi64_si128(ab, kab, 0x00),
                                                        _mm_clmulepi64_si128(ab, kab, 0x11)));
    return static_cast<uint32_t>(_mm_crc32_u64(0, _mm_cvtsi128_si64(t)) ^ c);
}

// Raw state in, raw state out, any length.
inline uint32_t crc_3way(uint32_t crc, const uint8_t* p, size_t n) {
    if (n <= kShortMax) return crc_short(crc, p, n);
    for (; n >= 3 * kMaxLane; p += 3 * kMaxLane, n -= 3 * kMaxLane)
        crc = crc_3lanes(crc, p, kMaxLane);
    if (n >= k3WayMin) {
        const size_t lane = n / 24 * 8;
        crc = crc_3lanes(crc, p, lane);
        p += 3 * lane;
        n -= 3 * lane;
    }
    return crc_serial(crc, p, n);
}

}  // namespace csum::detail::x86
