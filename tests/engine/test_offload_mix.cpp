// Ports that offer only some TX checksum offloads, SCTP chunk lists with
// trailing bytes, headers split across segments, and COMPLETE ports whose
// producer left no sum: the plain path and the general walker must agree,
// and each outcome is the one named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "case_file.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::Bytes;

Bytes payload(size_t n) {
    Bytes p(n);
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(i * 7 + 3);
    return p;
}

// SCTP common header + one DATA chunk; CRC32C stored little-endian.
Bytes sctp(size_t data_len, size_t trailing = 0) {
    Bytes s(12, 0);
    s[0] = 0x13, s[1] = 0x88, s[2] = 0x13, s[3] = 0x89;
    s[7] = 1;  // verification tag
    const size_t clen = 16 + data_len;
    Bytes chunk(clen, 0xCC);
    chunk[0] = 0, chunk[1] = 3;
    chunk[2] = static_cast<uint8_t>(clen >> 8), chunk[3] = static_cast<uint8_t>(clen);
    s.insert(s.end(), chunk.begin(), chunk.end());
    s.resize(s.size() + ((4 - clen % 4) % 4) + trailing, 0);
    const uint32_t crc = test::ref_crc32c(s);
    for (int i = 0; i < 4; ++i) s[8 + i] = static_cast<uint8_t>(crc >> (8 * i));
    return s;
}

struct Shape {
    const char* name;
    Bytes frame;
    std::vector<std::pair<size_t, size_t>> csum_fields;  // offset, length of each checksum field
};

std::vector<Shape> shapes() {
    using namespace test;
    const Bytes p = payload(200);
    return {
        {"v4 tcp",
         eth(0x0800, ipv4(kSrc4, kDst4, 6, tcp(kSrc4, kDst4, 1, 2, 3, 0x10, p))),
         {{24, 2}, {50, 2}}},
        {"v4 udp",
         eth(0x0800, ipv4(kSrc4, kDst4, 17, udp(kSrc4, kDst4, 1, 2, p))),
         {{24, 2}, {40, 2}}},
        {"v6 udp", eth(0x86DD, ipv6(kSrc6, kDst6, 17, udp(kSrc6, kDst6, 1, 2, p))), {{60, 2}}},
        {"v4 sctp", eth(0x0800, ipv4(kSrc4, kDst4, 132, sctp(100))), {{24, 2}, {42, 4}}},
    };
}

class OffloadMix : public test::MbufTest {
  protected:
    struct Result {
        test::Outcome o;
        Bytes bytes;
        uint64_t ol_flags;
    };
    Result run(Engine& e, const Bytes& f, const TxPortPolicy& tx, uint64_t rx_flags = 0,
               const RxPortPolicy& rx = {}) {
        rte_mbuf* m = test::make_linear(pool(), f);
        EXPECT_NE(m, nullptr);
        m->ol_flags = rx_flags;
        Result r{test::run_engine(e, m, rx, tx), test::chain_bytes(m), m->ol_flags};
        rte_pktmbuf_free(m);
        return r;
    }
};

TEST_F(OffloadMix, EachOffloadAloneOnBothPaths) {
    const uint64_t kOffloads[] = {RTE_ETH_TX_OFFLOAD_IPV4_CKSUM, RTE_ETH_TX_OFFLOAD_TCP_CKSUM,
                                  RTE_ETH_TX_OFFLOAD_UDP_CKSUM, RTE_ETH_TX_OFFLOAD_SCTP_CKSUM};
    for (const Shape& s : shapes()) {
        Bytes zeroed = s.frame;
        for (auto [off, len] : s.csum_fields) std::fill_n(zeroed.begin() + off, len, 0);
        for (uint64_t off : kOffloads) {
            EngineConfig fast, general;
            fast.mode = general.mode = Mode::fill;
            general.plain_fast_path = false;
            Engine ef(fast), eg(general);
            const TxPortPolicy tx{off};
            const Result a = run(ef, zeroed, tx), b = run(eg, zeroed, tx);
            const std::string what = std::string(s.name) + " offload " + std::to_string(off);
            EXPECT_EQ(a.o.layers, b.o.layers) << what;
            EXPECT_EQ(a.bytes, b.bytes) << what;
            EXPECT_EQ(a.ol_flags, b.ol_flags) << what;
            // What the port offers for this packet is offloaded, the rest filled in software.
            const bool v4 = s.name[1] == '4';
            const char* l4 = std::strstr(s.name, " ") + 1;
            const bool l4_hw = (off == RTE_ETH_TX_OFFLOAD_TCP_CKSUM && !std::strcmp(l4, "tcp")) ||
                               (off == RTE_ETH_TX_OFFLOAD_UDP_CKSUM && !std::strcmp(l4, "udp")) ||
                               (off == RTE_ETH_TX_OFFLOAD_SCTP_CKSUM && !std::strcmp(l4, "sctp"));
            const bool ip_hw = v4 && off == RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
            std::string want = v4 ? std::string("ipv4:") + (ip_hw ? "offloaded," : "filled,") : "";
            want += std::string(l4) + (l4_hw ? ":offloaded" : ":filled");
            EXPECT_EQ(b.o.layers, want) << what;
            EXPECT_EQ(b.o.ip_summed, l4_hw ? "CHECKSUM_PARTIAL" : "CHECKSUM_UNNECESSARY") << what;
            // Software-filled fields hold the reference values; offloaded ones stay zero.
            for (auto [f, len] : s.csum_fields) {
                const bool hw = v4 && f == 24 ? ip_hw : l4_hw;
                for (size_t i = f; i < f + len; ++i)
                    EXPECT_EQ(b.bytes[i], hw ? 0 : s.frame[i]) << what << " byte " << i;
            }
            EXPECT_EQ(ef.stats().hw_offloaded.get(), unsigned(ip_hw) + unsigned(l4_hw)) << what;
        }
    }
}

TEST_F(OffloadMix, SctpTrailingBytesShorterThanAChunkAreMalformed) {
    // Two bytes after the last chunk: not room for another chunk header.
    const Bytes f = test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 132, sctp(100, 2)));
    for (bool fast : {true, false}) {
        EngineConfig c;
        c.plain_fast_path = fast;
        Engine e(c);
        const Result r = run(e, f, {});
        EXPECT_EQ(r.o.error, "sctp_bad_chunk_len") << fast;
        EXPECT_EQ(r.o.layers, "ipv4:good,sctp:malformed") << fast;
    }
    // Without the trailing bytes, the same packet is good on both paths.
    const Bytes ok = test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 132, sctp(100)));
    for (bool fast : {true, false}) {
        EngineConfig c;
        c.plain_fast_path = fast;
        Engine e(c);
        EXPECT_EQ(run(e, ok, {}).o.layers, "ipv4:good,sctp:good") << fast;
    }
}

TEST_F(OffloadMix, HeadersSplitAcrossSegmentsGiveTheLinearVerdicts) {
    for (const Shape& s : shapes()) {
        for (Mode mode : {Mode::verify, Mode::fill}) {
            Bytes in = s.frame;
            if (mode == Mode::fill)
                for (auto [off, len] : s.csum_fields) std::fill_n(in.begin() + off, len, 0);
            for (uint32_t cut : {20u, 37u, 41u, 50u, 61u, 70u}) {
                EngineConfig c;
                c.mode = mode;
                Engine e(c);
                const uint32_t lens[] = {cut, static_cast<uint32_t>(in.size()) - cut};
                rte_mbuf* m = test::make_chain(pool(), in, lens);
                ASSERT_NE(m, nullptr);
                const auto o = test::run_engine(e, m);
                const std::string what = std::string(s.name) + " cut " + std::to_string(cut) + " " +
                                         std::string(to_string(mode));
                EXPECT_EQ(o.layers.find("bad"), std::string::npos) << what << " " << o.layers;
                EXPECT_EQ(o.ip_summed, "CHECKSUM_UNNECESSARY") << what;
                EXPECT_EQ(test::chain_bytes(m), s.frame) << what;
                rte_pktmbuf_free(m);
            }
        }
    }
}

TEST_F(OffloadMix, CompletePortWithoutACompleteSumReadsThePacket) {
    // A port whose producer leaves CHECKSUM_COMPLETE, but this packet came
    // without it: its sums are computed from the bytes.
    const Shape s = shapes()[1];
    Engine e(EngineConfig{});
    RxPortPolicy rx;
    rx.complete_in_verdict = true;
    rte_mbuf* m = test::make_linear(pool(), s.frame);
    verdict_of(m, e.verdict_field())->ip_summed = IpSummed::none;
    EXPECT_EQ(test::run_engine(e, m, rx).layers, "ipv4:good,udp:good");
    EXPECT_GE(e.stats().sum_bytes.get(), s.frame.size() - 34);
    rte_pktmbuf_free(m);
    Bytes bad = s.frame;
    test::flip(bad, 40);
    m = test::make_linear(pool(), bad);
    verdict_of(m, e.verdict_field())->ip_summed = IpSummed::unnecessary;
    EXPECT_EQ(test::run_engine(e, m, rx).layers, "ipv4:good,udp:bad");
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum
