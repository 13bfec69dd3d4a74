// chain_walk.h's loop, built once per ISA by good_run_chain_avx512.cpp
// (CSUM_CHAIN_WALK_VNNI 0) and good_run_chain_avx512_vnni.cpp (1). Every
// header is included first, then the `#pragma GCC target` (clang:
// attribute) region opens, so that only this loop (internal linkage) is
// built for AVX-512 and the inline functions of the headers it calls keep
// one definition for every CPU.
//
// A chain is walked once; each segment's bytes are summed whole as it is
// reached (64-byte vectors, its tail as one masked load, a segment at an odd
// packet position byte-swapped as loaded, as inet_mbuf_avx512_body.h does),
// on four vector accumulators carried along the chain and reduced once. The
// L4 region's sum is that less the sum of the headers before it (read from
// the front); so a packet takes this loop only if nothing follows its L4
// region (pkt_len = L4 offset + L4 length) and its segments hold exactly
// pkt_len bytes: anything else ends the stretch for the general loop.
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

#if CSUM_CHAIN_WALK_VNNI
#if defined(__clang__)
#pragma clang attribute push(                                                      \
    __attribute__((target("bmi2,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))), \
    apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("bmi2,avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")
#endif
#else
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("bmi2,avx512f,avx512bw,avx512vl,avx512dq"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("bmi2,avx512f,avx512bw,avx512vl,avx512dq")
#endif
#endif
#if !defined(__clang__)
// GCC 12's AVX-512 intrinsics trip a false -Wmaybe-uninitialized (PR105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace csum::chain_walk {
namespace {

template <bool kVnni>
[[gnu::always_inline]] inline __m512i step(__m512i a, __m512i x, __m512i bias, __m512i ones) {
    if constexpr (kVnni)
        return _mm512_dpwssd_epi32(a, _mm512_xor_si512(x, bias), ones);
    else
        return _mm512_add_epi32(a, _mm512_madd_epi16(_mm512_xor_si512(x, bias), ones));
}

template <bool kV6, bool kUdp, bool kPorts, bool kVnni>
unsigned run(const ShapeConfig& sc, rte_mbuf** pkts, unsigned j, unsigned n,
             const run_parts::RunVerdict& verdict, Out* out, bool* failed) noexcept {
    constexpr uint32_t kL4 = kV6 ? 54 : 34;
    constexpr uint32_t kNeed = kL4 + (kUdp ? 8 : 20);
    static_assert(kNeed <= kHeaderGather, "the front's copy fits gather[]");
    constexpr unsigned kAhead = run_parts::kRunAhead;
    const long voff = verdict.offset();
    const __m512i bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    const __m512i ones = _mm512_set1_epi16(1);
    const __m512i sh = _mm512_set_epi8(
        62, 63, 60, 61, 58, 59, 56, 57, 54, 55, 52, 53, 50, 51, 48, 49, 46, 47, 44, 45, 42, 43, 40,
        41, 38, 39, 36, 37, 34, 35, 32, 33, 30, 31, 28, 29, 26, 27, 24, 25, 22, 23, 20, 21, 18, 19,
        16, 17, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
    alignas(64) uint8_t gather[kHeaderGather];
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
        // The walk and the sum. Each lane add is within [-0x10000, 0xFFFE]:
        // with at most 8 segments of 65535 bytes, under 2^13 vectors, no
        // lane leaves int32 (a chain longer than its 65535-byte pkt_len is
        // turned away below, whatever its sum).
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
        uint32_t pos = 0, c = 0, vectors = 0;
        bool bad_walk = false;
        for (const rte_mbuf* g = m; g != nullptr; g = g->next) {
            if (c == nb) {  // more segments than nb_segs
                bad_walk = true;
                break;
            }
            const uint8_t* q = rte_pktmbuf_mtod(g, const uint8_t*);
            uint32_t k = g->data_len;
            auto piece = [&]<bool kSwap>() [[gnu::always_inline]] {
                auto st = [&](__m512i a, __m512i x) [[gnu::always_inline]] {
                    if constexpr (kSwap) x = _mm512_shuffle_epi8(x, sh);
                    return step<kVnni>(a, x, bias, ones);
                };
                if (k <= 64) {
                    // One masked load (an empty segment's masks every byte
                    // off, and counts as a vector of bias like any other).
                    ++vectors;
                    a3 = st(a3, _mm512_maskz_loadu_epi8(_bzhi_u64(~uint64_t{0}, k), q));
                    return;
                }
                vectors += (k + 63) >> 6;
                if (k >= 256) {
                    const uint8_t* const end = q + (k & ~255u);
                    do {
                        a0 = st(a0, _mm512_loadu_si512(q));
                        a1 = st(a1, _mm512_loadu_si512(q + 64));
                        a2 = st(a2, _mm512_loadu_si512(q + 128));
                        a3 = st(a3, _mm512_loadu_si512(q + 192));
                        q += 256;
                    } while (q != end);
                    k &= 255;
                }
                if (k >= 128) {
                    a0 = st(a0, _mm512_loadu_si512(q));
                    a1 = st(a1, _mm512_loadu_si512(q + 64));
                    q += 128, k -= 128;
                }
                if (k >= 64) a2 = st(a2, _mm512_loadu_si512(q)), q += 64, k -= 64;
                if (k > 0) a3 = st(a3, _mm512_maskz_loadu_epi8(_bzhi_u64(~uint64_t{0}, k), q));
            };
            const uint32_t seg_len = k;
            if (pos & 1)
                piece.template operator()<true>();
            else
                piece.template operator()<false>();
            pos += seg_len;
            ++c;
        }
        if (bad_walk || c != nb || pos != len) {
            *failed = true;
            break;
        }
        // The front: in place if the first segment holds the headers, else
        // the first kNeed bytes gathered (the chain holds len > kNeed).
        const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
        if (m->data_len < kNeed) {
            uint8_t* d = gather;
            uint32_t left = kNeed;
            for (const rte_mbuf* g = m; left != 0; g = g->next) {
                const uint32_t t = g->data_len < left ? g->data_len : left;
                shape_detail::small_copy(d, rte_pktmbuf_mtod(g, const uint8_t*), t);
                d += t, left -= t;
            }
            f = gather;
        }
        uint32_t l4_len;
        if (!same_plain_shape<kV6, kUdp, kPorts>(sc, f, len, &l4_len) || l4_len != len - kL4) {
            *failed = true;
            break;
        }
        // The whole chain's sum, less the headers' before the L4 region.
        const __m512i t = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
        // Each lane add lost 2 * 0x8000 of bias: 0x4000 per byte, 64 bytes a vector.
        const uint64_t total = static_cast<uint64_t>(int64_t{_mm512_reduce_add_epi32(t)} +
                                                     int64_t{0x100000} * int64_t{vectors});
        using detail::add64c;
        using lean_detail::load32;
        using lean_detail::load64;
        // Bytes [0, 14): as words at even offsets, like every load below.
        const uint64_t eth = uint64_t{load32(f + 8)} + same_detail::load16(f + 12);
        const uint64_t pk = (uint64_t{kUdp ? kShapeUdp : kShapeTcp} + l4_len) << 8;
        uint64_t l;
        if constexpr (!kV6) {
            const uint64_t addrs = uint64_t{load32(f + 26)} + load32(f + 30);
            const uint64_t h =
                addrs + load32(f + 14) + uint64_t{load32(f + 18)} + uint64_t{load32(f + 22)};
            if (h == 0 || !lean_detail::mod_ffff_zero(h)) {  // as sums_good
                *failed = true;
                break;
            }
            const uint64_t head = add64c(load64(f), eth + h);  // bytes [0, 34)
            const uint32_t d = lean_detail::fold64(add64c(total, ~head));
            l = d + addrs + pk;
        } else {
            const uint64_t addrs = add64c(add64c(load64(f + 22), load64(f + 30)),
                                          add64c(load64(f + 38), load64(f + 46)));
            // Bytes [0, 54): Ethernet, the IPv6 header's first 8, the addresses.
            const uint64_t head = add64c(add64c(load64(f), eth), add64c(load64(f + 14), addrs));
            const uint32_t d = lean_detail::fold64(add64c(total, ~head));
            l = uint64_t{d} + lean_detail::fold64(addrs) + pk;
        }
        if (!lean_detail::mod_ffff_zero(l)) {
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

template <bool kVnni>
[[gnu::always_inline]] inline unsigned run_shape(int shape, bool ports, const ShapeConfig& sc,
                                                 rte_mbuf** pkts, unsigned j, unsigned n,
                                                 const run_parts::RunVerdict& v, Out* out,
                                                 bool* failed) noexcept {
    switch (shape) {
        case 0:
            return ports ? run<false, false, true, kVnni>(sc, pkts, j, n, v, out, failed)
                         : run<false, false, false, kVnni>(sc, pkts, j, n, v, out, failed);
        case 1:
            return run<false, true, false, kVnni>(sc, pkts, j, n, v, out, failed);
        case 3:
            return ports ? run<true, false, true, kVnni>(sc, pkts, j, n, v, out, failed)
                         : run<true, false, false, kVnni>(sc, pkts, j, n, v, out, failed);
        case 4:
            return run<true, true, false, kVnni>(sc, pkts, j, n, v, out, failed);
        default:
            *failed = false;
            return j;
    }
}

}  // namespace

#if CSUM_CHAIN_WALK_VNNI
unsigned run_avx512_vnni(int shape, bool ports, const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                         unsigned n, const run_parts::RunVerdict& verdict, Out* out,
                         bool* failed) noexcept {
    return run_shape<true>(shape, ports, sc, pkts, j, n, verdict, out, failed);
}
#else
unsigned run_avx512(int shape, bool ports, const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                    unsigned n, const run_parts::RunVerdict& verdict, Out* out,
                    bool* failed) noexcept {
    return run_shape<false>(shape, ports, sc, pkts, j, n, verdict, out, failed);
}
#endif

}  // namespace csum::chain_walk

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
