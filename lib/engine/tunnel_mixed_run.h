// The mixed tunnel run: tunnel packets whose run kinds alternate (inner TCP
// and UDP, IPv4 and IPv6, outer IPv4 or IPv6, outer UDP checksum or not,
// interleaved on one port). The same-kind run (tunnel_run.h) stops at each change of kind, and
// each packet then pays a run's start and end. This one reads each packet's
// kind from its bytes (tunnel_run_kind_guess_any_at), takes it by that kind's last
// template (Engine::Impl::tunnel_runs) with the same-kind run's own test
// (take_one), and counts per kind. A kind with no template, a template of
// the other compare, or a packet its template refuses ends the run: the
// per-packet path decides it, as after a same-kind run.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <rte_mbuf.h>

#include "engine/tunnel_match.h"
#include "engine/tunnel_run.h"

namespace csum {

// What a mixed run took, per run kind.
using TunnelMixedTook = KindTook<TunnelRun::kKinds>;

namespace tunnel_run_detail {

// The packet m (its data at d) by its kind's template (runs[guess]), with
// that template's verdict and counted into *took; false if none is built,
// if it is of the other compare (unless kAnyTemplate: every template holds
// the narrow one too), or if it refuses m.
template <bool kPorts, bool kWide, bool kAnyTemplate = false>
[[gnu::always_inline]] inline bool take_by_kind(const ShapeConfig& sc, const TunnelRun* runs,
                                                rte_mbuf* m, uint8_t* d, long voff,
                                                TunnelMixedTook* took) {
    static_assert(!(kWide && kAnyTemplate));
    const int g = tunnel_run_kind_guess_any_at(m, d);
    if (g == TunnelRun::kNone) return false;
    const TunnelRun& r = runs[g];
    if (r.kind != g || (!kAnyTemplate && r.wide != kWide)) return false;
    auto kind = [&]<int K>() __attribute__((always_inline)) {
        constexpr bool kSums = K & TunnelRun::kSums, kIv6 = K & TunnelRun::kIv6,
                       kUdp = K & TunnelRun::kUdp, kOcsum = K & TunnelRun::kOcsum,
                       kOv6 = K & TunnelRun::kOv6;
        if constexpr (kWide && kOv6) {
            return false;  // outer IPv6: the narrow compare only
        } else {
            using Match = tunnel_run_detail::MatchAt<kWide, kIv6, kUdp, kOv6>;
            const int64_t base = int64_t{RunConsts<kIv6, kUdp, kOv6>::il4} + r.trailer;
            int64_t l4;
            if (!take_one<kSums, kIv6, kUdp, kOcsum, kPorts, Match, kOv6>(
                    sc, m, d, mbuf_mask<kSums>(), mbuf_good<kSums>(r), base, Match(r), &l4))
                return false;
            took->add(K, l4);
            std::memcpy(verdict_of(m, voff), &r.v, sizeof r.v);
            return true;
        }
    };
    return with_run_kind(g, kind);
}

template <bool kPorts, bool kWide>
[[gnu::always_inline]] inline rte_mbuf** mixed_loop(const ShapeConfig& sc, const TunnelRun* runs,
                                                    rte_mbuf** p, rte_mbuf** end, long voff,
                                                    TunnelMixedTook* took) {
    auto take = [&](rte_mbuf * m, uint8_t * d) __attribute__((always_inline)) {
        return take_by_kind<kPorts, kWide>(sc, runs, m, d, voff, took);
    };
    return prefetched_run(p, end, voff, take);
}

// One tunnel packet by its kind's template, the narrow compare, out of
// line: the plain mixed run's (tunnels among plain packets), per packet.
template <bool kPorts>
[[gnu::noinline]] bool take_one_tunnel(const ShapeConfig& sc, const TunnelRun* runs, rte_mbuf* m,
                                       uint8_t* d, long voff, TunnelMixedTook* took) {
    return take_by_kind<kPorts, false, true>(sc, runs, m, d, voff, took);
}

template <bool kPorts>
[[gnu::noinline]] rte_mbuf** mixed_run_narrow(const ShapeConfig& sc, const TunnelRun* runs,
                                              rte_mbuf** p, rte_mbuf** end, long voff,
                                              TunnelMixedTook* took) {
    return mixed_loop<kPorts, false>(sc, runs, p, end, voff, took);
}

// flatten: the AVX-512 compare inlined (as same_tunnel_run_wide).
template <bool kPorts>
[[gnu::noinline, gnu::flatten]] CSUM_TUNNEL_WIDE rte_mbuf** mixed_run_wide(
    const ShapeConfig& sc, const TunnelRun* runs, rte_mbuf** p, rte_mbuf** end, long voff,
    TunnelMixedTook* took) {
    return mixed_loop<kPorts, true>(sc, runs, p, end, voff, took);
}

}  // namespace tunnel_run_detail

// The mixed run over runs[TunnelRun::kKinds] (each kind's last template) from pkts[i]:
// returns the first packet it did not take; those before it get their
// kind's verdict, and their counts go to *took. wide: the compare of the
// first packet's template (a template of the other compare ends the run).
inline unsigned tunnel_mixed_run(const ShapeConfig& sc, const TunnelRun* runs, bool wide,
                                 rte_mbuf** pkts, unsigned i, unsigned n, long voff,
                                 TunnelMixedTook* took) {
    using namespace tunnel_run_detail;
    rte_mbuf** const from = pkts + i;
    rte_mbuf** const end = pkts + n;
    rte_mbuf** e;
    if (sc.tcp_ports)
        e = wide ? mixed_run_wide<true>(sc, runs, from, end, voff, took)
                 : mixed_run_narrow<true>(sc, runs, from, end, voff, took);
    else
        e = wide ? mixed_run_wide<false>(sc, runs, from, end, voff, took)
                 : mixed_run_narrow<false>(sc, runs, from, end, voff, took);
    return static_cast<unsigned>(e - pkts);
}

}  // namespace csum
