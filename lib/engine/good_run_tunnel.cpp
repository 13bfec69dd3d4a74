// The all-good run of tunnel packets (VXLAN, GENEVE, GRE, IP-in-IP).

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/engine_impl.h"

namespace csum {

// good_run for tunnels: the run of tunnel shapes whose checksums are all
// good (tunnel_all_good), each with the verdict copy and its group's counts.
// Returns at the first packet it cannot settle, for tunnel_burst's loop.
[[gnu::noinline]] uint16_t Engine::Impl::tunnel_good_run(rte_mbuf** pkts, uint16_t i, uint16_t n,
                                                         uint16_t* kept_io) {
    constexpr uint16_t kAhead = 3;
    const ShapeConfig& sc = *shapes;
    const int voff = verdict_off;
    uint16_t kept = *kept_io, tunnels = 0;
    uint64_t summed = 0;
    for (; i < n; ++i) {
        const uint16_t ahead = i + kAhead < n ? i + kAhead : n - 1;
        rte_prefetch0(rte_pktmbuf_mtod(pkts[ahead], void*));
        rte_prefetch0(reinterpret_cast<char*>(pkts[ahead]) + voff);
        rte_mbuf* m = pkts[i];
        // The common shape at its fixed offsets, inline; any other out of line.
        TunnelShape s;
        uint32_t key;
        const bool good = classify_common_tunnel(m, sc, &s)
                              ? tunnel_all_good(m, s, &summed, &key)
                              : any_tunnel_all_good(m, sc, &summed, &key);
        if (!good) break;
        tunnel_outcomes.record(key, m->pkt_len, verdict_of(m, voff), tally);
        ++tunnels;
        if (kept != i) pkts[i] = pkts[kept], pkts[kept] = m;
        ++kept;
    }
    *kept_io = kept;
    burst_tunnels += tunnels;
    tally.sum_bytes += summed;
    return i;
}

}  // namespace csum
