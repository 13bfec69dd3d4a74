// What the same-shape run tests share (test_tunnel_run*.cpp: linear runs;
// test_tunnel_chain_run.cpp: chains): a run started from a frame as the
// per-packet path starts one, and the frames such a run meets.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <rte_mbuf.h>

#include "engine/tunnel_run.h"
#include "parse/classify_tunnel.h"
#include "tunnel_frames.h"

namespace csum::test {

// Every layer GOOD, the outer L4 too: a PMD that saw the tunnel.
constexpr uint64_t kAllGood =
    RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;

// What the walker makes of m (classify_tunnel, after classify_common_tunnel
// where `common`): all good or not, its outcome key and the bytes it summed;
// its shape in *shape, whose bytes may lie in gather.
struct WalkerTake {
    bool good = false;
    uint32_t key = 0;
    uint64_t summed = 0;
};
inline WalkerTake walker_take(rte_mbuf* m, const ShapeConfig& sc, bool common,
                              std::span<uint8_t, kTunnelGather> gather, TunnelShape* shape) {
    WalkerTake w;
    w.good = ((common && classify_common_tunnel(m, sc, shape)) ||
              classify_tunnel(m, sc, gather, shape)) &&
             tunnel_all_good(m, *shape, &w.summed, &w.key);
    return w;
}
inline WalkerTake walker_take(rte_mbuf* m, const ShapeConfig& sc, bool common) {
    alignas(16) uint8_t g[kTunnelGather];
    TunnelShape t;
    return walker_take(m, sc, common, g, &t);
}

// The run the per-packet path would start from m0 (classified, all good, a
// run kind for it), set up in *r; kind is TunnelRun::kNone where none is.
// gather must outlive the call.
struct RunStart {
    int kind = TunnelRun::kNone;
    uint32_t key = 0;     // the first packet's outcome key
    uint64_t summed = 0;  // and the bytes tunnel_all_good summed
};
inline RunStart start_run_from(rte_mbuf* m0, const ShapeConfig& sc,
                               std::span<uint8_t, kTunnelGather> gather, TunnelRun* r) {
    TunnelShape s0;
    const WalkerTake w = walker_take(m0, sc, true, gather, &s0);
    RunStart st;
    st.key = w.key, st.summed = w.summed;
    st.kind = w.good ? tunnel_run_kind(m0, s0) : TunnelRun::kNone;
    if (st.kind != TunnelRun::kNone) start_tunnel_run(r, sc, s0, st.kind, st.key, m0->packet_type);
    return st;
}

// A packet the run r took: one the walker finds all good under r's key, with
// the walker's counts and verdict (want, r's key's). ASSERT_NO_FATAL_FAILURE.
inline void expect_took_as_walker(const rte_mbuf* m, const WalkerTake& w, const TunnelRun& r,
                                  const TunnelRunTook& took, int voff, const PacketVerdict& want) {
    ASSERT_TRUE(w.good);
    ASSERT_EQ(w.key, r.key);
    ASSERT_EQ(took.summed, w.summed);
    ASSERT_EQ(took.bytes, m->pkt_len);
    ASSERT_EQ(0, std::memcmp(verdict_of(m, voff), &want, sizeof want));
}

// The frames a run of b's template meets: b itself ("<name> clean"), the
// changes it must and must not take (run_members), damaged and lying
// variants, and six frames of other shapes from specs.
inline std::vector<std::pair<std::string, Bytes>> run_candidates(const Built& b, const Spec& s,
                                                                 const std::vector<Spec>& specs,
                                                                 std::mt19937& rng) {
    std::vector<std::pair<std::string, Bytes>> members{{b.name + " clean", b.f}};
    for (auto& v : run_members(b, s)) members.push_back(std::move(v));
    for (auto& v : variants(b, s, rng)) members.push_back(std::move(v));
    for (int j = 0; j < 6; ++j) {
        const Built o = build(specs[rng() % specs.size()]);
        members.emplace_back("other " + o.name, o.f);
    }
    return members;
}

}  // namespace csum::test
