// The same-shape tunnel run for chains: a run's template (tunnel_run.h)
// applied to chained packets, each walked once. The walk sums every byte of
// the chain on vector state and copies the front only where the first
// segment does not hold it (chain_walk_avx2_parts.h). The header tests are
// the linear run's, on that front (AVX-512 and AVX2 loops: tunnel_chain_body.h).
// The inner L4 sum is the chain's total
// less the bytes before the inner addresses (CHECKSUM_COMPLETE arithmetic),
// so the payload is read once, wherever the segments are cut.
#pragma once

#include <cstdint>

#include "engine/tunnel_run.h"

struct rte_mbuf;

namespace csum::tunnel_chain {

// Takes chains from pkts[i] on while each is one r's kind takes: a chain of
// at most 65535 bytes in at most kInetMaxPieces segments, holding exactly
// pkt_len bytes (r.trailer 0: none after the outer IP packet), its flags
// and headers the run's, every sum right; writes each one's verdict (r.v)
// and adds what it took to *took. Returns the first it did not take; its
// "no" decides nothing (the per-packet path takes that packet).
unsigned run_avx2(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts, unsigned i,
                  unsigned n, long voff, TunnelRunTook* took) noexcept;
unsigned run_avx512(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts, unsigned i,
                    unsigned n, long voff, TunnelRunTook* took) noexcept;

// Fill mode's counterpart: takes chains from pkts[i] on while each is one
// r's fill run takes (the template's headers and lengths, no flags read, at
// most 65535 bytes in at most kInetMaxPieces segments holding exactly
// pkt_len bytes); fills each one's four fields as the linear run does,
// writes r.v and adds its inner L4 length to *l4_sum. Returns the first it
// did not take, untouched. plan: detail::inet_plan_now().
unsigned fill_avx2(const ShapeConfig& sc, const TunnelRun& r, uint32_t plan, rte_mbuf** pkts,
                   unsigned i, unsigned n, long voff, uint64_t* l4_sum) noexcept;
unsigned fill_avx512(const ShapeConfig& sc, const TunnelRun& r, uint32_t plan, rte_mbuf** pkts,
                     unsigned i, unsigned n, long voff, uint64_t* l4_sum) noexcept;

// Which of them this CPU runs (within CSUM_MAX_SIMD_BITS): 2 AVX-512 (with
// BMI2), 1 AVX2, 0 none (the chains go to the per-packet path).
int cpu_level() noexcept;

// The loops of cpu_level(), which is not 0.
inline unsigned run(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts, unsigned i,
                    unsigned n, long voff, TunnelRunTook* took) {
    return cpu_level() == 2 ? run_avx512(sc, r, pkts, i, n, voff, took)
                            : run_avx2(sc, r, pkts, i, n, voff, took);
}
inline unsigned fill(const ShapeConfig& sc, const TunnelRun& r, uint32_t plan, rte_mbuf** pkts,
                     unsigned i, unsigned n, long voff, uint64_t* l4_sum) {
    return cpu_level() == 2 ? fill_avx512(sc, r, plan, pkts, i, n, voff, l4_sum)
                            : fill_avx2(sc, r, plan, pkts, i, n, voff, l4_sum);
}

}  // namespace csum::tunnel_chain

namespace csum {

// A run over linear packets and chains alike, from pkts[i]: linear(j) runs
// the linear loop from j and chain(j) the chain loop, each returning where
// it stopped; where one stops at a packet the other takes, the other goes
// on. Returns the first packet neither takes. Shared by verify's run and
// fill's.
template <class Linear, class Chain>
[[gnu::always_inline]] inline unsigned run_linear_and_chains(rte_mbuf** pkts, unsigned i,
                                                             unsigned n, const Linear& linear,
                                                             const Chain& chain) {
    unsigned e = linear(i);
    while (e < n && pkts[e]->next != nullptr && tunnel_chain::cpu_level() != 0) {
        const unsigned c = chain(e);
        if (c == e || c == n) return c;
        e = linear(c);
        if (e == c) return e;
    }
    return e;
}

// The run r from pkts[i] over linear packets and chains alike (verify and
// csum): tunnel_run_dispatch and the chain run.
inline unsigned tunnel_run_any(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts,
                               unsigned i, unsigned n, long voff, TunnelRunTook* took) {
    return run_linear_and_chains(
        pkts, i, n, [&](unsigned j) { return tunnel_run_dispatch(sc, r, pkts, j, n, voff, took); },
        [&](unsigned j) { return tunnel_chain::run(sc, r, pkts, j, n, voff, took); });
}

}  // namespace csum
