// The PMD's RX flags, CHECKSUM_PARTIAL and COMPLETE inputs, TX offload
// requests, and the read-once property of nested sums.
#include <gtest/gtest.h>

#include <cstring>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "case_file.h"
#include "csum/inet.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::run_engine;

using test::find_case;

class EngineFlags : public test::MbufTest {};

TEST_F(EngineFlags, GoodFlagsAreConsumedWithoutReadingThePayload) {
    Engine e(test::engine_config(Mode::verify));
    // A packet whose TCP checksum is wrong: GOOD from the PMD is trusted as one level.
    rte_mbuf* m = test::make_linear(pool(), find_case("v4_tcp_300/bad1").bytes);
    m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    const auto o = run_engine(e, m);
    EXPECT_EQ(o.layers, "ipv4:good,tcp:good");
    EXPECT_EQ(o.ip_summed, "CHECKSUM_UNNECESSARY");
    EXPECT_EQ(e.stats().sum_bytes.get(), 0u);
    rte_pktmbuf_free(m);
}

TEST_F(EngineFlags, UnknownIsNeverTakenAsGood) {
    Engine e(test::engine_config(Mode::verify));
    rte_mbuf* m = test::make_linear(pool(), find_case("v4_tcp_300/bad1").bytes);
    m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN | RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
    EXPECT_EQ(run_engine(e, m).layers, "ipv4:good,tcp:bad");
    rte_pktmbuf_free(m);
}

TEST_F(EngineFlags, BadFlagIsReportedBad) {
    Engine e(test::engine_config(Mode::verify));
    rte_mbuf* m = test::make_linear(pool(), find_case("v4_udp_300").bytes);
    m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_BAD;
    EXPECT_EQ(run_engine(e, m).layers, "ipv4:good,udp:bad");
    rte_pktmbuf_free(m);
}

TEST_F(EngineFlags, NoneMeansIntactAndIsFilledInCsumMode) {
    // virtio/vhost with TX offload: RX_L4_CKSUM_NONE, the field unfilled.
    const auto& c = find_case("v6_tcp_300");
    std::vector<uint8_t> bytes = c.zeroed;
    Engine e(test::engine_config(Mode::csum));
    rte_mbuf* m = test::make_linear(pool(), bytes);
    m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_NONE;
    const auto o = run_engine(e, m);
    EXPECT_EQ(o.layers, "tcp:filled");
    EXPECT_EQ(test::chain_bytes(m), c.filled);
    EXPECT_EQ(e.stats().layer[int(LayerProto::tcp)][int(LayerStatus::bad)].get(), 0u);
    rte_pktmbuf_free(m);
}

TEST_F(EngineFlags, PseudoHeaderOnlyChecksumIsNamedPartialNotBad) {
    // What a Linux stack hands out with CHECKSUM_PARTIAL: the folded pseudo-header sum.
    for (const char* name : {"v4_tcp_300", "v6_udp_300"}) {
        const auto& c = find_case(name);
        std::vector<uint8_t> bytes = c.bytes;
        const bool v6 = name[1] == '6';
        const uint32_t l3 = 14, l4 = v6 ? 54 : 34, len = static_cast<uint32_t>(bytes.size()) - l4;
        const uint8_t proto = name[3] == 't' ? 6 : 17;
        const uint32_t field = l4 + (proto == 6 ? 16 : 6);
        const uint32_t ps = v6 ? ipv6_pseudo_sum(&bytes[l3 + 8], &bytes[l3 + 24], proto, len)
                               : ipv4_pseudo_sum(&bytes[l3 + 12], &bytes[l3 + 16], proto, len);
        const uint16_t folded = sum_fold(ps);
        std::memcpy(&bytes[field], &folded, 2);
        Engine verify(test::engine_config(Mode::verify)), csum(test::engine_config(Mode::csum));
        rte_mbuf* m = test::make_linear(pool(), bytes);
        const auto o = run_engine(verify, m);
        EXPECT_NE(o.layers.find(":partial"), std::string::npos) << name << " " << o.layers;
        EXPECT_EQ(o.layers.find(":bad"), std::string::npos) << name;
        run_engine(csum, m);
        EXPECT_EQ(test::chain_bytes(m), c.bytes) << name;
        rte_pktmbuf_free(m);
    }
}

TEST_F(EngineFlags, CompleteSumJudgesEveryLayerWithoutRereadingPayload) {
    const auto& c = find_case("vxlan_csum_outer_tcp");
    Engine e(test::engine_config(Mode::verify));
    RxPortPolicy rx;
    rx.complete_in_verdict = true;
    const uint32_t lens[] = {100, 1, static_cast<uint32_t>(c.bytes.size()) - 101};
    rte_mbuf* m = test::make_chain(pool(), c.bytes, lens);
    PacketVerdict* v = verdict_of(m, e.verdict_field());
    v->ip_summed = IpSummed::complete;
    v->csum = raw_cksum(c.bytes.data() + 14, c.bytes.size() - 14);  // from the outer L3 header
    const auto o = run_engine(e, m, rx);
    EXPECT_EQ(o.layers, c.layers);
    // Only header bytes in front of the outer UDP header (and none of the payload) were read.
    EXPECT_LT(e.stats().sum_bytes.get(), 200u);
    rte_pktmbuf_free(m);
}

TEST_F(EngineFlags, WrongCompleteSumIsCaught) {
    const auto& c = find_case("v4_udp_300");
    Engine e(test::engine_config(Mode::verify));
    RxPortPolicy rx;
    rx.complete_in_verdict = true;
    rte_mbuf* m = test::make_linear(pool(), c.bytes);
    PacketVerdict* v = verdict_of(m, e.verdict_field());
    v->ip_summed = IpSummed::complete;
    v->csum = static_cast<uint16_t>(raw_cksum(c.bytes.data() + 14, c.bytes.size() - 14) + 1);
    EXPECT_EQ(run_engine(e, m, rx).layers, "ipv4:good,udp:bad");
    rte_pktmbuf_free(m);
}

TEST_F(EngineFlags, NestedSumsReadThePayloadOnce) {
    // VXLAN with an outer UDP sum over an inner TCP sum: 2 sums, 1 pass.
    const auto& c = find_case("vxlan_csum_outer_tcp");
    for (Mode mode : {Mode::verify, Mode::fill}) {
        Engine e(test::engine_config(mode));
        rte_mbuf* m = test::make_linear(pool(), mode == Mode::fill ? c.zeroed : c.bytes);
        run_engine(e, m);
        const uint64_t pkt = c.bytes.size();
        EXPECT_LT(e.stats().sum_bytes.get(), pkt + 120)
            << to_string(mode);  // headers twice at most
        EXPECT_GT(e.stats().sum_bytes.get(), pkt - 60) << to_string(mode);
        if (mode == Mode::fill) {
            EXPECT_EQ(test::chain_bytes(m), c.filled);
        }
        rte_pktmbuf_free(m);
    }
}

TEST_F(EngineFlags, TxOffloadIsRequestedWhereThePortCan) {
    const auto& c = find_case("v4_tcp_300");
    Engine e(test::engine_config(Mode::fill));
    TxPortPolicy tx;
    tx.offloads = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
    rte_mbuf* m = test::make_linear(pool(), c.zeroed);
    const auto o = run_engine(e, m, {}, tx);
    EXPECT_EQ(o.layers, "ipv4:offloaded,tcp:offloaded");
    EXPECT_EQ(o.ip_summed, "CHECKSUM_PARTIAL");
    EXPECT_TRUE(m->ol_flags & RTE_MBUF_F_TX_TCP_CKSUM);
    EXPECT_TRUE(m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM);
    EXPECT_TRUE(m->ol_flags & RTE_MBUF_F_TX_IPV4);
    EXPECT_EQ(m->l2_len, 14);
    EXPECT_EQ(m->l3_len, 20);
    EXPECT_EQ(m->l4_len, 20);
    const PacketVerdict* v = verdict_of(m, e.verdict_field());
    EXPECT_EQ(v->csum, 34);
    EXPECT_EQ(v->csum_offset, 16);
    rte_pktmbuf_free(m);

    // A port that can do only TCP: the IPv4 header is filled in software.
    tx.offloads = RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
    m = test::make_linear(pool(), c.zeroed);
    EXPECT_EQ(run_engine(e, m, {}, tx).layers, "ipv4:filled,tcp:offloaded");
    rte_pktmbuf_free(m);

    // Tunnels are done in software whatever the port offers.
    const auto& t = find_case("vxlan_csum_outer_tcp");
    m = test::make_linear(pool(), t.zeroed);
    EXPECT_EQ(run_engine(e, m, {}, tx).layers, "ipv4:filled,udp:filled,ipv4:filled,tcp:filled");
    EXPECT_EQ(m->ol_flags & RTE_MBUF_F_TX_L4_MASK, 0u);
    rte_pktmbuf_free(m);
}

TEST_F(EngineFlags, NestingCapAndZeroUdp6PortsAreConfigurable) {
    const auto& c = find_case("ipip_4in4_tcp");
    EngineConfig shallow = test::engine_config(Mode::verify);
    shallow.parser.max_depth = 0;
    Engine e(shallow);
    rte_mbuf* m = test::make_linear(pool(), c.bytes);
    EXPECT_EQ(run_engine(e, m).error, "tunnel_too_deep");
    rte_pktmbuf_free(m);

    EngineConfig allow = test::engine_config(Mode::verify);
    Engine strict(allow);
    allow.parser.udp6_zero_csum_ok.add(4789);
    Engine lenient(allow);
    const auto& v6 = find_case("vxlan6_udp");
    std::vector<uint8_t> bytes = v6.bytes;
    bytes[14 + 40 + 6] = bytes[14 + 40 + 7] = 0;  // outer UDP checksum absent
    m = test::make_linear(pool(), bytes);
    EXPECT_EQ(run_engine(strict, m).layers.substr(0, 11), "udp:illegal");
    EXPECT_EQ(run_engine(lenient, m).layers.substr(0, 8), "udp:zero");
    rte_pktmbuf_free(m);
}

TEST_F(EngineFlags, LyingDescriptorsAreMalformedNotRead) {
    Engine e(test::engine_config(Mode::csum));
    const auto& c = find_case("v4_udp_300");
    const uint32_t lens[] = {100, static_cast<uint32_t>(c.bytes.size()) - 100};
    rte_mbuf* m = test::make_chain(pool(), c.bytes, lens);
    m->pkt_len += 500;  // more than the chain holds
    EXPECT_EQ(run_engine(e, m).error, "chain_shorter_than_pkt_len");
    m->pkt_len -= 500;
    m->nb_segs = 5;
    EXPECT_EQ(run_engine(e, m).error, "nb_segs_mismatch");
    m->nb_segs = 2;
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum

namespace csum {
namespace {

TEST_F(EngineFlags, Ipv6ExtensionHeadersAreNeverOffloaded) {
    Engine e(test::engine_config(Mode::fill));
    TxPortPolicy tx;
    tx.offloads = RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
    for (const char* name :
         {"v6_ext_hbh_dst_udp", "v6_atomic_fragment_udp", "v6_srh_final_dst_tcp"}) {
        const auto& c = find_case(name);
        rte_mbuf* m = test::make_linear(pool(), c.zeroed);
        EXPECT_EQ(run_engine(e, m, {}, tx).layers.find("offloaded"), std::string::npos) << name;
        EXPECT_EQ(test::chain_bytes(m), c.filled) << name;
        rte_pktmbuf_free(m);
    }
    const auto& plain = find_case("v6_udp_300");
    rte_mbuf* m = test::make_linear(pool(), plain.zeroed);
    EXPECT_EQ(run_engine(e, m, {}, tx).layers, "udp:offloaded");
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum

namespace csum {
namespace {

TEST_F(EngineFlags, PortVerifyMaskSkipsUncheckedKinds) {
    Engine e(test::engine_config(Mode::verify));
    RxPortPolicy rx;
    rx.verify_mask = 1u << static_cast<unsigned>(LayerProto::ipv4);
    const auto& c = find_case("v4_tcp_300/bad1");
    rte_mbuf* m = test::make_linear(pool(), c.bytes);
    const auto o = run_engine(e, m, rx);
    EXPECT_EQ(o.layers, "ipv4:good,tcp:skipped");
    EXPECT_EQ(e.stats().sum_bytes.get(), 20u);  // the IPv4 header only
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum

namespace csum {
namespace {

TEST_F(EngineFlags, DescriptorOffsetsAreNeverTrusted) {
    // A PMD's (or a virtio header's) offsets pointing past the data, with
    // "intact, fill me" flags: csumd works from its own parse only.
    for (const char* name : {"v4_tcp_17", "truncated_frame_tcp", "v6_udp_0"}) {
        const auto& c = find_case(name);
        for (Mode mode : {Mode::verify, Mode::fill, Mode::csum}) {
            Engine e(test::engine_config(mode));
            rte_mbuf* m = test::make_linear(pool(), c.bytes);
            m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_NONE | RTE_MBUF_F_RX_IP_CKSUM_NONE;
            m->l2_len = 127, m->l3_len = 511, m->l4_len = 255, m->outer_l2_len = 127,
            m->outer_l3_len = 511;
            m->packet_type = RTE_PTYPE_TUNNEL_VXLAN;
            const auto o = run_engine(e, m);
            EXPECT_EQ(o.error, c.error) << name;
            if (mode != Mode::verify && c.error == "none") {
                rte_mbuf* again = test::make_linear(pool(), test::chain_bytes(m));
                Engine v(test::engine_config(Mode::verify));
                EXPECT_EQ(run_engine(v, again).layers.find("bad"), std::string::npos) << name;
                rte_pktmbuf_free(again);
            }
            rte_pktmbuf_free(m);
        }
    }
}

// DPDK's pseudo-header preparation takes the IP header's addresses, and a
// device sums the L4 bytes to the frame's end: an IPv4 source route under
// way (the pseudo-header's destination is the route's last hop) and an
// Ethernet trailer after the IP packet stay in software. The route frame:
// LSRR with one hop to go, IPv4 and UDP fields garbled; scapy's and
// tshark's UDP checksum 0x4e59.
TEST_F(EngineFlags, SourceRoutesAndTrailersAreNeverOffloaded) {
    Engine e(test::engine_config(Mode::fill));
    TxPortPolicy tx;
    tx.offloads =
        RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
    const std::vector<uint8_t> route = test::from_hex(
        "02004e00000102004e00000208004700002e00010000401100000a4e00020a4e0001830704cb00710900"
        "03e807d00012123479797979797979797979");
    rte_mbuf* m = test::make_linear(pool(), route);
    const auto o = run_engine(e, m, {}, tx);
    EXPECT_EQ(o.layers, "ipv4:offloaded,udp:filled");
    const std::vector<uint8_t> out = test::chain_bytes(m);
    EXPECT_EQ(out[48], 0x4e);  // UDP at 14 + 28
    EXPECT_EQ(out[49], 0x59);
    EXPECT_EQ(m->ol_flags & RTE_MBUF_F_TX_L4_MASK, 0u);
    // Verified with a PMD's L4 word (net_tap sums with the header's
    // destination, so says BAD): the PMD's is about another pseudo-header.
    const std::vector<uint8_t> filled = test::chain_bytes(m);
    rte_pktmbuf_free(m);
    Engine v(test::engine_config(Mode::verify));
    for (uint64_t l4 : {RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_GOOD}) {
        std::vector<uint8_t> in = filled;
        if (l4 == RTE_MBUF_F_RX_L4_CKSUM_GOOD) in[49] ^= 0x01;  // wrong, whatever the PMD says
        m = test::make_linear(pool(), in);
        m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | l4;
        EXPECT_EQ(run_engine(v, m).layers,
                  l4 == RTE_MBUF_F_RX_L4_CKSUM_BAD ? "ipv4:good,udp:good" : "ipv4:good,udp:bad");
        rte_pktmbuf_free(m);
    }

    // A UDP/IPv4 frame with 4 trailer bytes after its IP packet.
    std::vector<uint8_t> trailed = find_case("v4_udp_300").bytes;
    trailed.insert(trailed.end(), {0xA5, 0x5A, 0xFF, 0x01});
    std::vector<uint8_t> garbled = trailed;
    garbled[40] ^= 0x5A;  // the UDP field
    m = test::make_linear(pool(), garbled);
    EXPECT_EQ(run_engine(e, m, {}, tx).layers, "ipv4:offloaded,udp:filled");
    EXPECT_EQ(test::chain_bytes(m), trailed);
    EXPECT_EQ(m->ol_flags & RTE_MBUF_F_TX_L4_MASK, 0u);
    rte_pktmbuf_free(m);

    // IPv4 options that route nowhere (NOPs, EOL; the general path): offloaded,
    // unless a trailer follows; then as software fills it.
    std::vector<uint8_t> nops = route;
    for (int i = 0; i < 8; ++i) nops[34 + i] = i < 7 ? 0x01 : 0x00;
    m = test::make_linear(pool(), nops);
    EXPECT_EQ(run_engine(e, m, {}, tx).layers, "ipv4:offloaded,udp:offloaded");
    rte_pktmbuf_free(m);
    nops.insert(nops.end(), {0x11, 0x22, 0x33});
    Engine sw(test::engine_config(Mode::fill));
    rte_mbuf* ms = test::make_linear(pool(), nops);
    EXPECT_EQ(run_engine(sw, ms).layers, "ipv4:filled,udp:filled");
    m = test::make_linear(pool(), nops);
    EXPECT_EQ(run_engine(e, m, {}, tx).layers, "ipv4:offloaded,udp:filled");
    std::vector<uint8_t> hw_out = test::chain_bytes(m), sw_out = test::chain_bytes(ms);
    hw_out[24] = hw_out[25] = sw_out[24] = sw_out[25] = 0;  // the IPv4 field: the device's
    EXPECT_EQ(hw_out, sw_out);
    rte_pktmbuf_free(m);
    rte_pktmbuf_free(ms);
}

// A PMD that names a tunnel (packet_type) but reports nothing of its outer
// headers may have checked only those: net_tap sets packet_type by
// rte_net_get_ptype, which names GRE and IP-in-IP, and its IP flag is the
// outer header's. Such flags are taken for no layer: a bad inner IPv4 header
// under IP GOOD is found bad. With OUTER_* flags beside them the PMD parsed
// the tunnel: IP/L4 GOOD then speak for the inner headers and are taken.
TEST_F(EngineFlags, TunnelFlagsWithoutOuterOnesAreTakenForNoLayer) {
    Engine e(test::engine_config(Mode::verify));
    const auto& gre = find_case("gre_csum_v4_udp/bad2");  // inner IPv4 bad
    rte_mbuf* m = test::make_linear(pool(), gre.bytes);
    m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_TUNNEL_GRE;
    auto o = run_engine(e, m);
    EXPECT_EQ(o.layers, "ipv4:good,gre:good,ipv4:bad,udp:unverifiable");
    EXPECT_EQ(o.ip_summed, "CHECKSUM_UNNECESSARY");  // the outer levels, as in software
    rte_pktmbuf_free(m);

    const auto& ipip = find_case("ipip_4in4_tcp");
    std::vector<uint8_t> bad = ipip.bytes;
    bad[14 + 20 + 10] ^= 0x11;  // the inner IPv4 header's field
    m = test::make_linear(pool(), bad);
    m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
    m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_TUNNEL_IP;
    o = run_engine(e, m);
    EXPECT_EQ(o.layers, "ipv4:good,ipv4:bad,tcp:unverifiable");
    rte_pktmbuf_free(m);

    // The PMD reports the outer UDP too: its inner GOOD flags are taken (the
    // inner TCP is wrong, and called good as the PMD said).
    const auto& vx = find_case("vxlan_csum_outer_tcp");
    std::vector<uint8_t> wrong = vx.bytes;
    wrong.back() ^= 0x01;
    m = test::make_linear(pool(), wrong);
    m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD |
                  RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
    m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_TUNNEL_VXLAN;
    o = run_engine(e, m);
    EXPECT_EQ(o.layers, "ipv4:good,udp:good,ipv4:good,tcp:good");
    rte_pktmbuf_free(m);
    // The same flags without the outer one: software finds the inner TCP bad
    // (and the outer UDP, which covers it).
    m = test::make_linear(pool(), wrong);
    m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_TUNNEL_VXLAN;
    o = run_engine(e, m);
    EXPECT_EQ(o.layers, "ipv4:good,udp:bad,ipv4:good,tcp:bad");
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum
