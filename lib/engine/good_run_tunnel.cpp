// The all-good run of tunnel packets (VXLAN, GENEVE, GRE, IP-in-IP).

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/engine_impl.h"
#include "engine/run_parts.h"
#include "engine/tunnel_chain_run.h"
#include "engine/tunnel_mixed_run.h"
#include "engine/tunnel_run.h"

namespace csum {

unsigned Engine::Impl::count_mixed_tunnels(const TunnelMixedTook& mt) {
    uint64_t summed = 0;
    unsigned count = 0;
    for (uint32_t ks = mt.kinds; ks != 0; ks &= ks - 1) {
        const int k = __builtin_ctz(ks);
        TunnelRunTook took;
        tunnel_run_detail::add_took(tunnel_runs[k], mt.l4_sum[k], mt.count[k], &took);
        tunnel_outcomes.add_run(tunnel_runs[k].key, mt.count[k], took.bytes, tally);
        summed += took.summed;
        count += mt.count[k];
    }
    tally.sum_bytes += summed;
    burst_tunnels = static_cast<uint16_t>(burst_tunnels + count);
    return count;
}

template <Mode kMode>
[[gnu::noinline]] int Engine::Impl::tunnel_among_plain(const LeanBurst& b, rte_mbuf* m) {
    TunnelShape s;
    if (!classify_common_tunnel(m, *shapes, &s)) return kTunnelNone;
    uint32_t key;
    const int r = common_tunnel_packet<kMode>(b, m, s, verdict_off, tally, tunnel_outcomes, &key);
    ++burst_tunnels;
    if (TunnelOutcomes::key_all_good(key)) {
        const int kind = tunnel_run_kind(m, s);
        if (kind != TunnelRun::kNone) {
            start_tunnel_run(&tunnel_runs[kind], *shapes, s, kind, key, m->packet_type);
            tunnel_run = &tunnel_runs[kind];
        }
    }
    return r;
}
// run_burst's modes (only verify and csum call it: their all-good runs).
template int Engine::Impl::tunnel_among_plain<Mode::io>(const LeanBurst&, rte_mbuf*);
template int Engine::Impl::tunnel_among_plain<Mode::verify>(const LeanBurst&, rte_mbuf*);
template int Engine::Impl::tunnel_among_plain<Mode::csum>(const LeanBurst&, rte_mbuf*);
template int Engine::Impl::tunnel_among_plain<Mode::fill>(const LeanBurst&, rte_mbuf*);

// good_run for tunnels: the run of tunnel shapes whose checksums are all
// good (tunnel_all_good), each with the verdict copy and its group's counts;
// after each such packet of the same-shape run's layout, the packets of its
// shape (same_tunnel_run), and a burst starts with the last burst's run.
// Returns at the first packet it cannot settle, for tunnel_burst's loop.
[[gnu::noinline]] uint16_t Engine::Impl::tunnel_good_run(rte_mbuf** pkts, uint16_t i, uint16_t n,
                                                         uint16_t* kept_io) {
    constexpr uint16_t kAhead = 3;
    const ShapeConfig& sc = *shapes;
    const int voff = verdict_off;
    uint16_t kept = *kept_io, tunnels = 0;
    uint64_t summed = 0;
    // The run's packets move up past any dropped before it (keep_taken).
    // Where a same-kind run last stopped, and by which template: the loop
    // does not try that template on that packet again (the same refusal,
    // its sums again: a bad packet in a run was summed four times).
    unsigned refused_at = n;
    const TunnelRun* refused_by = nullptr;
    auto run_of = [&](const TunnelRun& r, uint16_t from) {
        TunnelRunTook took;
        const unsigned e = run_parts::keep_taken(
            pkts, from, tunnel_run_any(sc, r, pkts, from, n, voff, &took), kept);
        refused_at = e, refused_by = &r;
        if (e != from) {
            tunnel_outcomes.add_run(r.key, e - from, took.bytes, tally);
            tunnels = static_cast<uint16_t>(tunnels + (e - from));
            kept = static_cast<uint16_t>(kept + (e - from));
            summed += took.summed;
        }
        return static_cast<uint16_t>(e);
    };
    // The run r, then, where the next packet is of another kind that has a
    // template, the kinds in turn by each one's (tunnel_mixed_run).
    auto runs_from = [&](const TunnelRun& r0, uint16_t from) {
        const TunnelRun* r = &r0;
        uint16_t e = run_of(*r, from);
        if (e == from) {  // its kind's own template, if another
            const int g = tunnel_run_kind_guess_any(pkts[e]);
            if (g == TunnelRun::kNone || g == r->kind || tunnel_runs[g].kind != g) return e;
            r = &tunnel_runs[g];
            e = run_of(*r, from);
            if (e == from) return e;
        }
        if (e == n) return e;
        // The mixed run only where the next packet's kind has a template.
        const int next = tunnel_run_kind_guess_any(pkts[e]);
        if (next == TunnelRun::kNone || tunnel_runs[next].kind != next) return e;
        TunnelMixedTook mt;
        const unsigned me = run_parts::keep_taken(
            pkts, e,
            tunnel_mixed_run(sc, tunnel_runs, tunnel_runs[next].wide, pkts, e, n, voff, &mt), kept);
        if (me == e) return e;
        count_mixed_tunnels(mt);
        kept = static_cast<uint16_t>(kept + (me - e));
        return static_cast<uint16_t>(me);
    };
    if (tunnel_run->kind != TunnelRun::kNone) i = runs_from(*tunnel_run, i);
    for (; i < n; ++i) {
        const uint16_t ahead = i + kAhead < n ? i + kAhead : n - 1;
        rte_prefetch0(rte_pktmbuf_mtod(pkts[ahead], void*));
        rte_prefetch0(reinterpret_cast<char*>(pkts[ahead]) + voff);
        rte_mbuf* m = pkts[i];
        {
            // Its kind's last template first (inner shapes that alternate).
            const int g = tunnel_run_kind_guess_any(m);
            if (g != TunnelRun::kNone && tunnel_runs[g].kind != TunnelRun::kNone &&
                (i != refused_at || refused_by != &tunnel_runs[g])) {
                const uint16_t e = runs_from(tunnel_runs[g], i);
                if (e != i) {
                    i = static_cast<uint16_t>(e - 1);
                    continue;
                }
            }
        }
        // The common shape at its fixed offsets, inline; any other out of
        // line (a chain's front gathered here: a run may start from it).
        TunnelShape s;
        uint32_t key;
        alignas(16) uint8_t gather[kTunnelGather];
        const bool good = classify_common_tunnel(m, sc, &s)
                              ? tunnel_all_good(m, s, &summed, &key)
                              : any_tunnel_all_good(m, sc, gather, &summed, &key, &s);
        if (!good) break;
        tunnel_outcomes.record(key, m->pkt_len, verdict_of(m, voff), tally);
        ++tunnels;
        if (kept != i) pkts[i] = pkts[kept], pkts[kept] = m;
        ++kept;
        if (i + 1 < n) {
            // The packets after it of its shape, if a run is for it.
            const int kind = tunnel_run_kind(m, s);
            if (kind != TunnelRun::kNone) {
                start_tunnel_run(&tunnel_runs[kind], sc, s, kind, key, m->packet_type);
                tunnel_run = &tunnel_runs[kind];
                i = static_cast<uint16_t>(runs_from(*tunnel_run, uint16_t(i + 1)) - 1);
            }
        }
    }
    *kept_io = kept;
    burst_tunnels += tunnels;
    tally.sum_bytes += summed;
    return i;
}

[[gnu::noinline]] uint16_t Engine::Impl::tunnel_same_burst(rte_mbuf** pkts, uint16_t n) {
    // The run prefetches kRunAhead ahead: the first ones here.
    for (uint16_t i = 0; i < n && i < run_parts::kRunAhead; ++i) {
        const char* d = rte_pktmbuf_mtod(pkts[i], const char*);
        rte_prefetch0(d);
        rte_prefetch0(d + 64);
    }
    TunnelRunTook took;
    const unsigned e = tunnel_run_any(*shapes, *tunnel_run, pkts, 0, n, verdict_off, &took);
    if (e != 0) {
        tunnel_outcomes.add_run(tunnel_run->key, e, took.bytes, tally);
        burst_tunnels = static_cast<uint16_t>(burst_tunnels + e);
        tally.sum_bytes += took.summed;
    }
    return static_cast<uint16_t>(e);
}

}  // namespace csum
