// The classifier and lean path must be indistinguishable from the reference
// walker (plain_fast_path = false runs the walker alone): same verdict, same
// bytes written, same offload requests, same counters, in every mode, for
// linear packets and for chains split anywhere, headers included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>

#include <rte_ethdev.h>

#include "case_file.h"
#include "gen/checksum_fill.h"
#include "gen/nvme_tcp.h"
#include "gen/packet_builder.h"
#include "parse/classify.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class LeanPath : public test::MbufTest {
  protected:
    struct Result {
        std::vector<uint8_t> bytes;
        PacketVerdict verdict;
        uint64_t ol_flags;
        uint64_t lens[3];
        bool forwarded;
    };

    Result run(Engine& e, const std::vector<uint8_t>& frame, uint64_t rx_flags,
               const RxPortPolicy& rx, const TxPortPolicy& tx) {
        rte_mbuf* m = test::make_chain(pool(), frame, lens_);
        m->ol_flags = rx_flags;
        rte_mbuf* one[1] = {m};
        Result r;
        r.forwarded = e.process(rx, tx, one, 1) == 1;
        r.bytes = test::chain_bytes(m);
        std::memcpy(&r.verdict, verdict_of(m, e.verdict_field()), sizeof r.verdict);
        std::memset(r.verdict.layers + r.verdict.n_layers, 0,
                    kMaxVerdictLayers - r.verdict.n_layers);
        r.ol_flags = m->ol_flags;
        r.lens[0] = m->l2_len, r.lens[1] = m->l3_len, r.lens[2] = m->l4_len;
        rte_pktmbuf_free(m);
        return r;
    }

    std::vector<uint32_t> lens_;
    std::mt19937 rng_{77};

    // Linear, then cut into 2 and 4 segments at random points (headers
    // included, empty segments allowed), then after the headers.
    void expect_same(const std::vector<uint8_t>& frame, const std::string& what) {
        const uint32_t n = static_cast<uint32_t>(frame.size());
        lens_ = {n};
        expect_same_shape(frame, what, true);
        if (n < 2) return;
        for (unsigned segs : {2u, 4u}) {
            lens_ = test::random_split(n, segs, rng_);
            std::string shape = " segs";
            for (uint32_t l : lens_) shape += " " + std::to_string(l);
            expect_same_shape(frame, what + shape, false);
        }
        if (n > 80) {
            lens_ = {70, 1, 0, n - 71};
            expect_same_shape(frame, what + " after headers", false);
        }
    }

    void expect_same_shape(const std::vector<uint8_t>& frame, const std::string& what,
                           bool every_flag) {
        // Every combination of the PMD's IP and L4 flags (UNKNOWN, BAD, GOOD,
        // NONE) on linear packets; a spread of them on chains.
        static const uint64_t kIp[] = {0, RTE_MBUF_F_RX_IP_CKSUM_BAD, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
                                       RTE_MBUF_F_RX_IP_CKSUM_NONE};
        static const uint64_t kL4[] = {0, RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
                                       RTE_MBUF_F_RX_L4_CKSUM_NONE};
        std::vector<uint64_t> kFlags;
        for (uint64_t ip : kIp)
            for (uint64_t l4 : kL4)
                if (every_flag || ip == 0 || (ip == RTE_MBUF_F_RX_IP_CKSUM_GOOD && l4 != 0))
                    kFlags.push_back(ip | l4);
        for (Mode mode : {Mode::verify, Mode::fill, Mode::csum}) {
            EngineConfig fast, general;
            fast.mode = general.mode = mode;
            general.plain_fast_path = false;
            Engine ef(fast), eg(general);
            for (uint64_t flags : kFlags) {
                for (int policy = 0; policy < (every_flag ? 6 : 4); ++policy) {
                    RxPortPolicy rx;
                    rx.drop_bad = policy & 1;
                    rx.trusted = policy == 4;
                    if (policy == 5)  // a verify list of IPv4 and SCTP only
                        rx.verify_mask = 1u << int(LayerProto::ipv4) | 1u << int(LayerProto::sctp);
                    TxPortPolicy tx;
                    if (policy & 2)
                        tx.offloads = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
                                      RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_SCTP_CKSUM;
                    const Result a = run(ef, frame, flags, rx, tx),
                                 b = run(eg, frame, flags, rx, tx);
                    SCOPED_TRACE(what + " mode " + std::string(to_string(mode)) + " flags " +
                                 std::to_string(flags) + " policy " + std::to_string(policy));
                    ASSERT_EQ(a.forwarded, b.forwarded);
                    ASSERT_EQ(a.bytes, b.bytes);
                    ASSERT_EQ(0, std::memcmp(&a.verdict, &b.verdict, sizeof a.verdict));
                    ASSERT_EQ(a.ol_flags, b.ol_flags);
                    if (a.ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK) {
                        ASSERT_EQ(a.lens[0], b.lens[0]);
                        ASSERT_EQ(a.lens[1], b.lens[1]);
                        ASSERT_EQ(a.lens[2], b.lens[2]);
                    }
                }
            }
            for (int p = 0; p < kLayerProtoCount; ++p)
                for (int s = 0; s < kLayerStatusCount; ++s)
                    ASSERT_EQ(ef.stats().layer[p][s].get(), eg.stats().layer[p][s].get()) << what;
            ASSERT_EQ(ef.stats().sw_filled.get(), eg.stats().sw_filled.get()) << what;
            ASSERT_EQ(ef.stats().hw_offloaded.get(), eg.stats().hw_offloaded.get()) << what;
            const EngineStats &a = ef.stats(), &b = eg.stats();
            for (int i = 0; i < 4; ++i)
                ASSERT_EQ(a.ip_summed[i].get(), b.ip_summed[i].get()) << what;
            for (int i = 0; i < 8; ++i)
                ASSERT_EQ(a.csum_level[i].get(), b.csum_level[i].get()) << what;
            for (int i = 0; i < kParseErrorCount; ++i)
                ASSERT_EQ(a.parse_error[i].get(), b.parse_error[i].get()) << what;
            for (int i = 0; i < kDropReasonCount; ++i)
                ASSERT_EQ(a.drop[i].get(), b.drop[i].get()) << what;
            ASSERT_EQ(a.packets.get(), b.packets.get()) << what;
            ASSERT_EQ(a.bytes.get(), b.bytes.get()) << what;
            ASSERT_EQ(a.skipped_trusted.get(), b.skipped_trusted.get()) << what;
        }
    }
};

TEST_F(LeanPath, EveryCaseMatchesTheGeneralWalker) {
    for (const auto& c : test::engine_cases()) {
        expect_same(c.bytes, c.name);
        if (!c.zeroed.empty()) expect_same(c.zeroed, c.name + " zeroed");
        if (HasFailure()) return;
    }
}

TEST_F(LeanPath, MutatedPlainPacketsMatchTheGeneralWalker) {
    std::mt19937 rng(2024);
    const gen::Proto protos[] = {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6,
                                 gen::Proto::udp6, gen::Proto::sctp4};
    EngineConfig fc;
    fc.mode = Mode::fill;
    Engine filler(fc);
    for (int iter = 0; iter < 200; ++iter) {
        gen::PacketSpec spec;
        spec.proto = protos[iter % 5];
        spec.frame_len = 60 + static_cast<uint32_t>(rng() % 200);
        spec.sctp_chunks = static_cast<uint16_t>(1 + iter % 3);
        spec.flow = uint32_t(iter);
        auto frame = gen::build_frame(spec);
        rte_mbuf* m = test::make_linear(pool(), frame);
        rte_mbuf* one[1] = {m};
        filler.process({}, {}, one, 1);
        frame = test::chain_bytes(m);
        rte_pktmbuf_free(m);
        // Flip a few bytes anywhere: headers, lengths, checksums, payload.
        for (int k = 0, n = 1 + rng() % 3; k < n; ++k)
            frame[rng() % frame.size()] ^= uint8_t(1 + rng() % 255);
        if (rng() % 4 == 0) frame.resize(frame.size() - rng() % 20);
        expect_same(frame, "iter " + std::to_string(iter));
        if (HasFailure()) return;
    }
}

// Fill mode's fused short sums at the one's-complement edges: payloads made
// so that the L4 sum (field taken as zero) folds to 0xFFFF, where TCP stores
// 0x0000 and UDP 0xFFFF; lean and walker must write the same bytes.
TEST_F(LeanPath, FillAtTheZeroSumEdgeMatchesTheGeneralWalker) {
    EngineConfig fc;
    fc.mode = Mode::fill;
    Engine filler(fc);
    struct Kind {
        gen::Proto proto;
        uint32_t l4, field, hdr;  // L4 offset, checksum field and header length
    };
    const Kind kinds[] = {{gen::Proto::udp4, 34, 6, 8},
                          {gen::Proto::tcp4, 34, 16, 20},
                          {gen::Proto::udp6, 54, 6, 8},
                          {gen::Proto::tcp6, 54, 16, 20}};
    int edges = 0;
    for (const Kind& k : kinds) {
        const gen::Proto proto = k.proto;
        for (uint32_t size : {64u, 70u, 78u, 90u, 97u}) {
            auto frame = gen::build_frame({proto, size, 1, size});
            rte_mbuf* m = test::make_linear(pool(), frame);
            rte_mbuf* one[1] = {m};
            filler.process({}, {}, one, 1);
            frame = test::chain_bytes(m);
            rte_pktmbuf_free(m);
            // With its field c the sum is 0 mod 0xFFFF; adding c to the word
            // after the L4 header makes it 0 without the field.
            const uint32_t field_at = k.l4 + k.field, word = k.l4 + k.hdr;
            if (word + 2 > frame.size()) continue;
            const uint32_t c = uint32_t{frame[field_at]} << 8 | frame[field_at + 1];
            uint32_t w = (uint32_t{frame[word]} << 8 | frame[word + 1]) + c;
            w = (w & 0xFFFF) + (w >> 16);
            frame[word] = uint8_t(w >> 8), frame[word + 1] = uint8_t(w);
            frame[field_at] = frame[field_at + 1] = 0x5A;  // fill ignores it
            lens_ = {static_cast<uint32_t>(frame.size())};
            const Result r = run(filler, frame, 0, {}, {});
            const uint32_t got = uint32_t{r.bytes[field_at]} << 8 | r.bytes[field_at + 1];
            const bool udp = proto == gen::Proto::udp4 || proto == gen::Proto::udp6;
            EXPECT_EQ(got, udp ? 0xFFFFu : 0u) << gen::to_string(proto) << " " << size;
            expect_same(frame, std::string(gen::to_string(proto)) + " zero-sum edge");
            ++edges;
            if (HasFailure()) return;
        }
    }
    EXPECT_GE(edges, 16);
}

// Chains cut at every offset (headers and the SCTP common header included),
// then with the headers in 1-byte segments, each right and with one byte
// flipped: the gathered-whole copy (64 B), the header view with the payload
// walked (200 and 420 B: mid-sized pieces carried in one vector state,
// SCTP's CRC taken from the view and then the chain).
TEST_F(LeanPath, ChainsCutAtEveryOffsetMatchTheGeneralWalker) {
    const gen::Proto protos[] = {gen::Proto::sctp4, gen::Proto::tcp4, gen::Proto::udp6};
    EngineConfig fc;
    fc.mode = Mode::fill;
    Engine filler(fc);
    std::mt19937 rng(15);
    for (gen::Proto proto : protos) {
        for (uint32_t len : {64u, 200u, 420u}) {
            gen::PacketSpec spec;
            spec.proto = proto;
            spec.frame_len = len;
            auto frame = gen::build_frame(spec);
            rte_mbuf* m = test::make_linear(pool(), frame);
            rte_mbuf* one[1] = {m};
            filler.process({}, {}, one, 1);
            frame = test::chain_bytes(m);
            rte_pktmbuf_free(m);
            const uint32_t n = static_cast<uint32_t>(frame.size());
            const std::string name = std::to_string(int(proto)) + " len " + std::to_string(n);
            // Every other cut of SCTP's 64 B frame (its CRC on the gathered copy), a
            // spread of the rest: each cut costs six engines.
            const uint32_t step = n > 100 ? 41 : proto == gen::Proto::sctp4 ? 2 : 5;
            // and, for chains too long to gather whole, first segments just
            // short of and just holding the headers (54 B IPv4, 74 B IPv6),
            // which are read in place.
            std::vector<uint32_t> cuts;
            for (uint32_t cut = 1; cut < n; cut += step) cuts.push_back(cut);
            if (n > kHeaderGather)
                for (uint32_t cut : {45u, 53u, 54u, 55u, 65u, 66u, 70u, 73u, 74u, 75u})
                    cuts.push_back(cut);
            for (uint32_t cut : cuts) {
                auto flipped = frame;
                flipped[rng() % n] ^= uint8_t(1 + rng() % 255);
                for (const auto* f : {&frame, &flipped}) {
                    if (f == &flipped && cut % 2 != 0) continue;
                    lens_ = {cut, n - cut};
                    expect_same_shape(*f, name + " cut " + std::to_string(cut), false);
                    if (cut + 8 < n) {  // a second cut just after: a short middle segment
                        lens_ = {cut, 8, 0, n - cut - 8};
                        expect_same_shape(*f, name + " cuts " + std::to_string(cut) + "+8", false);
                    }
                    if (HasFailure()) return;
                }
            }
            const uint32_t ones = std::min(n, 70u);
            lens_.assign(ones, 1);  // the headers byte by byte
            lens_.push_back(n - ones);
            expect_same_shape(frame, name + " 1-byte segments", false);
            if (HasFailure()) return;
        }
    }
}

// The equivalence above is only worth something if the lean path runs: the
// classifier must take every common shape, linear or chained however split,
// and describe it right; tunnels and NVMe/TCP go to the walker.
TEST_F(LeanPath, ClassifierTakesCommonShapesLinearAndChained) {
    struct Want {
        gen::Proto proto;
        bool v6;
        uint8_t ip_proto, l4_hdr, field;
    };
    const Want wants[] = {{gen::Proto::tcp4, false, 6, 20, 16},
                          {gen::Proto::udp4, false, 17, 8, 6},
                          {gen::Proto::tcp6, true, 6, 20, 16},
                          {gen::Proto::udp6, true, 17, 8, 6},
                          {gen::Proto::sctp4, false, 132, 12, 8}};
    ParserConfig pc;
    const ShapeConfig sc(pc);
    std::mt19937 rng(5);
    EngineConfig fc;
    fc.mode = Mode::fill;
    Engine filler(fc);
    for (const Want& w : wants) {
        for (uint32_t size : {64u, 78u, 200u, 1420u}) {
            auto frame = gen::build_frame({w.proto, size, 2, 1});
            {  // checksums set: a zero UDP checksum is the walker's to judge
                rte_mbuf* f = test::make_linear(pool(), frame);
                rte_mbuf* one[1] = {f};
                filler.process({}, {}, one, 1);
                frame = test::chain_bytes(f);
                rte_pktmbuf_free(f);
            }
            for (unsigned segs : {1u, 2u, 4u}) {
                const uint32_t n = static_cast<uint32_t>(frame.size());
                const auto lens =
                    segs == 1 ? std::vector<uint32_t>{n} : test::random_split(n, segs, rng);
                rte_mbuf* m = test::make_chain(pool(), frame, lens);
                alignas(16) uint8_t gather[kHeaderGather];
                PacketShape s;
                SCOPED_TRACE(std::string(gen::to_string(w.proto)) + " " + std::to_string(size) +
                             " segs " + std::to_string(segs));
                const bool took = classify(m, sc, gather, &s);
                EXPECT_TRUE(took);
                if (!took) {
                    rte_pktmbuf_free(m);
                    continue;
                }
                EXPECT_EQ(s.v6, w.v6);
                EXPECT_EQ(s.proto, w.ip_proto);
                EXPECT_EQ(s.l4_hdr, w.l4_hdr);
                EXPECT_EQ(s.field, w.field);
                EXPECT_EQ(s.l4_off, w.v6 ? 54 : 34);
                EXPECT_EQ(s.l4_len, n - s.l4_off);
                EXPECT_EQ(s.whole, segs == 1 || n <= kHeaderGather);
                EXPECT_EQ(0, std::memcmp(s.bytes, frame.data(), s.held));
                // A chain too long to gather whole is read in place when its
                // first segment holds the headers (to the TCP checksum).
                const uint32_t need = w.v6 ? 74 : 54;
                const bool in_place = segs == 1 || lens[0] >= std::min(n, kHeaderGather) ||
                                      (n > kHeaderGather && lens[0] >= need);
                EXPECT_EQ(s.in_place != nullptr, in_place) << "first segment " << lens[0];
                // Gathered: the whole chain, or the front to the IPv6 TCP
                // checksum (74; the rest is summed from the segments).
                EXPECT_EQ(s.held, in_place ? std::min(lens[0], n) : n <= kHeaderGather ? n : 74);
                rte_pktmbuf_free(m);
            }
            if (size > kHeaderGather) {  // first segments around the headers' end
                const uint32_t n = static_cast<uint32_t>(frame.size());
                for (uint32_t first : {53u, 54u, 73u, 74u}) {
                    const std::vector<uint32_t> lens = {first, n - first};
                    rte_mbuf* m = test::make_chain(pool(), frame, lens);
                    alignas(16) uint8_t gather[kHeaderGather];
                    PacketShape s;
                    ASSERT_TRUE(classify(m, sc, gather, &s)) << first;
                    const bool in_place = first >= (w.v6 ? 74u : 54u);
                    EXPECT_EQ(s.in_place != nullptr, in_place) << first;
                    EXPECT_EQ(s.held, in_place ? first : 74u) << first;
                    EXPECT_EQ(0, std::memcmp(s.bytes, frame.data(), s.held));
                    rte_pktmbuf_free(m);
                }
            }
        }
    }
    for (gen::Proto p : {gen::Proto::vxlan_tcp4, gen::Proto::geneve_tcp4, gen::Proto::icmp4}) {
        rte_mbuf* m = test::make_linear(pool(), gen::build_frame({p, 200, 1, 1}));
        alignas(16) uint8_t gather[kHeaderGather];
        PacketShape s;
        EXPECT_FALSE(classify(m, sc, gather, &s)) << gen::to_string(p);
        rte_pktmbuf_free(m);
    }
    // NVMe/TCP: the tracker needs the walker's segment description.
    auto frame = gen::build_frame({gen::Proto::tcp4, 200, 1, 1});
    frame[34 + 2] = 4420 >> 8, frame[34 + 3] = 4420 & 0xFF;
    rte_mbuf* m = test::make_linear(pool(), frame);
    alignas(16) uint8_t gather[kHeaderGather];
    PacketShape s;
    EXPECT_FALSE(classify(m, sc, gather, &s));
    rte_pktmbuf_free(m);
}

// A burst whose lean packets have more distinct outcomes than the per-burst
// outcome groups hold: every verdict and counter still equals the walker's.
// The fused header/pseudo-header/L4 sums of the all-good test read each
// region in 8-byte words with an overlapping last word: every length, every
// byte flipped in turn, and bytes past the IP length (padding) that must not
// count, in bursts as the engine sees them.
TEST_F(LeanPath, FusedSumsSeeEveryByteAtEveryLength) {
    EngineConfig fc;
    fc.mode = Mode::fill;
    Engine filler(fc);
    std::vector<std::vector<uint8_t>> frames;
    for (gen::Proto proto : {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6, gen::Proto::udp6,
                             gen::Proto::sctp4}) {
        const bool v6 = proto == gen::Proto::tcp6 || proto == gen::Proto::udp6;
        const bool tcp = proto == gen::Proto::tcp4 || proto == gen::Proto::tcp6;
        const bool sctp = proto == gen::Proto::sctp4;
        const size_t payload = 14 + (v6 ? 40 : 20) + (tcp ? 20 : sctp ? 28 : 8);
        for (uint32_t n = 2 * 60; n <= 2 * 170; ++n) {
            const uint32_t len = n / 2;
            auto frame = gen::build_frame({proto, len, 1, len});
            // A zero payload too: a byte the sum missed shows only when it
            // was 0 in the good packet and then flipped.
            if (n % 2) std::fill(frame.begin() + long(payload), frame.end(), 0);
            rte_mbuf* f = test::make_linear(pool(), frame);
            rte_mbuf* one[1] = {f};
            filler.process({}, {}, one, 1);
            frame = test::chain_bytes(f);
            rte_pktmbuf_free(f);
            frames.push_back(frame);
            auto padded = frame;
            padded.insert(padded.end(), {0xFF, 0x5A, 0xA5});
            frames.push_back(padded);
            for (size_t at = 14; at < frame.size(); at += 1 + len % 3) {
                auto bad = frame;
                bad[at] ^= uint8_t(1u << (at % 8));
                frames.push_back(bad);
            }
        }
    }
    // Linear, then chains split at random points (whole in the gather copy up
    // to 128 bytes, summed along the chain beyond).
    for (unsigned segs : {1u, 2u, 4u}) {
        for (Mode mode : {Mode::verify, Mode::csum}) {
            SCOPED_TRACE("segments " + std::to_string(segs));
            EngineConfig lean, ref;
            lean.mode = ref.mode = mode;
            ref.plain_fast_path = false;
            Engine el(lean), er(ref);
            Engine* engines[2] = {&el, &er};
            std::vector<std::vector<uint32_t>> splits;
            for (const auto& f : frames)
                splits.push_back(segs == 1 ? std::vector<uint32_t>{uint32_t(f.size())}
                                           : test::random_split(uint32_t(f.size()), segs, rng_));
            constexpr size_t kB = 32;
            for (size_t at = 0; at < frames.size(); at += kB) {
                const size_t n = std::min(kB, frames.size() - at);
                std::vector<std::string> got[2];
                uint16_t kept[2];
                for (int e = 0; e < 2; ++e) {
                    rte_mbuf* burst[kB];
                    for (size_t i = 0; i < n; ++i)
                        burst[i] = test::make_chain(pool(), frames[at + i], splits[at + i]);
                    kept[e] = engines[e]->process({}, {}, burst, uint16_t(n));
                    for (size_t i = 0; i < n; ++i) {
                        const PacketVerdict* v = verdict_of(burst[i], engines[e]->verdict_field());
                        got[e].push_back(
                            std::string(reinterpret_cast<const char*>(v), 8) +
                            std::string(reinterpret_cast<const char*>(v->layers), v->n_layers));
                    }
                    rte_pktmbuf_free_bulk(burst, unsigned(n));
                }
                ASSERT_EQ(kept[0], kept[1]);
                for (size_t i = 0; i < n; ++i)
                    ASSERT_EQ(got[0][i], got[1][i]) << "frame " << at + i << " mode " << int(mode);
            }
            const EngineStats &a = el.stats(), &b = er.stats();
            for (int p = 0; p < kLayerProtoCount; ++p)
                for (int st = 0; st < kLayerStatusCount; ++st)
                    ASSERT_EQ(a.layer[p][st].get(), b.layer[p][st].get()) << p << " " << st;
            ASSERT_EQ(a.sum_bytes.get(), b.sum_bytes.get());
            ASSERT_EQ(a.crc_bytes.get(), b.crc_bytes.get());
            ASSERT_EQ(a.packets.get(), b.packets.get());
            ASSERT_EQ(a.bytes.get(), b.bytes.get());
            // The lean path must have judged most of these good: the fast test ran.
            ASSERT_GT(a.layer[int(LayerProto::tcp)][int(LayerStatus::good)].get(), 400u);
            ASSERT_GT(a.layer[int(LayerProto::sctp)][int(LayerStatus::good)].get(), 200u);
        }
    }
}

// csum mode: a packet the all-good run stops at has had its L4 sum taken
// there, and the lean path fills from that sum rather than summing again.
// Good packets followed by CHECKSUM_PARTIAL and bad ones, long enough to go
// through the kernels, linear and chained: bytes and verdicts as the walker's.
TEST_F(LeanPath, CsumFillsStoppedPacketsFromTheRunsSum) {
    std::vector<std::vector<uint8_t>> frames;
    for (gen::Proto proto :
         {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6, gen::Proto::udp6})
        for (uint32_t len : {90u, 130u, 600u, 1420u})
            for (int kind = 0; kind < 3; ++kind) {
                auto frame = gen::build_frame({proto, len, 1, len});
                if (kind == 1) gen::fill_checksums_partial(frame);  // partial: filled
                if (kind == 2) frame[frame.size() - 3] ^= 0x21;     // bad: left alone
                frames.push_back(frame);
            }
    for (unsigned segs : {1u, 2u}) {
        EngineConfig lean, ref;
        lean.mode = ref.mode = Mode::csum;
        ref.plain_fast_path = false;
        Engine el(lean), er(ref);
        Engine* engines[2] = {&el, &er};
        std::vector<std::vector<uint32_t>> splits;
        for (const auto& f : frames)
            splits.push_back(segs == 1 ? std::vector<uint32_t>{uint32_t(f.size())}
                                       : test::random_split(uint32_t(f.size()), segs, rng_));
        std::vector<std::vector<uint8_t>> got[2];
        std::vector<std::string> verdicts[2];
        for (int e = 0; e < 2; ++e) {
            std::vector<rte_mbuf*> burst;
            for (size_t i = 0; i < frames.size(); ++i)
                burst.push_back(test::make_chain(pool(), frames[i], splits[i]));
            engines[e]->process({}, {}, burst.data(), uint16_t(burst.size()));
            for (rte_mbuf* m : burst) {
                got[e].push_back(test::chain_bytes(m));
                const PacketVerdict* v = verdict_of(m, engines[e]->verdict_field());
                verdicts[e].push_back(
                    std::string(reinterpret_cast<const char*>(v), 8) +
                    std::string(reinterpret_cast<const char*>(v->layers), v->n_layers));
            }
            rte_pktmbuf_free_bulk(burst.data(), unsigned(burst.size()));
        }
        for (size_t i = 0; i < frames.size(); ++i) {
            ASSERT_EQ(got[0][i], got[1][i]) << "frame " << i << " segments " << segs;
            ASSERT_EQ(verdicts[0][i], verdicts[1][i]) << "frame " << i << " segments " << segs;
        }
        // The partial ones were filled: their bytes changed.
        ASSERT_NE(got[0][1], frames[1]);
        ASSERT_EQ(el.stats().sum_bytes.get(), er.stats().sum_bytes.get());
    }
}

TEST_F(LeanPath, BurstWithManyOutcomesCountsLikeTheWalker) {
    const gen::Proto protos[] = {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6,
                                 gen::Proto::udp6, gen::Proto::sctp4};
    static const uint64_t kIp[] = {0, RTE_MBUF_F_RX_IP_CKSUM_BAD, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
                                   RTE_MBUF_F_RX_IP_CKSUM_NONE};
    static const uint64_t kL4[] = {0, RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
                                   RTE_MBUF_F_RX_L4_CKSUM_NONE};
    EngineConfig fc;
    fc.mode = Mode::fill;
    Engine filler(fc);
    constexpr int kN = 64;
    std::vector<std::vector<uint8_t>> frames;
    std::vector<uint64_t> flags;
    for (int i = 0; i < kN; ++i) {
        auto frame = gen::build_frame({protos[i % 5], 100, 1, uint32_t(i)});
        rte_mbuf* f = test::make_linear(pool(), frame);
        rte_mbuf* one[1] = {f};
        filler.process({}, {}, one, 1);
        frame = test::chain_bytes(f);
        rte_pktmbuf_free(f);
        if (i % 3 == 1) frame[frame.size() - 1] ^= 0x5A;  // a bad L4 sum
        if (i % 7 == 2) frame[14 + 8] ^= 1;               // a bad IPv4 header (TTL)
        frames.push_back(frame);
        flags.push_back(kIp[(i / 5) % 4] | kL4[(i / 3) % 4]);
    }
    for (Mode mode : {Mode::verify, Mode::csum}) {
        EngineConfig lean, ref;
        lean.mode = ref.mode = mode;
        ref.plain_fast_path = false;
        Engine el(lean), er(ref);
        RxPortPolicy rx;
        rx.drop_bad = true;
        std::vector<std::vector<uint8_t>> out[2];
        std::vector<std::string> verdicts[2];
        uint16_t kept[2];
        Engine* engines[2] = {&el, &er};
        for (int e = 0; e < 2; ++e) {
            rte_mbuf* burst[kN];
            for (int i = 0; i < kN; ++i) {
                burst[i] = test::make_linear(pool(), frames[i]);
                burst[i]->ol_flags = flags[i];
            }
            kept[e] = engines[e]->process(rx, {}, burst, kN);
            for (int i = 0; i < kN; ++i) {
                const PacketVerdict* v = verdict_of(burst[i], engines[e]->verdict_field());
                verdicts[e].push_back(
                    std::string(reinterpret_cast<const char*>(v), 4 + 4) +
                    std::string(reinterpret_cast<const char*>(v->layers), v->n_layers));
                out[e].push_back(test::chain_bytes(burst[i]));
            }
            rte_pktmbuf_free_bulk(burst, kN);
        }
        ASSERT_EQ(kept[0], kept[1]);
        EXPECT_LT(kept[0], kN) << "some packets are dropped";
        EXPECT_EQ(verdicts[0], verdicts[1]);
        EXPECT_EQ(out[0], out[1]);
        const EngineStats &a = el.stats(), &b = er.stats();
        for (int p = 0; p < kLayerProtoCount; ++p)
            for (int st = 0; st < kLayerStatusCount; ++st)
                EXPECT_EQ(a.layer[p][st].get(), b.layer[p][st].get()) << p << " " << st;
        for (int i = 0; i < 4; ++i) EXPECT_EQ(a.ip_summed[i].get(), b.ip_summed[i].get());
        for (int i = 0; i < 8; ++i) EXPECT_EQ(a.csum_level[i].get(), b.csum_level[i].get());
        for (int i = 0; i < kDropReasonCount; ++i) EXPECT_EQ(a.drop[i].get(), b.drop[i].get());
        EXPECT_EQ(a.packets.get(), uint64_t{kN});
        EXPECT_EQ(a.packets.get(), b.packets.get());
        EXPECT_EQ(a.bytes.get(), b.bytes.get());
        EXPECT_EQ(a.sum_bytes.get(), b.sum_bytes.get());
        EXPECT_EQ(a.crc_bytes.get(), b.crc_bytes.get());
    }
}

// Full bursts of one shape with GOOD flags take the all-good run's
// same-shape loop (classify_same.h) after their first packet. Hostile
// members of the run (header, length, fragment, option, port and flag
// changes, chains, cuts), other shapes and dropped packets before the run
// must leave it and get the walker's verdicts, counts and burst order.
// All-good runs of one shape, by GOOD flags (bursts 0-159) and by our sums
// with no flags (160-319), a third of each burst hostile.
TEST_F(LeanPath, AllGoodRunsWithHostileMembersMatchTheWalker) {
    struct Kind {
        gen::Proto proto;
        bool v6, udp, sctp;
    };
    // SCTP over IPv6 has no generator: sctp6 is sctp4's SCTP bytes behind an IPv6 header.
    const Kind kinds[] = {
        {gen::Proto::tcp4, false, false, false}, {gen::Proto::udp4, false, true, false},
        {gen::Proto::tcp6, true, false, false},  {gen::Proto::udp6, true, true, false},
        {gen::Proto::sctp4, false, false, true}, {gen::Proto::sctp4, true, false, true}};
    constexpr int kKinds = 6;
    constexpr uint64_t kGood = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    EngineConfig fc;
    fc.mode = Mode::fill;
    Engine filler(fc);
    // The frame's checksums filled in software (where the filler sees them).
    auto refill = [&](std::vector<uint8_t> frame) {
        rte_mbuf* m = test::make_linear(pool(), frame);
        rte_mbuf* one[1] = {m};
        filler.process({}, {}, one, 1);
        frame = test::chain_bytes(m);
        rte_pktmbuf_free(m);
        return frame;
    };
    auto filled = [&](gen::Proto p, uint32_t len, uint32_t flow, bool sctp6 = false,
                      uint16_t chunks = 1) {
        auto frame = gen::build_frame({p, sctp6 ? len - 20 : len, chunks, flow});
        if (sctp6) {
            std::vector<uint8_t> f6(frame.begin(), frame.begin() + 12);
            const size_t l4_len = frame.size() - 34;
            const uint8_t ip6[] = {
                0x86, 0xDD, 0x60, 0, 0, uint8_t(flow), uint8_t(l4_len >> 8), uint8_t(l4_len),
                132,  64};
            f6.insert(f6.end(), ip6, ip6 + sizeof ip6);
            for (int i = 0; i < 32; ++i) f6.push_back(uint8_t(0x20 + i + flow));
            f6.insert(f6.end(), frame.begin() + 34, frame.end());
            frame = f6;
        }
        return refill(frame);
    };
    auto put16 = [](std::vector<uint8_t>& f, size_t at, uint16_t v) {
        if (at + 2 <= f.size()) f[at] = uint8_t(v >> 8), f[at + 1] = uint8_t(v);
    };
    auto get16 = [](const std::vector<uint8_t>& f, size_t at) -> uint16_t {
        return at + 2 <= f.size() ? uint16_t(f[at] << 8 | f[at + 1]) : 0;
    };
    std::mt19937 rng(1515);
    constexpr int kN = 32;
    // One lean and one walker engine per mode for every burst: a burst may
    // start with the last burst's run shape.
    std::vector<std::unique_ptr<Engine>> engs;
    for (Mode mode : {Mode::verify, Mode::csum}) {
        EngineConfig lean, ref;
        lean.mode = ref.mode = mode;
        ref.plain_fast_path = false;
        engs.push_back(std::make_unique<Engine>(lean));
        engs.push_back(std::make_unique<Engine>(ref));
    }
    for (int iter = 0; iter < 384; ++iter) {
        const bool sums = iter >= 192;             // no flags: our sums decide
        const Kind& k = kinds[iter / 2 % kKinds];  // two bursts of a kind, then the next
        const size_t ip = 14, l4 = k.v6 ? 54 : 34;
        std::vector<std::vector<uint8_t>> frames;
        std::vector<uint64_t> flags;
        std::vector<int> segs;
        std::vector<std::string> what;
        for (int i = 0; i < kN; ++i) {
            const uint32_t len = 60 + uint32_t(rng() % 120);
            std::vector<uint8_t> f = filled(k.proto, len, uint32_t(iter * kN + i), k.sctp && k.v6);
            uint64_t fl = sums ? 0 : k.v6 && rng() % 2 ? RTE_MBUF_F_RX_L4_CKSUM_GOOD : kGood;
            // Every third round of the kinds in chains (a chain's run gathers its headers).
            int sg = iter / (2 * kKinds) % 3 == 2 ? 2 + int(rng() % 3) : 1;
            // A third of them hostile.
            const int m = rng() % 3 == 0 ? 1 + int(rng() % 29) : 0;
            switch (m) {
                case 1:  // any IP header byte
                    f[ip + rng() % 20] ^= uint8_t(1 + rng() % 255);
                    break;
                case 2:  // EtherType
                    f[12 + rng() % 2] ^= 0x10;
                    break;
                case 3:  // version / IHL
                    f[ip] = k.v6 ? 0x45 : 0x46;
                    break;
                case 4:  // MF (IPv4), flow label (IPv6)
                    f[ip + (k.v6 ? 1 : 6)] |= 0x20;
                    break;
                case 5:  // fragment offset (IPv4), flow label (IPv6)
                    f[ip + 7] ^= 1;
                    break;
                case 6:  // the other protocol
                    f[ip + (k.v6 ? 6 : 9)] = k.udp ? 6 : 17;
                    break;
                case 7:  // SCTP (TCP for an SCTP kind)
                    f[ip + (k.v6 ? 6 : 9)] = k.sctp ? 6 : 132;
                    break;
                case 8:  // IP length
                    put16(f, ip + (k.v6 ? 4 : 2), uint16_t(rng() % 400));
                    break;
                case 9:  // cut short
                    f.resize(f.size() - 1 - rng() % 30);
                    break;
                case 10:  // cut in the L4 header
                    f.resize(l4 + rng() % 12);
                    break;
                case 11:  // UDP length / TCP data offset / SCTP chunk length, any
                    put16(f, l4 + (k.sctp ? 14 : k.udp ? 4 : 12), uint16_t(rng()));
                    break;
                case 12:  // TCP data offset < 5 / UDP sum zero / SCTP: several chunks
                    if (k.sctp)
                        f = filled(k.proto, len, uint32_t(i), k.v6, uint16_t(2 + rng() % 2));
                    else
                        k.udp ? put16(f, l4 + 6, 0) : void(f[l4 + 12] = uint8_t((rng() % 5) << 4));
                    break;
                case 13:  // tunnel / NVMe destination port
                    put16(f, l4 + 2, k.udp ? 4789 : 4420);
                    break;
                case 14:  // NVMe source port
                    put16(f, l4, 4420);
                    break;
                case 15:  // a port whose low byte is a special one's
                    put16(f, l4 + 2, k.udp ? 0x1200 | 4789 % 256 : 0x1100 | 4420 % 256);
                    break;
                case 16:  // L4 UNKNOWN
                    fl = RTE_MBUF_F_RX_IP_CKSUM_GOOD;
                    break;
                case 17:  // no IP flag / L4 BAD
                    fl = rng() % 2 ? RTE_MBUF_F_RX_L4_CKSUM_GOOD
                                   : kGood | RTE_MBUF_F_RX_L4_CKSUM_BAD;
                    break;
                case 18:  // IP BAD
                    fl = RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
                    break;
                case 19:  // a chain
                    sg = 2 + int(rng() % 2);
                    break;
                case 20:  // another shape
                    if (const Kind& o = kinds[rng() % kKinds]; true)
                        f = filled(o.proto, len, uint32_t(i), o.sctp && o.v6);
                    break;
                case 21:  // SCTP
                    f = filled(gen::Proto::sctp4, len, uint32_t(i));
                    break;
                case 22:  // no flags, a bad sum
                    fl = 0, f[f.size() - 1] ^= 0x5A;
                    break;
                case 26:                    // a payload byte (a bad L4 sum when ours decide)
                    if (f.size() > l4 + 8)  // UDP/IPv6 of 62 B has no payload
                        f[l4 + 8 + rng() % (f.size() - l4 - 8)] ^= uint8_t(1 + rng() % 255);
                    break;
                case 27:  // SCTP: the chunk 1..4 bytes shorter (padding, or a second
                          // chunk too short), its CRC right or not
                    if (k.sctp) {
                        put16(f, l4 + 14, uint16_t(get16(f, l4 + 14) - 1 - rng() % 4));
                        if (rng() % 2) f = refill(f);
                    }
                    break;
                case 28: {  // the IP length 1..4 short (trailing bytes), the chunk too or
                            // not, its sums right or not
                    const size_t at = ip + (k.v6 ? 4 : 2);
                    const uint16_t d = uint16_t(1 + rng() % 4);
                    put16(f, at, uint16_t(get16(f, at) - d));
                    if (k.sctp && rng() % 2) put16(f, l4 + 14, uint16_t(get16(f, l4 + 14) - d));
                    if (rng() % 4) f = refill(f);
                    break;
                }
                case 29:  // the CRC (or sum) field
                    f[l4 + (k.sctp ? 8 : k.udp ? 6 : 16) + rng() % 2] ^= uint8_t(1 + rng() % 255);
                    break;
                case 23:  // a chain whose first segment holds every byte
                    sg = -1;
                    break;
                case 24:  // one segment that says it has two
                    sg = -2;
                    break;
                case 25:  // ... and a chain of two that says it has one
                    sg = -3;
                    break;
                default:
                    break;
            }
            frames.push_back(f);
            flags.push_back(fl);
            segs.push_back(sg);
            what.push_back(std::to_string(i) + ":" + std::to_string(m));
        }
        std::vector<std::vector<uint32_t>> splits;
        for (int i = 0; i < kN; ++i)
            splits.push_back(
                segs[i] > 1 ? test::random_split(uint32_t(frames[i].size()), unsigned(segs[i]), rng)
                : segs[i] == -1 || segs[i] == -3
                    ? std::vector<uint32_t>{uint32_t(frames[i].size()), 0}
                    : std::vector<uint32_t>{uint32_t(frames[i].size())});
        for (int mi = 0; mi < 2; ++mi) {
            const Mode mode = mi == 0 ? Mode::verify : Mode::csum;
            Engine &el = *engs[2 * mi], &er = *engs[2 * mi + 1];
            RxPortPolicy rx;
            rx.drop_bad = iter % 3 != 0;  // dropped packets before a run move the rest up
            std::vector<std::string> verdicts[2];
            std::vector<std::vector<uint8_t>> out[2];
            std::vector<int> order[2];
            Engine* engines[2] = {&el, &er};
            for (int e = 0; e < 2; ++e) {
                rte_mbuf* burst[kN];
                rte_mbuf* orig[kN];
                for (int i = 0; i < kN; ++i) {
                    orig[i] = burst[i] = test::make_chain(pool(), frames[i], splits[i]);
                    burst[i]->ol_flags = flags[i];
                    if (segs[i] == -2) burst[i]->nb_segs = 2;
                    if (segs[i] == -3) burst[i]->nb_segs = 1;
                }
                const uint16_t kept = engines[e]->process(rx, {}, burst, kN);
                for (int i = 0; i < kN; ++i)
                    if (segs[i] < -1) orig[i]->nb_segs = segs[i] == -2 ? 1 : 2;
                for (int j = 0; j < kept; ++j)
                    order[e].push_back(int(std::find(orig, orig + kN, burst[j]) - orig));
                for (int i = 0; i < kN; ++i) {
                    const PacketVerdict* v = verdict_of(orig[i], engines[e]->verdict_field());
                    verdicts[e].push_back(
                        what[i] + " " + std::string(reinterpret_cast<const char*>(v), 4 + 4) +
                        std::string(reinterpret_cast<const char*>(v->layers), v->n_layers));
                    out[e].push_back(test::chain_bytes(orig[i]));
                }
                rte_pktmbuf_free_bulk(orig, kN);
            }
            SCOPED_TRACE("iter " + std::to_string(iter) + " mode " + std::string(to_string(mode)));
            ASSERT_EQ(order[0], order[1]);
            ASSERT_EQ(verdicts[0], verdicts[1]);
            ASSERT_EQ(out[0], out[1]);
            const EngineStats &a = el.stats(), &b = er.stats();
            for (int p = 0; p < kLayerProtoCount; ++p)
                for (int st = 0; st < kLayerStatusCount; ++st)
                    ASSERT_EQ(a.layer[p][st].get(), b.layer[p][st].get()) << p << " " << st;
            for (int i = 0; i < 4; ++i) ASSERT_EQ(a.ip_summed[i].get(), b.ip_summed[i].get());
            for (int i = 0; i < 8; ++i) ASSERT_EQ(a.csum_level[i].get(), b.csum_level[i].get());
            for (int i = 0; i < kParseErrorCount; ++i)
                ASSERT_EQ(a.parse_error[i].get(), b.parse_error[i].get());
            for (int i = 0; i < kDropReasonCount; ++i) ASSERT_EQ(a.drop[i].get(), b.drop[i].get());
            ASSERT_EQ(a.packets.get(), b.packets.get());
            ASSERT_EQ(a.bytes.get(), b.bytes.get());
            ASSERT_EQ(a.sum_bytes.get(), b.sum_bytes.get());
            ASSERT_EQ(a.crc_bytes.get(), b.crc_bytes.get());
            // Segments on the NVMe port are the tracker's, whatever their verdict.
            NvmeTrackerStats na{}, nb{};
            const bool ha = el.nvme_stats(&na), hb = er.nvme_stats(&nb);
            ASSERT_EQ(ha, hb);
            ASSERT_EQ(na.flows_created, nb.flows_created);
            ASSERT_EQ(na.bytes, nb.bytes);
            ASSERT_EQ(na.scanned_bytes, nb.scanned_bytes);
            ASSERT_EQ(na.gaps, nb.gaps);
        }
    }
}

}  // namespace
}  // namespace csum

namespace csum {
namespace {

// NVMe/TCP segments on the lean path (verify mode feeds the tracker from the
// classified headers, and hands segments that complete a digest to the
// walker with their statuses): per packet the same verdict and forwarding as
// the walker-only engine, and the same counters and tracker totals, through
// bad TCP sums, bad data digests, PMD flags, drop_bad, trusted ports and
// chains split inside the headers.
class LeanNvme : public test::MbufTest {};

TEST_F(LeanNvme, StreamsMatchTheWalker) {
    std::mt19937 rng(91);
    for (uint32_t pdu : {3000u, 4096u, 20000u}) {
        gen::NvmeStreamSpec spec;
        spec.pdu_data = pdu;
        spec.pdus = 6;
        spec.end_with_rst = true;
        std::vector<uint32_t> data_bytes;
        auto frames = gen::build_nvme_c2h_frames(spec, &data_bytes);
        for (auto& f : frames) gen::fill_checksums(f);
        // A corrupted data byte with its TCP sum refreshed: that PDU's DDGST is bad.
        size_t bad_frame = 0;
        for (size_t i = frames.size() / 2; i < frames.size() && bad_frame == 0; ++i)
            if (data_bytes[i] > 0 && data_bytes[i] + 54 == frames[i].size()) bad_frame = i;
        ASSERT_NE(bad_frame, 0u);
        frames[bad_frame][80] ^= 0x11;
        gen::fill_checksums(frames[bad_frame]);
        for (int policy = 0; policy < 4; ++policy) {
            EngineConfig lean, ref;
            ref.plain_fast_path = false;
            Engine el(lean), er(ref);
            RxPortPolicy rx;
            rx.drop_bad = policy & 1;
            rx.trusted = policy == 2;
            for (size_t i = 0; i < frames.size(); ++i) {
                std::vector<uint8_t> f = frames[i];
                uint64_t flags = 0;
                const unsigned r = rng() % 16;
                if (r == 0 && policy == 3) f[f.size() - 1] ^= 0x40;  // a bad TCP sum: not fed
                if (r == 1) flags = RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_IP_CKSUM_GOOD;
                if (r == 2 && policy == 3) flags = RTE_MBUF_F_RX_L4_CKSUM_BAD;
                const auto n = uint32_t(f.size());
                std::vector<uint32_t> lens =
                    rng() % 3 == 0 ? test::random_split(n, 3, rng) : std::vector<uint32_t>{n};
                rte_mbuf* ma = test::make_chain(pool(), f, lens);
                rte_mbuf* mb = test::make_chain(pool(), f, lens);
                ma->ol_flags = mb->ol_flags = flags;
                rte_mbuf* a[1] = {ma};
                rte_mbuf* b[1] = {mb};
                SCOPED_TRACE("pdu " + std::to_string(pdu) + " policy " + std::to_string(policy) +
                             " frame " + std::to_string(i));
                ASSERT_EQ(el.process(rx, {}, a, 1), er.process(rx, {}, b, 1));
                const PacketVerdict* va = verdict_of(ma, el.verdict_field());
                const PacketVerdict* vb = verdict_of(mb, er.verdict_field());
                ASSERT_EQ(va->n_layers, vb->n_layers);
                ASSERT_EQ(0, std::memcmp(va, vb, 8 + va->n_layers));
                rte_pktmbuf_free(ma);
                rte_pktmbuf_free(mb);
            }
            const EngineStats &a = el.stats(), &b = er.stats();
            for (int p = 0; p < kLayerProtoCount; ++p)
                for (int s = 0; s < kLayerStatusCount; ++s)
                    ASSERT_EQ(a.layer[p][s].get(), b.layer[p][s].get()) << p << " " << s;
            for (int i = 0; i < 4; ++i) ASSERT_EQ(a.ip_summed[i].get(), b.ip_summed[i].get());
            for (int i = 0; i < 8; ++i) ASSERT_EQ(a.csum_level[i].get(), b.csum_level[i].get());
            for (int i = 0; i < kDropReasonCount; ++i) ASSERT_EQ(a.drop[i].get(), b.drop[i].get());
            ASSERT_EQ(a.sum_bytes.get(), b.sum_bytes.get());
            ASSERT_EQ(a.skipped_trusted.get(), b.skipped_trusted.get());
            NvmeTrackerStats na{}, nb{};
            ASSERT_TRUE(el.nvme_stats(&na));
            ASSERT_TRUE(er.nvme_stats(&nb));
            ASSERT_EQ(na.pdus, nb.pdus);
            ASSERT_EQ(na.ddgst_good, nb.ddgst_good);
            ASSERT_EQ(na.ddgst_bad, nb.ddgst_bad);
            ASSERT_EQ(na.hdgst_good, nb.hdgst_good);
            ASSERT_EQ(na.bytes, nb.bytes);
            if (policy != 3) {  // no segment lost
                ASSERT_GT(na.ddgst_good, 0u);
                ASSERT_EQ(na.ddgst_bad, 1u);
                ASSERT_EQ(a.layer[int(LayerProto::nvme_ddgst)][int(LayerStatus::bad)].get(), 1u);
            }
        }
    }
}

}  // namespace
}  // namespace csum
