// chain_walk.h's long loop for CPUs with AVX2 and no AVX-512 (run_avx2):
// each chain walked once, every segment summed whole as it is reached on
// four ymm accumulators carried along the chain and reduced once per chain,
// as chain_walk_body.h does with AVX-512. Without byte-masked loads, a
// segment's tail is one 32-byte load masked by AND: forward from the tail
// where the segment's buffer has the room, else back from the segment's end
// (within its data), else summed in scalar registers. The front's bytes
// the shape test reads are read in place when the first segment holds them,
// else copied as the walk reaches them (bounded by the copy's size).
//
// Every header is included first, then the target region opens, so that only
// this file's own functions (internal linkage) are built for AVX2.
#include <immintrin.h>

#include <cstdint>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/chain_walk.h"
#include "engine/lean_path.h"
#include "engine/run_parts.h"
#include "inet/inet_kernels.h"
#include "inet/word_sum.h"
#include "mbuf/inet_mbuf_chain.h"
#include "mbuf/segment_read.h"
#include "parse/classify.h"
#include "parse/classify_same.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

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

template <bool kV6, bool kUdp, bool kPorts>
unsigned run(const ShapeConfig& sc, rte_mbuf** pkts, unsigned j, unsigned n,
             const run_parts::RunVerdict& verdict, Out* out, bool* failed) noexcept {
    constexpr uint32_t kL4 = kV6 ? 54 : 34;
    // The bytes same_plain_shape reads: to the end of the UDP or TCP header.
    constexpr uint32_t kNeed = kL4 + (kUdp ? 8 : 20);
    static_assert(kNeed < kHeaderGather);  // the chains here hold more
    constexpr unsigned kAhead = run_parts::kRunAhead;
    const long voff = verdict.offset();
    const Consts c;
    uint64_t bytes = 0, summed = 0;
    *failed = false;
    for (; j < n; ++j) {
        if (j + kAhead < n) {
            rte_mbuf* a = pkts[j + kAhead];
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + voff);
        }
        if (j + 2 < n) {
            // Later segments' descriptors, a hop a packet: the second of
            // the chain after next, the third of the next one.
            const rte_mbuf* s2 = pkts[j + 2]->next;
            if (s2 != nullptr)
                rte_prefetch0(s2), rte_prefetch0(reinterpret_cast<const char*>(s2) + 64);
            const rte_mbuf* t2 = pkts[j + 1]->next;
            const rte_mbuf* t3 = t2 != nullptr ? t2->next : nullptr;
            if (t3 != nullptr)
                rte_prefetch0(t3), rte_prefetch0(reinterpret_cast<const char*>(t3) + 64);
        }
        rte_mbuf* m = pkts[j];
        if (m->next == nullptr || !run_parts::RunMbufTest<kV6, true>::flags(m)) break;
        const uint32_t len = m->pkt_len, nb = m->nb_segs;
        if (len <= kHeaderGather || len > 65535 || nb > detail::kInetMaxPieces) break;
        // The walk: no more than nb segments (a looped chain ends there),
        // each inside its buffer, holding exactly len bytes.
        alignas(32) uint8_t gathered[kNeed];
        const bool in_place = m->data_len >= kNeed;
        Sums s{};
        s.a0 = s.a1 = s.a2 = s.a3 = _mm256_setzero_si256();
        uint32_t pos = 0, segs = 0;
        bool whole = true;
        for (const rte_mbuf* g = m; g != nullptr; g = g->next) {
            if (segs == nb || !segment_in_buffer(g)) {
                whole = false;
                break;
            }
            const uint8_t* q = rte_pktmbuf_mtod(g, const uint8_t*);
            const uint32_t k = g->data_len;
            if (!in_place && pos < kNeed)
                shape_detail::small_copy(gathered + pos, q, k < kNeed - pos ? k : kNeed - pos);
            if (pos & 1)
                add_segment<true>(c, s, g, q, k, pos);
            else
                add_segment<false>(c, s, g, q, k, pos);
            pos += k, ++segs;
            if (pos > len) break;  // more bytes than pkt_len
        }
        if (!whole || segs != nb || pos != len) {
            *failed = true;
            break;
        }
        const uint8_t* p = in_place ? rte_pktmbuf_mtod(m, const uint8_t*) : gathered;
        uint32_t l4_len;
        // Nothing may follow the L4 region: the walk summed every byte.
        if (!same_plain_shape<kV6, kUdp, kPorts, true>(sc, p, len, &l4_len) ||
            l4_len != len - kL4) {
            *failed = true;
            break;
        }
        using word_sum::load16;
        using word_sum::load32;
        using word_sum::load64;
        // The bytes before the pseudo-header's addresses (IPv4: [0, 26),
        // IPv6: [0, 22)), taken off the chain's sum.
        uint64_t head = detail::add64c(load64(p), load64(p + 8));
        if constexpr (!kV6) {
            const uint8_t* ip = p + 14;
            const uint64_t h = uint64_t{load32(ip)} + load32(ip + 4) + load32(ip + 8) +
                               load32(ip + 12) + load32(ip + 16);
            if (!word_sum::mod_ffff_zero(h)) {  // the header must fold to 0xFFFF
                *failed = true;
                break;
            }
            head = detail::add64c(detail::add64c(head, load64(p + 16)), load16(p + 24));
        } else {
            head = detail::add64c(head, uint64_t{load32(p + 16)} + load16(p + 20));
        }
        const uint64_t pk = (uint64_t{kUdp ? kShapeUdp : kShapeTcp} + l4_len) << 8;
        const uint64_t l4 = detail::add64c(total(s), pk + (0xFFFFu - word_sum::fold64(head)));
        if (!word_sum::mod_ffff_zero(l4)) {
            *failed = true;
            break;
        }
        summed += (kV6 ? 0 : 20) + l4_len;
        bytes += len;
        verdict.write(m);
    }
    out->bytes += bytes;
    out->summed += summed;
    return j;
}

}  // namespace

unsigned run_avx2(int shape, bool ports, const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                  unsigned n, const run_parts::RunVerdict& verdict, Out* out,
                  bool* failed) noexcept {
    switch (shape) {
        case 0:
            return ports ? run<false, false, true>(sc, pkts, j, n, verdict, out, failed)
                         : run<false, false, false>(sc, pkts, j, n, verdict, out, failed);
        case 1:
            return run<false, true, false>(sc, pkts, j, n, verdict, out, failed);
        case 3:
            return ports ? run<true, false, true>(sc, pkts, j, n, verdict, out, failed)
                         : run<true, false, false>(sc, pkts, j, n, verdict, out, failed);
        case 4:
            return run<true, true, false>(sc, pkts, j, n, verdict, out, failed);
        default:
            *failed = false;
            return j;
    }
}

}  // namespace csum::chain_walk

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
