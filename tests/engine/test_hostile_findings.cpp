// Issue 13's engine findings and the verdict semantics it decided, each on
// real mbufs: bursts past 512, SCTP over UDP with every TX offload on, what
// UNNECESSARY may count, csum_level's cap, and RX_L4_CKSUM_NONE.
#include <gtest/gtest.h>

#include <cstring>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "case_file.h"
#include "csum/crc32c.h"
#include "csum/inet.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::find_case;

class HostileFindings : public test::MbufTest {};

TEST_F(HostileFindings, BurstsOfAnySizeDropExactlyTheBadPacketsInOrder) {
    EngineConfig c = test::engine_config(Mode::verify);
    Engine e(c);
    RxPortPolicy rx;
    rx.drop_bad = true;
    for (uint16_t n : {1, 511, 512, 513, 1000}) {  // the pool holds 1023
        std::vector<rte_mbuf*> pkts(n);
        for (uint16_t i = 0; i < n; ++i) {
            const bool bad = i % 3 == 1;
            pkts[i] =
                test::make_linear(pool(), find_case(bad ? "v4_udp_17/bad1" : "v4_udp_17").bytes);
            ASSERT_NE(pkts[i], nullptr);
            pkts[i]->hash.usr = i;  // the original index
        }
        const uint16_t kept = e.process(rx, {}, pkts.data(), n);
        uint16_t want_kept = 0;
        for (uint16_t i = 0; i < n; ++i) want_kept += i % 3 != 1;
        ASSERT_EQ(kept, want_kept) << n;
        uint32_t prev = 0;
        for (uint16_t i = 0; i < kept; ++i) {
            const uint32_t idx = pkts[i]->hash.usr;
            EXPECT_NE(idx % 3, 1u) << "a bad packet forwarded, burst " << n;
            if (i > 0) {
                EXPECT_GT(idx, prev) << "kept packets out of order";
            }
            prev = idx;
        }
        for (uint16_t i = kept; i < n; ++i) EXPECT_EQ(pkts[i]->hash.usr % 3, 1u);
        for (rte_mbuf* m : pkts) rte_pktmbuf_free(m);
    }
}

TEST_F(HostileFindings, SctpOverUdpIsFilledInSoftwareWithAtMostOneL4Offload) {
    const auto& c = find_case("sctp_over_udp");
    ASSERT_FALSE(c.zeroed.empty());
    TxPortPolicy tx;
    tx.offloads = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
                  RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_SCTP_CKSUM;
    Engine e(test::engine_config(Mode::fill));
    rte_mbuf* m = test::make_linear(pool(), c.zeroed);
    const auto o = test::run_engine(e, m, {}, tx);
    const uint64_t l4 = m->ol_flags & RTE_MBUF_F_TX_L4_MASK;
    EXPECT_TRUE(l4 == 0 || l4 == RTE_MBUF_F_TX_UDP_CKSUM || l4 == RTE_MBUF_F_TX_SCTP_CKSUM) << l4;
    // The SCTP CRC sits inside the UDP payload: no NIC offload can reach it.
    EXPECT_NE(l4, RTE_MBUF_F_TX_SCTP_CKSUM);
    EXPECT_NE(o.layers.find("sctp:filled"), std::string::npos) << o.layers;
    // Filled in software, the SCTP bytes are scapy's (the UDP sum is then the
    // only thing software leaves to the NIC, if anything).
    const auto bytes = test::chain_bytes(m);
    const size_t sctp_off = 14 + 20 + 8;
    EXPECT_EQ(0, std::memcmp(bytes.data() + sctp_off, c.filled.data() + sctp_off,
                             bytes.size() - sctp_off));
    rte_pktmbuf_free(m);
}

TEST_F(HostileFindings, LayersSkippedOnPolicyAreNotCountedAsVerified) {
    Engine e(test::engine_config(Mode::verify));
    RxPortPolicy rx;
    rx.verify_mask = uint16_t(1u << int(LayerProto::ipv4));  // UDP left out
    rte_mbuf* m = test::make_linear(pool(), find_case("v4_udp_17/bad1").bytes);
    const auto o = test::run_engine(e, m, rx);
    EXPECT_EQ(o.layers, "ipv4:good,udp:skipped");
    EXPECT_EQ(o.ip_summed, "CHECKSUM_NONE");
    rte_pktmbuf_free(m);
}

TEST_F(HostileFindings, ATrustedPortVouchesForItsPackets) {
    Engine e(test::engine_config(Mode::verify));
    RxPortPolicy rx;
    rx.trusted = true;
    rte_mbuf* m = test::make_linear(pool(), find_case("v4_udp_17").bytes);
    const auto o = test::run_engine(e, m, rx);
    EXPECT_EQ(o.layers, "ipv4:skipped,udp:skipped");
    EXPECT_EQ(o.ip_summed, "CHECKSUM_UNNECESSARY");
    EXPECT_EQ(e.stats().skipped_trusted.get(), 1u);
    rte_pktmbuf_free(m);
}

TEST_F(HostileFindings, CsumLevelIsCappedAtLinuxsThree) {
    // Find a case that verifies more than four L4 checksums, if the corpus
    // has one; every case's level must respect the cap either way.
    Engine e(test::engine_config(Mode::verify));
    for (const auto& c : test::engine_cases()) {
        rte_mbuf* m = test::make_linear(pool(), c.bytes);
        const auto o = test::run_engine(e, m);
        EXPECT_LE(o.csum_level, kMaxCsumLevel) << c.name;
        EXPECT_EQ(o.csum_level, c.csum_level) << c.name;
        rte_pktmbuf_free(m);
    }
}

TEST_F(HostileFindings, L4NoneOnReceiveIsChecksumPartialWithStartAndOffset) {
    const auto& c = find_case("v4_tcp_300");
    std::vector<uint8_t> bytes = c.zeroed;
    for (bool fast : {true, false}) {
        EngineConfig ec = test::engine_config(Mode::verify);
        ec.plain_fast_path = fast;
        Engine e(ec);
        rte_mbuf* m = test::make_linear(pool(), bytes);
        m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_NONE;
        const auto o = test::run_engine(e, m);
        const PacketVerdict* v = verdict_of(m, e.verdict_field());
        EXPECT_EQ(o.ip_summed, "CHECKSUM_PARTIAL");
        EXPECT_EQ(v->csum, 34) << "csum_start: the TCP header";
        EXPECT_EQ(v->csum_offset, 16) << "TCP's checksum field";
        rte_pktmbuf_free(m);
    }
}

TEST_F(HostileFindings, IpNoneInCsumModeIsFilledOnBothPaths) {
    // The fast path left the IPv4 header checksum 0 where the walker filled it.
    const auto& c = find_case("v4_udp_17");
    std::vector<uint8_t> bytes = c.bytes;
    bytes[14 + 10] = bytes[14 + 11] = 0;
    for (bool fast : {true, false}) {
        EngineConfig ec = test::engine_config(Mode::csum);
        ec.plain_fast_path = fast;
        Engine e(ec);
        rte_mbuf* m = test::make_linear(pool(), bytes);
        m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_NONE | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
        const auto o = test::run_engine(e, m);
        EXPECT_EQ(o.layers, "ipv4:filled,udp:good") << fast;
        EXPECT_EQ(o.ip_summed, "CHECKSUM_UNNECESSARY") << fast;
        EXPECT_EQ(test::chain_bytes(m), c.bytes) << fast;
        rte_pktmbuf_free(m);
    }
}

}  // namespace
}  // namespace csum
