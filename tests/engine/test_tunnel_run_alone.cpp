// The tunnels' same-shape run (tunnel_run.h) on its own, by the AVX-512
// compare and the SSE one: what it takes against what the per-packet path
// calls all good, and each template byte that stops it. In bursts:
// test_tunnel_run.cpp.
#include <gtest/gtest.h>

#include <immintrin.h>

#include <cstring>
#include <random>
#include <vector>

#include <rte_mbuf_ptype.h>

#include "csum/engine.h"
#include "engine/tunnel_run.h"
#include "parse/classify_tunnel.h"
#include "support/chain_builder.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"
#include "tunnel_frames.h"
#include "tunnel_run_start.h"
#include "tunnel_runs_fixture.h"

namespace csum {
namespace {

using namespace test;  // tunnel_frames.h, the fixture's flags and policies

// The same-shape run on its own: started from a clean packet of each
// template (software sums, and GOOD flags from a PMD that saw the tunnel),
// then offered one packet at a time, clean, changed in ways that keep it
// all good, damaged, lying, chained, of another shape or flagged otherwise.
// Whatever it takes, the per-packet path (classify_common_tunnel or
// classify_tunnel, then tunnel_all_good) calls all good with the run's
// outcome key, the same bytes summed and the run's verdict written; and it
// takes every clean packet and benign change of its template.
TEST_F(TunnelRuns, SameShapeRunTakesOnlyWhatThePerPacketPathCallsAllGood) {
    const NarrowGuard narrow_guard;
    ParserConfig pc, nvme, zero6;
    nvme.nvme_ports.add(80);            // the frames' inner TCP port
    zero6.udp6_zero_csum_ok.add(4789);  // RFC 6935: a zero outer UDP sum over IPv6 legal
    zero6.udp6_zero_csum_ok.add(6081);
    const ShapeConfig scs[] = {ShapeConfig(pc), ShapeConfig(nvme), ShapeConfig(zero6)};
    const int voff = pairs_[1][0].lean->verdict_field();
    std::mt19937 rng(41);
    int runs = 0, taken = 0, refused = 0;
    const auto specs = every_spec({0, 10, 37, 1400});
    // The AVX-512 compare where the CPU has it, and the SSE one.
    for (const bool narrow : {false, true})
        for (const Spec& s : specs) {
            tunnel_run_detail::force_narrow = narrow;
            const Built b = build(s);
            const bool layout = s.kind <= 1;  // the run's: VXLAN / optionless GENEVE
            for (int k = 0; k < 3; ++k)
                for (int fk = 0; fk < 2; ++fk) {
                    const ShapeConfig& sc = scs[k];
                    const Flags first_fl =
                        fk == 0 ? Flags{0, 0} : Flags{kAllGood, RTE_PTYPE_TUNNEL_VXLAN};
                    rte_mbuf* m0 = test::make_linear(pool(), b.f);
                    m0->ol_flags = first_fl.ol, m0->packet_type = first_fl.ptype;
                    alignas(16) uint8_t g0[kTunnelGather];
                    TunnelRun r;
                    const RunStart st = start_run_from(m0, sc, g0, &r);
                    const int kind = st.kind;
                    SCOPED_TRACE(b.name + " config " + std::to_string(k) + " flags " +
                                 std::to_string(fk) + (narrow ? " narrow" : ""));
                    // Every clean frame of the layout starts a run (a zero
                    // outer UDP sum over IPv6 only where it is legal).
                    if (k == 0) {
                        EXPECT_EQ(kind != TunnelRun::kNone, layout && (!s.ov6 || s.ocsum));
                    }
                    if (k == 2) {
                        EXPECT_EQ(kind != TunnelRun::kNone, layout);
                    }
                    if (kind == TunnelRun::kNone) {
                        rte_pktmbuf_free(m0);
                        continue;
                    }
                    ++runs;
                    // The guess by which the mixed and fill runs pick a
                    // template: this run's kind.
                    const auto* d0 = rte_pktmbuf_mtod(m0, const uint8_t*);
                    EXPECT_EQ(tunnel_run_kind_guess_any(m0), kind);
                    EXPECT_EQ(tunnel_run_kind_guess_any_at(m0, d0), kind);
                    if (!s.ov6) {
                        EXPECT_EQ(tunnel_run_kind_guess_at(m0, d0), kind);
                    }
                    PacketVerdict want;
                    TunnelOutcomes::verdict_of_key(st.key, &want);
                    const auto members = run_candidates(b, s, specs, rng);
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
                            // (One segment that says two: the walker's refusal.)
                            const WalkerTake w = c != 3 ? walker_take(m, sc, true) : WalkerTake{};
                            SCOPED_TRACE(what + " case " + std::to_string(c));
                            if (ran) {
                                ++taken;
                                ASSERT_NO_FATAL_FAILURE(
                                    expect_took_as_walker(m, w, r, took, voff, want));
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
                                what.find("outer ttl") != std::string::npos ||
                                what.find("outer hop limit") != std::string::npos ||
                                what.find("outer flow label") != std::string::npos;
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
// the three length fields) changed alone stops the run, by either compare
// and under either outer IP version: with GOOD flags only the outer IPv4
// header is summed (none under IPv6), and it is made right again, so that
// nothing else can refuse it. The wide template masks the same bytes. A run
// from a frame with a trailer takes that many trailer bytes only.
TEST_F(TunnelRuns, SameShapeRunStopsAtEachTemplateByteAndOtherTrailers) {
    const NarrowGuard narrow_guard;
    const ParserConfig pc;
    const ShapeConfig sc(pc);
    const int voff = pairs_[1][0].lean->verdict_field();
    int checked = 0;
    for (const bool narrow : {false, true})
        for (const Spec& s : every_spec({10, 1400})) {
            if (s.kind > 1 || (s.ov6 && !s.ocsum)) continue;  // the run's layouts
            tunnel_run_detail::force_narrow = narrow;
            const Built b = build(s);
            for (int fk = 0; fk < 2; ++fk) {
                const Flags fl = fk == 0 ? Flags{0, 0} : Flags{kAllGood, RTE_PTYPE_TUNNEL_VXLAN};
                SCOPED_TRACE(b.name + (fk ? " good" : " sw") + (narrow ? " narrow" : ""));
                uint64_t start_summed = 0;
                TunnelRunTook took;
                auto start = [&](const Bytes& f, TunnelRun* r) {
                    rte_mbuf* m = test::make_linear(pool(), f);
                    m->ol_flags = fl.ol, m->packet_type = fl.ptype;
                    alignas(16) uint8_t g[kTunnelGather];
                    const RunStart st = start_run_from(m, sc, g, r);
                    rte_pktmbuf_free(m);
                    start_summed = st.summed;
                    return st.kind != TunnelRun::kNone;
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
                ASSERT_EQ(r.wide, !narrow && !s.ov6 && tunnel_run_detail::cpu_wide());
                ASSERT_TRUE(takes(r, b.f));
                if (fk == 1) {  // GOOD from a PMD that named another tunnel: not the run's
                    rte_mbuf* m = test::make_linear(pool(), b.f);
                    m->ol_flags = fl.ol, m->packet_type = RTE_PTYPE_TUNNEL_GENEVE;
                    rte_mbuf* one[1] = {m};
                    EXPECT_EQ(tunnel_run_dispatch(sc, r, one, 0, 1, voff, &took), 0u);
                    rte_pktmbuf_free(m);
                }
                if (fk == 1) {
                    // The template's bytes: its blocks' masks, the length fields.
                    const uint32_t ol4 = b.ol4, il3 = b.il3;
                    std::vector<std::pair<uint32_t, uint8_t>> bytes;
                    const uint32_t at[3] = {12, ol4, il3 - 2};
                    for (int k = 0; k < 3; ++k) {
                        alignas(16) uint8_t mk[16];
                        _mm_store_si128(reinterpret_cast<__m128i*>(mk), r.mask[k]);
                        for (uint32_t j = 0; j < 16; ++j)
                            if (mk[j] != 0) bytes.emplace_back(at[k] + j, mk[j]);
                    }
                    for (const uint32_t len_at :
                         {s.ov6 ? 18u : 16u, ol4 + 4, s.iv6 ? il3 + 4 : il3 + 2})
                        bytes.emplace_back(len_at, 0xFF), bytes.emplace_back(len_at + 1, 0xFF);
                    // The wide template masks exactly these bytes (outer IPv4).
                    if (!s.ov6) {
                        uint8_t want[64] = {};
                        for (const auto& [off, mk] : bytes)
                            want[off - tunnel_run_detail::kWide] = mk;
                        EXPECT_EQ(0, std::memcmp(want, r.wmask, 64));
                    }
                    for (const auto& [off, mk] : bytes)
                        for (const uint8_t flip : {uint8_t(mk & -mk), mk}) {
                            Bytes g = b.f;
                            g[off] ^= flip;
                            if (!s.ov6) test::fix_ipv4(g, 14);
                            SCOPED_TRACE("byte " + std::to_string(off) + " flip " +
                                         std::to_string(flip));
                            EXPECT_FALSE(takes(r, g));
                            ++checked;
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
    EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace csum
