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

// Inside the target region: its inline helpers need AVX-512 here.
#include "simd/masked_load.h"

namespace csum::chain_walk {
namespace {

template <bool kVnni>
[[gnu::always_inline]] inline __m512i step(__m512i a, __m512i x, __m512i bias, __m512i ones) {
    if constexpr (kVnni)
        return _mm512_dpwssd_epi32(a, _mm512_xor_si512(x, bias), ones);
    else
        return _mm512_add_epi32(a, _mm512_madd_epi16(_mm512_xor_si512(x, bias), ones));
}

// A chain of at most kHeaderGather bytes: each segment's bytes put in
// place in two zmm registers (the packet's bytes 0..63 and 64..127) by one
// masked load each, from the segment's data less its position with only
// its lanes enabled (a masked-off lane reads nothing and cannot fault), so
// the packet is assembled with no copy loop; then the shape test and the
// sums (short_check). The template of bytes 12..27 is tested on the
// register.
template <bool kV6, bool kUdp>
struct ShortConsts {
    struct Bytes {
        alignas(64) uint8_t value[64];
        alignas(64) uint8_t mask[64];
    };
    static constexpr Bytes kBytes = [] {
        Bytes b{};
        const auto& t = same_detail::kTemplate<kV6, kUdp>;
        for (int i = 0; i < 16; ++i) b.value[12 + i] = t.value[i], b.mask[12 + i] = t.mask[i];
        return b;
    }();
};

// The walk: no more than nb segments (a looped chain ends), no more than
// len bytes (so every lane index stays under kHeaderGather, and bzhi's
// count under 256: no lane before a segment's data is ever enabled). True
// if the chain holds exactly len bytes in nb segments.
template <bool kWide>
[[gnu::always_inline]] inline bool short_walk(const rte_mbuf* m, uint32_t len, uint32_t nb,
                                              __m512i* z0_out, __m512i* z1_out) {
    __m512i z0 = _mm512_setzero_si512(), z1 = z0;
    uint32_t pos = 0, c = 0;
    uint64_t lo_prev = 0, hi_prev = 0;
    for (const rte_mbuf* g = m; g != nullptr; g = g->next) {
        if (c == nb || !segment_in_buffer(g)) return false;  // more segments than nb_segs
        const uint32_t e = pos + g->data_len;
        if (e > len) return false;  // more bytes than pkt_len
        // Lane i of z0 is the packet's byte i: the segment's from lane pos on.
        const auto* q = reinterpret_cast<const char*>(rte_pktmbuf_mtod(g, uintptr_t) - pos);
        const uint64_t lo = _bzhi_u64(~uint64_t{0}, e);
        z0 = _mm512_mask_loadu_epi8(z0, lo ^ lo_prev, q);
        lo_prev = lo;
        if constexpr (kWide) {
            if (e > 64) {  // the segment reaches the second register
                const uint64_t hi = _bzhi_u64(~uint64_t{0}, e - 64);
                z1 = _mm512_mask_loadu_epi8(z1, hi ^ hi_prev, q + 64);
                hi_prev = hi;
            }
        }
        pos = e, ++c;
    }
    *z0_out = z0, *z1_out = z1;
    return c == nb && pos == len;
}

// short_walk for a chain of two segments (headers cut off from the rest,
// the common case), its tests unrolled. m->next is not null.
template <bool kWide>
[[gnu::always_inline]] inline bool short_walk2(const rte_mbuf* m, uint32_t len, __m512i* z0_out,
                                               __m512i* z1_out) {
    const rte_mbuf* g = m->next;
    const uint32_t e = m->data_len;
    if (g->next != nullptr || !segment_in_buffer(m) || !segment_in_buffer(g) ||
        e + g->data_len != len)
        return false;
    const auto* q0 = rte_pktmbuf_mtod(m, const char*);
    const auto* q1 = reinterpret_cast<const char*>(rte_pktmbuf_mtod(g, uintptr_t) - e);
    // e <= len <= kHeaderGather: bzhi's counts stay under 256.
    const uint64_t lo = _bzhi_u64(~uint64_t{0}, e);
    __m512i z0 = _mm512_maskz_loadu_epi8(lo, q0);
    *z0_out = _mm512_mask_loadu_epi8(z0, _bzhi_u64(~uint64_t{0}, len) & ~lo, q1);
    if constexpr (kWide) {
        // Only a load with lanes enabled: one whose lanes are all off still
        // takes a microcode assist where its bytes reach an unmapped page
        // (app/common/mbuf_pool.h), as past a short first segment they may.
        uint64_t hi = 0;
        __m512i z1 = _mm512_setzero_si512();
        if (e > 64) {
            hi = _bzhi_u64(~uint64_t{0}, e - 64);
            z1 = _mm512_maskz_loadu_epi8(hi, q0 + 64);
        }
        *z1_out = _mm512_mask_loadu_epi8(z1, _bzhi_u64(~uint64_t{0}, len - 64) & ~hi, q1 + 64);
    } else {
        *z1_out = _mm512_setzero_si512();
    }
    return true;
}

// The walked chain's shape and sums (z0, z1: its bytes, zero past len);
// !kSums: its shape only (the PMD said every sum is GOOD).
// The template test on the register; the rest from one aligned copy, by
// 8-byte loads at multiples of 8 only, which store forwarding serves (a
// load that spans two 8-byte parts waits for the store to retire; the
// vector reductions' latency cost more).
template <bool kV6, bool kUdp, bool kPorts, bool kWide, bool kSums>
[[gnu::always_inline]] inline bool short_check(const ShapeConfig& sc, __m512i z0, __m512i z1,
                                               uint32_t len, uint64_t* summed) {
    using C = ShortConsts<kV6, kUdp>;
    constexpr uint32_t kL4 = kV6 ? 54 : 34;
    constexpr uint32_t kMinLen = kL4 + (kUdp ? 8 : 20);
    if constexpr (!kWide && kMinLen > 64) return false;
    if (len < kMinLen) return false;
    const __m512i tv = _mm512_load_si512(C::kBytes.value);
    const __m512i tm = _mm512_load_si512(C::kBytes.mask);
    if (_mm512_test_epi8_mask(_mm512_xor_si512(z0, tv), tm) != 0) return false;
    // As 32-byte stores: from a 64-byte store only loads in its first 32
    // bytes are forwarded (Emerald Rapids: the others wait ~11 ticks more).
    alignas(64) uint8_t f[kWide ? 128 : 64];
    auto put = [&](uint8_t* d, __m512i z) [[gnu::always_inline]] {
        _mm256_store_si256(reinterpret_cast<__m256i*>(d), _mm512_castsi512_si256(z));
        _mm256_store_si256(reinterpret_cast<__m256i*>(d + 32), _mm512_extracti64x4_epi64(z, 1));
    };
    put(f, z0);
    if constexpr (kWide) put(f + 64, z1);
    // Read back by loads: GCC would otherwise take some words from the
    // registers (an extract and a move each, and spills).
    asm("" : "+m"(f));
    using lean_detail::load64;
    auto q = [&](int i) [[gnu::always_inline]] { return load64(f + 8 * i); };
    auto be = [](uint64_t v) [[gnu::always_inline]] {  // a big-endian u16 in v's low bits
        return static_cast<uint32_t>(__builtin_bswap16(static_cast<uint16_t>(v)));
    };
    const uint64_t q2 = q(2);
    const uint32_t l4_len = kV6 ? be(q2 >> 16) : be(q2) - 20u;
    if (l4_len != len - kL4) return false;  // padded, or longer than the frame: the general loop's
    if constexpr (kUdp) {
        const uint64_t u = kV6 ? q(7) >> 16 : q(4) >> 48;  // length, then checksum (IPv6)
        const uint32_t ulen = static_cast<uint32_t>(u & 0xFFFF);
        const uint32_t ck = static_cast<uint32_t>((kV6 ? u >> 16 : q(5)) & 0xFFFF);
        const uint32_t dlo = static_cast<uint32_t>((kV6 ? q(7) >> 8 : q(4) >> 40) & 0xFF);
        if ((kV6 ? ulen != ((q2 >> 16) & 0xFFFF) : be(ulen) != l4_len) || ck == 0 ||
            sc.udp_hit[dlo] != 0)
            return false;
    } else {
        const uint32_t doff = static_cast<uint32_t>((kV6 ? q(8) >> 16 : q(5) >> 48) & 0xFF);
        if (same_detail::kTcpMinL4.at[doff] > l4_len) return false;
        if constexpr (kPorts) {
            const uint32_t slo = static_cast<uint32_t>(kV6 ? q(6) >> 56 : (q(4) >> 24) & 0xFF);
            const uint32_t dlo = static_cast<uint32_t>((kV6 ? q(7) >> 8 : q(4) >> 40) & 0xFF);
            if ((sc.tcp_hit[slo] | sc.tcp_hit[dlo]) != 0) return false;
        }
    }
    if constexpr (!kSums) return true;
    // The L4 region with the pseudo-header's addresses before it (IPv4 from
    // byte 26, IPv6 from 22) to len, the bytes past it zero: whole words.
    using lean_detail::adc_words;
    uint64_t l = (uint64_t{kUdp ? kShapeUdp : kShapeTcp} + l4_len) << 8;
    if constexpr (!kV6) {
        // The header, bytes [14, 34): never 0 (its first byte is 0x45).
        const uint64_t q3 = q(3), q4 = q(4);
        const uint64_t h = adc_words<2>((q(1) >> 48) + (q4 & 0xFFFF), f + 16);
        if (!lean_detail::mod_ffff_zero(h)) return false;
        l += q3 >> 16;  // bytes 26..31
        l = adc_words<4>(l, f + 32);
    } else {
        l += q2 >> 48;  // bytes 22, 23
        l = adc_words<5>(l, f + 24);
    }
    if constexpr (kWide) {
        // The words from byte 64 to len (zeros past it), by their count.
        switch ((len - 57) >> 3) {  // 1..8, len in (64, 128]
            case 1:
                l = adc_words<1>(l, f + 64);
                break;
            case 2:
                l = adc_words<2>(l, f + 64);
                break;
            case 3:
                l = adc_words<3>(l, f + 64);
                break;
            case 4:
                l = adc_words<4>(l, f + 64);
                break;
            case 5:
                l = adc_words<5>(l, f + 64);
                break;
            case 6:
                l = adc_words<6>(l, f + 64);
                break;
            case 7:
                l = adc_words<7>(l, f + 64);
                break;
            default:
                l = adc_words<8>(l, f + 64);
                break;
        }
    }
    if (!lean_detail::mod_ffff_zero(l)) return false;
    *summed += (kV6 ? 0 : 20) + l4_len;
    return true;
}

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
        return (nb == 2 ? short_walk2<kWide>(m, len, z0, z1)
                        : short_walk<kWide>(m, len, nb, z0, z1))
                   ? len
                   : 0u;
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

// The front is put together as short_walk does, as the walk reaches each
// segment that holds part of it: its bytes in place in z0 (bytes 0..63) and
// z1 (64..) by one masked load each, then tested and summed from the
// registers, wherever the segments are cut. Never stored and read back: a
// load that spans two stores waits for both to retire (~10+ ticks each,
// the piece-by-piece copy into gather[] this replaces), and which loads
// within one store are forwarded differs by CPU.
// pos: the segment's place in the packet (< kF); d: its data, k bytes.
template <uint32_t kF>
[[gnu::always_inline]] inline void front_piece(__m512i* z0, __m512i* z1, uint32_t pos,
                                               const uint8_t* d, uint32_t k) {
    static_assert(kF % 8 == 0 && kF <= 128);
    // At most kF: bzhi's counts stay under 256, and no lane before the
    // segment's data or past its k bytes is enabled.
    const uint32_t e = k < kF - pos ? pos + k : kF;
    const uint8_t* q = d - pos;
    if (pos < 64)
        *z0 = _mm512_mask_loadu_epi8(*z0,
                                     _bzhi_u64(~uint64_t{0}, e) & ~_bzhi_u64(~uint64_t{0}, pos), q);
    if constexpr (kF > 64) {
        if (e > 64) {
            const uint32_t from = pos > 64 ? pos - 64 : 0;
            *z1 = _mm512_mask_loadu_epi8(
                *z1, _bzhi_u64(~uint64_t{0}, e - 64) & ~_bzhi_u64(~uint64_t{0}, from), q + 64);
        }
    }
}

// Word I of the bytes in z0 (0..63) and z1 (64..127).
template <int I>
[[gnu::always_inline]] inline uint64_t lane_word(__m512i z0, __m512i z1) {
    const __m128i x = _mm512_extracti32x4_epi32(I < 8 ? z0 : z1, (I & 7) >> 1);
    return static_cast<uint64_t>(_mm_extract_epi64(x, I & 1));
}

// same_plain_shape's test of a chain of len bytes (its L4 region to the
// end) and its sums, from the front in z0, z1. t: the walk's accumulators
// added, over `vectors` vectors. The L4 sum with the pseudo-header's
// addresses is the whole chain's less the bytes before the addresses,
// taken off as one more vector; the fields come from lane_word.
template <bool kV6, bool kUdp, bool kPorts>
[[gnu::always_inline]] inline bool front_check(const ShapeConfig& sc, __m512i z0, __m512i z1,
                                               uint32_t len, __m512i t, uint32_t vectors,
                                               __m512i bias, __m512i ones, uint32_t* l4_out) {
    constexpr uint32_t kL4 = kV6 ? 54 : 34;
    constexpr uint32_t kAddrs = kV6 ? 22 : 26;
    using C = ShortConsts<kV6, kUdp>;
    const __m512i tv = _mm512_load_si512(C::kBytes.value);
    const __m512i tm = _mm512_load_si512(C::kBytes.mask);
    if (_mm512_test_epi8_mask(_mm512_xor_si512(z0, tv), tm) != 0) return false;
    auto q = [&]<int I>() [[gnu::always_inline]] { return lane_word<I>(z0, z1); };
    auto be = [](uint64_t v) [[gnu::always_inline]] {  // a big-endian u16 in v's low bits
        return static_cast<uint32_t>(__builtin_bswap16(static_cast<uint16_t>(v)));
    };
    const uint64_t q2 = q.template operator()<2>();
    // The L4 region reaches the chain's end (len > kHeaderGather: more than
    // any least L4 length).
    const uint32_t l4_len = kV6 ? be(q2 >> 16) : be(q2) - 20u;
    if (l4_len != len - kL4) return false;
    if constexpr (kUdp) {
        const uint64_t u = kV6 ? q.template operator()<7>() : q.template operator()<4>();
        const uint64_t v = kV6 ? u >> 16 : u >> 48;  // length, then checksum (IPv6)
        const uint32_t ulen = static_cast<uint32_t>(v & 0xFFFF);
        const uint32_t ck =
            static_cast<uint32_t>((kV6 ? v >> 16 : q.template operator()<5>()) & 0xFFFF);
        const uint32_t dlo = static_cast<uint32_t>((kV6 ? u >> 8 : u >> 40) & 0xFF);
        if (be(ulen) != l4_len || ck == 0 || sc.udp_hit[dlo] != 0) return false;
    } else {
        const uint64_t d =
            kV6 ? q.template operator()<8>() >> 16 : q.template operator()<5>() >> 48;
        if (same_detail::kTcpMinL4.at[d & 0xFF] > l4_len) return false;
        if constexpr (kPorts) {
            const uint64_t p0 = kV6 ? q.template operator()<6>() : q.template operator()<4>();
            const uint64_t p1 = kV6 ? q.template operator()<7>() : p0;
            const uint32_t slo = static_cast<uint32_t>(kV6 ? p0 >> 56 : (p0 >> 24) & 0xFF);
            const uint32_t dlo = static_cast<uint32_t>((kV6 ? p1 >> 8 : p0 >> 40) & 0xFF);
            if ((sc.tcp_hit[slo] | sc.tcp_hit[dlo]) != 0) return false;
        }
    }
    if constexpr (!kV6) {
        // The header, bytes [14, 34): never 0 (its first byte is 0x45).
        using detail::add64c;
        const uint64_t q3 = q.template operator()<3>(), q4 = q.template operator()<4>();
        const uint64_t h =
            add64c(add64c((q.template operator()<1>() >> 48) + (q4 & 0xFFFF), q2), q3);
        if (!lean_detail::mod_ffff_zero(h)) return false;
    }
    // Bytes [0, kAddrs) off: a vector of them, less its bias (each lane add
    // lost 2 * 0x8000: 0x4000 per byte, 64 bytes a vector).
    const __m512i head = _mm512_maskz_mov_epi8(_bzhi_u64(~uint64_t{0}, kAddrs), z0);
    t = _mm512_sub_epi32(t, _mm512_madd_epi16(_mm512_xor_si512(head, bias), ones));
    const uint64_t l4 = static_cast<uint64_t>(int64_t{_mm512_reduce_add_epi32(t)} +
                                              int64_t{0x100000} * int64_t{vectors - 1});
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
    constexpr unsigned kAhead = run_parts::kRunAhead;
    const long voff = verdict.offset();
    const __m512i bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    const __m512i ones = _mm512_set1_epi16(1);
    const __m512i sh = _mm512_set_epi8(
        62, 63, 60, 61, 58, 59, 56, 57, 54, 55, 52, 53, 50, 51, 48, 49, 46, 47, 44, 45, 42, 43, 40,
        41, 38, 39, 36, 37, 34, 35, 32, 33, 30, 31, 28, 29, 26, 27, 24, 25, 22, 23, 20, 21, 18, 19,
        16, 17, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
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
        // The front's kF bytes, put together in z0, z1 as the walk goes.
        __m512i z0 = a0, z1 = a0;
        uint32_t pos = 0, c = 0, vectors = 0;
        bool bad_walk = false;
        for (const rte_mbuf* g = m; g != nullptr; g = g->next) {
            if (c == nb || !segment_in_buffer(g)) {  // more segments than nb_segs
                bad_walk = true;
                break;
            }
            const uint8_t* q = rte_pktmbuf_mtod(g, const uint8_t*);
            uint32_t k = g->data_len;
            if (pos < kF) front_piece<kF>(&z0, &z1, pos, q, k);
            auto piece = [&]<bool kSwap>() __attribute__((always_inline)) {
                auto st = [&](__m512i a, __m512i x) [[gnu::always_inline]] {
                    if constexpr (kSwap) x = _mm512_shuffle_epi8(x, sh);
                    return step<kVnni>(a, x, bias, ones);
                };
                if (k <= 64) {
                    // One masked load (an empty segment's masks every byte
                    // off, and counts as a vector of bias like any other).
                    ++vectors;
                    a3 = st(a3, simd::maskz_loadu(_bzhi_u64(~uint64_t{0}, k), q));
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
                if (k > 0) a3 = st(a3, simd::maskz_loadu(_bzhi_u64(~uint64_t{0}, k), q));
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
        const __m512i t = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
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
    switch (shape) {
        case 0:
            return ports ? go.template operator()<false, false, true>()
                         : go.template operator()<false, false, false>();
        case 1:
            return go.template operator()<false, true, false>();
        case 3:
            return ports ? go.template operator()<true, false, true>()
                         : go.template operator()<true, false, false>();
        case 4:
            return go.template operator()<true, true, false>();
        default:
            *failed = false;
            return j;
    }
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

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
