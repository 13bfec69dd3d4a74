// Inline paths shared by the x86 kernels, the dispatch and the mbuf walker:
// serial crc32 for tails, three interleaved crc32 lanes, a pclmul tree fold
// for short buffers, and a state shift. The crossover numbers that pick
// between them are next to kCrossover below.
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
// Internal linkage: this header is built into files with different ISA flags
// (SSE4.2, AVX, AVX2, AVX-512); a shared inline copy could be the wide one.
namespace {

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

// Shifting a raw state over n zero bytes: s * x^(8n) mod P, one clmul and
// one crc32 (~14 cycles). Lets a state join a CRC computed from 0 at the end
// instead of waiting at the front of a long dependency chain.
inline constexpr size_t kLateMax = 128;  // covers the short paths
inline constexpr auto kShiftTab = [] {
    std::array<uint32_t, kLateMax> t{};
    for (size_t n = 5; n < kLateMax; ++n) t[n] = static_cast<uint32_t>(shift_const(n));
    return t;
}();

// 5 <= n < kLateMax.
inline uint32_t shift_state(uint32_t s, size_t n) {
    const __m128i t = _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(s)),
                                           _mm_cvtsi32_si128(static_cast<int>(kShiftTab[n])), 0x00);
    return static_cast<uint32_t>(_mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(t))));
}

// Three-lane path for n <= kLanesMax. The incoming state enters no lane:
// all lanes start from 0 and the state is shifted over n bytes by one more
// clmul, so when calls are chained (mbuf segments, or a CRC fed into the
// next call) the next call's data work overlaps this one; the state's own
// latency is clmul + crc32 + xor. Lanes hold ceil/round/floor of n/8/3
// qwords; lane c also takes the last n%8 bytes. Up to 287: the dispatch's
// first length class (128..287) runs this kernel, and crc_3way's blocks
// take the state at the front (Zen 5, chained calls: 287 B 41 -> 20 ticks).
inline constexpr size_t kLanesMax = 287;
inline constexpr size_t kSerialMax = 15;  // below 16 bytes: plain serial

// kShort[n] = {shift over n - |a|, shift over n - |a| - |b|, shift over n,
// qwords in lanes a | b << 8 | c << 16}: no divisions on the short path.
inline constexpr auto kShort = [] {
    std::array<std::array<uint32_t, 4>, kLanesMax + 1> t{};
    for (size_t n = kSerialMax + 1; n <= kLanesMax; ++n) {
        const size_t q = n / 8, qa = (q + 2) / 3, qb = (q + 1) / 3, qc = q / 3;
        t[n][2] = static_cast<uint32_t>(shift_const(n));
        t[n][3] = static_cast<uint32_t>(qa | qb << 8 | qc << 16);
        if (qc == 0) continue;  // too short for three lanes
        t[n][0] = static_cast<uint32_t>(shift_const(n - 8 * qa));
        t[n][1] = static_cast<uint32_t>(shift_const(n - 8 * (qa + qb)));
    }
    return t;
}();

// Tree-fold short path for 16 <= n < 128, fewer instructions than three
// crc32 lanes: every 16-byte chunk is multiplied forward to the last chunk
// in parallel (one pclmulqdq pair each, constants fold_lo/hi), two crc32
// reduce, and the n%16 tail goes serially, all from state 0. The incoming
// state joins only at the end, shifted over n bytes by one clmul + crc32,
// so a chained call waits ~14 cycles on it rather than on the whole path.
inline constexpr auto kTreeFold = [] {
    std::array<std::array<uint64_t, 2>, 8> t{};
    for (size_t j = 1; j < 8; ++j) t[j] = {fold_lo(16 * j), fold_hi(16 * j)};
    return t;
}();

inline __m128i load128(const uint8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

inline uint32_t crc_tree_fold(uint32_t crc, const uint8_t* p, size_t n) {
    const size_t chunks = n / 16;  // 1..7
    const uint8_t* last = p + 16 * (chunks - 1);
    __m128i y = load128(last);
    for (size_t i = 0; i + 1 < chunks; ++i) {
        const __m128i k =
            load128(reinterpret_cast<const uint8_t*>(kTreeFold[chunks - 1 - i].data()));
        const __m128i x = load128(p + 16 * i);
        y = _mm_xor_si128(
            y, _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)));
    }
    uint64_t c = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(y)));
    c = _mm_crc32_u64(c, static_cast<uint64_t>(_mm_extract_epi64(y, 1)));
    const uint32_t data = crc_serial(static_cast<uint32_t>(c), last + 16, n % 16);
    return data ^ shift_state(crc, n);
}

inline uint32_t crc_lanes_short(uint32_t crc, const uint8_t* p, size_t n) {
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

// crc_lanes_short over two buffers of the same length at once (kTreeMax < n
// <= kLanesMax), their six lanes in one loop: one buffer's three chains
// leave the crc32 units idle for most of each 3-cycle latency, and
// out-of-order execution overlaps separate calls only in part (AMD Zen 5,
// 210 B: 28 cycles a buffer alone, 22 a pair). Unlike crc_lanes_short, the
// states enter at the front of lanes a and d: no clmul to shift them, which
// the pair's throughput favours over the state's latency (SCTP's header
// state is ready early). Returns s's result in the low half, t's in the high.
inline uint64_t crc_lanes_x2(uint32_t s, const uint8_t* p, uint32_t t, const uint8_t* q, size_t n) {
    const __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kShort[n].data()));
    const uint32_t lanes = kShort[n][3];
    const size_t qa = lanes & 0xFF, qb = (lanes >> 8) & 0xFF, qc = lanes >> 16;
    const size_t ob = 8 * qa, oc = 8 * (qa + qb);
    uint64_t a = s, b = 0, c = 0, d = t, e = 0, f = 0;
    for (size_t i = 0; i < 8 * qc; i += 8) {
        a = _mm_crc32_u64(a, load64(p + i));
        b = _mm_crc32_u64(b, load64(p + ob + i));
        c = _mm_crc32_u64(c, load64(p + oc + i));
        d = _mm_crc32_u64(d, load64(q + i));
        e = _mm_crc32_u64(e, load64(q + ob + i));
        f = _mm_crc32_u64(f, load64(q + oc + i));
    }
    if (qa > qc) a = _mm_crc32_u64(a, load64(p + 8 * qc)), d = _mm_crc32_u64(d, load64(q + 8 * qc));
    if (qb > qc)
        b = _mm_crc32_u64(b, load64(p + ob + 8 * qc)),
        e = _mm_crc32_u64(e, load64(q + ob + 8 * qc));
    const size_t tail = n - 8 * (qa + qb + qc);
    c = crc_serial(static_cast<uint32_t>(c), p + oc + 8 * qc, tail);
    f = crc_serial(static_cast<uint32_t>(f), q + oc + 8 * qc, tail);
    const __m128i kab = _mm_cvtepu32_epi64(k);
    const __m128i ab = _mm_set_epi64x(static_cast<int64_t>(b), static_cast<int64_t>(a));
    const __m128i de = _mm_set_epi64x(static_cast<int64_t>(e), static_cast<int64_t>(d));
    const __m128i x =
        _mm_xor_si128(_mm_clmulepi64_si128(ab, kab, 0x00), _mm_clmulepi64_si128(ab, kab, 0x11));
    const __m128i y =
        _mm_xor_si128(_mm_clmulepi64_si128(de, kab, 0x00), _mm_clmulepi64_si128(de, kab, 0x11));
    const auto rp = static_cast<uint32_t>(_mm_crc32_u64(0, _mm_cvtsi128_si64(x)) ^ c);
    const auto rq = static_cast<uint32_t>(_mm_crc32_u64(0, _mm_cvtsi128_si64(y)) ^ f);
    return rp | static_cast<uint64_t>(rq) << 32;
}

// Crossover: below kCrossover bytes crc32c() runs crc_short_path inline and
// never calls a kernel. Tree fold up to 64 B, three lanes above; the
// measurements behind these numbers are in docs/perf-crc32c.md (Crossover).
inline constexpr size_t kCrossover = 128;
inline constexpr size_t kTreeMax = 64;  // ties with the lanes at 64; inline wins

// Any n < kCrossover.
inline uint32_t crc_short_path(uint32_t crc, const uint8_t* p, size_t n) {
    if (n <= kSerialMax) return crc_serial(crc, p, n);
    return n <= kTreeMax ? crc_tree_fold(crc, p, n) : crc_lanes_short(crc, p, n);
}

// Raw state in, raw state out, any length.
inline uint32_t crc_3way(uint32_t crc, const uint8_t* p, size_t n) {
    if (n < kCrossover) return crc_short_path(crc, p, n);
    if (n <= kLanesMax) return crc_lanes_short(crc, p, n);
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

}  // namespace
}  // namespace csum::detail::x86
