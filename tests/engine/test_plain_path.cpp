// The plain-packet path must be indistinguishable from the general walker:
// same verdict, same bytes written, same offload requests, same counters.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include <rte_ethdev.h>

#include "case_file.h"
#include "gen/packet_builder.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class PlainPath : public test::MbufTest {
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
        // Linear, or cut after the headers (the plain path walks such chains).
        const uint32_t n = static_cast<uint32_t>(frame.size());
        std::vector<uint32_t> lens{n};
        if (split_ && n > 80) lens = {70, 1, 0, n - 71};
        rte_mbuf* m = test::make_chain(pool(), frame, lens);
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

    bool split_ = false;

    void expect_same(const std::vector<uint8_t>& frame, const std::string& what) {
        for (bool split : {false, true}) {
            split_ = split;
            expect_same_shape(frame, what + (split ? " chained" : ""));
        }
    }

    void expect_same_shape(const std::vector<uint8_t>& frame, const std::string& what) {
        // Every combination of the PMD's IP and L4 flags: UNKNOWN, BAD, GOOD, NONE.
        static const uint64_t kIp[] = {0, RTE_MBUF_F_RX_IP_CKSUM_BAD, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
                                       RTE_MBUF_F_RX_IP_CKSUM_NONE};
        static const uint64_t kL4[] = {0, RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
                                       RTE_MBUF_F_RX_L4_CKSUM_NONE};
        std::vector<uint64_t> kFlags;
        for (uint64_t ip : kIp)
            for (uint64_t l4 : kL4) kFlags.push_back(ip | l4);
        for (Mode mode : {Mode::verify, Mode::fill, Mode::csum}) {
            EngineConfig fast, general;
            fast.mode = general.mode = mode;
            general.plain_fast_path = false;
            Engine ef(fast), eg(general);
            for (uint64_t flags : kFlags) {
                for (int policy = 0; policy < 4; ++policy) {
                    RxPortPolicy rx;
                    rx.drop_bad = policy & 1;
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
            for (int i = 0; i < 4; ++i)
                ASSERT_EQ(ef.stats().ip_summed[i].get(), eg.stats().ip_summed[i].get()) << what;
        }
    }
};

TEST_F(PlainPath, EveryCaseMatchesTheGeneralWalker) {
    for (const auto& c : test::engine_cases()) {
        expect_same(c.bytes, c.name);
        if (!c.zeroed.empty()) expect_same(c.zeroed, c.name + " zeroed");
        if (HasFailure()) return;
    }
}

TEST_F(PlainPath, MutatedPlainPacketsMatchTheGeneralWalker) {
    std::mt19937 rng(2024);
    const gen::Proto protos[] = {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6,
                                 gen::Proto::udp6, gen::Proto::sctp4};
    EngineConfig fc;
    fc.mode = Mode::fill;
    Engine filler(fc);
    for (int iter = 0; iter < 400; ++iter) {
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

}  // namespace
}  // namespace csum
