// What the lean-tunnel tests share (test_lean_tunnel.cpp: the per-packet
// path; test_tunnel_run.cpp: the all-good and same-shape runs): the PMD flag
// combinations a tunnel can carry, the port policies, and the fixture with
// one lean and one walker-only engine per mode and parser variant.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <rte_ethdev.h>
#include <rte_mbuf_ptype.h>

#include "csum/engine.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"
#include "tunnel_frames.h"

namespace csum::test {

struct Flags {
    uint64_t ol;
    uint32_t ptype;
};

// Every combination a tunnel can carry: IP and L4 (unknown, bad, good, none),
// outer L4 (unknown, bad, good, invalid), outer IP bad or not, and whether
// packet_type says the PMD saw the tunnel.
inline std::vector<Flags> every_flag() {
    static const uint64_t kIp[] = {0, RTE_MBUF_F_RX_IP_CKSUM_BAD, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
                                   RTE_MBUF_F_RX_IP_CKSUM_NONE};
    static const uint64_t kL4[] = {0, RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
                                   RTE_MBUF_F_RX_L4_CKSUM_NONE};
    static const uint64_t kOl4[] = {0, RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD,
                                    RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
                                    RTE_MBUF_F_RX_OUTER_L4_CKSUM_INVALID};
    std::vector<Flags> v;
    for (uint64_t ip : kIp)
        for (uint64_t l4 : kL4)
            for (uint64_t ol4 : kOl4)
                for (uint64_t oip : {uint64_t{0}, uint64_t{RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD}})
                    for (uint32_t pt : {0u, uint32_t{RTE_PTYPE_TUNNEL_VXLAN}})
                        v.push_back({ip | l4 | ol4 | oip, pt});
    return v;
}

inline constexpr int kPolicies = 8;
inline void policy(int p, RxPortPolicy* rx, TxPortPolicy* tx) {
    *rx = RxPortPolicy{};
    *tx = TxPortPolicy{};
    rx->drop_bad = p & 1;
    if (p == 2 || p == 3)
        tx->offloads = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
                       RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM |
                       RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM;
    rx->trusted = p == 4;
    auto bit = [](LayerProto l) { return 1u << int(l); };
    if (p == 5) rx->verify_mask = bit(LayerProto::ipv4) | bit(LayerProto::sctp);
    if (p == 6) rx->verify_mask = bit(LayerProto::ipv4) | bit(LayerProto::tcp);  // outer UDP not
    if (p == 7) rx->verify_mask = bit(LayerProto::udp) | bit(LayerProto::tcp);   // no IPv4
}

inline constexpr Mode kModes[] = {Mode::io, Mode::verify, Mode::fill, Mode::csum};

class LeanTunnel : public MbufTest {
  protected:
    using Result = OnePacket;

    // One lean and one walker-only engine per mode and parser variant,
    // their counters compared at the end of the test.
    struct Pair {
        std::unique_ptr<Engine> lean, walker;
    };
    Pair pairs_[4][2];

    void SetUp() override {
        MbufTest::SetUp();
        for (int m = 0; m < 4; ++m)
            for (int v = 0; v < 2; ++v) {
                EngineConfig c;
                c.mode = kModes[m];
                if (v == 1) {  // RFC 6935 zero checksums allowed; one tunnel deep
                    c.parser.udp6_zero_csum_ok.add(4789);
                    c.parser.udp6_zero_csum_ok.add(6081);
                    c.parser.max_depth = 1;
                }
                pairs_[m][v].lean = std::make_unique<Engine>(c);
                c.plain_fast_path = false;
                pairs_[m][v].walker = std::make_unique<Engine>(c);
            }
    }
    void TearDown() override {
        for (auto& row : pairs_)
            for (Pair& p : row) {
                EXPECT_NO_FATAL_FAILURE(expect_same_counts(*p.lean, *p.walker));
                p.lean.reset(), p.walker.reset();
            }
        MbufTest::TearDown();
    }

    Result run(Engine& e, const Bytes& frame, const std::vector<uint32_t>& lens, Flags fl,
               const RxPortPolicy& rx, const TxPortPolicy& tx) {
        return process_one(e, pool(), frame, lens, fl.ol, fl.ptype, rx, tx);
    }

    // One frame, one cut, one mode / parser variant / policy / flags: both engines.
    void compare(const Bytes& frame, const std::vector<uint32_t>& lens, int mode, int variant,
                 int pol, Flags fl, const std::string& what, bool clean = false) {
        RxPortPolicy rx;
        TxPortPolicy tx;
        policy(pol, &rx, &tx);
        Pair& p = pairs_[mode][variant];
        const Result a = run(*p.lean, frame, lens, fl, rx, tx);
        const Result b = run(*p.walker, frame, lens, fl, rx, tx);
        SCOPED_TRACE(what + " mode " + std::string(to_string(kModes[mode])) + " variant " +
                     std::to_string(variant) + " policy " + std::to_string(pol) + " flags " +
                     std::to_string(fl.ol) + " ptype " + std::to_string(fl.ptype));
        ASSERT_EQ(a.forwarded, b.forwarded);
        ASSERT_EQ(a.bytes, b.bytes);
        ASSERT_EQ(0, std::memcmp(&a.verdict, &b.verdict, sizeof a.verdict))
            << int(a.verdict.ip_summed) << "/" << int(b.verdict.ip_summed) << " level "
            << int(a.verdict.csum_level) << "/" << int(b.verdict.csum_level);
        ASSERT_EQ(a.ol_flags, b.ol_flags);
        if (clean) {
            ASSERT_EQ(0u, a.ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK) << "filled in software";
        }
    }

    // The cuts a frame is tried with: linear, 2 and 4 random segments
    // (headers split anywhere, empty segments included), after the headers.
    std::vector<std::vector<uint32_t>> cuts(uint32_t n, uint32_t after_headers) {
        std::vector<std::vector<uint32_t>> v{{n}};
        if (n < 2) return v;
        v.push_back(random_split(n, 2, rng_));
        v.push_back(random_split(n, 4, rng_));
        if (after_headers + 2 < n) v.push_back({after_headers, 1, 0, n - after_headers - 1});
        return v;
    }

    std::mt19937 rng_{15};
    const std::vector<Flags> flags_ = every_flag();
};

}  // namespace csum::test
