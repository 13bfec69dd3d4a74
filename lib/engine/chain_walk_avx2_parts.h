// The AVX2 chain walks' building blocks (good_run_chain_avx2.cpp verifies,
// fill_chain_avx2.cpp fills): a segment summed whole on four ymm
// accumulators carried along the chain, its tail as one 32-byte load masked
// by AND (forward from the tail where the segment's buffer has the room,
// else back from the segment's end, within its data, else in scalar
// registers), and the walk that sums each segment as it reaches it and
// copies the front's bytes only where the first segment does not hold
// them. Included inside an AVX2 target region (simd/target_region.h), after every
// other header; internal linkage, so each including file has its own copy.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include <rte_mbuf.h>

#include "inet/inet_kernels.h"
#include "inet/word_sum.h"
#include "mbuf/segment_read.h"
#include "parse/classify.h"
#include "parse/classify_same.h"

namespace csum::chain_walk {
namespace {

// 32 zeros, 32 of 0xFF, 32 zeros: 32 bytes from 64 - r are r of 0xFF then
// zeros; from r, 32 - r zeros then r of 0xFF.
struct TailMasks {
    alignas(32) uint8_t b[96];
};
inline constexpr TailMasks kTailMasks = [] {
    TailMasks t{};
    for (int i = 32; i < 64; ++i) t.b[i] = 0xFF;
    return t;
}();

// A chain's sum state: vectors summed on a0..a3 (each 16-bit word biased by
// 0x8000, so a lane add is within [-0x10000, 0xFFFE]), and tails no vector
// load could take, by their packet position's parity.
struct Sums {
    __m256i a0, a1, a2, a3;
    uint32_t vectors = 0;
    uint64_t even = 0, odd = 0;
};

struct Consts {
    // A constructor of its own: an implicit one is not built for the target.
    Consts()
        : bias(_mm256_set1_epi16(static_cast<int16_t>(0x8000))),
          ones(_mm256_set1_epi16(1)),
          sh(_mm256_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14, 1, 0, 3, 2, 5,
                              4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)) {}
    const __m256i bias, ones, sh;
    [[gnu::always_inline]] __m256i step(__m256i a, __m256i x) const {
        return _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_xor_si256(x, bias), ones));
    }
};

[[gnu::always_inline]] inline __m256i load(const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// Segment g's k bytes at q, at packet position pos, added to s. kSwap: pos
// is odd, so each vector is byte-swapped within words (a swap is
// multiplication by 256 mod 0xFFFF, which distributes over the sum).
template <bool kSwap>
[[gnu::always_inline]] inline void add_segment(const Consts& c, Sums& s, const rte_mbuf* g,
                                               const uint8_t* q, uint32_t k, uint32_t pos) {
    auto st = [&](__m256i a, const uint8_t* p) [[gnu::always_inline]] {
        __m256i x = load(p);
        if constexpr (kSwap) x = _mm256_shuffle_epi8(x, c.sh);
        return c.step(a, x);
    };
    const uint32_t whole = k & ~31u;
    s.vectors += whole >> 5;
    const uint8_t* p = q;
    const uint8_t* const end = q + whole;
    while (end - p >= 128) {
        s.a0 = st(s.a0, p), s.a1 = st(s.a1, p + 32);
        s.a2 = st(s.a2, p + 64), s.a3 = st(s.a3, p + 96);
        p += 128;
    }
    if (end - p >= 64) s.a0 = st(s.a0, p), s.a1 = st(s.a1, p + 32), p += 64;
    if (end != p) s.a2 = st(s.a2, p);
    const uint32_t r = k & 31;
    if (r == 0) return;
    const uint8_t* const buf_end = static_cast<const uint8_t*>(g->buf_addr) + g->buf_len;
    if (buf_end - end >= 32) {
        // Forward from the tail, in the segment's buffer: its r bytes kept.
        __m256i x = _mm256_and_si256(load(end), load(kTailMasks.b + 64 - r));
        if constexpr (kSwap) x = _mm256_shuffle_epi8(x, c.sh);
        s.a3 = c.step(s.a3, x), ++s.vectors;
    } else if (whole != 0) {
        // Back from the segment's end: its last r bytes kept, lane i at
        // packet position pos + k - 32 + i.
        __m256i x = _mm256_and_si256(load(q + k - 32), load(kTailMasks.b + r));
        if (((pos + k) & 1) != 0) x = _mm256_shuffle_epi8(x, c.sh);
        s.a3 = c.step(s.a3, x), ++s.vectors;
    } else if (kSwap) {
        s.odd = detail::add64c(s.odd, detail::sum_tiny64(end, r));
    } else {
        s.even = detail::add64c(s.even, detail::sum_tiny64(end, r));
    }
}

// The sum of s's words, congruent mod 0xFFFF to the bytes' 16-bit words in
// memory order.
[[gnu::always_inline]] inline uint64_t total(const Sums& s) {
    const __m256i t = _mm256_add_epi32(_mm256_add_epi32(s.a0, s.a1), _mm256_add_epi32(s.a2, s.a3));
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    // Each vector's 16 words lost 0x8000 each to the bias. At most
    // kInetMaxPieces segments of a chain of at most 65535 bytes: under 2^12
    // vectors, so no lane and no sum of lanes leaves int32.
    const int64_t v = int64_t{_mm_cvtsi128_si32(x)} + int64_t{0x80000} * s.vectors;
    const uint64_t odd = word_sum::fold64(s.odd);
    return detail::add64c(detail::add64c(static_cast<uint64_t>(v), s.even),
                          ((odd & 0xFF) << 8) | (odd >> 8));
}

// A chain of len bytes in nb segments walked once: every segment summed
// whole on s (add_segment), and the front's first kNeed bytes copied to
// gathered as the walk reaches them unless the first segment holds them
// (*in_place). False if a segment lies outside its buffer, or the chain does
// not hold exactly nb segments and len bytes (a looped chain ends at nb).
template <uint32_t kNeed>
[[gnu::always_inline]] inline bool walk_and_sum(const Consts& c, const rte_mbuf* m, uint32_t len,
                                                uint32_t nb, uint8_t (&gathered)[kNeed],
                                                bool* in_place, Sums* s) {
    *in_place = m->data_len >= kNeed;
    s->a0 = s->a1 = s->a2 = s->a3 = _mm256_setzero_si256();
    uint32_t pos = 0, segs = 0;
    for (const rte_mbuf* g = m; g != nullptr; g = g->next) {
        if (segs == nb || !segment_in_buffer(g)) return false;  // more segments than nb_segs
        const uint8_t* q = rte_pktmbuf_mtod(g, const uint8_t*);
        const uint32_t k = g->data_len;
        if (!*in_place && pos < kNeed)
            shape_detail::small_copy(gathered + pos, q, k < kNeed - pos ? k : kNeed - pos);
        if (pos & 1)
            add_segment<true>(c, *s, g, q, k, pos);
        else
            add_segment<false>(c, *s, g, q, k, pos);
        pos += k, ++segs;
        if (pos > len) return false;  // more bytes than pkt_len
    }
    return segs == nb && pos == len;
}

// The sum of the front's bytes before the pseudo-header's addresses (IPv4:
// [0, 26), IPv6: [0, 22)), which the walk's sum of the chain includes.
template <bool kV6>
[[gnu::always_inline]] inline uint64_t head_sum(const uint8_t* p) {
    using word_sum::load16;
    using word_sum::load32;
    using word_sum::load64;
    const uint64_t head = detail::add64c(load64(p), load64(p + 8));
    if constexpr (kV6) return detail::add64c(head, uint64_t{load32(p + 16)} + load16(p + 20));
    return detail::add64c(detail::add64c(head, load64(p + 16)), load16(p + 24));
}

// The L4 region's sum with the pseudo-header (addresses, protocol, length)
// of a chain the walk summed whole into s, front at p.
template <bool kV6, bool kUdp>
[[gnu::always_inline]] inline uint64_t pseudo_l4_sum(const Sums& s, const uint8_t* p,
                                                     uint32_t l4_len) {
    const uint64_t pk = (uint64_t{kUdp ? kShapeUdp : kShapeTcp} + l4_len) << 8;
    return detail::add64c(total(s), pk + (0xFFFFu - word_sum::fold64(head_sum<kV6>(p))));
}
}  // namespace
}  // namespace csum::chain_walk
