// VXLAN and GENEVE on the lean path must be indistinguishable from the
// reference walker (plain_fast_path = false): same verdict, bytes, offload
// requests, forwarding and counters, in every mode, under every PMD flag
// combination a tunnel can carry, for linear packets and chains split
// anywhere, with checksums right, damaged, half-filled (partial) or absent,
// and with lengths that lie. Frames and their variants: tunnel_frames.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include <rte_ethdev.h>
#include <rte_mbuf_ptype.h>

#include "csum/engine.h"
#include "engine/tunnel_run.h"
#include "parse/classify_tunnel.h"
#include "support/engine_compare.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"
#include "tunnel_frames.h"

namespace csum {
namespace {

using test::build;
using test::Built;
using test::Bytes;
using test::every_spec;
using test::fix_sums;
using test::pseudo_fold;
using test::put16;
using test::run_members;
using test::Spec;
using test::variants;

struct Flags {
    uint64_t ol;
    uint32_t ptype;
};

// Every combination a tunnel can carry: IP and L4 (unknown, bad, good, none),
// outer L4 (unknown, bad, good, invalid), outer IP bad or not, and whether
// packet_type says the PMD saw the tunnel.
std::vector<Flags> every_flag() {
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

constexpr int kPolicies = 8;
void policy(int p, RxPortPolicy* rx, TxPortPolicy* tx) {
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

constexpr Mode kModes[] = {Mode::io, Mode::verify, Mode::fill, Mode::csum};

class LeanTunnel : public test::MbufTest {
  protected:
    using Result = test::OnePacket;

    // One lean and one walker-only engine per mode and parser variant,
    // their counters compared at the end of the test.
    struct Pair {
        std::unique_ptr<Engine> lean, walker;
    };
    Pair pairs_[4][2];

    void SetUp() override {
        test::MbufTest::SetUp();
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
                EXPECT_NO_FATAL_FAILURE(test::expect_same_counts(*p.lean, *p.walker));
                p.lean.reset(), p.walker.reset();
            }
        test::MbufTest::TearDown();
    }

    Result run(Engine& e, const Bytes& frame, const std::vector<uint32_t>& lens, Flags fl,
               const RxPortPolicy& rx, const TxPortPolicy& tx) {
        return test::process_one(e, pool(), frame, lens, fl.ol, fl.ptype, rx, tx);
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
        v.push_back(test::random_split(n, 2, rng_));
        v.push_back(test::random_split(n, 4, rng_));
        if (after_headers + 2 < n) v.push_back({after_headers, 1, 0, n - after_headers - 1});
        return v;
    }

    std::mt19937 rng_{15};
    const std::vector<Flags> flags_ = every_flag();
};

// Every clean shape, linear and chained, every mode, parser variant and
// policy, with no flags and a sample of the rest.
TEST_F(LeanTunnel, CleanShapesMatchTheWalker) {
    for (const Spec& s : every_spec({10, 1400})) {
        const Built b = build(s);
        for (const auto& lens : cuts(uint32_t(b.f.size()), b.il4 + 20))
            for (int mode = 0; mode < 4; ++mode)
                for (int variant = 0; variant < 2; ++variant)
                    for (int pol = 0; pol < kPolicies; ++pol)
                        for (int k = 0; k < 2; ++k) {
                            const Flags fl = k == 0 ? Flags{0, 0} : flags_[rng_() % flags_.size()];
                            compare(b.f, lens, mode, variant, pol, fl,
                                    b.name + " segs " + std::to_string(lens.size()), true);
                            if (HasFatalFailure()) return;
                        }
    }
}

// Every PMD flag combination on linear clean and damaged packets, verify and csum.
TEST_F(LeanTunnel, EveryFlagCombinationMatchesTheWalker) {
    std::mt19937 rng(3);
    for (const Spec& s : every_spec({10})) {
        const Built b = build(s);
        std::vector<std::pair<std::string, Bytes>> frames{{b.name, b.f}};
        for (auto& v : variants(b, s, rng))
            if (v.first.find("partial") != std::string::npos ||
                v.first.find("bad") != std::string::npos)
                frames.push_back(std::move(v));
        for (const auto& [what, f] : frames)
            for (int mode : {1, 3})
                for (const Flags& fl : flags_)
                    for (int pol : {0, 1}) {
                        compare(f, {uint32_t(f.size())}, mode, 0, pol, fl, what);
                        if (HasFatalFailure()) return;
                    }
    }
}

// Damaged, half-filled and lying frames, linear and chained, every mode,
// variant and policy, each with a random flag combination.
TEST_F(LeanTunnel, DamagedAndLyingFramesMatchTheWalker) {
    std::mt19937 rng(11);
    for (const Spec& s : every_spec({10, 300})) {
        const Built b = build(s);
        for (const auto& [what, f] : variants(b, s, rng)) {
            const uint32_t n = uint32_t(f.size());
            std::vector<std::vector<uint32_t>> lens{{n}};
            if (n > 1) lens.push_back(test::random_split(n, 1 + rng() % 4, rng));
            for (const auto& l : lens)
                for (int mode = 0; mode < 4; ++mode)
                    for (int pol = 0; pol < kPolicies; ++pol) {
                        compare(f, l, mode, int(rng() % 2), pol, flags_[rng() % flags_.size()],
                                what + " segs " + std::to_string(l.size()));
                        if (HasFatalFailure()) return;
                    }
        }
    }
}

// The equivalence is only worth something if the lean path runs: the
// classifier takes every clean shape, linear or chained however split, and
// describes it right; the unusual ones go to the walker.
TEST_F(LeanTunnel, ClassifierTakesTunnelShapesAndLeavesTheRest) {
    ParserConfig pc;
    const ShapeConfig sc(pc);
    std::mt19937 rng(5);
    for (const Spec& s : every_spec({10, 1400})) {
        const Built b = build(s);
        const uint32_t n = uint32_t(b.f.size());
        for (unsigned segs : {1u, 2u, 3u, 4u}) {
            const auto lens =
                segs == 1 ? std::vector<uint32_t>{n} : test::random_split(n, segs, rng);
            rte_mbuf* m = test::make_chain(pool(), b.f, lens);
            alignas(16) uint8_t gather[kTunnelGather];
            TunnelShape t;
            SCOPED_TRACE(b.name + " segs " + std::to_string(segs));
            const bool took = classify_tunnel(m, sc, gather, &t);
            // A chain's headers are gathered only into the bounded window.
            const bool fits = segs == 1 || lens[0] >= std::min(n, kTunnelGather) ||
                              b.il4 + (s.iudp ? 8u : 20u) <= std::min(n, kTunnelGather);
            EXPECT_EQ(took, fits);
            if (took) {
                EXPECT_EQ(t.ov6, s.ov6);
                EXPECT_EQ(t.iv6, s.iv6);
                EXPECT_EQ(t.iproto, s.iudp ? 17 : 6);
                EXPECT_EQ(t.ocsum, s.ocsum);
                EXPECT_EQ(t.ol4, b.ol4);
                EXPECT_EQ(t.il3, b.il3);
                EXPECT_EQ(t.il4, b.il4);
                EXPECT_EQ(t.il4 + uint32_t(t.ifield), b.ifield);
                EXPECT_EQ(t.ol4 + t.olen, n);
                EXPECT_EQ(t.il4 + t.il4_len, n);
                EXPECT_EQ(t.whole, segs == 1 || n <= kTunnelGather);
                EXPECT_EQ(0, std::memcmp(t.bytes, b.f.data(), t.held));
            }
            rte_pktmbuf_free(m);
        }
        // The plain classifier leaves every tunnel alone.
        {
            rte_mbuf* m = test::make_linear(pool(), b.f);
            alignas(16) uint8_t gather[kHeaderGather];
            PacketShape ps;
            EXPECT_FALSE(classify(m, sc, gather, &ps)) << b.name;
            rte_pktmbuf_free(m);
        }
    }
    // Which of a clean IPv4 / GENEVE / IPv4 / UDP frame's variants the lean
    // path takes (damaged sums, a frame trailer, a GENEVE version it does not
    // judge) and which it leaves to the walker (lengths, nesting, fragments,
    // options, VLAN tags, other protocols, an absent inner UDP checksum).
    std::mt19937 vr(1);
    const Spec s{false, 1, false, true, 100, true};
    const Built b = build(s);
    auto has = [](const std::string& w, const char* x) { return w.find(x) != std::string::npos; };
    int lean = 0, walker = 0;
    for (const auto& [what, f] : variants(b, s, vr)) {
        if (has(what, "flips") || has(what, "opt len +1")) continue;  // either may hold
        const bool to_walker = has(what, " len ") || has(what, "nested") || has(what, "fragment") ||
                               has(what, "options") || has(what, "vlan") || has(what, "icmp") ||
                               has(what, "sctp") || has(what, "protocol other") ||
                               has(what, "truncated") || has(what, "cut at") ||
                               has(what, "inner l4 zero") || has(what, "opt len 63");
        rte_mbuf* m = test::make_linear(pool(), f);
        alignas(16) uint8_t gather[kTunnelGather];
        TunnelShape t;
        EXPECT_EQ(classify_tunnel(m, sc, gather, &t), !to_walker) << what;
        rte_pktmbuf_free(m);
        ++(to_walker ? walker : lean);
    }
    EXPECT_GE(lean, 8);
    EXPECT_GE(walker, 20);
}

// The payload is read once: the outer UDP sum comes from the inner one.
TEST_F(LeanTunnel, PayloadIsSummedOnce) {
    for (bool geneve : {false, true}) {
        const Built b = build({false, geneve ? 2 : 0, false, false, 1400, true});
        Engine& e = *pairs_[1][0].lean;
        const uint64_t before = e.stats().sum_bytes.get();
        rte_mbuf* m = test::make_linear(pool(), b.f);
        rte_mbuf* one[1] = {m};
        ASSERT_EQ(e.process({}, {}, one, 1), 1);
        const PacketVerdict* v = verdict_of(m, e.verdict_field());
        EXPECT_EQ(v->ip_summed, IpSummed::unnecessary);
        EXPECT_EQ(v->csum_level, 1);  // outer UDP and inner TCP
        rte_pktmbuf_free(m);
        // The outer IPv4 header, then every byte the outer UDP covers (the
        // inner IPv4 header among them), once.
        EXPECT_EQ(e.stats().sum_bytes.get() - before, 20 + b.f.size() - b.ol4);
        // The walker sees it too, so that the counters compared at TearDown agree.
        run(*pairs_[1][0].walker, b.f, {uint32_t(b.f.size())}, {0, 0}, {}, {});
    }
}

// A burst mixing tunnels, plain packets and damage, with more distinct
// outcomes than the per-burst groups hold: verdicts, bytes, drops and
// counters equal the walker's.
TEST_F(LeanTunnel, BurstWithManyOutcomesCountsLikeTheWalker) {
    constexpr int kN = 64;
    std::vector<Bytes> frames;
    std::vector<Flags> flags;
    std::mt19937 rng(9);
    const auto specs = every_spec({10, 200});
    int tunnels = 0;
    for (int i = 0; i < kN; ++i) {
        const Spec& s = specs[(i * 7) % specs.size()];
        const Built b = build(s);
        Bytes f = b.f;
        if (i % 3 == 1) f.back() ^= 0x5A;
        if (i % 5 == 2 && !s.iv6) test::flip(f, b.il3 + 10);
        if (i % 7 == 3)
            put16(f, b.ifield,
                  pseudo_fold(f, b.il3, s.iv6, s.iudp ? 17 : 6, uint32_t(f.size() - b.il4)));
        if (i % 11 == 4)
            f = test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 6,
                                             test::tcp(test::kSrc4, test::kDst4, 1, 2, 3, 0x10,
                                                       Bytes(30, 1))));
        tunnels += i % 11 != 4;
        frames.push_back(f);
        flags.push_back(i % 4 == 0 ? Flags{0, 0} : flags_[rng() % flags_.size()]);
    }
    ASSERT_GT(2 * tunnels, kN);
    for (int mode : {1, 2, 3}) {
        RxPortPolicy rx;
        rx.drop_bad = true;
        std::vector<Bytes> out[2];
        std::vector<std::string> verdicts[2];
        uint16_t kept[2];
        Engine* engines[2] = {pairs_[mode][0].lean.get(), pairs_[mode][0].walker.get()};
        // Twice: the second burst follows one of mostly tunnels, so the
        // engine tries the tunnel classifier first (tunnel_burst).
        for (int e = 0; e < 2; ++e)
            for (int round = 0; round < 2; ++round) {
                rte_mbuf* burst[kN];
                for (int i = 0; i < kN; ++i) {
                    burst[i] = test::make_linear(pool(), frames[i]);
                    burst[i]->ol_flags = flags[i].ol;
                    burst[i]->packet_type = flags[i].ptype;
                }
                kept[e] = engines[e]->process(rx, {}, burst, kN);
                for (int i = 0; i < kN; ++i) {
                    const PacketVerdict* v = verdict_of(burst[i], engines[e]->verdict_field());
                    verdicts[e].push_back(
                        std::string(reinterpret_cast<const char*>(v), 8) +
                        std::string(reinterpret_cast<const char*>(v->layers), v->n_layers));
                    out[e].push_back(test::chain_bytes(burst[i]));
                }
                rte_pktmbuf_free_bulk(burst, kN);
            }
        ASSERT_EQ(kept[0], kept[1]);
        if (mode != 2) {
            EXPECT_LT(kept[0], kN) << "some packets are dropped";
        }
        EXPECT_EQ(verdicts[0], verdicts[1]);
        EXPECT_EQ(out[0], out[1]);
    }
}

// Filling an inner L4 sum takes the old field out of the region's sum. A
// long region's sum comes from the kernels, which may fold it below the
// field's value; with zero inner addresses and a short length the
// pseudo-header cannot make up the difference, so the subtraction must not
// wrap (a 64-bit wrap is off by one modulo 0xFFFF).
TEST_F(LeanTunnel, FillingTakesTheOldFieldOutWithoutWrapping) {
    const test::V4 zero{0, 0, 0, 0};
    for (size_t pl : {109u, 110u, 200u, 1400u})
        for (bool udp : {false, true})
            for (uint16_t old : {uint16_t{0xFFFF}, uint16_t{0xFFFE}, uint16_t{0x8000}}) {
                const Bytes l4 = udp ? test::udp(zero, zero, 0, 0, Bytes(pl, 0))
                                     : test::tcp(zero, zero, 0, 0, 0, 0x10, Bytes(pl, 0));
                Bytes f = test::eth(
                    0x0800,
                    test::ipv4(test::kSrc4, test::kDst4, 17,
                               test::udp(test::kSrc4, test::kDst4, 5555, 4789,
                                         test::vxlan(test::eth(
                                             0x0800, test::ipv4(zero, zero, udp ? 17 : 6, l4))))));
                const uint32_t ifield = 14 + 20 + 8 + 8 + 14 + 20 + (udp ? 6 : 16);
                put16(f, ifield, old);
                for (int mode : {2, 3})
                    for (const auto& lens : cuts(uint32_t(f.size()), ifield + 2)) {
                        compare(f, lens, mode, 0, 0, {0, 0},
                                std::string(udp ? "udp " : "tcp ") + std::to_string(pl) + " old " +
                                    std::to_string(old) + " segs " + std::to_string(lens.size()));
                        if (HasFatalFailure()) return;
                    }
            }
}

// The common shape's fixed-offset classifier says yes only where the full
// one does, with the same description; and it does take the clean IPv4 /
// VXLAN or optionless GENEVE / Ethernet / IPv4 frames the all-good run is for.
TEST_F(LeanTunnel, CommonShapeClassifierAgreesWithTheFullOne) {
    ParserConfig pc;
    ParserConfig nvme = pc;
    nvme.nvme_ports.add(80);  // the frames' inner TCP port: left to the walker
    const ShapeConfig scs[] = {ShapeConfig(pc), ShapeConfig(nvme)};
    std::mt19937 rng(21);
    int common = 0;
    for (const Spec& s : every_spec({0, 10, 1400})) {
        const Built b = build(s);
        std::vector<std::pair<std::string, Bytes>> frames{{b.name, b.f}};
        for (auto& v : variants(b, s, rng)) frames.push_back(std::move(v));
        for (const auto& [what, f] : frames)
            for (int k = 0; k < 2; ++k)
                for (unsigned segs : {1u, 2u}) {
                    const uint32_t n = uint32_t(f.size());
                    const auto lens = segs == 1 || n < 2 ? std::vector<uint32_t>{n}
                                                         : test::random_split(n, 2, rng);
                    rte_mbuf* m = test::make_chain(pool(), f, lens);
                    SCOPED_TRACE(what + " nvme " + std::to_string(k) + " segs " +
                                 std::to_string(lens.size()));
                    TunnelShape c, t;
                    alignas(16) uint8_t gather[kTunnelGather];
                    const bool fast = classify_common_tunnel(m, scs[k], &c);
                    const bool full = classify_tunnel(m, scs[k], gather, &t);
                    if (fast) {
                        ++common;
                        ASSERT_TRUE(full);
                        EXPECT_EQ(c.bytes, t.bytes);
                        EXPECT_EQ(c.in_place, t.in_place);
                        EXPECT_EQ(c.held, t.held);
                        EXPECT_EQ(c.pkt_len, t.pkt_len);
                        EXPECT_EQ(c.whole, t.whole);
                        EXPECT_EQ(c.ov6, t.ov6);
                        EXPECT_EQ(c.iv6, t.iv6);
                        EXPECT_EQ(c.ocsum, t.ocsum);
                        EXPECT_EQ(c.ozero, t.ozero);
                        EXPECT_EQ(c.iproto, t.iproto);
                        EXPECT_EQ(c.il4i, t.il4i);
                        EXPECT_EQ(c.ifield, t.ifield);
                        EXPECT_EQ(c.eth, t.eth);
                        EXPECT_EQ(c.opts, t.opts);
                        EXPECT_EQ(c.ol4, t.ol4);
                        EXPECT_EQ(c.il3, t.il3);
                        EXPECT_EQ(c.il4, t.il4);
                        EXPECT_EQ(c.olen, t.olen);
                        EXPECT_EQ(c.il4_len, t.il4_len);
                    }
                    // Every clean linear frame of the common layout is taken.
                    if (what == b.name && segs == 1 && k == 0 && !s.ov6 && !s.iv6 && s.kind <= 1) {
                        EXPECT_TRUE(fast);
                    }
                    rte_pktmbuf_free(m);
                    if (HasFatalFailure()) return;
                }
    }
    EXPECT_GT(common, 100);
}

// Full bursts of tunnels, all good (by sums or by GOOD flags in every mix a
// PMD may report) with a damaged, half-filled or differently flagged packet
// here and there, burst after burst: the all-good run stops at each and
// resumes after it. More outcomes over the bursts than the groups hold, so
// their kept verdicts are replaced. Verdicts, bytes, order and counters
// equal the walker's.
TEST_F(LeanTunnel, AllGoodRunsInFullBurstsMatchTheWalker) {
    constexpr int kN = 32, kBursts = 12;
    const auto specs = every_spec({10, 200});
    const Flags kGood[] = {
        {0, 0},
        {RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD |
             RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
         RTE_PTYPE_TUNNEL_VXLAN},
        {RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD, RTE_PTYPE_TUNNEL_GENEVE},
        {RTE_MBUF_F_RX_L4_CKSUM_GOOD, RTE_PTYPE_TUNNEL_VXLAN},
        {RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD, RTE_PTYPE_TUNNEL_VXLAN},
        {RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD, 0},  // outer layers
        {RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN | RTE_MBUF_F_RX_OUTER_L4_CKSUM_INVALID,
         RTE_PTYPE_TUNNEL_VXLAN},
    };
    std::mt19937 rng(33);
    for (int mode : {1, 3}) {
        for (int pol : {0, 1}) {
            RxPortPolicy rx;
            TxPortPolicy tx;
            policy(pol, &rx, &tx);
            Engine* engines[2] = {pairs_[mode][0].lean.get(), pairs_[mode][0].walker.get()};
            for (int burst_no = 0; burst_no < kBursts; ++burst_no) {
                std::vector<Bytes> frames;
                std::vector<Flags> flags;
                const Flags base = kGood[burst_no % std::size(kGood)];
                for (int i = 0; i < kN; ++i) {
                    const Spec& s = specs[(burst_no * 5 + (i % 3 == 0 ? i : 0)) % specs.size()];
                    const Built b = build(s);
                    Bytes f = b.f;
                    Flags fl = base;
                    const unsigned r = rng() % 16;
                    if (r == 0) f.back() ^= 0x21;  // bad payload
                    if (r == 1 && !s.ov6) test::flip(f, 24);
                    if (r == 2)
                        put16(f, b.ifield,
                              pseudo_fold(f, b.il3, s.iv6, s.iudp ? 17 : 6,
                                          uint32_t(f.size() - b.il4)));
                    if (r == 3) fl = flags_[rng() % flags_.size()];
                    if (r == 4)  // a plain packet among the tunnels
                        f = test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 6,
                                                         test::tcp(test::kSrc4, test::kDst4, 1, 2,
                                                                   3, 0x10, Bytes(30, 1))));
                    frames.push_back(std::move(f));
                    flags.push_back(fl);
                }
                std::vector<std::string> verdicts[2];
                std::vector<Bytes> out[2];
                uint16_t kept[2];
                for (int e = 0; e < 2; ++e) {
                    rte_mbuf *burst[kN], *placed[kN];  // placed: each packet's place in the burst
                    for (int i = 0; i < kN; ++i) {
                        burst[i] = placed[i] = test::make_linear(pool(), frames[i]);
                        burst[i]->ol_flags = flags[i].ol;
                        burst[i]->packet_type = flags[i].ptype;
                    }
                    kept[e] = engines[e]->process(rx, tx, burst, kN);
                    verdicts[e].resize(kN), out[e].resize(kN);
                    for (int i = 0; i < kN; ++i) {
                        const int at = int(std::find(placed, placed + kN, burst[i]) - placed);
                        const PacketVerdict* v = verdict_of(burst[i], engines[e]->verdict_field());
                        verdicts[e][at] =
                            std::string(reinterpret_cast<const char*>(v), 8) +
                            std::string(reinterpret_cast<const char*>(v->layers), v->n_layers) +
                            (i < kept[e] ? " kept at " + std::to_string(i) : " dropped");
                        out[e][at] = test::chain_bytes(burst[i]);
                    }
                    rte_pktmbuf_free_bulk(burst, kN);
                }
                SCOPED_TRACE("mode " + std::to_string(mode) + " policy " + std::to_string(pol) +
                             " burst " + std::to_string(burst_no));
                ASSERT_EQ(kept[0], kept[1]);
                for (int i = 0; i < kN; ++i) {
                    ASSERT_EQ(verdicts[0][i], verdicts[1][i]) << "packet " << i;
                    ASSERT_EQ(out[0][i], out[1][i]) << "packet " << i;
                }
            }
        }
    }
}

constexpr uint64_t kAllGood =
    RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;

// The same-shape run on its own: started from a clean packet of each
// template (software sums, and GOOD flags from a PMD that saw the tunnel),
// then offered one packet at a time, clean, changed in ways that keep it
// all good, damaged, lying, chained, of another shape or flagged otherwise.
// Whatever it takes, the per-packet path (classify_common_tunnel or
// classify_tunnel, then tunnel_all_good) calls all good with the run's
// outcome key, the same bytes summed and the run's verdict written; and it
// takes every clean packet and benign change of its template.
// The tunnel run's SSE compare forced on an AVX-512 CPU while it lives.
struct NarrowGuard {
    ~NarrowGuard() { tunnel_run_detail::force_narrow = false; }
};

TEST_F(LeanTunnel, SameShapeRunTakesOnlyWhatThePerPacketPathCallsAllGood) {
    const NarrowGuard narrow_guard;
    ParserConfig pc, nvme;
    nvme.nvme_ports.add(80);  // the frames' inner TCP port
    const ShapeConfig scs[] = {ShapeConfig(pc), ShapeConfig(nvme)};
    const int voff = pairs_[1][0].lean->verdict_field();
    std::mt19937 rng(41);
    int runs = 0, taken = 0, refused = 0;
    const auto specs = every_spec({0, 10, 37, 1400});
    // The AVX-512 compare where the CPU has it, and the SSE one.
    for (const bool narrow : {false, true})
        for (const Spec& s : specs) {
            tunnel_run_detail::force_narrow = narrow;
            const Built b = build(s);
            const bool layout =
                !s.ov6 && s.kind <= 1;  // the run's: VXLAN / optionless GENEVE, IPv4 outside
            for (int k = 0; k < 2; ++k)
                for (int fk = 0; fk < 2; ++fk) {
                    const ShapeConfig& sc = scs[k];
                    const Flags first_fl =
                        fk == 0 ? Flags{0, 0} : Flags{kAllGood, RTE_PTYPE_TUNNEL_VXLAN};
                    rte_mbuf* m0 = test::make_linear(pool(), b.f);
                    m0->ol_flags = first_fl.ol, m0->packet_type = first_fl.ptype;
                    alignas(16) uint8_t g0[kTunnelGather];
                    TunnelShape s0;
                    uint64_t sb0 = 0;
                    uint32_t key0 = 0;
                    const bool cls0 =
                        classify_common_tunnel(m0, sc, &s0) || classify_tunnel(m0, sc, g0, &s0);
                    const bool good0 = cls0 && tunnel_all_good(m0, s0, &sb0, &key0);
                    const int kind = good0 ? tunnel_run_kind(m0, s0) : TunnelRun::kNone;
                    SCOPED_TRACE(b.name + " nvme " + std::to_string(k) + " flags " +
                                 std::to_string(fk) + (narrow ? " narrow" : ""));
                    // Every clean frame of the layout starts a run, but inner IPv6 under flags.
                    if (k == 0) {
                        EXPECT_EQ(kind != TunnelRun::kNone, layout && (fk == 0 || !s.iv6));
                    }
                    if (kind == TunnelRun::kNone) {
                        rte_pktmbuf_free(m0);
                        continue;
                    }
                    ++runs;
                    TunnelRun r;
                    start_tunnel_run(&r, sc, s0, kind, key0, m0->packet_type);
                    PacketVerdict want;
                    TunnelOutcomes::verdict_of_key(key0, &want);
                    std::vector<std::pair<std::string, Bytes>> members{{b.name + " clean", b.f}};
                    for (auto& v : run_members(b, s)) members.push_back(std::move(v));
                    for (auto& v : variants(b, s, rng)) members.push_back(std::move(v));
                    for (int j = 0; j < 6; ++j) {  // other shapes
                        const Built o = build(specs[rng() % specs.size()]);
                        members.emplace_back("other " + o.name, o.f);
                    }
                    for (const auto& [what, f] : members)
                        for (int c = 0; c < 4; ++c) {
                            const uint32_t n = uint32_t(f.size());
                            // Linear with the run's flags; then other flags; a chain;
                            // one segment that says it has two.
                            const auto lens = c == 2 && n > 1 ? test::random_split(n, 2, rng)
                                                              : std::vector<uint32_t>{n};
                            rte_mbuf* m = test::make_chain(pool(), f, lens);
                            const Flags fl = c == 1 ? flags_[rng() % flags_.size()] : first_fl;
                            m->ol_flags = fl.ol, m->packet_type = fl.ptype;
                            if (c == 3) m->nb_segs = 2;
                            rte_mbuf* one[1] = {m};
                            TunnelRunTook took;
                            const bool ran =
                                tunnel_run_dispatch(sc, r, one, 0, 1, voff, &took) == 1;
                            if (c == 3) m->nb_segs = 1;
                            alignas(16) uint8_t g[kTunnelGather];
                            TunnelShape t;
                            uint64_t sb = 0;
                            uint32_t key = 0;
                            const bool cls = c != 3 && (classify_common_tunnel(m, sc, &t) ||
                                                        classify_tunnel(m, sc, g, &t));
                            const bool good = cls && tunnel_all_good(m, t, &sb, &key);
                            SCOPED_TRACE(what + " case " + std::to_string(c));
                            if (ran) {
                                ++taken;
                                ASSERT_TRUE(good);
                                ASSERT_EQ(key, r.key);
                                ASSERT_EQ(took.summed, sb);
                                ASSERT_EQ(took.bytes, m->pkt_len);
                                ASSERT_EQ(0, std::memcmp(verdict_of(m, voff), &want, sizeof want));
                            } else {
                                ++refused;
                            }
                            // Its template's clean packets and benign changes, linear,
                            // with the run's flags: all taken.
                            const bool benign =
                                what == b.name + " clean" ||
                                what.find("vni changed") != std::string::npos ||
                                what.find("payload changed") != std::string::npos ||
                                what.find("addresses changed") != std::string::npos ||
                                what.find("outer df") != std::string::npos ||
                                what.find("outer ttl") != std::string::npos;
                            if (benign && c == 0 && k == 0) {
                                EXPECT_TRUE(ran);
                            }
                            // A trailer the run's first packet did not have: not its.
                            if (what.find("trailer") != std::string::npos) {
                                EXPECT_FALSE(ran);
                            }
                            rte_pktmbuf_free(m);
                        }
                    rte_pktmbuf_free(m0);
                }
        }
    EXPECT_GE(runs, 80);
    EXPECT_GT(taken, 1000);
    EXPECT_GT(refused, 10000);
}

// Each byte of the run's template (masked bits of the header fields, and
// the three length fields) changed alone stops the run, by either compare:
// with GOOD flags only the outer IPv4 header is summed, and it is made
// right again, so that nothing else can refuse it. A run from a frame with
// a trailer takes that many trailer bytes only.
TEST_F(LeanTunnel, SameShapeRunStopsAtEachTemplateByteAndOtherTrailers) {
    const NarrowGuard narrow_guard;
    const ParserConfig pc;
    const ShapeConfig sc(pc);
    const int voff = pairs_[1][0].lean->verdict_field();
    int checked = 0;
    for (const bool narrow : {false, true})
        for (const Spec& s : every_spec({10, 1400})) {
            if (s.ov6 || s.kind > 1) continue;  // the run's layouts
            tunnel_run_detail::force_narrow = narrow;
            const Built b = build(s);
            for (int fk = 0; fk < 2; ++fk) {
                if (fk == 1 && s.iv6) continue;  // no GOOD run for inner IPv6
                const Flags fl = fk == 0 ? Flags{0, 0} : Flags{kAllGood, RTE_PTYPE_TUNNEL_VXLAN};
                SCOPED_TRACE(b.name + (fk ? " good" : " sw") + (narrow ? " narrow" : ""));
                uint64_t start_summed = 0;
                TunnelRunTook took;
                auto start = [&](const Bytes& f, TunnelRun* r) {
                    rte_mbuf* m = test::make_linear(pool(), f);
                    m->ol_flags = fl.ol, m->packet_type = fl.ptype;
                    TunnelShape t;
                    uint64_t sb = 0;
                    uint32_t key = 0;
                    alignas(16) uint8_t g[kTunnelGather];
                    const bool ok =
                        (classify_common_tunnel(m, sc, &t) || classify_tunnel(m, sc, g, &t)) &&
                        tunnel_all_good(m, t, &sb, &key);
                    const int kind = ok ? tunnel_run_kind(m, t) : TunnelRun::kNone;
                    if (kind != TunnelRun::kNone)
                        start_tunnel_run(r, sc, t, kind, key, m->packet_type);
                    rte_pktmbuf_free(m);
                    start_summed = sb;
                    return kind != TunnelRun::kNone;
                };
                auto takes = [&](const TunnelRun& r, const Bytes& f) {
                    rte_mbuf* m = test::make_linear(pool(), f);
                    m->ol_flags = fl.ol, m->packet_type = fl.ptype;
                    rte_mbuf* one[1] = {m};
                    took = TunnelRunTook{};
                    const bool ran = tunnel_run_dispatch(sc, r, one, 0, 1, voff, &took) == 1;
                    rte_pktmbuf_free(m);
                    return ran;
                };
                TunnelRun r;
                ASSERT_TRUE(start(b.f, &r));
                ASSERT_EQ(r.wide, !narrow && tunnel_run_detail::cpu_wide());
                ASSERT_TRUE(takes(r, b.f));
                if (fk == 1) {  // GOOD from a PMD that named another tunnel: not the run's
                    rte_mbuf* m = test::make_linear(pool(), b.f);
                    m->ol_flags = fl.ol, m->packet_type = RTE_PTYPE_TUNNEL_GENEVE;
                    rte_mbuf* one[1] = {m};
                    EXPECT_EQ(tunnel_run_dispatch(sc, r, one, 0, 1, voff, &took), 0u);
                    rte_pktmbuf_free(m);
                }
                if (fk == 1) {
                    for (uint32_t j = 0; j < 64; ++j) {
                        const uint8_t mk = r.wmask[j];
                        if (mk == 0) continue;
                        for (const uint8_t flip : {uint8_t(mk & -mk), mk}) {
                            Bytes g = b.f;
                            g[tunnel_run_detail::kWide + j] ^= flip;
                            test::fix_ipv4(g, 14);
                            SCOPED_TRACE("byte " + std::to_string(12 + j) + " flip " +
                                         std::to_string(flip));
                            EXPECT_FALSE(takes(r, g));
                            ++checked;
                        }
                    }
                }
                // Trailers: none in the run's first packet, then 4 in it.
                Bytes t4 = b.f, t5 = b.f;
                t4.insert(t4.end(), 4, 0xEE);
                t5.insert(t5.end(), 5, 0xEE);
                EXPECT_FALSE(takes(r, t4));
                TunnelRun r4;
                ASSERT_TRUE(start(t4, &r4));
                EXPECT_TRUE(takes(r4, t4));
                // As the per-packet path counts it: the trailer in pkt_len only.
                EXPECT_EQ(took.summed, start_summed);
                EXPECT_EQ(took.bytes, t4.size());
                EXPECT_FALSE(takes(r4, b.f));
                EXPECT_FALSE(takes(r4, t5));
                Bytes t4b = t4;  // another payload, same trailer
                t4b[b.il4 + 20] ^= 0x5A;
                test::fix_sums(t4b, b, s);
                EXPECT_TRUE(takes(r4, t4b));
            }
        }
    EXPECT_GT(checked, 500);
}

// Bursts of one run template with hostile members at random places (damaged,
// half-filled, lying, zero or changed outer UDP sum, other ports, GENEVE
// options, inner IPv6, chains, lying nb_segs, other flags, plain packets),
// burst after burst so that bursts also start with the last one's run; every
// mode, drop or keep. Order, verdicts, bytes and counters equal the walker's.
TEST_F(LeanTunnel, SameShapeRunsWithHostileMembersMatchTheWalker) {
    const NarrowGuard narrow_guard;
    constexpr int kN = 32, kBursts = 6;
    const auto specs = every_spec({10, 200});
    std::mt19937 rng(57);
    int iter = 0;
    for (const Spec& s : specs) {
        if (s.ov6 || s.kind > 1) continue;  // the run's layouts
        const Built b = build(s);
        std::vector<std::pair<std::string, Bytes>> hostile = run_members(b, s);
        for (auto& v : variants(b, s, rng)) hostile.push_back(std::move(v));
        for (int fk = 0; fk < 2; ++fk) {
            const Flags base = fk == 0 ? Flags{0, 0} : Flags{kAllGood, RTE_PTYPE_TUNNEL_GENEVE};
            for (int mode : {1, 2, 3}) {
                ++iter;
                // Every other one with the SSE compare on an AVX-512 CPU.
                tunnel_run_detail::force_narrow = iter % 2 == 1;
                RxPortPolicy rx;
                rx.drop_bad = iter % 3 != 0;
                Engine* engines[2] = {pairs_[mode][0].lean.get(), pairs_[mode][0].walker.get()};
                for (int burst_no = 0; burst_no < kBursts; ++burst_no) {
                    std::vector<Bytes> frames;
                    std::vector<Flags> flags;
                    std::vector<int> segs;
                    std::vector<std::string> what;
                    for (int i = 0; i < kN; ++i) {
                        Bytes f = b.f;
                        Flags fl = base;
                        int sg = 1;
                        std::string w = "clean";
                        const unsigned r = rng() % 24;
                        if (r < 10) {
                            const auto& h = hostile[rng() % hostile.size()];
                            f = h.second, w = h.first;
                        } else if (r == 10) {
                            const Built o = build(specs[rng() % specs.size()]);
                            f = o.f, w = "other " + o.name;
                        } else if (r == 11) {
                            sg = 2 + int(rng() % 2), w = "chain";
                        } else if (r == 12) {
                            sg = -2, w = "one segment saying two";
                        } else if (r == 13) {
                            fl = flags_[rng() % flags_.size()], w = "other flags";
                        } else if (r == 14) {
                            f = test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 6,
                                                             test::tcp(test::kSrc4, test::kDst4, 1,
                                                                       2, 3, 0x10, Bytes(30, 1))));
                            w = "plain";
                        }
                        frames.push_back(std::move(f));
                        flags.push_back(fl);
                        segs.push_back(sg);
                        what.push_back(std::to_string(i) + ":" + w);
                    }
                    test::BurstRecord rec[2];
                    uint16_t kept[2];
                    for (int e = 0; e < 2; ++e) {
                        rte_mbuf *burst[kN], *orig[kN];
                        for (int i = 0; i < kN; ++i) {
                            const uint32_t n = uint32_t(frames[i].size());
                            const auto lens = segs[i] > 1
                                                  ? test::random_split(n, unsigned(segs[i]), rng)
                                                  : std::vector<uint32_t>{n};
                            orig[i] = burst[i] = test::make_chain(pool(), frames[i], lens);
                            burst[i]->ol_flags = flags[i].ol;
                            burst[i]->packet_type = flags[i].ptype;
                            if (segs[i] == -2) burst[i]->nb_segs = 2;
                        }
                        kept[e] = engines[e]->process(rx, {}, burst, kN);
                        for (int i = 0; i < kN; ++i)
                            if (segs[i] == -2) orig[i]->nb_segs = 1;
                        rec[e] = test::record_burst(*engines[e], orig, burst, kN, kept[e], what);
                        rte_pktmbuf_free_bulk(orig, kN);
                    }
                    SCOPED_TRACE(b.name + " flags " + std::to_string(fk) + " mode " +
                                 std::to_string(mode) + " burst " + std::to_string(burst_no));
                    ASSERT_EQ(kept[0], kept[1]);
                    ASSERT_EQ(rec[0].order, rec[1].order);
                    ASSERT_EQ(rec[0].verdicts, rec[1].verdicts);
                    ASSERT_EQ(rec[0].bytes, rec[1].bytes);
                    ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(*engines[0], *engines[1]));
                }
            }
        }
    }
}

}  // namespace
}  // namespace csum
