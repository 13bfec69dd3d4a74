// A PMD's checksum flags on tunnelled packets. One that recognised the tunnel
// (packet_type has a TUNNEL bit) reports the inner headers in IP/L4 flags and
// the outer ones in OUTER_IP_CKSUM_BAD and OUTER_L4_CKSUM_*; one that did not
// can only have looked at the outer headers.
#include <gtest/gtest.h>

#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>

#include "case_file.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::Bytes;

constexpr uint32_t kVxlanPtype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP |
                                 RTE_PTYPE_TUNNEL_VXLAN | RTE_PTYPE_INNER_L3_IPV4 |
                                 RTE_PTYPE_INNER_L4_TCP;
constexpr size_t kOuterUdpCsum = 14 + 20 + 6;
constexpr size_t kInnerTcpCsum = 14 + 20 + 8 + 8 + 14 + 20 + 16;

Bytes payload(size_t n) {
    Bytes p(n);
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(i * 13 + 5);
    return p;
}

// Eth/IPv4/UDP(4789, checksummed)/VXLAN/Eth/IPv4/TCP; the inner TCP checksum
// may be left zero (what a sender relying on offload leaves).
Bytes vxlan_frame(bool inner_tcp_zero = false) {
    Bytes t = test::tcp(test::kSrc4, test::kDst4, 1234, 80, 1, 0x18, payload(300));
    if (inner_tcp_zero) t[16] = t[17] = 0;
    const Bytes inner = test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 6, t));
    const test::V4 os{192, 168, 0, 1}, od{192, 168, 0, 2};
    return test::eth(0x0800,
                     test::ipv4(os, od, 17, test::udp(os, od, 5555, 4789, test::vxlan(inner))));
}

class TunnelFlags : public test::MbufTest {
  protected:
    test::Outcome run(Engine& e, const Bytes& frame, uint64_t ol_flags, uint32_t ptype,
                      Bytes* out = nullptr) {
        rte_mbuf* m = test::make_linear(pool(), frame);
        EXPECT_NE(m, nullptr);
        m->ol_flags = ol_flags;
        m->packet_type = ptype;
        test::Outcome o = test::run_engine(e, m);
        if (out) *out = test::chain_bytes(m);
        rte_pktmbuf_free(m);
        return o;
    }
};

constexpr uint64_t kInnerGood = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;

TEST_F(TunnelFlags, OuterIpBadMakesEverythingBelowUnverifiable) {
    Engine e(test::engine_config(Mode::verify));
    const auto o =
        run(e, vxlan_frame(), kInnerGood | RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD, kVxlanPtype);
    EXPECT_EQ(o.layers, "ipv4:bad,udp:unverifiable,ipv4:unverifiable,tcp:unverifiable");
    EXPECT_EQ(o.ip_summed, "CHECKSUM_NONE");
    EXPECT_EQ(e.stats().layer[int(LayerProto::ipv4)][int(LayerStatus::bad)].get(), 1u);
    EXPECT_EQ(e.stats().sum_bytes.get(), 0u);  // the PMD's word, nothing read
}

TEST_F(TunnelFlags, OuterL4FlagsSpeakForTheOuterUdp) {
    Engine e(test::engine_config(Mode::verify));
    EXPECT_EQ(
        run(e, vxlan_frame(), kInnerGood | RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD, kVxlanPtype).layers,
        "ipv4:good,udp:bad,ipv4:good,tcp:good");
    // GOOD is taken as the PMD's word: a wrong outer sum is not re-read.
    Bytes wrong = vxlan_frame();
    test::flip(wrong, kOuterUdpCsum);
    const auto o = run(e, wrong, kInnerGood | RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD, kVxlanPtype);
    EXPECT_EQ(o.layers, "ipv4:good,udp:good,ipv4:good,tcp:good");
    EXPECT_EQ(o.ip_summed, "CHECKSUM_UNNECESSARY");
    EXPECT_EQ(o.csum_level, 1);
}

TEST_F(TunnelFlags, OuterL4UnknownOrInvalidIsVerifiedInSoftware) {
    Bytes wrong = vxlan_frame();
    test::flip(wrong, kOuterUdpCsum);
    for (uint64_t f : {uint64_t{RTE_MBUF_F_RX_OUTER_L4_CKSUM_UNKNOWN},
                       uint64_t{RTE_MBUF_F_RX_OUTER_L4_CKSUM_INVALID}}) {
        Engine e(test::engine_config(Mode::verify));
        EXPECT_EQ(run(e, vxlan_frame(), kInnerGood | f, kVxlanPtype).layers,
                  "ipv4:good,udp:good,ipv4:good,tcp:good");
        EXPECT_GT(e.stats().sum_bytes.get(), 300u);  // the outer sum read the payload
        EXPECT_EQ(run(e, wrong, kInnerGood | f, kVxlanPtype).layers,
                  "ipv4:good,udp:bad,ipv4:good,tcp:good");
    }
}

TEST_F(TunnelFlags, WithoutATunnelPtypeTheFlagsAreTheOuterHeaders) {
    Engine e(test::engine_config(Mode::verify));
    // The PMD did not see the tunnel: its IP/L4 flags judged the outer headers.
    EXPECT_EQ(run(e, vxlan_frame(), RTE_MBUF_F_RX_IP_CKSUM_BAD, 0).layers,
              "ipv4:bad,udp:unverifiable,ipv4:unverifiable,tcp:unverifiable");
    EXPECT_EQ(run(e, vxlan_frame(), RTE_MBUF_F_RX_L4_CKSUM_BAD, 0).layers,
              "ipv4:good,udp:bad,ipv4:good,tcp:good");
    // OUTER_* flags mean nothing then; every layer is verified in software.
    Bytes bad_inner = vxlan_frame();
    test::flip(bad_inner, kInnerTcpCsum);
    EXPECT_EQ(
        run(e, bad_inner, RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD | RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD, 0)
            .layers,
        "ipv4:good,udp:bad,ipv4:good,tcp:bad");  // the outer sum covers the inner field
}

TEST_F(TunnelFlags, OuterIpBadNeverLandsOnTheOnlyIpv4Header) {
    // IPv6 outside, IPv4 inside: OUTER_IP_CKSUM_BAD has no IPv4 header to speak for.
    const Bytes inner =
        test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 17,
                                     test::udp(test::kSrc4, test::kDst4, 7, 9, payload(64))));
    const Bytes f = test::eth(
        0x86DD, test::ipv6(test::kSrc6, test::kDst6, 17,
                           test::udp(test::kSrc6, test::kDst6, 5555, 4789, test::vxlan(inner))));
    Engine e(test::engine_config(Mode::verify));
    const uint32_t ptype = RTE_PTYPE_L3_IPV6 | RTE_PTYPE_TUNNEL_VXLAN;
    EXPECT_EQ(run(e, f, RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD, ptype).layers,
              "udp:good,ipv4:good,udp:good");
    EXPECT_EQ(
        run(e, f, RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD | RTE_MBUF_F_RX_IP_CKSUM_BAD, ptype).layers,
        "udp:good,ipv4:bad,udp:unverifiable");
}

TEST_F(TunnelFlags, L4FlagsWithoutAnyL4LayerAreIgnored) {
    // IPv4/GRE/IPv4/ICMP: no TCP, UDP or SCTP for an L4 flag to speak for.
    Bytes icmp{8, 0, 0, 0, 0, 1, 0, 1};
    const Bytes data = payload(40);
    icmp.insert(icmp.end(), data.begin(), data.end());
    const uint16_t c = test::ref_cksum(icmp);
    icmp[2] = static_cast<uint8_t>(c >> 8), icmp[3] = static_cast<uint8_t>(c);
    const Bytes f = test::eth(
        0x0800,
        test::ipv4(test::kSrc4, test::kDst4, 47,
                   test::gre(0x0800, test::ipv4(test::kSrc4, test::kDst4, 1, icmp), false)));
    Engine e(test::engine_config(Mode::verify));
    const uint32_t ptype = RTE_PTYPE_L3_IPV4 | RTE_PTYPE_TUNNEL_GRE;
    EXPECT_EQ(
        run(e, f, RTE_MBUF_F_RX_L4_CKSUM_BAD | RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD, ptype).layers,
        "ipv4:good,ipv4:good,icmp:good");
}

TEST_F(TunnelFlags, InnerFillUpdatesAnOuterSumThePmdCalledGood) {
    // csum mode: the inner TCP left unfilled (L4 NONE), the outer UDP GOOD.
    // Filling the inner field changes what the outer sum covers: the outer
    // checksum is recomputed, over a region wider than the one just summed.
    Engine e(test::engine_config(Mode::csum));
    Bytes out;
    const auto o = run(e, vxlan_frame(true),
                       RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_NONE |
                           RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
                       kVxlanPtype, &out);
    EXPECT_EQ(o.layers, "ipv4:good,udp:good,ipv4:good,tcp:filled");
    EXPECT_EQ(out, vxlan_frame(false));
    EXPECT_EQ(e.stats().sw_filled.get(), 1u);
}

}  // namespace
}  // namespace csum
