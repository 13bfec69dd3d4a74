// VXLAN and GENEVE on the lean path must be indistinguishable from the
// reference walker (plain_fast_path = false): same verdict, bytes, offload
// requests, forwarding and counters, in every mode, under every PMD flag
// combination a tunnel can carry, for linear packets and chains split
// anywhere, with checksums right, damaged, half-filled (partial) or absent,
// and with lengths that lie. Frames and their variants: tunnel_frames.h;
// the runs (all-good in bursts, same-shape): test_tunnel_run.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "csum/engine.h"
#include "lean_tunnel_fixture.h"
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
using test::Flags;
using test::kPolicies;
using test::LeanTunnel;
using test::policy;
using test::pseudo_fold;
using test::put16;
using test::Spec;
using test::variants;

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

// Inner headers whose words sum, with end-around carries, to within 2^34
// of 2^64 (an IPv4 source of all ones with identification and fragment
// word 0; an IPv6 pair chosen for it): the per-packet path's outer UDP sum
// adds the inner header's sum to others, and its inner IPv4 fill adds the
// field taken out; a carry lost there is one off (a right outer sum called
// bad, a field filled 0x0001 for 0x0000). Verify, csum and fill, linear
// and cut.
TEST_F(LeanTunnel, InnerHeaderSumsNearTwoToThe64KeepTheirCarries) {
    const test::V4 ones{255, 255, 255, 255};
    std::vector<std::pair<std::string, Bytes>> inners;
    for (const test::V4 dst : {test::V4{10, 0, 0, 2}, test::V4{122, 238, 255, 171},
                               test::V4{255, 255, 255, 255}, test::V4{0, 0, 0, 0}})
        for (bool udp : {false, true}) {
            const Bytes l4 = udp ? test::udp(ones, dst, 4000, 5000, Bytes(24, 0x5A))
                                 : test::tcp(ones, dst, 4000, 5000, 7, 0x10, Bytes(24, 0x5A));
            Bytes ip = test::ipv4(ones, dst, udp ? 17 : 6, l4);
            ip[4] = ip[5] = ip[6] = ip[7] = 0;  // identification and fragment word 0
            inners.push_back({"v4 dst " + std::to_string(dst[0]) + (udp ? " udp" : " tcp"), ip});
        }
    test::V6 zero6{}, dst6{};
    const uint8_t tail[] = {0x9f, 0xff, 0xff, 0xff, 0xff, 0xdf, 0xee, 0xbf};
    std::copy(std::begin(tail), std::end(tail), dst6.begin() + 8);
    inners.push_back(
        {"v6", test::ipv6(zero6, dst6, 17, test::udp(zero6, dst6, 4000, 5000, Bytes(24, 0x5A)))});
    const Bytes plain = test::eth(
        0x0800, test::ipv4(test::kSrc4, test::kDst4, 6,
                           test::tcp(test::kSrc4, test::kDst4, 1, 2, 3, 0x10, Bytes(10, 1))));
    for (auto& [name, ip] : inners) {
        const bool v6 = ip[0] >> 4 == 6;
        if (!v6) test::fix_ipv4(ip, 0);
        Bytes f = test::eth(
            0x0800, test::ipv4(test::kSrc4, test::kDst4, 17,
                               test::udp(test::kSrc4, test::kDst4, 5555, 4789,
                                         test::vxlan(test::eth(v6 ? 0x86DD : 0x0800, ip)))));
        const uint32_t il3 = 14 + 20 + 8 + 8 + 14;
        Bytes zeroed = f;  // fill's input: the inner IPv4 field 0
        if (!v6) zeroed[il3 + 10] = zeroed[il3 + 11] = 0;
        for (int mode : {1, 2, 3})
            for (const auto& lens : cuts(uint32_t(f.size()), il3 + 20)) {
                // Verify and csum: a plain packet first, so that the burst
                // does not start with the tunnel classifier and its
                // all-good test (which was right) but takes the tunnel to
                // the per-packet path, as in a mostly-plain burst.
                if (mode != 2)
                    compare(plain, {uint32_t(plain.size())}, mode, 0, 0, {0, 0}, "plain");
                compare(mode == 2 ? zeroed : f, lens, mode, 0, 0, {0, 0},
                        name + " segs " + std::to_string(lens.size()));
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
}  // namespace
}  // namespace csum
