// Fill mode's take of one linear tunnel packet by its kind's fill template
// (Engine::Impl::tunnel_fills), whatever the kind of the packet before it:
// the mixed fill run of tunnels (tunnel_fill_run.cpp) and the plain mixed
// fill run (mixed_run.cpp), which meets tunnels among plain packets.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <rte_mbuf.h>

#include "engine/tunnel_fill_parts.h"
#include "engine/tunnel_match.h"
#include "engine/tunnel_run.h"

namespace csum::tunnel_fill_detail {

// A fill template's kind bits, and its place in tunnel_fills: kIv6 | kUdp,
// and 1 for kOv6.
inline constexpr int kFillKindBits = TunnelRun::kIv6 | TunnelRun::kUdp | TunnelRun::kOv6;
inline constexpr int fill_index(int kind) {
    return (kind & (TunnelRun::kIv6 | TunnelRun::kUdp)) | ((kind & TunnelRun::kOv6) != 0 ? 1 : 0);
}

// What a mixed fill run took, per template (tunnel_fills' index).
using TunnelFillTook = KindTook<8>;

// One packet's test and fill by the run of kind <kIv6, kUdp, kOv6> whose
// packets' pkt_len is base plus their inner L4 length; match is its header
// test. Sets *l4_out to the inner L4 length when it fills; writes no verdict.
template <bool kIv6, bool kUdp, bool kPorts, class Match, bool kOv6 = false>
[[gnu::always_inline]] inline bool fill_take(const ShapeConfig& sc, rte_mbuf* m, uint8_t* p,
                                             int64_t base, const Match& match, uint32_t plan,
                                             int64_t* l4_out) {
    using C = RunConsts<kIv6, kUdp, kOv6>;
    // nb_segs 1 (with no next segment): no flag is read, fill verifies nothing.
    const __m128i mmask = _mm_set_epi32(0, 0, 0, 0xFFFF), mgood = _mm_set_epi32(0, 0, 0, 1);
    if (!tunnel_run_detail::mbuf_ok(m, mmask, mgood)) return false;
    const uint32_t len = m->pkt_len;
    const int64_t l4 = int64_t{len} - base;
    const int64_t dl = m->data_len;
    if (((l4 - C::kLeastL4) | (dl - len) | (int64_t{m->buf_len} - m->data_off - dl)) < 0)
        return false;
    if (!match(p, len, l4) ||
        !fill_headers_ok<kIv6, kUdp, kPorts, kOv6>(sc, p, static_cast<uint32_t>(l4)))
        return false;
    fill_one<kIv6, kUdp, kOv6>(plan, p, static_cast<uint32_t>(l4));
    *l4_out = l4;
    return true;
}

// The packet m (its data at d) filled by its kind's template in fills,
// given that template's verdict and counted into *took; false, writing
// nothing, if none is built, if it is from a port of the other trust
// (trusted: 0 or 1) or of the other compare (unless kAnyTemplate: every
// template holds the narrow one too), or if it refuses m.
template <bool kPorts, bool kWide, bool kAnyTemplate = false>
[[gnu::always_inline]] inline bool fill_by_kind(const ShapeConfig& sc, const TunnelRun* fills,
                                                uint32_t trusted, uint32_t plan, rte_mbuf* m,
                                                uint8_t* d, long voff, TunnelFillTook* took) {
    static_assert(!(kWide && kAnyTemplate));
    // The wide compare's templates are outer IPv4 ones: that guess alone.
    const int g = kWide ? tunnel_run_kind_guess_at(m, d) : tunnel_run_kind_guess_any_at(m, d);
    if (g == TunnelRun::kNone) return false;
    const int k = fill_index(g);
    const TunnelRun& r = fills[k];
    if (r.kind != (g & kFillKindBits) || (!kAnyTemplate && r.wide != kWide) ||
        TunnelOutcomes::key_trusted(r.key) != trusted)
        return false;
    auto kind = [&]<bool kIv6, bool kUdp, bool kOv6>() __attribute__((always_inline)) {
        if constexpr (kWide && kOv6) {
            return false;  // outer IPv6: the narrow compare only
        } else {
            using Match = tunnel_run_detail::MatchAt<kWide, kIv6, kUdp, kOv6>;
            const int64_t base = int64_t{RunConsts<kIv6, kUdp, kOv6>::il4} + r.trailer;
            int64_t l4;
            if (!fill_take<kIv6, kUdp, kPorts, Match, kOv6>(sc, m, d, base, Match(r), plan, &l4))
                return false;
            took->add(k, l4);
            std::memcpy(verdict_of(m, voff), &r.v, sizeof r.v);
            return true;
        }
    };
    static_assert(fill_index(TunnelRun::kIv6) == 2 && fill_index(TunnelRun::kUdp) == 4);
    if constexpr (kWide) {
        switch (k) {
            case 0:
                return kind.template operator()<false, false, false>();
            case 2:
                return kind.template operator()<true, false, false>();
            case 4:
                return kind.template operator()<false, true, false>();
            default:
                return kind.template operator()<true, true, false>();
        }
    }
    switch (k) {
        case 0:
            return kind.template operator()<false, false, false>();
        case 1:
            return kind.template operator()<false, false, true>();
        case 2:
            return kind.template operator()<true, false, false>();
        case 3:
            return kind.template operator()<true, false, true>();
        case 4:
            return kind.template operator()<false, true, false>();
        case 5:
            return kind.template operator()<false, true, true>();
        case 6:
            return kind.template operator()<true, true, false>();
        default:
            return kind.template operator()<true, true, true>();
    }
}

// One tunnel packet by its kind's fill template, the narrow compare, out of
// line: the plain mixed fill run's (tunnels among plain packets), per packet.
template <bool kPorts>
[[gnu::noinline]] bool fill_one_tunnel(const ShapeConfig& sc, const TunnelRun* fills,
                                       uint32_t trusted, uint32_t plan, rte_mbuf* m, uint8_t* d,
                                       long voff, TunnelFillTook* took) {
    return fill_by_kind<kPorts, false, true>(sc, fills, trusted, plan, m, d, voff, took);
}

// Whether m's kind has a fill template from a port of this trust (the
// template's own test decides whether it takes m).
inline bool fill_template_for(const TunnelRun* fills, uint32_t trusted, const rte_mbuf* m) {
    const int g = tunnel_run_kind_guess_any(m);
    if (g == TunnelRun::kNone) return false;
    const TunnelRun& r = fills[fill_index(g)];
    return r.kind == (g & kFillKindBits) && TunnelOutcomes::key_trusted(r.key) == trusted;
}

}  // namespace csum::tunnel_fill_detail
