// Fill mode's same-shape run of tunnel packets: after a linear Ethernet /
// IPv4 or IPv6 / UDP / VXLAN or GENEVE (no options, carrying Ethernet) /
// IPv4 or IPv6 / TCP or UDP packet the lean path filled (lean_tunnel_work), the
// packets whose headers match its template (tunnel_run.h's, the outer UDP
// checksum left out) get the four fields it writes, its verdict and counts.
// The payload is summed once, for the inner L4 field; the outer UDP field
// follows from the headers alone (CHECKSUM_COMPLETE arithmetic below).
// The lean path fills every tunnel field in software whatever the TX port
// offloads, as the walker does: the run is for every port pair it runs for.

#include <cstring>
#include <type_traits>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/engine_impl.h"
#include "engine/run_parts.h"
#include "engine/run_sums.h"
#include "engine/tunnel_chain_run.h"
#include "engine/tunnel_fill_mixed.h"
#include "engine/tunnel_fill_parts.h"
#include "engine/tunnel_match.h"
#include "engine/tunnel_run.h"

namespace csum {

namespace tunnel_fill_detail {

using tunnel_run_detail::RunConsts;
using tunnel_run_detail::RunEnd;

// The run from p to end with the header compare `match` (tunnel_run.h's
// loop, the sums' test replaced by the fill): l4_sum the inner L4 lengths
// of the packets taken.
template <bool kIv6, bool kUdp, bool kPorts, class Match, bool kOv6 = false>
[[gnu::always_inline]] inline RunEnd fill_loop(const ShapeConfig& sc, const TunnelRun& r,
                                               rte_mbuf** p, rte_mbuf** const end, long voff,
                                               const Match& match) {
    using C = RunConsts<kIv6, kUdp, kOv6>;
    const run_parts::RunVerdict verdict(&r.v, voff);
    const int64_t base = int64_t{C::il4} + r.trailer;
    const uint32_t plan = detail::inet_plan_now();
    uint64_t l4_sum = 0;
    auto take = [&l4_sum, &sc, &verdict, match, base, plan](rte_mbuf* m,
                                                            uint8_t* p) [[gnu::always_inline]] {
        int64_t l4;
        if (!fill_take<kIv6, kUdp, kPorts, Match, kOv6>(sc, m, p, base, match, plan, &l4))
            return false;
        l4_sum += static_cast<uint64_t>(l4);
        verdict.write(m);
        return true;
    };
    return {tunnel_run_detail::prefetched_run(p, end, voff, take), l4_sum};
}

// fill_loop with the narrow header test (same_tunnel_run's).
template <bool kIv6, bool kUdp, bool kPorts, bool kOv6 = false>
[[gnu::noinline]] RunEnd fill_run_narrow(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** from,
                                         rte_mbuf** end, long voff) {
    using Match = tunnel_run_detail::NarrowMatch<kIv6, kUdp, kOv6>;
    return fill_loop<kIv6, kUdp, kPorts, Match, kOv6>(sc, r, from, end, voff, Match(r));
}

// The same with the wide one (same_tunnel_run_wide's).
template <bool kIv6, bool kUdp, bool kPorts>
[[gnu::noinline, gnu::flatten]] CSUM_TUNNEL_WIDE RunEnd fill_run_wide(const ShapeConfig& sc,
                                                                      const TunnelRun& r,
                                                                      rte_mbuf** from,
                                                                      rte_mbuf** end, long voff) {
    return fill_loop<kIv6, kUdp, kPorts>(sc, r, from, end, voff,
                                         tunnel_run_detail::WideMatch<kIv6, kUdp>(r));
}

template <bool kIv6, bool kUdp, bool kOv6 = false>
RunEnd fill_run_of(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** from, rte_mbuf** end,
                   long voff) {
    if constexpr (kOv6)  // the narrow compare only
        return !kUdp && sc.tcp_ports
                   ? fill_run_narrow<kIv6, kUdp, true, true>(sc, r, from, end, voff)
                   : fill_run_narrow<kIv6, kUdp, false, true>(sc, r, from, end, voff);
    if (!kUdp && sc.tcp_ports)
        return r.wide ? fill_run_wide<kIv6, kUdp, true>(sc, r, from, end, voff)
                      : fill_run_narrow<kIv6, kUdp, true>(sc, r, from, end, voff);
    return r.wide ? fill_run_wide<kIv6, kUdp, false>(sc, r, from, end, voff)
                  : fill_run_narrow<kIv6, kUdp, false>(sc, r, from, end, voff);
}

// The mixed fill run (as tunnel_mixed_run.h's for verify): each packet by
// its kind's template in fills, from a port of its trust (trusted: 0 or 1).
template <bool kPorts, bool kWide>
[[gnu::always_inline]] inline rte_mbuf** mixed_fill_loop(const ShapeConfig& sc,
                                                         const TunnelRun* fills, uint32_t trusted,
                                                         rte_mbuf** p, rte_mbuf** end, long voff,
                                                         TunnelFillTook* took) {
    const uint32_t plan = detail::inet_plan_now();
    auto take = [&](rte_mbuf * m, uint8_t * d) __attribute__((always_inline)) {
        return fill_by_kind<kPorts, kWide>(sc, fills, trusted, plan, m, d, voff, took);
    };
    return tunnel_run_detail::prefetched_run(p, end, voff, take);
}

template <bool kPorts>
[[gnu::noinline]] rte_mbuf** mixed_fill_narrow(const ShapeConfig& sc, const TunnelRun* fills,
                                               uint32_t trusted, rte_mbuf** p, rte_mbuf** end,
                                               long voff, TunnelFillTook* took) {
    return mixed_fill_loop<kPorts, false>(sc, fills, trusted, p, end, voff, took);
}

template <bool kPorts>
[[gnu::noinline, gnu::flatten]] CSUM_TUNNEL_WIDE rte_mbuf** mixed_fill_wide(
    const ShapeConfig& sc, const TunnelRun* fills, uint32_t trusted, rte_mbuf** p, rte_mbuf** end,
    long voff, TunnelFillTook* took) {
    return mixed_fill_loop<kPorts, true>(sc, fills, trusted, p, end, voff, took);
}

}  // namespace tunnel_fill_detail

// The run's template from m, a packet the lean path just filled whose
// outcome key is `key` (tunnel_fill_key says it has the run's layout),
// then the run from pkts[i].
unsigned Engine::Impl::tunnel_fill_start(rte_mbuf* m, uint32_t key, rte_mbuf** pkts, unsigned i,
                                         unsigned n, uint16_t* kept) {
    if (tunnel_run_detail::fill_run_off) return i;
    uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
    // A chain's template from its front (the lean path just read it whole).
    alignas(16) uint8_t gather[kTunnelGather];
    const bool ov6 = (key >> 16) & 1, iv6 = (key >> 17) & 1;
    const tunnel_run_detail::RunOffsets o = tunnel_run_detail::run_offsets(iv6, ov6);
    if (m->next != nullptr) {
        const shape_detail::Front f = shape_detail::gather_front(m, std::span(gather));
        if (f.bytes == nullptr || f.held < o.template_end) return i;
        p = f.bytes;
    }
    TunnelShape s{};
    s.bytes = s.in_place = p;
    s.pkt_len = s.held = m->pkt_len;
    s.whole = true;
    s.ov6 = ov6;
    s.iv6 = iv6;
    s.iproto = ((key >> 18) & 1) ? kShapeUdp : kShapeTcp;
    s.ocsum = true;  // the outer UDP checksum out of the template: fill writes it
    s.olen = tunnel_run_detail::be16_at(p + o.ol4 + 4);  // the outer UDP length
    const int kind = (s.iv6 ? TunnelRun::kIv6 : 0) | (s.iproto == kShapeUdp ? TunnelRun::kUdp : 0) |
                     (ov6 ? TunnelRun::kOv6 : 0);
    TunnelRun* r = &tunnel_fills[tunnel_fill_detail::fill_index(kind)];
    start_tunnel_run(r, *shapes, s, kind, key, 0);
    tunnel_fill = r;
    return tunnel_fill_run(*tunnel_fill, pkts, i, n, kept);
}

// The run from pkts[i] with the template of the kind its bytes say (the
// template's own test decides), from a port of that template's trust.
unsigned Engine::Impl::tunnel_fill_cached(rte_mbuf** pkts, unsigned i, unsigned n, uint16_t* kept,
                                          bool trusted) {
    if (tunnel_run_detail::fill_run_off) return i;
    const int g = tunnel_run_kind_guess_any(pkts[i]);
    if (g == TunnelRun::kNone) return i;
    const TunnelRun& r = tunnel_fills[tunnel_fill_detail::fill_index(g)];
    if (r.kind == TunnelRun::kNone || TunnelOutcomes::key_trusted(r.key) != trusted) return i;
    const unsigned e = tunnel_fill_run(r, pkts, i, n, kept);
    return e == i || e == n ? e : tunnel_fill_mixed(r.wide, pkts, e, n, kept, trusted);
}

// Where a fill run stopped at a packet of another kind whose template is
// from a port of this trust: the kinds in turn (mixed_fill_loop), each
// counted as tunnel_fill_run counts its run; returns the first not taken.
unsigned Engine::Impl::tunnel_fill_mixed(bool wide, rte_mbuf** pkts, unsigned i, unsigned n,
                                         uint16_t* kept, bool trusted) {
    using namespace tunnel_fill_detail;
    if (!fill_template_for(tunnel_fills, trusted, pkts[i])) return i;
    const ShapeConfig& sc = *shapes;
    TunnelFillTook mt;
    rte_mbuf** e;
    if (sc.tcp_ports)
        e = wide ? mixed_fill_wide<true>(sc, tunnel_fills, trusted, pkts + i, pkts + n, verdict_off,
                                         &mt)
                 : mixed_fill_narrow<true>(sc, tunnel_fills, trusted, pkts + i, pkts + n,
                                           verdict_off, &mt);
    else
        e = wide ? mixed_fill_wide<false>(sc, tunnel_fills, trusted, pkts + i, pkts + n,
                                          verdict_off, &mt)
                 : mixed_fill_narrow<false>(sc, tunnel_fills, trusted, pkts + i, pkts + n,
                                            verdict_off, &mt);
    const auto took = static_cast<unsigned>(e - (pkts + i));
    if (took == 0) return i;
    count_fill_tunnels(mt);
    fill_keep(pkts, i, took, kept);
    return i + took;
}

// The packets from i on that the fill run takes: filled, given its verdict,
// counted as lean_tunnel_work counts them and moved to *kept.. (in the
// per-packet loop's order); returns the first it did not take.
unsigned Engine::Impl::tunnel_fill_run(const TunnelRun& r, rte_mbuf** pkts, unsigned i, unsigned n,
                                       uint16_t* kept) {
    using namespace tunnel_fill_detail;
    const ShapeConfig& sc = *shapes;
    // The linear run from pkts[j]: where it stopped, its packets' L4 lengths added to *l4_sum.
    auto linear = [&](unsigned j, uint64_t* l4_sum) {
        rte_mbuf** const from = pkts + j;
        RunEnd e;
        // Fill templates are of kinds kIv6 | kUdp | kOv6.
        const bool known = tunnel_run_detail::with_run_kind(r.kind, [&]<int K>() {
            if constexpr ((K & (TunnelRun::kSums | TunnelRun::kOcsum)) != 0) {
                return false;
            } else {
                e = fill_run_of<(K & TunnelRun::kIv6) != 0, (K & TunnelRun::kUdp) != 0,
                                (K & TunnelRun::kOv6) != 0>(sc, r, from, pkts + n, verdict_off);
                return true;
            }
        });
        if (!known) return j;
        *l4_sum += e.l4_sum;
        return static_cast<unsigned>(e.end - pkts);
    };
    uint64_t l4_sum = 0;
    const unsigned e = run_linear_and_chains(
        pkts, i, n, [&](unsigned j) { return linear(j, &l4_sum); },
        [&](unsigned j) {
            return tunnel_chain::fill(sc, r, detail::inet_plan_now(), pkts, j, n, verdict_off,
                                      &l4_sum);
        });
    const unsigned took = e - i;
    if (took == 0) return i;
    fill_counts(r, l4_sum, took);
    fill_keep(pkts, i, took, kept);
    return e;
}

unsigned Engine::Impl::count_fill_tunnels(const tunnel_fill_detail::TunnelFillTook& mt) {
    unsigned count = 0;
    for (uint32_t ks = mt.kinds; ks != 0; ks &= ks - 1) {
        const int k = __builtin_ctz(ks);
        fill_counts(tunnel_fills[k], mt.l4_sum[k], mt.count[k]);
        count += mt.count[k];
    }
    return count;
}

// The counts of `took` packets the fill run of r took, their inner L4
// lengths summing to l4_sum, as lean_tunnel_work counts each.
void Engine::Impl::fill_counts(const TunnelRun& r, uint64_t l4_sum, unsigned took) {
    // Per packet: pkt_len is the inner L4 length plus its offset and the
    // trailer; bytes summed are the outer IPv4 header and everything from
    // the outer UDP header to the end of the inner L4 region, each once.
    // Fields: each IPv4 header's, the inner L4 one and the outer UDP one.
    const bool iv6 = r.kind & TunnelRun::kIv6, ov6 = r.kind & TunnelRun::kOv6;
    const tunnel_run_detail::RunOffsets o = tunnel_run_detail::run_offsets(iv6, ov6);
    tunnel_outcomes.add_run(r.key, took, l4_sum + uint64_t{o.il4 + r.trailer} * took, tally);
    const uint32_t sum_from = ov6 ? o.ol4 : 14;  // IPv6 has no header field
    tally.sum_bytes += l4_sum + uint64_t{o.il4 - sum_from} * took;
    tally.sw_filled += took * (4u - iv6 - ov6);
    if (TunnelOutcomes::key_trusted(r.key)) tally.skipped_trusted += took;  // a trusted port's
    burst_tunnels = static_cast<uint16_t>(burst_tunnels + took);
}

// pkts[i, i + took), all kept, moved to *kept.. as the per-packet loop moves them.
void Engine::Impl::fill_keep(rte_mbuf** pkts, unsigned i, unsigned took, uint16_t* kept) {
    if (*kept == i) {
        *kept = static_cast<uint16_t>(*kept + took);
        return;
    }
    // Packets dropped before the run: the per-packet loop's swaps.
    for (unsigned j = i; j < i + took; ++j) {
        rte_mbuf* m = pkts[j];
        pkts[j] = pkts[*kept];
        pkts[(*kept)++] = m;
    }
}

// A burst that goes on with the last fill run's template, from its first
// packet: returns the first packet the run did not take.
[[gnu::noinline]] uint16_t Engine::Impl::tunnel_fill_burst(rte_mbuf** pkts, uint16_t n) {
    if (tunnel_run_detail::fill_run_off) return 0;
    for (uint16_t i = 0; i < n && i < run_parts::kRunAhead; ++i) {
        const char* d = rte_pktmbuf_mtod(pkts[i], const char*);
        rte_prefetch0(d);
        rte_prefetch0(d + 64);
    }
    uint16_t kept = 0;
    return static_cast<uint16_t>(tunnel_fill_run(*tunnel_fill, pkts, 0, n, &kept));
}

}  // namespace csum
