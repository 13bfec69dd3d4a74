// Real packets: scapy-made golden packets (TCP, UDP, ICMPv6; IPv6 with
// hop-by-hop and routing type 2 / type 4 headers), and packets checked
// against DPDK's rte_ipv4/6_udptcp_cksum. Linear and chained.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include <rte_ip.h>

#include "csum/inet.h"
#include "inet/golden_packets.h"
#include "inet/inet_reference.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

// Pseudo-header sum of a packet starting with its IP header; the IPv6
// destination comes from the routing header when there is one.
uint32_t pseudo_of(const std::vector<uint8_t>& pkt, const test::GoldenPacket& g) {
    const uint32_t l4_len = static_cast<uint32_t>(pkt.size() - g.l4_off);
    if ((pkt[0] >> 4) == 4) return ipv4_pseudo_sum(&pkt[12], &pkt[16], g.proto, l4_len);
    const uint8_t* dst = &pkt[24];
    if (g.rh_off >= 0) {
        const uint8_t* addr = nullptr;
        const auto r = ipv6_routing_final_dst(&pkt[g.rh_off], pkt.size() - g.rh_off, &addr);
        EXPECT_TRUE(r == Ipv6FinalDst::routing_header || r == Ipv6FinalDst::ipv6_dst) << g.name;
        if (r == Ipv6FinalDst::routing_header) dst = addr;
    }
    return ipv6_pseudo_sum(&pkt[8], dst, g.proto, l4_len);
}

TEST(InetGolden, OurChecksumsMatchScapy) {
    for (const auto& g : test::kGolden) {
        auto pkt = test::from_hex(g.hex);
        const size_t field = g.l4_off + g.cksum_off;
        uint16_t stored;
        std::memcpy(&stored, &pkt[field], 2);
        const uint32_t l4_len = static_cast<uint32_t>(pkt.size() - g.l4_off);
        const uint32_t ph = pseudo_of(pkt, g);
        // Verification, stored field included.
        EXPECT_TRUE(cksum_sum_ok(partial_sum(&pkt[g.l4_off], l4_len, ph))) << g.name;
        // Recomputation with the field zeroed.
        pkt[field] = pkt[field + 1] = 0;
        const uint32_t s = partial_sum(&pkt[g.l4_off], l4_len, ph);
        EXPECT_EQ(g.proto == 17 ? udp_cksum_finish(s) : cksum_finish(s), stored) << g.name;
        if ((pkt[0] >> 4) == 4) {
            uint16_t ipc;
            std::memcpy(&ipc, &pkt[10], 2);
            EXPECT_EQ(ipv4_hdr_cksum(pkt.data(), (pkt[0] & 0xF) * 4u), ipc) << g.name;
        }
    }
}

TEST(InetGolden, RoutingHeadersNameTheFinalDestination) {
    // The type-2 and SRH packets: scapy's pseudo-header used the routing
    // header's address; with the IPv6 destination the check must fail.
    int checked = 0;
    for (const auto& g : test::kGolden) {
        if (g.rh_off < 0) continue;
        auto pkt = test::from_hex(g.hex);
        const uint8_t* addr = nullptr;
        const auto r = ipv6_routing_final_dst(&pkt[g.rh_off], pkt.size() - g.rh_off, &addr);
        if (r != Ipv6FinalDst::routing_header) continue;
        const uint32_t l4_len = static_cast<uint32_t>(pkt.size() - g.l4_off);
        const uint32_t wrong = ipv6_pseudo_sum(&pkt[8], &pkt[24], g.proto, l4_len);
        EXPECT_FALSE(cksum_sum_ok(partial_sum(&pkt[g.l4_off], l4_len, wrong))) << g.name;
        ++checked;
    }
    EXPECT_EQ(checked, 2);
}

class InetGoldenChain : public test::MbufTest {};

TEST_F(InetGoldenChain, VerifiesOverRandomChains) {
    std::mt19937 rng(30);
    for (const auto& g : test::kGolden) {
        const auto pkt = test::from_hex(g.hex);
        for (int iter = 0; iter < 50; ++iter) {
            auto lens = test::random_split(static_cast<uint32_t>(pkt.size()), 1 + rng() % 6, rng);
            rte_mbuf* m = test::make_chain(pool(), pkt, lens, static_cast<uint16_t>(rng() % 4));
            ASSERT_NE(m, nullptr);
            uint32_t s = pseudo_of(pkt, g);
            ASSERT_EQ(
                partial_sum_mbuf(m, g.l4_off, static_cast<uint32_t>(pkt.size() - g.l4_off), &s), 0);
            EXPECT_TRUE(cksum_sum_ok(s)) << g.name << " iter " << iter;
            rte_pktmbuf_free(m);
        }
    }
}

// IPv4 and IPv6 TCP/UDP built here; DPDK computes on the linear copy.
std::vector<uint8_t> build(bool v6, uint8_t proto, size_t payload, std::mt19937& rng) {
    const size_t ip_len = v6 ? 40 : 20, l4_hdr = proto == 6 ? 20 : 8;
    std::vector<uint8_t> p = test::random_bytes(ip_len + l4_hdr + payload, rng);
    const uint16_t l4_len = static_cast<uint16_t>(l4_hdr + payload);
    if (v6) {
        p[0] = 0x60;
        p[4] = static_cast<uint8_t>(l4_len >> 8);
        p[5] = static_cast<uint8_t>(l4_len);
        p[6] = proto;
    } else {
        p[0] = 0x45;
        const uint16_t tot = static_cast<uint16_t>(20 + l4_len);
        p[2] = static_cast<uint8_t>(tot >> 8);
        p[3] = static_cast<uint8_t>(tot);
        p[9] = proto;
        p[10] = p[11] = 0;
    }
    if (proto == 17) {
        p[ip_len + 4] = static_cast<uint8_t>(l4_len >> 8);
        p[ip_len + 5] = static_cast<uint8_t>(l4_len);
    }
    const size_t field = ip_len + (proto == 6 ? 16 : 6);
    p[field] = p[field + 1] = 0;
    return p;
}

TEST_F(InetGoldenChain, TcpUdpOverV4AndV6MatchDpdk) {
    std::mt19937 rng(31);
    for (int iter = 0; iter < 2000; ++iter) {
        const bool v6 = iter & 1;
        const uint8_t proto = iter & 2 ? 17 : 6;
        auto pkt = build(v6, proto, rng() % 1500, rng);
        const size_t ip_len = v6 ? 40 : 20;
        const uint32_t l4_len = static_cast<uint32_t>(pkt.size() - ip_len);
        const uint16_t dpdk =
            v6 ? rte_ipv6_udptcp_cksum(reinterpret_cast<const rte_ipv6_hdr*>(pkt.data()),
                                       &pkt[ip_len])
               : rte_ipv4_udptcp_cksum(reinterpret_cast<const rte_ipv4_hdr*>(pkt.data()),
                                       &pkt[ip_len]);
        const uint32_t ph = v6 ? ipv6_pseudo_sum(&pkt[8], &pkt[24], proto, l4_len)
                               : ipv4_pseudo_sum(&pkt[12], &pkt[16], proto, l4_len);
        // Over a chain that splits the L4 part at an odd offset.
        auto lens = test::random_split(static_cast<uint32_t>(pkt.size()), 1 + rng() % 4, rng);
        rte_mbuf* m = test::make_chain(pool(), pkt, lens);
        ASSERT_NE(m, nullptr);
        uint32_t s = ph;
        ASSERT_EQ(partial_sum_mbuf(m, static_cast<uint32_t>(ip_len), l4_len, &s), 0);
        rte_pktmbuf_free(m);
        const uint16_t ours = proto == 17 ? udp_cksum_finish(s) : cksum_finish(s);
        ASSERT_EQ(ours, dpdk) << "iter " << iter;
        if (!v6) {
            const auto* ip = reinterpret_cast<const rte_ipv4_hdr*>(pkt.data());
            EXPECT_EQ(ipv4_hdr_cksum(pkt.data(), 20), rte_ipv4_cksum(ip));
        }
    }
}

// --- ipv6_routing_final_dst on hand-made headers. ---------------------------

std::vector<uint8_t> rh(uint8_t type, uint8_t segleft, uint8_t ext_len, uint8_t last_entry = 0) {
    std::vector<uint8_t> h((ext_len + 1u) * 8, 0);
    h[0] = 6;
    h[1] = ext_len;
    h[2] = type;
    h[3] = segleft;
    h[4] = last_entry;
    for (size_t i = 8; i < h.size(); ++i) h[i] = static_cast<uint8_t>(i);
    return h;
}

TEST(InetRouting, Type2HomeAddress) {
    const uint8_t* a = nullptr;
    auto h = rh(2, 1, 2);
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::routing_header);
    EXPECT_EQ(a, h.data() + 8);
    h = rh(2, 0, 2);
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::ipv6_dst);
    h = rh(2, 2, 2);
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::malformed);
    h = rh(2, 1, 4);
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::malformed);
    h = rh(2, 1, 2);
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), 23, &a), Ipv6FinalDst::malformed);  // truncated
}

TEST(InetRouting, SegmentRoutingLastSegmentIsListEntryZero) {
    const uint8_t* a = nullptr;
    auto h = rh(4, 2, 6, 2);  // three segments
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::routing_header);
    EXPECT_EQ(a, h.data() + 8);
    h = rh(4, 0, 6, 2);
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::ipv6_dst);
    h = rh(4, 4, 6, 2);  // more segments left than listed
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::malformed);
    h = rh(4, 1, 6, 3);  // list longer than the header
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::malformed);
    h = rh(4, 1, 8, 2);  // room for TLVs after the list
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::routing_header);
    EXPECT_EQ(ipv6_routing_final_dst(h.data(), 7, &a), Ipv6FinalDst::malformed);
}

TEST(InetRouting, Type0AndUnknownTypesFollowRfc8200) {
    const uint8_t* a = nullptr;
    for (uint8_t type : {0, 1, 3, 253}) {
        auto h = rh(type, 1, 2);
        EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::unverifiable)
            << int(type);
        h = rh(type, 0, 2);
        EXPECT_EQ(ipv6_routing_final_dst(h.data(), h.size(), &a), Ipv6FinalDst::ipv6_dst)
            << int(type);
    }
}

}  // namespace
}  // namespace csum
