// The chain walks' building blocks on AVX-512: the vector sum step, the
// short walk that puts a chain of up to 192 bytes in one to three
// registers, the front put together piece by piece, and a segment summed on
// carried vector state. Included inside a target region (simd/target_region.h)
// (chain_walk_body.h, fill_chain_avx512.cpp), after every other header;
// internal linkage, so each including file has its own copy.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include <rte_mbuf.h>

#include "engine/lean_path.h"
#include "mbuf/inet_mbuf_chain.h"
#include "parse/classify_same.h"
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

// The walk of a chain of len <= 64 * kRows bytes into kRows registers
// (lane i of z[r] is the packet's byte 64 * r + i; the rest of z zero): no
// more than nb segments (a looped chain ends), no more than len bytes (so
// every lane index stays under 64 * kRows, and bzhi's count under 256: no
// lane before a segment's data is ever enabled). Each segment takes one
// masked load per row its bytes reach, none past them (a load with no
// lanes can still cost an assist: see short_walk2). An empty segment, and
// in one row every segment, takes its load untested: the tests cost the
// 4-segment 64-B chain 1-2 ticks (docs/benchmarks.md), and an assist needs
// an unmapped page within 64 bytes of an empty segment's data. True if the
// chain holds exactly len bytes in nb segments.
template <uint32_t kRows, size_t kN>
[[gnu::always_inline]] inline bool short_walk(const rte_mbuf* m, uint32_t len, uint32_t nb,
                                              __m512i (&z)[kN]) {
    static_assert(kRows >= 1 && kRows <= 3 && kRows <= kN);
    for (auto& r : z) r = _mm512_setzero_si512();
    uint32_t pos = 0, c = 0;
    uint64_t had[kRows] = {};  // the lanes of each register already loaded
    for (const rte_mbuf* g = m; g != nullptr; g = g->next) {
        if (c == nb || !segment_in_buffer(g)) return false;  // more segments than nb_segs
        const uint32_t e = pos + g->data_len;
        if (e > len) return false;  // more bytes than pkt_len
        const auto* q = reinterpret_cast<const char*>(rte_pktmbuf_mtod(g, uintptr_t) - pos);
#pragma GCC unroll 3
        for (uint32_t r = 0; r < kRows; ++r)
            if (kRows == 1 || (pos < 64 * (r + 1) && e > 64 * r)) {
                const uint64_t lanes = _bzhi_u64(~uint64_t{0}, e - 64 * r);
                z[r] = _mm512_mask_loadu_epi8(z[r], lanes ^ had[r], q + 64 * r);
                had[r] = lanes;
            }
        pos = e, ++c;
    }
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

// same_plain_shape's test of a chain of len bytes whose L4 region reaches
// its end (len > kHeaderGather: more than any least L4 length), from its
// front in z0 (bytes 0..63) and z1 (64..). *l4_out: the L4 length.
template <bool kV6, bool kUdp, bool kPorts>
[[gnu::always_inline]] inline bool front_shape(const ShapeConfig& sc, __m512i z0, __m512i z1,
                                               uint32_t len, uint32_t* l4_out) {
    constexpr uint32_t kL4 = kV6 ? 54 : 34;
    using C = ShortConsts<kV6, kUdp>;
    const __m512i tv = _mm512_load_si512(C::kBytes.value);
    const __m512i tm = _mm512_load_si512(C::kBytes.mask);
    if (_mm512_test_epi8_mask(_mm512_xor_si512(z0, tv), tm) != 0) return false;
    auto q = [&]<int I>() [[gnu::always_inline]] { return lane_word<I>(z0, z1); };
    auto be = [](uint64_t v) [[gnu::always_inline]] {  // a big-endian u16 in v's low bits
        return static_cast<uint32_t>(__builtin_bswap16(static_cast<uint16_t>(v)));
    };
    const uint64_t q2 = q.template operator()<2>();
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
    *l4_out = l4_len;
    return true;
}

// The walked chain's shape and sums (z0, z1: its bytes, zero past len);
// !kSums: its shape only (the PMD said every sum is GOOD). kFill: the sums
// not tested but made, as fill_chain makes them: fill[0] the IPv4 header's
// field, fill[1] the L4 one's (memory order); *summed counts L4 bytes.
// The template test on the register; the rest from one aligned copy, by
// 8-byte loads at multiples of 8 only, which store forwarding serves (a
// load that spans two 8-byte parts waits for the store to retire; the
// vector reductions' latency cost more).
template <bool kV6, bool kUdp, bool kPorts, bool kWide, bool kSums, bool kFill = false>
[[gnu::always_inline]] inline bool short_check(const ShapeConfig& sc, __m512i z0, __m512i z1,
                                               uint32_t len, uint64_t* summed,
                                               uint16_t* fill = nullptr) {
    static_assert(kSums || !kFill);
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
        if constexpr (kFill)  // the field (bytes 24, 25) as zero
            fill[0] = static_cast<uint16_t>(~word_sum::fold64(h + (0xFFFF - (q3 & 0xFFFF))));
        else if (!lean_detail::mod_ffff_zero(h))
            return false;
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
    if constexpr (kFill) {
        constexpr uint32_t kField = kL4 + (kUdp ? 6 : 16);
        const uint64_t field = (q(kField / 8) >> (8 * (kField % 8))) & 0xFFFF;
        const uint16_t w = static_cast<uint16_t>(~word_sum::fold64(l + (0xFFFF - field)));
        fill[1] = kUdp && w == 0 ? 0xFFFF : w;
        *summed += l4_len;
        return true;
    }
    if (!lean_detail::mod_ffff_zero(l)) return false;
    *summed += (kV6 ? 0 : 20) + l4_len;
    return true;
}

// A segment's k bytes at q added to the four accumulators carried along a
// chain, as whole vectors and its tail as one masked load (an empty
// segment's masks every byte off and counts as a vector of bias like any
// other); kSwap: at an odd packet position, each vector byte-swapped by sh.
template <bool kVnni, bool kSwap>
[[gnu::always_inline]] inline void add_segment(__m512i& a0, __m512i& a1, __m512i& a2, __m512i& a3,
                                               uint32_t& vectors, const uint8_t* q, uint32_t k,
                                               __m512i bias, __m512i ones, __m512i sh) {
    auto st = [&](__m512i a, __m512i x) [[gnu::always_inline]] {
        if constexpr (kSwap) x = _mm512_shuffle_epi8(x, sh);
        return step<kVnni>(a, x, bias, ones);
    };
    if (k <= 64) {
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
}

// A chain of len bytes in nb segments walked once: every segment summed
// whole on carried vector state (add_segment), the front's kF bytes put
// together in z0, z1 as the walk reaches them (front_piece). False if a
// segment lies outside its buffer, or the chain does not hold exactly nb
// segments and len bytes (a looped chain ends at nb). On true, *t: the
// accumulators added up, over *vectors vectors (as addressed_l4_sum takes
// them). Each lane add is within [-0x10000, 0xFFFE]: with at most nb
// (kInetMaxPieces, 8) segments of 65535 bytes, under 2^13 vectors, no lane
// leaves int32 (a chain longer than its pkt_len is refused whatever its sum).
template <uint32_t kF, bool kVnni>
[[gnu::always_inline]] inline bool walk_and_sum(const rte_mbuf* m, uint32_t len, uint32_t nb,
                                                __m512i bias, __m512i ones, __m512i sh,
                                                __m512i* z0_out, __m512i* z1_out, __m512i* t,
                                                uint32_t* vectors_out) {
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    __m512i z0 = a0, z1 = a0;
    uint32_t pos = 0, c = 0, vectors = 0;
    for (const rte_mbuf* g = m; g != nullptr; g = g->next) {
        if (c == nb || !segment_in_buffer(g)) return false;  // more segments than nb_segs
        const uint8_t* q = rte_pktmbuf_mtod(g, const uint8_t*);
        const uint32_t k = g->data_len;
        if (pos < kF) front_piece<kF>(&z0, &z1, pos, q, k);
        if (pos & 1)
            add_segment<kVnni, true>(a0, a1, a2, a3, vectors, q, k, bias, ones, sh);
        else
            add_segment<kVnni, false>(a0, a1, a2, a3, vectors, q, k, bias, ones, sh);
        pos += k;
        ++c;
    }
    if (c != nb || pos != len) return false;
    *z0_out = z0, *z1_out = z1, *vectors_out = vectors;
    *t = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
    return true;
}

// The chain's L4 region with the pseudo-header's addresses before it (bytes
// kAddrs.. of a chain whose L4 region reaches its end), summed as 16-bit
// words in memory order: the accumulators' t, the sum of all its bytes over
// `vectors` vectors, less the bytes [0, kAddrs) of the front in z0, taken
// off as one more vector with its bias (each lane add lost 2 * 0x8000:
// 0x100000 a vector).
template <bool kV6>
[[gnu::always_inline]] inline uint64_t addressed_l4_sum(__m512i z0, __m512i t, uint32_t vectors,
                                                        __m512i bias, __m512i ones) {
    constexpr uint32_t kAddrs = kV6 ? 22 : 26;
    const __m512i head = _mm512_maskz_mov_epi8(_bzhi_u64(~uint64_t{0}, kAddrs), z0);
    t = _mm512_sub_epi32(t, _mm512_madd_epi16(_mm512_xor_si512(head, bias), ones));
    return static_cast<uint64_t>(int64_t{_mm512_reduce_add_epi32(t)} +
                                 int64_t{0x100000} * int64_t{vectors - 1});
}

// The byte-swap within 16-bit words, for add_segment's kSwap.
[[gnu::always_inline]] inline __m512i word_swap() {
    return _mm512_set_epi8(62, 63, 60, 61, 58, 59, 56, 57, 54, 55, 52, 53, 50, 51, 48, 49, 46, 47,
                           44, 45, 42, 43, 40, 41, 38, 39, 36, 37, 34, 35, 32, 33, 30, 31, 28, 29,
                           26, 27, 24, 25, 22, 23, 20, 21, 18, 19, 16, 17, 14, 15, 12, 13, 10, 11,
                           8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
}

}  // namespace
}  // namespace csum::chain_walk
