// The tunnel run for chains (tunnel_chain_run.h): its loop on its own,
// held to the per-packet path (it takes only what that path calls all good,
// with the same outcome, and every clean chain of its template however
// cut), and bursts of chained tunnels through the lean engine against the
// walker.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include <rte_mbuf_ptype.h>

#include "csum/engine.h"
#include "dispatch/select.h"
#include "engine/tunnel_chain_run.h"
#include "lean_tunnel_fixture.h"
#include "parse/classify_tunnel.h"
#include "support/chain_builder.h"
#include "support/chain_loops.h"
#include "support/engine_compare.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"
#include "tunnel_frames.h"
#include "tunnel_run_start.h"

namespace csum {
namespace {

using namespace test;

class TunnelChainRun : public LeanTunnel {
  protected:
    // Inner payloads: 68/69 and 88/89 make inner TCP/IPv4 frames of 192 and
    // 193 bytes under outer IPv6 and IPv4, either side of the longest chain
    // put together whole (tunnel_chain_body.h's kFront).
    static std::vector<Spec> payload_specs() {
        return every_spec({0, 10, 37, 68, 69, 88, 89, 90, 200, 1400});
    }
    // The cuts a chain of n bytes is tried with: 2 to 4 random segments
    // (empty ones too), the head alone in a 1-byte first segment, the
    // headers cut after `headers` bytes, and (n <= 160) every 2-segment cut.
    std::vector<std::vector<uint32_t>> chain_cuts(uint32_t n, uint32_t headers) {
        std::vector<std::vector<uint32_t>> v;
        for (unsigned segs = 2; segs <= 4; ++segs) v.push_back(random_split(n, segs, rng_));
        v.push_back({1, n - 1});
        v.push_back({headers, n - headers});
        v.push_back({headers - 1, 1, n - headers});
        if (n <= 160)
            for (uint32_t at = 1; at < n; ++at) v.push_back({at, n - at});
        return v;
    }
};

// The loop alone: a run started from a clean linear frame of each run
// layout, then every clean chain of it (however cut, with the run's flags)
// taken, and of its benign changes, damaged, half-filled and lying
// variants and other shapes, cut at random, nothing taken that the
// per-packet path (classify_tunnel + tunnel_all_good) does not call all
// good with the run's outcome, its bytes and summed bytes as that path
// counts them.
TEST_F(TunnelChainRun, TakesOnlyWhatThePerPacketPathCallsAllGood) {
    const auto loops = tunnel_chain_loops();
    if (loops.empty()) GTEST_SKIP() << "no AVX2: the chain run is off";
    ParserConfig pc, nvme;
    nvme.nvme_ports.add(80);  // the frames' inner TCP port
    const ShapeConfig scs[] = {ShapeConfig(pc), ShapeConfig(nvme)};
    const int voff = pairs_[1][0].lean->verdict_field();
    std::mt19937 rng(43);
    int runs = 0, taken = 0, refused = 0, clean_chains = 0;
    const auto specs = payload_specs();
    for (const TunnelChainLoop& loop : loops)
        for (const Spec& s : specs) {
            // The run's layouts: under outer IPv6 with the outer UDP sum (zero
            // is illegal there by default).
            if (s.kind > 1 || (s.ov6 && !s.ocsum)) continue;
            const Built b = build(s);
            for (int k = 0; k < 2; ++k)
                for (int fk = 0; fk < 2; ++fk) {
                    const ShapeConfig& sc = scs[k];
                    const Flags first_fl =
                        fk == 0 ? Flags{0, 0} : Flags{kAllGood, RTE_PTYPE_TUNNEL_VXLAN};
                    rte_mbuf* m0 = make_linear(pool(), b.f);
                    m0->ol_flags = first_fl.ol, m0->packet_type = first_fl.ptype;
                    alignas(16) uint8_t g0[kTunnelGather];
                    TunnelRun r;
                    const RunStart st = start_run_from(m0, sc, g0, &r);
                    const int kind = st.kind;
                    SCOPED_TRACE(std::string(loop.name) + " " + b.name + " nvme " +
                                 std::to_string(k) + " flags " + std::to_string(fk));
                    if (k == 0) {
                        EXPECT_NE(kind, TunnelRun::kNone);
                    }
                    if (kind == TunnelRun::kNone) {
                        rte_pktmbuf_free(m0);
                        continue;
                    }
                    ++runs;
                    PacketVerdict want;
                    TunnelOutcomes::verdict_of_key(st.key, &want);
                    const auto members = run_candidates(b, s, specs, rng);
                    for (const auto& [what, f] : members) {
                        const uint32_t n = uint32_t(f.size());
                        const bool clean = what == b.name + " clean";
                        std::vector<std::vector<uint32_t>> cuts;
                        if (clean)
                            cuts = chain_cuts(n, b.il4 + 4);
                        else
                            for (int c = 0; c < 3; ++c) cuts.push_back(random_split(n, 2 + c, rng));
                        for (size_t c = 0; c < cuts.size(); ++c) {
                            rte_mbuf* m = make_chain(pool(), f, cuts[c]);
                            ASSERT_NE(m, nullptr);
                            // Other flags now and then (never on the clean cuts).
                            const Flags fl =
                                !clean && c == 2 ? flags_[rng() % flags_.size()] : first_fl;
                            m->ol_flags = fl.ol, m->packet_type = fl.ptype;
                            rte_mbuf* one[1] = {m};
                            TunnelRunTook took;
                            const bool ran = loop.run(sc, r, one, 0, 1, voff, &took) == 1;
                            const WalkerTake w = walker_take(m, sc, false);
                            SCOPED_TRACE(what + " cut " + std::to_string(c));
                            if (ran) {
                                ++taken;
                                ASSERT_NO_FATAL_FAILURE(
                                    expect_took_as_walker(m, w, r, took, voff, want));
                            } else {
                                ++refused;
                            }
                            if (clean) {
                                ++clean_chains;
                                EXPECT_TRUE(ran);
                            }
                            if (what.find("trailer") != std::string::npos) {
                                EXPECT_FALSE(ran);
                            }
                            rte_pktmbuf_free(m);
                        }
                    }
                    rte_pktmbuf_free(m0);
                }
        }
    EXPECT_GE(runs, 90 * int(loops.size()));
    EXPECT_GT(clean_chains, 5000 * int(loops.size()));
    EXPECT_GT(refused, 5000 * int(loops.size()));
    EXPECT_GT(taken, clean_chains);
}

// A burst of chains the run takes, stopped by one it must not take (a
// payload byte changed, or a linear packet between them), then resumed:
// returns at the first one it refuses, every one before it taken.
TEST_F(TunnelChainRun, StopsAtTheFirstChainItRefuses) {
    const auto loops = tunnel_chain_loops();
    if (loops.empty()) GTEST_SKIP() << "no AVX2: the chain run is off";
    ParserConfig pc;
    const ShapeConfig sc(pc);
    const int voff = pairs_[1][0].lean->verdict_field();
    for (const TunnelChainLoop& loop : loops)
        for (size_t payload : {size_t{10}, size_t{300}}) {
            const Built b = build(Spec{false, 0, false, false, payload, true});
            rte_mbuf* m0 = make_linear(pool(), b.f);
            alignas(16) uint8_t g0[kTunnelGather];
            TunnelRun r;
            const RunStart st = start_run_from(m0, sc, g0, &r);
            ASSERT_NE(st.kind, TunnelRun::kNone);
            rte_pktmbuf_free(m0);
            constexpr unsigned kN = 13;
            for (unsigned stop = 0; stop < kN; ++stop)
                for (int how = 0; how < 2; ++how) {
                    rte_mbuf* burst[kN];
                    for (unsigned i = 0; i < kN; ++i) {
                        Bytes f = b.f;
                        if (i == stop && how == 0) f.back() ^= 0x10;
                        const uint32_t n = uint32_t(f.size());
                        burst[i] = i == stop && how == 1
                                       ? make_linear(pool(), f)
                                       : make_chain(pool(), f, random_split(n, 2 + i % 3, rng_));
                    }
                    TunnelRunTook took;
                    SCOPED_TRACE(std::string(loop.name) + " payload " + std::to_string(payload) +
                                 " stop " + std::to_string(stop) + " how " + std::to_string(how));
                    EXPECT_EQ(loop.run(sc, r, burst, 0, kN, voff, &took), stop);
                    EXPECT_EQ(took.bytes, uint64_t{stop} * b.f.size());
                    if (stop + 1 < kN) {
                        TunnelRunTook rest;
                        EXPECT_EQ(loop.run(sc, r, burst, stop + 1, kN, voff, &rest), kN);
                    }
                    rte_pktmbuf_free_bulk(burst, kN);
                }
        }
}

// Fill mode's chain loop alone: every clean chain of a run layout, however
// cut, its four checksum fields garbled, taken and given the fields the
// frame was built with (a reference sum apart from the library), and the
// run's verdict.
TEST_F(TunnelChainRun, FillTakesEveryCleanChainAndWritesItsFields) {
    const auto loops = tunnel_chain_loops();
    if (loops.empty()) GTEST_SKIP() << "no AVX2: the chain run is off";
    ParserConfig pc;
    const ShapeConfig sc(pc);
    const int voff = pairs_[2][0].lean->verdict_field();
    const uint32_t plan = detail::inet_plan_now();
    std::mt19937 rng(53);
    int chains = 0;
    for (const TunnelChainLoop& loop : loops)
        for (const Spec& s : payload_specs()) {
            // The fill run's layouts (as the verify run's).
            if (s.kind > 1 || !s.ocsum) continue;
            const Built b = build(s);
            SCOPED_TRACE(std::string(loop.name) + " " + b.name);
            TunnelShape t{};
            Bytes front = b.f;
            t.bytes = t.in_place = front.data();
            t.pkt_len = t.held = uint32_t(front.size());
            t.whole = true;
            t.ov6 = s.ov6;
            t.iv6 = s.iv6;
            t.iproto = s.iudp ? 17 : 6;
            t.ocsum = true;
            t.olen = get16(b.f, b.ol4 + 4);
            const int kind = (s.iv6 ? TunnelRun::kIv6 : 0) | (s.iudp ? TunnelRun::kUdp : 0) |
                             (s.ov6 ? TunnelRun::kOv6 : 0);
            TunnelRun r;
            start_tunnel_run(&r, sc, t, kind, 0x1234, 0);
            std::vector<uint32_t> fields{b.ifield, b.ol4 + 6};
            if (!s.ov6) fields.push_back(24);
            if (!s.iv6) fields.push_back(b.il3 + 10);
            const uint32_t n = uint32_t(b.f.size());
            for (const auto& cut : chain_cuts(n, b.il4 + 4)) {
                Bytes f = b.f;
                for (uint32_t at : fields) put16(f, at, uint16_t(rng()));
                rte_mbuf* m = make_chain(pool(), f, cut);
                ASSERT_NE(m, nullptr);
                rte_mbuf* one[1] = {m};
                uint64_t l4 = 0;
                EXPECT_EQ(loop.fill(sc, r, plan, one, 0, 1, voff, &l4), 1u);
                EXPECT_EQ(l4, n - b.il4);
                EXPECT_EQ(chain_bytes(m), b.f);
                EXPECT_EQ(0, std::memcmp(verdict_of(m, voff), &r.v, sizeof r.v));
                ++chains;
                rte_pktmbuf_free(m);
            }
        }
    EXPECT_GT(chains, 2500 * int(loops.size()));
}

// Full bursts of chained tunnels (and some linear ones) through the lean
// engine and the walker, burst after burst, every mode and port policy:
// clean ones with a damaged, half-filled, differently flagged or plain
// packet here and there, by software sums and by GOOD flags. Verdicts,
// bytes, order and counters (the fixture's TearDown) equal.
TEST_F(TunnelChainRun, BurstsOfChainsMatchTheWalker) {
    constexpr int kN = 32, kBursts = 8;
    const auto specs = every_spec({10, 90, 600});
    const Flags kBase[] = {{0, 0}, {kAllGood, RTE_PTYPE_TUNNEL_VXLAN}};
    std::mt19937 rng(47);
    for (int mode = 0; mode < 4; ++mode)
        for (int pol = 0; pol < kPolicies; ++pol) {
            RxPortPolicy rx;
            TxPortPolicy tx;
            policy(pol, &rx, &tx);
            Engine* engines[2] = {pairs_[mode][0].lean.get(), pairs_[mode][0].walker.get()};
            for (int burst_no = 0; burst_no < kBursts; ++burst_no) {
                const Flags base = kBase[burst_no % 2];
                std::vector<ChainSpec> cs;
                for (int i = 0; i < kN; ++i) {
                    // Mostly one spec a burst (a run), other specs now and then.
                    const Spec& s = specs[(burst_no * 7 + (i % 5 == 0 ? i : 0)) % specs.size()];
                    const Built b = build(s);
                    Bytes f = b.f;
                    Flags fl = base;
                    const unsigned r = rng() % 20;
                    if (r == 0) f.back() ^= 0x21;  // bad payload
                    if (r == 1 && !s.ov6) flip(f, 24);
                    if (r == 2)
                        put16(f, b.ifield,
                              pseudo_fold(f, b.il3, s.iv6, s.iudp ? 17 : 6,
                                          uint32_t(f.size() - b.il4)));
                    if (r == 3) fl = flags_[rng() % flags_.size()];
                    if (r == 4)
                        f = eth(0x0800, ipv4(kSrc4, kDst4, 6,
                                             tcp(kSrc4, kDst4, 1, 2, 3, 0x10, Bytes(30, 1))));
                    const uint32_t n = uint32_t(f.size());
                    ChainSpec c;
                    c.lens = r == 5 ? std::vector<uint32_t>{n}
                                    : random_split(n, 2 + unsigned(rng() % 3), rng);
                    c.bytes = std::move(f);
                    c.ol_flags = fl.ol, c.packet_type = fl.ptype;
                    cs.push_back(std::move(c));
                }
                SCOPED_TRACE("mode " + std::to_string(mode) + " policy " + std::to_string(pol) +
                             " burst " + std::to_string(burst_no));
                BurstRecord rec[2];
                for (int e = 0; e < 2; ++e) {
                    ChainBurst cb;
                    ASSERT_NO_FATAL_FAILURE(cb.build(pool(), cs, 0));
                    const uint16_t kept = engines[e]->process(rx, tx, cb.burst(), uint16_t(kN));
                    cb.undo_lies();
                    rec[e] = record_burst(*engines[e], cb.orig(), cb.burst(), kN, kept,
                                          std::vector<std::string>(kN, ""));
                }
                ASSERT_EQ(rec[0], rec[1]);
            }
        }
}

}  // namespace
}  // namespace csum
