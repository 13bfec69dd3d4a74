// The two header tests a tunnel run may use (SSE4.1 masked compares, or one
// AVX-512 compare), each also in an "At" form that reads the template where
// it lies. Used by the linear runs (tunnel_run.h), the chain runs
// (tunnel_chain_body.h) and the mixed runs.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "engine/lean_path.h"
#include "engine/tunnel_template.h"

namespace csum {

#define CSUM_TUNNEL_WIDE __attribute__((target("avx512f,avx512bw")))

namespace tunnel_run_detail {

// The two header tests a run's match may be (run_loop's and the fill run's
// Match): match(p, len, l4) says whether the frame at p, of pkt_len len and
// inner L4 length l4, has the template's headers and the lengths len and the
// trailer make them.
//
// Three 16-byte masked compares (SSE4.1) and the three length fields, each
// what pkt_len and the trailer make it: the outer IP packet, the outer UDP
// one and the inner IP one end where the frame's trailer starts (a strict
// subset of what classify_common_tunnel / classify_tunnel take). kOv6: an
// outer IPv6 header (RunConsts' offsets).
template <bool kIv6, bool kUdp, bool kOv6 = false>
struct NarrowMatch {
    __m128i m0, m1, m2, v0, v1, v2;
    [[gnu::always_inline]] explicit NarrowMatch(const TunnelRun& r)
        : m0(r.mask[0]),
          m1(r.mask[1]),
          m2(r.mask[2]),
          v0(r.value[0]),
          v1(r.value[1]),
          v2(r.value[2]) {}
    [[gnu::always_inline]] bool operator()(const uint8_t* p, uint32_t, int64_t l4) const {
        return test(m0, m1, m2, v0, v1, v2, p, l4);
    }
    [[gnu::always_inline]] static bool test(__m128i m0, __m128i m1, __m128i m2, __m128i v0,
                                            __m128i v1, __m128i v2, const uint8_t* p, int64_t l4) {
        using C = RunConsts<kIv6, kUdp, kOv6>;
        const __m128i d =
            _mm_or_si128(_mm_or_si128(_mm_and_si128(_mm_xor_si128(load_block<kOv6>(p, 0), v0), m0),
                                      _mm_and_si128(_mm_xor_si128(load_block<kOv6>(p, 1), v1), m1)),
                         _mm_and_si128(_mm_xor_si128(load_block<kOv6>(p, 2), v2), m2));
        if (!_mm_testz_si128(d, d)) return false;
        const auto be = [](int64_t v) { return __builtin_bswap16(static_cast<uint16_t>(v)); };
        using lean_detail::load16;
        return load16(p + C::kOlenAt) == be(l4 + (C::il4 - C::kOlenLess)) &&
               load16(p + C::ol4 + 4) == be(l4 + (C::il4 - C::ol4)) &&
               load16(p + C::kIlenAt) == be(l4 + (C::il4 - C::kIlenLess));
    }
};

// The same test with the template read where it lies, at each call (the
// mixed run's: a template a packet, none held in registers or copied).
template <bool kIv6, bool kUdp, bool kOv6 = false>
struct NarrowMatchAt {
    const TunnelRun* r;
    [[gnu::always_inline]] explicit NarrowMatchAt(const TunnelRun& t) : r(&t) {}
    [[gnu::always_inline]] bool operator()(const uint8_t* p, uint32_t, int64_t l4) const {
        return NarrowMatch<kIv6, kUdp, kOv6>::test(r->mask[0], r->mask[1], r->mask[2], r->value[0],
                                                   r->value[1], r->value[2], p, l4);
    }
};

// With AVX-512 (r.wide; outer IPv4 only): frame bytes 12..75 against the wide template, with
// the three length fields that pkt_len and the trailer make xored in, in one
// ternary-logic xor and one byte test. Only inside a function built for
// AVX-512 and flattened: GCC inlines an AVX-512 function into no other, nor
// an always_inline one into run_loop's take, which is built for any CPU.
template <bool kIv6, bool kUdp>
struct WideMatch {
    __m512i wm, wv, wl, swap;
    CSUM_TUNNEL_WIDE explicit WideMatch(const TunnelRun& r)
        : wm(_mm512_load_si512(r.wmask)),
          wv(_mm512_load_si512(r.wvalue)),
          wl(_mm512_load_si512(r.wless)),
          // The length words' bytes swapped (big-endian fields), the rest zero.
          swap(_mm512_load_si512(LenSwap<RunConsts<kIv6, kUdp>::kIlenAt>::ctl.b)) {}
    CSUM_TUNNEL_WIDE bool operator()(const uint8_t* p, uint32_t len, int64_t) const {
        return test(wm, wv, wl, swap, p, len);
    }
    CSUM_TUNNEL_WIDE static bool test(__m512i wm, __m512i wv, __m512i wl, __m512i swap,
                                      const uint8_t* p, uint32_t len) {
        const __m512i lens = _mm512_shuffle_epi8(
            _mm512_sub_epi16(_mm512_set1_epi16(static_cast<short>(len)), wl), swap);
        const __m512i d = _mm512_ternarylogic_epi64(lens, wv, _mm512_loadu_si512(p + kWide), 0x96);
        return _mm512_test_epi8_mask(d, wm) == 0;
    }
};

// The same test with the template read where it lies (as NarrowMatchAt).
template <bool kIv6, bool kUdp>
struct WideMatchAt {
    const TunnelRun* r;
    explicit WideMatchAt(const TunnelRun& t) : r(&t) {}
    CSUM_TUNNEL_WIDE bool operator()(const uint8_t* p, uint32_t len, int64_t) const {
        return WideMatch<kIv6, kUdp>::test(
            _mm512_load_si512(r->wmask), _mm512_load_si512(r->wvalue), _mm512_load_si512(r->wless),
            _mm512_load_si512(LenSwap<RunConsts<kIv6, kUdp>::kIlenAt>::ctl.b), p, len);
    }
};

// A mixed loop's test of a packet by its kind's template: the wide one, or
// the narrow one (outer IPv6: the narrow one only).
template <bool kWide, bool kIv6, bool kUdp, bool kOv6>
using MatchAt = std::conditional_t<kWide, WideMatchAt<kIv6, kUdp>, NarrowMatchAt<kIv6, kUdp, kOv6>>;

}  // namespace tunnel_run_detail

}  // namespace csum
