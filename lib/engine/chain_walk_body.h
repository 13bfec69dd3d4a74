// chain_walk.h's loop, built once per ISA by good_run_chain_avx512.cpp
// (CSUM_CHAIN_WALK_VNNI 0) and good_run_chain_avx512_vnni.cpp (1). Every
// header is included first, then the target region
// (simd/target_region.h) opens, so that only this loop (internal linkage) is
// built for AVX-512 and the inline functions of the headers it calls keep
// one definition for every CPU.
//
// A chain is walked once; each segment's bytes are summed whole as it is
// reached (64-byte vectors, its tail as one masked load, a segment at an odd
// packet position byte-swapped as loaded, as inet_mbuf_avx512_body.h does),
// on four vector accumulators carried along the chain and reduced once. The
// L4 region's sum is that less the sum of the bytes before the addresses,
// taken off the accumulators from the front, which the walk puts together in
// registers wherever the segments cut it (front_piece); so a packet takes this loop only if nothing
// follows its L4 region (pkt_len = L4 offset + L4 length) and its segments hold exactly pkt_len
// bytes: anything else ends the stretch for the general loop.
#pragma once

#ifndef CSUM_CHAIN_WALK_VNNI
#error "define CSUM_CHAIN_WALK_VNNI (0 or 1) before including chain_walk_body.h"
#endif

#include <immintrin.h>

#include <cstdint>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/chain_walk.h"
#include "engine/lean_path.h"
#include "engine/run_parts.h"
#include "inet/inet_kernels.h"
#include "mbuf/inet_mbuf_chain.h"
#include "parse/classify_same.h"
#include "simd/target_region.h"

#if CSUM_CHAIN_WALK_VNNI
CSUM_TARGET_BEGIN(CSUM_ISA_AVX512_VNNI)
#else
CSUM_TARGET_BEGIN(CSUM_ISA_AVX512)
#endif
CSUM_AVX512_INTRINSIC_WARNINGS_OFF

// Inside the target region: their inline helpers need AVX-512 here.
#include "engine/chain_walk_parts.h"
#include "engine/chain_walk_shape.h"
#include "simd/masked_load.h"

namespace csum::chain_walk {
namespace {

// A stretch of chains of at most kHeaderGather bytes (kWide: over 64, else
// at most 64), from pkts[j], which is one: each chain walked an iteration
// before its shape and sums are checked, so that the next chain's loads
// overlap this one's arithmetic. Returns the first it did not take;
// *failed as run's.
template <bool kV6, bool kUdp, bool kPorts, bool kSums, bool kWide>
[[gnu::always_inline]] inline unsigned run_short(const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                                                 unsigned n,
                                                 const run_parts::RunVerdict& verdict_in,
                                                 uint64_t* bytes, uint64_t* summed, bool* failed) {
    auto mine = [](const rte_mbuf* m) [[gnu::always_inline]] {
        const uint32_t len = m->pkt_len;
        return m->next != nullptr && run_parts::RunMbufTest<kV6, kSums>::flags(m) &&
               (kWide ? len - 65 < kHeaderGather - 64 : len <= 64) &&
               m->nb_segs <= detail::kInetMaxPieces;
    };
    const run_parts::RunVerdict verdict = verdict_in;  // its vectors in registers
    rte_mbuf** p = pkts + j;
    rte_mbuf** const end = pkts + n;
    // Bytes taken in the low half, bytes summed in the high half (at most
    // 65535 chains of at most kHeaderGather bytes: no carry between them).
    uint64_t acc = 0;
    // A chain's length if its walk holds, else 0 (which short_check refuses).
    auto walk = [](const rte_mbuf* m, __m512i* z0, __m512i* z1) [[gnu::always_inline]] {
        const uint32_t len = m->pkt_len;
        const uint32_t nb = m->nb_segs;
        if (nb == 2) return short_walk2<kWide>(m, len, z0, z1) ? len : 0u;
        constexpr uint32_t kRows = kWide ? 2 : 1;
        __m512i z[2];
        const bool held = short_walk<kRows>(m, len, nb, z);
        *z0 = z[0], *z1 = z[1];
        return held ? len : 0u;
    };
    rte_mbuf* m = *p;
    __m512i z0, z1;
    uint32_t len = walk(m, &z0, &z1);
    for (;;) {
        // As run's: the data kRunAhead chains past the one walked, later
        // segments' descriptors a hop a chain (one bound test for all).
        if (end - p > 4) {
            rte_mbuf* a = p[1 + run_parts::kRunAhead];
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + verdict.offset());
            const rte_mbuf* s2 = p[3]->next;
            if (s2 != nullptr)
                rte_prefetch0(s2), rte_prefetch0(reinterpret_cast<const char*>(s2) + 64);
            const rte_mbuf* t2 = p[2]->next;
            const rte_mbuf* t3 = t2 != nullptr ? t2->next : nullptr;
            if (t3 != nullptr)
                rte_prefetch0(t3), rte_prefetch0(reinterpret_cast<const char*>(t3) + 64);
        }
        rte_mbuf* nm = nullptr;
        __m512i n0 = z0, n1 = z1;
        uint32_t nlen = 0;
        if (end - p > 1 && mine(p[1])) nm = p[1], nlen = walk(nm, &n0, &n1);
        uint64_t counted = 0;
        if (!short_check<kV6, kUdp, kPorts, kWide, kSums>(sc, z0, z1, len, &counted)) {
            *failed = true;
            break;
        }
        acc += len + (counted << 32);
        verdict.write(m);
        ++p;
        if (nm == nullptr) break;
        m = nm, len = nlen, z0 = n0, z1 = n1;
    }
    *bytes += acc & 0xFFFFFFFFu;
    *summed += acc >> 32;
    return static_cast<unsigned>(p - pkts);
}

// run's counterpart for chains of at most kHeaderGather bytes: its own
// function, so that neither loop's registers or layout change the other's.
// It and the entry points (into which run_shape inlines the IPv6 long
// loops) start a 64-byte line, so that a change to this loop does not move
// theirs across line boundaries (on AMD Zen 5, the IPv6 long loop moved by
// 0x70 bytes cost UDP/IPv6 256- and 1420-B chains ~1.5 ticks).
// kSums: software sums; else the PMD flagged every sum GOOD (no sum taken,
// the same walk and shape test).
template <bool kV6, bool kUdp, bool kPorts, bool kSums>
[[gnu::aligned(64)]] unsigned run_short_chains(const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                                               unsigned n, const run_parts::RunVerdict& verdict,
                                               Out* out, bool* failed) noexcept {
    uint64_t bytes = 0, summed = 0;
    *failed = false;
    while (j < n) {
        const rte_mbuf* m = pkts[j];
        if (m->next == nullptr || !run_parts::RunMbufTest<kV6, kSums>::flags(m)) break;
        const uint32_t len = m->pkt_len;
        if (len > kHeaderGather || m->nb_segs > detail::kInetMaxPieces) break;
        j = len > 64 ? run_short<kV6, kUdp, kPorts, kSums, true>(sc, pkts, j, n, verdict, &bytes,
                                                                 &summed, failed)
                     : run_short<kV6, kUdp, kPorts, kSums, false>(sc, pkts, j, n, verdict, &bytes,
                                                                  &summed, failed);
        if (*failed) break;
    }
    out->bytes += bytes;
    out->summed += summed;
    return j;
}

// The long loop's front: the bytes front_check reads (to the UDP checksum,
// or the TCP data offset), in whole 8-byte words.
template <bool kV6, bool kUdp>
inline constexpr uint32_t kFront = kV6 ? (kUdp ? 64 : 72) : 48;

// front_shape's test of a chain and its sums: the IPv4 header's from
// lane_word, the L4 region's from the walk's accumulators (t, as
// addressed_l4_sum takes them).
template <bool kV6, bool kUdp, bool kPorts>
[[gnu::always_inline]] inline bool front_check(const ShapeConfig& sc, __m512i z0, __m512i z1,
                                               uint32_t len, __m512i t, uint32_t vectors,
                                               __m512i bias, __m512i ones, uint32_t* l4_out) {
    uint32_t l4_len;
    if (!front_shape<kV6, kUdp, kPorts>(sc, z0, z1, len, &l4_len)) return false;
    auto q = [&]<int I>() [[gnu::always_inline]] { return lane_word<I>(z0, z1); };
    const uint64_t q2 = q.template operator()<2>();
    if constexpr (!kV6) {
        // The header, bytes [14, 34): never 0 (its first byte is 0x45).
        using detail::add64c;
        const uint64_t q3 = q.template operator()<3>(), q4 = q.template operator()<4>();
        const uint64_t h =
            add64c(add64c((q.template operator()<1>() >> 48) + (q4 & 0xFFFF), q2), q3);
        if (!lean_detail::mod_ffff_zero(h)) return false;
    }
    const uint64_t l4 = addressed_l4_sum<kV6>(z0, t, vectors, bias, ones);
    const uint64_t pk = (uint64_t{kUdp ? kShapeUdp : kShapeTcp} + l4_len) << 8;
    if (!lean_detail::mod_ffff_zero(l4 + pk)) return false;
    *l4_out = l4_len;
    return true;
}

template <bool kV6, bool kUdp, bool kPorts, bool kVnni>
unsigned run(const ShapeConfig& sc, rte_mbuf** pkts, unsigned j, unsigned n,
             const run_parts::RunVerdict& verdict, Out* out, bool* failed) noexcept {
    constexpr uint32_t kF = kFront<kV6, kUdp>;
    static_assert(kF < kHeaderGather);  // the chains here hold more
    const long voff = verdict.offset();
    const __m512i bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    const __m512i ones = _mm512_set1_epi16(1);
    const __m512i sh = word_swap();
    uint64_t bytes = 0, summed = 0;
    *failed = false;
    for (; j < n; ++j) {
        prefetch_ahead<true>(pkts, j, n, voff);
        rte_mbuf* m = pkts[j];
        if (m->next == nullptr || !run_parts::RunMbufTest<kV6, true>::flags(m)) break;
        const uint32_t len = m->pkt_len, nb = m->nb_segs;
        if (len <= kHeaderGather || len > 65535 || nb > detail::kInetMaxPieces) break;
        __m512i z0, z1, t;  // the front's kF bytes; the accumulators added up
        uint32_t vectors;
        if (!walk_and_sum<kF, kVnni>(m, len, nb, bias, ones, sh, &z0, &z1, &t, &vectors)) {
            *failed = true;
            break;
        }
        uint32_t l4_len;
        if (!front_check<kV6, kUdp, kPorts>(sc, z0, z1, len, t, vectors, bias, ones, &l4_len)) {
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

// kLoop: 0 run (long chains, software sums), 1 run_short_chains with
// software sums, 2 run_short_chains on GOOD flags.
template <bool kVnni, int kLoop>
[[gnu::always_inline]] inline unsigned run_shape(int shape, bool ports, const ShapeConfig& sc,
                                                 rte_mbuf** pkts, unsigned j, unsigned n,
                                                 const run_parts::RunVerdict& v, Out* out,
                                                 bool* failed) noexcept {
    auto go = [&]<bool kV6, bool kUdp, bool kPorts>() [[gnu::always_inline]] {
        if constexpr (kLoop == 0)
            return run<kV6, kUdp, kPorts, kVnni>(sc, pkts, j, n, v, out, failed);
        else
            return run_short_chains<kV6, kUdp, kPorts, kLoop == 1>(sc, pkts, j, n, v, out, failed);
    };
    return by_shape(shape, ports, go, [&] {
        *failed = false;
        return j;
    });
}

}  // namespace

#if CSUM_CHAIN_WALK_VNNI
[[gnu::aligned(64)]] unsigned run_avx512_vnni(int shape, bool ports, const ShapeConfig& sc,
                                              rte_mbuf** pkts, unsigned j, unsigned n,
                                              const run_parts::RunVerdict& verdict, Out* out,
                                              bool* failed) noexcept {
    return run_shape<true, 0>(shape, ports, sc, pkts, j, n, verdict, out, failed);
}
#else
[[gnu::aligned(64)]] unsigned run_avx512(int shape, bool ports, const ShapeConfig& sc,
                                         rte_mbuf** pkts, unsigned j, unsigned n,
                                         const run_parts::RunVerdict& verdict, Out* out,
                                         bool* failed) noexcept {
    return run_shape<false, 0>(shape, ports, sc, pkts, j, n, verdict, out, failed);
}
[[gnu::aligned(64)]] unsigned run_short_avx512(int shape, bool ports, const ShapeConfig& sc,
                                               rte_mbuf** pkts, unsigned j, unsigned n,
                                               const run_parts::RunVerdict& verdict, Out* out,
                                               bool* failed) noexcept {
    return run_shape<false, 1>(shape, ports, sc, pkts, j, n, verdict, out, failed);
}
[[gnu::aligned(64)]] unsigned run_short_good_avx512(int shape, bool ports, const ShapeConfig& sc,
                                                    rte_mbuf** pkts, unsigned j, unsigned n,
                                                    const run_parts::RunVerdict& verdict, Out* out,
                                                    bool* failed) noexcept {
    return run_shape<false, 2>(shape, ports, sc, pkts, j, n, verdict, out, failed);
}
#endif

}  // namespace csum::chain_walk

CSUM_TARGET_END
