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
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class LeanPath : public test::MbufTest {
  protected:
    using Result = test::OnePacket;
    Result run(Engine& e, const std::vector<uint8_t>& frame, uint64_t rx_flags,
               const RxPortPolicy& rx, const TxPortPolicy& tx) {
        return test::process_one(e, pool(), frame, lens_, rx_flags, 0, rx, tx);
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
            for (uint32_t l : lens_) shape.append(" ").append(std::to_string(l));
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
            ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(ef, eg)) << what;
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

}  // namespace
}  // namespace csum
