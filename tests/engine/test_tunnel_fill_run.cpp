// Fill mode's tunnel run (lib/engine/tunnel_fill_run.cpp) against the
// reference walker and the lean per-packet path: bursts of one VXLAN or
// GENEVE shape (outer and inner IPv4 or IPv6, TCP or UDP, the outer UDP
// checksum present or zero) with one hostile member at every place
// (damaged, lying and truncated headers, other tunnels and ports, benign
// changes, other shapes, descriptors that lie, chains, RX flags), at every
// length class (inline sums, the short and the long kernel), odd data
// addresses, checksum fields holding garbage, by the AVX-512 compare and the
// SSE one: every byte, verdict, the kept order and every counter as the
// walker's, and the bytes summed as the per-packet path's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "csum/engine.h"
#include "engine/tunnel_run.h"
#include "support/engine_compare.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"
#include "tunnel_frames.h"

namespace csum {
namespace {

using test::Bytes;

// Descriptor changes, applied to the mbuf.
enum Desc {
    kNone,
    kPktLenLong,   // pkt_len > data_len
    kDataLenLong,  // bytes in the segment past pkt_len
    kPastBuffer,   // data_off + data_len > buf_len
    kDataOffPast,  // data_off moved past the room
    kNbSegs,       // nb_segs 2, no next
    kChain,        // a real 2-segment chain
    kRxFlags,      // RX flags BAD and a tunnel packet type (fill reads none)
    kBufShort,     // buf_len 1 short of data_off + data_len (the bytes are there)
    kDescs
};

struct Member {
    Bytes frame;
    Desc desc = kNone;
    std::string name;
    uint32_t claim = 0;  // kPktLenLong: pkt_len this much past the bytes (0: 1 to 3)
};

struct Guards {
    ~Guards() {
        tunnel_run_detail::force_narrow = false;
        tunnel_run_detail::fill_run_off = false;
    }
};

class TunnelFillRun : public test::MbufTest {
  protected:
    // A frame of spec s, payload bytes varied by flow, every checksum field
    // garbage (fill takes none as it is), the inner UDP one never 0 (that
    // is "absent": the walker's).
    Bytes frame(test::Spec s, uint32_t flow, uint32_t pad = 0) {
        const test::Built b = test::build(s);
        Bytes f = b.f;
        for (uint32_t i = b.il4 + (s.iudp ? 8 : 20); i < f.size(); i += 7)
            f[i] = uint8_t(f[i] ^ flow ^ i);
        auto junk = [&](uint32_t at) { f[at] = uint8_t(rng_()), f[at + 1] = uint8_t(rng_()); };
        if (!s.ov6) junk(24);
        if (!s.iv6) junk(b.il3 + 10);
        junk(b.ifield);
        if (s.iudp && f[b.ifield] == 0 && f[b.ifield + 1] == 0) f[b.ifield] = 1;
        if (s.ocsum) junk(b.ol4 + 6);
        if (s.ocsum && f[b.ol4 + 6] == 0 && f[b.ol4 + 7] == 0) f[b.ol4 + 7] = 9;
        for (uint32_t i = 0; i < pad; ++i) f.push_back(uint8_t(0x5A ^ i ^ flow));  // a trailer
        return f;
    }

    // One burst through the lean engine (its run by the SSE compare if
    // narrow), the lean one with the run off and the walker (all kept
    // across calls: a burst may enter on the last one's run): order,
    // verdicts, bytes, offload requests and counters alike.
    void expect_like_walker(const std::vector<Member>& burst, const std::string& what,
                            uint16_t misalign = 0, bool narrow = false, const RxPortPolicy& rx = {},
                            const TxPortPolicy& tx = {}) {
        const Guards guards;
        const int n = int(burst.size());
        std::vector<std::string> got[3];
        std::vector<int> order[3];
        for (int e = 0; e < 3; ++e) {
            tunnel_run_detail::force_narrow = narrow;
            tunnel_run_detail::fill_run_off = e == 1;
            std::vector<rte_mbuf*> pkts(n), orig(n);
            struct Saved {
                uint32_t pkt_len;
                uint16_t data_len, data_off, nb_segs, buf_len;
            };
            std::vector<Saved> saved(n);
            for (int i = 0; i < n; ++i) {
                const Bytes& f = burst[i].frame;
                const auto size = uint32_t(f.size());
                const uint32_t split[2] = {size / 2, size - size / 2};
                rte_mbuf* m = burst[i].desc == kChain ? test::make_chain(pool(), f, split, misalign)
                                                      : test::make_linear(pool(), f, misalign);
                saved[i] = {m->pkt_len, m->data_len, m->data_off, m->nb_segs, m->buf_len};
                switch (burst[i].desc) {
                    case kPktLenLong:
                        m->pkt_len += burst[i].claim != 0 ? burst[i].claim : 1 + i % 3;
                        break;
                    case kDataLenLong:
                        m->data_len = uint16_t(m->data_len + 1 + i % 3);
                        break;
                    case kPastBuffer:
                        m->data_len = uint16_t(m->buf_len - m->data_off + 1);
                        m->pkt_len = m->data_len;
                        break;
                    case kDataOffPast:
                        m->data_off = uint16_t(m->buf_len - m->data_len + 1);
                        break;
                    case kNbSegs:
                        m->nb_segs = 2;
                        break;
                    case kBufShort:
                        m->buf_len = uint16_t(m->data_off + m->data_len - 1);
                        break;
                    case kRxFlags:
                        m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_BAD |
                                      RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD;
                        m->packet_type = RTE_PTYPE_TUNNEL_VXLAN;
                        break;
                    default:
                        break;
                }
                orig[i] = pkts[i] = m;
            }
            Engine& eng = *engines_[e];
            const uint16_t kept = eng.process(rx, tx, pkts.data(), uint16_t(n));
            for (int j = 0; j < kept; ++j)
                order[e].push_back(
                    int(std::find(orig.begin(), orig.end(), pkts[j]) - orig.begin()));
            for (int i = 0; i < n; ++i) {
                rte_mbuf* m = orig[i];
                m->pkt_len = saved[i].pkt_len, m->data_len = saved[i].data_len;
                m->data_off = saved[i].data_off, m->nb_segs = saved[i].nb_segs;
                m->buf_len = saved[i].buf_len;
                const auto b = test::chain_bytes(m);
                got[e].push_back(what + " #" + std::to_string(i) + " " + burst[i].name + " desc " +
                                 std::to_string(burst[i].desc) + " " + test::verdict_key(m, eng) +
                                 " flags " + std::to_string(m->ol_flags) + " lens " +
                                 std::to_string(m->l2_len) + "/" + std::to_string(m->l3_len) + "/" +
                                 std::to_string(m->l4_len) + " " + std::string(b.begin(), b.end()));
            }
            rte_pktmbuf_free_bulk(orig.data(), unsigned(n));
        }
        SCOPED_TRACE(what);
        for (int e : {1, 2}) {
            ASSERT_EQ(order[0], order[e]) << "engine " << e;
            for (int i = 0; i < n; ++i) ASSERT_EQ(got[0][i], got[e][i]) << "engine " << e;
        }
        ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(*engines_[0], *engines_[2]));
        ASSERT_NO_FATAL_FAILURE(test::expect_same_counts_and_work(*engines_[0], *engines_[1]));
    }

    // The hostile members of spec s's bursts: each of its variants and run
    // members, the other shapes, a plain packet, each descriptor change.
    // With pad: the clean frames' trailer; a descriptor then claims it for
    // a frame without (pkt_len past the data by as many bytes as the run's).
    std::vector<Member> hostiles(const test::Spec& s, uint32_t pad = 0) {
        std::vector<Member> out;
        const test::Built b = test::build(s);
        for (auto& [name, f] : test::variants(b, s, rng_)) out.push_back({f, kNone, name});
        for (auto& [name, f] : test::run_members(b, s)) out.push_back({f, kNone, name});
        const bool ov6 = s.ov6;
        for (test::Spec o : {test::Spec{!ov6, s.kind, s.iv6, s.iudp, s.payload},
                             test::Spec{ov6, 2, s.iv6, s.iudp, s.payload},
                             test::Spec{ov6, 3, s.iv6, s.iudp, s.payload},
                             test::Spec{ov6, s.kind, !s.iv6, s.iudp, s.payload},
                             test::Spec{ov6, s.kind, s.iv6, !s.iudp, s.payload},
                             test::Spec{ov6, 1 - s.kind, s.iv6, s.iudp, s.payload},
                             test::Spec{ov6, s.kind, s.iv6, s.iudp, s.payload + 1}})
            out.push_back({frame(o, 3), kNone, test::build(o).name});
        out.push_back({test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 6,
                                                    test::tcp(test::kSrc4, test::kDst4, 1, 2, 3,
                                                              0x10, Bytes(30, 1)))),
                       kNone, "plain tcp"});
        for (int d = 1; d < kDescs; ++d)
            out.push_back({frame(s, 5, pad), Desc(d), "desc " + std::to_string(d)});
        if (pad != 0) out.push_back({frame(s, 6), kPktLenLong, "trailer claimed", pad});
        return out;
    }

    static EngineConfig config(bool lean, bool nvme) {
        EngineConfig c;
        c.mode = Mode::fill;
        c.plain_fast_path = lean;
        if (nvme) c.parser.nvme_ports.add(4420);  // special TCP ports to test
        return c;
    }
    void use(bool nvme) {
        for (int e = 0; e < 3; ++e) engines_[e] = std::make_unique<Engine>(config(e != 2, nvme));
    }
    std::unique_ptr<Engine> engines_[3];
    std::mt19937 rng_{2027};
};

// The run's specs: VXLAN or GENEVE, either outer and inner version and
// inner protocol, the outer UDP checksum present or zero (illegal over
// IPv6 here: the run leaves it to the per-packet path). ov4_only: outer
// IPv4 (the mixed fill run's kinds).
std::vector<test::Spec> run_specs(size_t payload, bool ov4_only = false) {
    std::vector<test::Spec> v;
    for (bool ov6 : {false, true})
        for (int kind : {0, 1})
            for (bool iv6 : {false, true})
                for (bool iudp : {false, true})
                    for (bool ocsum : {true, false})
                        if (!ov6 || !ov4_only) v.push_back({ov6, kind, iv6, iudp, payload, ocsum});
    return v;
}

// Each length class (the least, around the inline limit, the short kernel's
// 128 and long), odd data addresses, both compares; every hostile member
// at some place and every place with some hostile member, in bursts of 21
// (the run's last three packets are its second loop), each after a clean
// burst (the next burst enters on the run).
TEST_F(TunnelFillRun, HostileMembersAtEveryPlaceAndLength) {
    constexpr int kN = 21;
    const size_t payloads[] = {0,   1,   11,  24,  25,  36,  37,  44,  45,
                               100, 107, 108, 109, 120, 121, 700, 1366};
    int round = 0;
    for (bool nvme : {false, true}) {
        use(nvme);
        for (size_t payload : payloads) {
            for (const test::Spec& s : run_specs(payload)) {
                ++round;
                const uint16_t misalign = uint16_t(round % 3 == 0 ? 0 : round % 3 == 1 ? 1 : 3);
                const bool narrow = round % 2 == 1;
                std::vector<Member> good;
                const uint32_t pad = misalign == 3 ? 3 : 0;
                for (int i = 0; i < kN; ++i)
                    good.push_back({frame(s, uint32_t(i), pad), kNone, "good"});
                const std::string what = test::build(s).name + (nvme ? " nvme" : "") +
                                         " misalign " + std::to_string(misalign) +
                                         (narrow ? " narrow" : "");
                ASSERT_NO_FATAL_FAILURE(
                    expect_like_walker(good, what + " clean", misalign, narrow));
                const std::vector<Member> bad = hostiles(s, pad);
                for (size_t h = 0; h < bad.size(); ++h) {
                    const int at = int(h % kN == 0 ? rng_() % kN : (h + round) % kN);
                    auto burst = good;
                    burst[at] = bad[h];
                    ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                        burst, what + " at " + std::to_string(at), misalign, narrow));
                }
            }
        }
    }
}

// Inner shapes, tunnel kinds and outer checksums that change from packet to
// packet, burst after burst, a port trusted in some: each packet goes to its
// kind's last template (tunnel_fill_cached) and must come out as the walker
// and the per-packet path leave it; hostile members among them.
TEST_F(TunnelFillRun, AlternatingKindsTakeEachKindsTemplate) {
    constexpr int kN = 32;
    const size_t payloads[] = {0, 11, 37, 45, 108, 121, 700};
    for (bool nvme : {false, true}) {
        use(nvme);
        for (int round = 0; round < 40; ++round) {
            RxPortPolicy rx;
            rx.trusted = round % 5 == 4;
            std::vector<Member> burst;
            for (int i = 0; i < kN; ++i) {
                const auto specs = run_specs(payloads[rng_() % std::size(payloads)]);
                const test::Spec& s = specs[rng_() % specs.size()];
                if (rng_() % 8 == 0) {
                    const std::vector<Member> bad = hostiles(s);
                    burst.push_back(bad[rng_() % bad.size()]);
                } else {
                    burst.push_back({frame(s, uint32_t(i)), kNone, test::build(s).name});
                }
            }
            ASSERT_NO_FATAL_FAILURE(
                expect_like_walker(burst,
                                   "alternating round " + std::to_string(round) +
                                       (nvme ? " nvme" : "") + (rx.trusted ? " trusted" : ""),
                                   0, round % 3 == 1, rx));
        }
    }
}

// Two to four kinds of distinct templates (a VXLAN and a GENEVE of one
// inner shape would share one) interleaved for four bursts at a time, so
// that after the first the mixed fill run (tunnel_fill_mixed) takes them in
// turn; hostile members (damaged, lying, other shapes, every descriptor
// change) among them, by either compare, a trusted port in some.
TEST_F(TunnelFillRun, MixedKindsWithHostileMembersMatchTheWalker) {
    constexpr int kN = 32;
    const size_t payloads[] = {0, 11, 37, 45, 108, 121, 700};
    for (bool nvme : {false, true}) {
        use(nvme);
        std::vector<test::Spec> kinds;
        for (int round = 0; round < 48; ++round) {
            if (round % 4 == 0) {
                kinds.clear();
                const size_t want = 2 + rng_() % 3;
                while (kinds.size() < want) {
                    // Outer IPv6 kinds in every other set (the mixed run
                    // stops at them: their own runs take them).
                    const auto specs =
                        run_specs(payloads[rng_() % std::size(payloads)], (round / 4) % 2 == 0);
                    const test::Spec& s = specs[rng_() % specs.size()];
                    if (std::none_of(kinds.begin(), kinds.end(), [&](const test::Spec& k) {
                            return k.ov6 == s.ov6 && k.iv6 == s.iv6 && k.iudp == s.iudp;
                        }))
                        kinds.push_back(s);
                }
            }
            RxPortPolicy rx;
            rx.trusted = (round / 4) % 3 == 2;
            std::vector<Member> burst;
            for (int i = 0; i < kN; ++i) {
                const test::Spec& s = kinds[rng_() % kinds.size()];
                if (rng_() % 10 == 0) {
                    const std::vector<Member> bad = hostiles(s);
                    burst.push_back(bad[rng_() % bad.size()]);
                } else {
                    burst.push_back({frame(s, uint32_t(i)), kNone, test::build(s).name});
                }
            }
            ASSERT_NO_FATAL_FAILURE(
                expect_like_walker(burst,
                                   "mixed round " + std::to_string(round) + (nvme ? " nvme" : "") +
                                       (rx.trusted ? " trusted" : ""),
                                   uint16_t(round % 5 == 3 ? 1 : 0), (round / 4) % 2 == 1, rx));
        }
    }
}

// One's-complement add of `by` to the 16-bit word at `at`.
void raise(Bytes& f, uint32_t at, uint32_t by) {
    uint32_t w = test::get16(f, at) + by;
    w = (w & 0xFFFF) + (w >> 16);
    test::put16(f, at, uint16_t(w));
}

// Sums at their edges, each stored as the lean path stores it: a payload
// word raised by the inner L4 checksum (right checksum 0: TCP stores 0,
// UDP 0xFFFF), each IPv4 identification by its header's (0 stored), the
// outer UDP sum 0 (0xFFFF stored); and an inner IPv4 header whose words
// sum to exactly 2^64 as 64-bit words (the end-around carry, then its field
// taken out, must not be off by one).
TEST_F(TunnelFillRun, SumsAtTheirEdges) {
    use(false);
    for (size_t payload : {2u, 3u, 40u, 41u, 200u, 1001u}) {
        for (const test::Spec& s : run_specs(payload)) {
            const test::Built b = test::build(s);
            const uint32_t pl = b.il4 + (s.iudp ? 8 : 20);
            std::vector<Member> burst;
            for (int edge = 0; edge < 8; ++edge) {
                Bytes f = b.f;
                if (edge & 1) raise(f, pl, test::get16(f, b.ifield));
                if ((edge & 2) && !s.iv6) raise(f, b.il3 + 4, test::get16(f, b.il3 + 10));
                if ((edge & 4) && !s.ov6) raise(f, 18, test::get16(f, 24));
                if (!s.ov6) test::fix_ipv4(f, 14);
                if (!s.iv6) test::fix_ipv4(f, b.il3);
                test::fix_sums(f, b, s);
                if (edge == 7 && s.ocsum) {
                    // The outer UDP sum made 0: the inner source MAC's last word.
                    const uint32_t w = b.il3 - 4;
                    raise(f, w, test::get16(f, b.ol4 + 6));
                    test::fix_sums(f, b, s);
                    EXPECT_EQ(test::get16(f, b.ol4 + 6), 0xFFFF) << b.name;
                }
                if (edge & 1) {
                    EXPECT_EQ(test::get16(f, b.ifield), s.iudp ? 0xFFFF : 0) << b.name;
                }
                f[b.ifield] ^= 0x5A;  // garbage, never UDP's 0
                if (edge != 6) f[b.il3 + 10] ^= uint8_t(edge);
                if (edge == 6 && !s.iv6) {
                    // Source and destination so that words 0 and 1 (its
                    // field 0xFFFF) and the destination sum to 2^64.
                    uint64_t w0, w1;
                    std::memcpy(&w0, &f[b.il3], 8);
                    for (uint64_t src = 0xFFFFFFFF;; --src) {
                        w1 = (src << 32) | 0xFFFFu << 16 | f[b.il3 + 9] << 8 | f[b.il3 + 8];
                        if (0 - w0 - w1 < (uint64_t{1} << 32)) break;
                    }
                    const auto dst = uint32_t(0 - w0 - w1);
                    std::memcpy(&f[b.il3 + 8], &w1, 8);
                    std::memcpy(&f[b.il3 + 16], &dst, 4);
                }
                burst.push_back({f, kNone, "edge " + std::to_string(edge)});
            }
            ASSERT_NO_FATAL_FAILURE(expect_like_walker(burst, b.name + " edges"));
            ASSERT_NO_FATAL_FAILURE(expect_like_walker(burst, b.name + " edges, again"));
        }
    }
}

// An outer IPv4 destination of all ones (and the source): the outer
// header's last word plus its field taken out passes 2^32, a carry the run
// must keep (lost once in 32-bit arithmetic). The same for outer IPv6
// addresses (the outer UDP sum's nine words). Inner all-ones addresses are
// the plain run's (test_fill_run.cpp).
TEST_F(TunnelFillRun, OuterAddressesOfAllOnesCarryOutOfTheirWords) {
    use(false);
    for (size_t payload : {2u, 200u, 1001u}) {
        for (const test::Spec& s : run_specs(payload)) {
            const test::Built b = test::build(s);
            const uint32_t to = s.ov6 ? 54 : 34, dst = s.ov6 ? 38 : 30, src = s.ov6 ? 22 : 26;
            for (uint32_t from : {dst, src}) {  // the destination, then both
                std::vector<Member> burst;
                for (uint32_t i = 0; i < 6; ++i) {
                    Bytes f = frame(s, i);
                    std::fill(f.begin() + from, f.begin() + to, uint8_t{0xFF});
                    burst.push_back({f, kNone, "flow " + std::to_string(i)});
                }
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                    burst, b.name + " all-ones outer from " + std::to_string(from)));
            }
        }
    }
}

// Port policies per burst (offloading TX ports, trusted and dropping RX
// ports, the verdict's COMPLETE sum), mixed shapes and malformed packets
// before and inside runs: one engine set across all, so that a burst enters
// on the last run's template whatever the ports it came from and goes to.
TEST_F(TunnelFillRun, PoliciesDecidePerBurst) {
    use(false);
    const uint64_t offloads[] = {0, RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
                                        RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
                                        RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM |
                                        RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM};
    const auto specs = run_specs(0);
    for (int round = 0; round < 300; ++round) {
        RxPortPolicy rx;
        rx.trusted = round % 5 == 1 || round % 7 == 3;
        rx.drop_bad = round % 3 == 2;
        rx.complete_in_verdict = round % 11 == 4;
        TxPortPolicy tx;
        tx.offloads = offloads[(round / 2) % 2];
        const uint32_t n = 1 + rng_() % 40;
        test::Spec s = specs[rng_() % specs.size()];
        std::vector<Member> burst;
        for (uint32_t i = 0; i < n; ++i) {
            if (rng_() % 8 == 0) s = specs[rng_() % specs.size()];
            s.payload = rng_() % 4 == 0 ? 200 + rng_() % 1200 : rng_() % 60;
            if (rng_() % 6 == 0) {
                const auto bad = hostiles(s);
                burst.push_back(bad[rng_() % bad.size()]);
            } else {
                burst.push_back({frame(s, i), kNone, "good"});
            }
        }
        ASSERT_NO_FATAL_FAILURE(expect_like_walker(
            burst,
            "round " + std::to_string(round) + " offloads " + std::to_string(tx.offloads) +
                (rx.trusted ? " trusted" : "") + (rx.drop_bad ? " drop_bad" : "") +
                (rx.complete_in_verdict ? " complete" : ""),
            uint16_t(round % 4), round % 2 == 1, rx, tx));
    }
}

}  // namespace
}  // namespace csum
