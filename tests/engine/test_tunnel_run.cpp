// The tunnel runs against the per-packet path and the walker: full bursts
// through the all-good run (good_run_tunnel), and the same-shape run
// (tunnel_run.h) on its own and in bursts with hostile members, by the
// AVX-512 compare and the SSE one. The per-packet path: test_lean_tunnel.cpp.
#include <gtest/gtest.h>

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include <rte_mbuf_ptype.h>

#include "csum/engine.h"
#include "engine/tunnel_run.h"
#include "lean_tunnel_fixture.h"
#include "parse/classify_tunnel.h"
#include "support/chain_builder.h"
#include "support/engine_compare.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"
#include "tunnel_frames.h"
#include "tunnel_run_start.h"

namespace csum {
namespace {

using namespace test;  // tunnel_frames.h and the fixture's flags and policies

class TunnelRuns : public test::LeanTunnel {
  protected:
    // The frames, with their flags, as one burst through the lean engine
    // [0] and the walker [1]: kept count, each packet's verdict, place and
    // bytes alike.
    void expect_burst_like_walker(Engine* const engines[2], const RxPortPolicy& rx,
                                  const TxPortPolicy& tx, const std::vector<Bytes>& frames,
                                  const std::vector<Flags>& flags) {
        const int n = int(frames.size());
        std::vector<std::string> verdicts[2];
        std::vector<Bytes> out[2];
        uint16_t kept[2];
        for (int e = 0; e < 2; ++e) {
            // placed: each packet's place in the burst as given.
            std::vector<rte_mbuf*> burst(n), placed(n);
            for (int i = 0; i < n; ++i) {
                burst[i] = placed[i] = test::make_linear(pool(), frames[i]);
                burst[i]->ol_flags = flags[i].ol;
                burst[i]->packet_type = flags[i].ptype;
            }
            kept[e] = engines[e]->process(rx, tx, burst.data(), uint16_t(n));
            verdicts[e].resize(n), out[e].resize(n);
            for (int i = 0; i < n; ++i) {
                const int at =
                    int(std::find(placed.begin(), placed.end(), burst[i]) - placed.begin());
                const PacketVerdict* v = verdict_of(burst[i], engines[e]->verdict_field());
                verdicts[e][at] =
                    std::string(reinterpret_cast<const char*>(v), 8) +
                    std::string(reinterpret_cast<const char*>(v->layers), v->n_layers) +
                    (i < kept[e] ? " kept at " + std::to_string(i) : " dropped");
                out[e][at] = test::chain_bytes(burst[i]);
            }
            rte_pktmbuf_free_bulk(burst.data(), unsigned(n));
        }
        ASSERT_EQ(kept[0], kept[1]);
        for (int i = 0; i < n; ++i) {
            ASSERT_EQ(verdicts[0][i], verdicts[1][i]) << "packet " << i;
            ASSERT_EQ(out[0][i], out[1][i]) << "packet " << i;
        }
    }
};

constexpr uint64_t kAllGoodFlags =
    RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;

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
                    fl = {kAllGoodFlags,
                          static_cast<uint32_t>(s.kind == 0 ? RTE_PTYPE_TUNNEL_VXLAN
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
