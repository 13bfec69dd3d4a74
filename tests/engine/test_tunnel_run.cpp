// The tunnel runs against the walker, in bursts through the engine: full
// bursts through the all-good run (good_run_tunnel), kinds alternating, and
// the same-shape and mixed runs with hostile members, by the AVX-512 compare
// and the SSE one. The same-shape run on its own: test_tunnel_run_alone.cpp;
// the per-packet path: test_lean_tunnel.cpp.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include <rte_mbuf_ptype.h>

#include "csum/engine.h"
#include "support/chain_builder.h"
#include "support/engine_compare.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"
#include "tunnel_frames.h"
#include "tunnel_run_start.h"
#include "tunnel_runs_fixture.h"

namespace csum {
namespace {

using namespace test;  // tunnel_frames.h, the fixture's flags and policies

// Full bursts of tunnels, all good (by sums or by GOOD flags in every mix a
// PMD may report) with a damaged, half-filled or differently flagged packet
// here and there, burst after burst: the all-good run stops at each and
// resumes after it. More outcomes over the bursts than the groups hold, so
// their kept verdicts are replaced. Verdicts, bytes, order and counters
// equal the walker's.
TEST_F(TunnelRuns, AllGoodRunsInFullBurstsMatchTheWalker) {
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
                SCOPED_TRACE("mode " + std::to_string(mode) + " policy " + std::to_string(pol) +
                             " burst " + std::to_string(burst_no));
                ASSERT_NO_FATAL_FAILURE(expect_burst_like_walker(engines, rx, tx, frames, flags));
            }
        }
    }
}

// Tunnels whose inner shapes (and outer kind, outer UDP checksum) change
// from packet to packet, burst after burst: each packet goes to its kind's
// last template (Engine::Impl::tunnel_runs), which must take only what the
// per-packet path calls all good; damaged, lying and run-member variants and
// other flags among them. Verdicts, bytes, order and counters equal the
// walker's.
TEST_F(TunnelRuns, AlternatingKindsTakeEachKindsTemplateAsTheWalker) {
    constexpr int kN = 32, kBursts = 40;
    std::mt19937 rng(77);
    for (int mode : {1, 3}) {
        RxPortPolicy rx;
        TxPortPolicy tx;
        policy(0, &rx, &tx);
        Engine* engines[2] = {pairs_[mode][0].lean.get(), pairs_[mode][0].walker.get()};
        for (int burst_no = 0; burst_no < kBursts; ++burst_no) {
            const bool good_flags = burst_no % 4 == 3;
            std::vector<Bytes> frames;
            std::vector<Flags> flags;
            for (int i = 0; i < kN; ++i) {
                Spec s;
                s.kind = int(rng() % 2);
                s.iv6 = rng() % 2;
                s.iudp = rng() % 2;
                s.ocsum = rng() % 4 != 0;
                // Short, mid (either side of the inline sums' limit) and long.
                const unsigned sz = rng() % 3;
                s.payload = sz == 0   ? 200 + rng() % 1200
                            : sz == 1 ? 10 + rng() % 40
                                      : 50 + rng() % 250;
                const Built b = build(s);
                Bytes f = b.f;
                Flags fl{0, 0};
                if (good_flags)
                    fl = {kAllGood, static_cast<uint32_t>(s.kind == 0 ? RTE_PTYPE_TUNNEL_VXLAN
                                                                      : RTE_PTYPE_TUNNEL_GENEVE)};
                const unsigned r = rng() % 10;
                if (r == 0) {
                    auto v = variants(b, s, rng);
                    f = v[rng() % v.size()].second;
                } else if (r == 1) {
                    auto v = run_members(b, s);
                    f = v[rng() % v.size()].second;
                } else if (r == 2) {
                    fl = flags_[rng() % flags_.size()];
                }
                frames.push_back(std::move(f));
                flags.push_back(fl);
            }
            SCOPED_TRACE("mode " + std::to_string(mode) + " burst " + std::to_string(burst_no));
            ASSERT_NO_FATAL_FAILURE(expect_burst_like_walker(engines, rx, tx, frames, flags));
            ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(*engines[0], *engines[1]));
        }
    }
}

// Bursts of one run template with hostile members at random places (damaged,
// half-filled, lying, zero or changed outer UDP sum, other ports, GENEVE
// options, inner IPv6, chains, lying nb_segs, other flags, plain packets),
// burst after burst so that bursts also start with the last one's run; every
// mode, drop or keep. Order, verdicts, bytes and counters equal the walker's.
TEST_F(TunnelRuns, SameShapeRunsWithHostileMembersMatchTheWalker) {
    const NarrowGuard narrow_guard;
    constexpr int kN = 32, kBursts = 6;
    const auto specs = every_spec({10, 200});
    std::mt19937 rng(57);
    int iter = 0;
    for (const Spec& s : specs) {
        if (s.kind > 1) continue;  // the run's layouts
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
                // Every other one with zero outer UDP sums over IPv6 legal.
                const int v = (iter / 2) % 2;
                Engine* engines[2] = {pairs_[mode][v].lean.get(), pairs_[mode][v].walker.get()};
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
                    // Both engines get the same chains.
                    std::vector<test::ChainSpec> chains;
                    for (int i = 0; i < kN; ++i) {
                        const uint32_t n = uint32_t(frames[i].size());
                        chains.push_back({frames[i],
                                          segs[i] > 1
                                              ? test::random_split(n, unsigned(segs[i]), rng)
                                              : std::vector<uint32_t>{n},
                                          flags[i].ol, flags[i].ptype,
                                          segs[i] == -2 ? test::Lie::segs_high : test::Lie::none});
                    }
                    SCOPED_TRACE(b.name + " flags " + std::to_string(fk) + " mode " +
                                 std::to_string(mode) + " burst " + std::to_string(burst_no));
                    ASSERT_NO_FATAL_FAILURE(test::expect_same_burst(*engines[0], *engines[1],
                                                                    pool(), chains, rx, 0, what));
                }
            }
        }
    }
}

// Bursts whose packets alternate between the run kinds of a few specs
// (inner IPv4 / IPv6, TCP / UDP, outer UDP sum or none, VXLAN / GENEVE),
// so that the mixed run (tunnel_mixed_run.h) takes them by each kind's
// template: with hostile members of each kind, other tunnels, plain
// packets, chains, descriptors that lie about their segments and other
// flags among them, by either compare, in every mode. Verdicts, bytes,
// order and counters equal the walker's.
TEST_F(TunnelRuns, MixedRunsWithHostileMembersMatchTheWalker) {
    const NarrowGuard narrow_guard;
    constexpr int kN = 32, kBursts = 48;
    const auto specs = every_spec({10, 40, 300});
    std::vector<Spec> runnable;
    for (const Spec& s : specs)
        if (s.kind <= 1) runnable.push_back(s);
    std::mt19937 rng(91);
    std::vector<Built> kinds;
    std::vector<std::vector<std::pair<std::string, Bytes>>> hostile;
    std::vector<int> run_kinds;
    for (int burst_no = 0; burst_no < kBursts; ++burst_no) {
        // Six bursts of the same kinds (their templates built in the first
        // ones), each mode twice, by either compare.
        const int mode = 1 + burst_no % 3;
        tunnel_run_detail::force_narrow = (burst_no / 6) % 2 == 1;
        const bool good_flags = (burst_no / 6) % 4 == 3;
        RxPortPolicy rx;
        rx.drop_bad =
            burst_no % 5 == 0;  // a drop leaves the rest of its burst to the per-packet path
        // The second half with zero outer UDP sums over IPv6 legal.
        const int v = burst_no / (kBursts / 2);
        Engine* engines[2] = {pairs_[mode][v].lean.get(), pairs_[mode][v].walker.get()};
        // Two to four kinds, each of its own run kind (a VXLAN and a GENEVE
        // of one would share a template).
        if (burst_no % 6 == 0) kinds.clear(), hostile.clear(), run_kinds.clear();
        while (kinds.size() < 2 + rng() % 3) {
            const Spec& s = runnable[rng() % runnable.size()];
            const int rk = s.ov6 * 8 + s.iv6 * 4 + s.iudp * 2 + s.ocsum;
            if (std::count(run_kinds.begin(), run_kinds.end(), rk) != 0) continue;
            run_kinds.push_back(rk);
            kinds.push_back(build(s));
            hostile.push_back(run_members(kinds.back(), s));
            for (auto& v : variants(kinds.back(), s, rng)) hostile.back().push_back(std::move(v));
        }
        std::vector<test::ChainSpec> chains;
        std::vector<std::string> what;
        for (int i = 0; i < kN; ++i) {
            const size_t k = rng() % kinds.size();
            Bytes f = kinds[k].f;
            Flags fl{0, 0};
            if (good_flags) fl = {kAllGood, RTE_PTYPE_TUNNEL_VXLAN};
            int sg = 1;
            test::Lie lie = test::Lie::none;
            std::string w = kinds[k].name;
            const unsigned r = rng() % 64;
            if (r < 4) {
                const auto& h = hostile[k][rng() % hostile[k].size()];
                f = h.second, w += " " + h.first;
            } else if (r == 4) {
                const Built o = build(specs[rng() % specs.size()]);
                f = o.f, w = "other " + o.name;
            } else if (r == 5) {
                sg = 2 + int(rng() % 2), w += " chain";
            } else if (r == 6) {
                sg = -2, w += " one segment saying two";
            } else if (r == 7) {
                fl = flags_[rng() % flags_.size()], w += " other flags";
            } else if (r == 8) {
                f = test::eth(0x0800,
                              test::ipv4(test::kSrc4, test::kDst4, 17,
                                         test::udp(test::kSrc4, test::kDst4, 1, 2, Bytes(30, 1))));
                w = "plain";
            } else if (r == 9) {
                // A chain saying it has one segment (the kind guess reads no
                // link: the template's test refuses it), or a packet whose
                // data runs past its buffer.
                lie = rng() % 2 ? test::Lie::segs_low : test::Lie::head_past_buffer;
                const bool chained = lie == test::Lie::segs_low;
                sg = chained ? 2 : 1;
                w += chained ? " chain saying one segment" : " data past its buffer";
            }
            const uint32_t n = uint32_t(f.size());
            chains.push_back(
                {f, sg > 1 ? test::random_split(n, unsigned(sg), rng) : std::vector<uint32_t>{n},
                 fl.ol, fl.ptype, sg == -2 ? test::Lie::segs_high : lie});
            what.push_back(std::to_string(i) + ":" + w);
        }
        SCOPED_TRACE("burst " + std::to_string(burst_no) + " mode " + std::to_string(mode));
        ASSERT_NO_FATAL_FAILURE(
            test::expect_same_burst(*engines[0], *engines[1], pool(), chains, rx, 0, what));
    }
}

}  // namespace
}  // namespace csum
