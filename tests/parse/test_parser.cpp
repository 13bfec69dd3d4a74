// The layer walker on hand-built headers, judged by its ParseResult: which
// checksum layers it found, which it could already name (malformed,
// unverifiable, ...), the named error, and where pseudo-headers point.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <rte_mbuf.h>

#include "parse/parser.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::Bytes;

// "proto[:status]" per layer (status only when the parser preset it), then "!error".
std::string describe(const ParseResult& r) {
    std::string s;
    for (int i = 0; i < r.n; ++i) {
        if (i) s += ",";
        s += to_string(r.layer[i].proto);
        if (r.layer[i].preset) s.append(":").append(to_string(r.layer[i].status));
    }
    if (r.error != ParseError::none) s.append("!").append(to_string(r.error));
    return s;
}

Bytes cat(const Bytes& a, std::span<const uint8_t> b) {
    Bytes out(a.size() + b.size());
    std::copy(a.begin(), a.end(), out.begin());
    std::copy(b.begin(), b.end(), out.begin() + static_cast<ptrdiff_t>(a.size()));
    return out;
}

// IPv4 with options and a fragment field (flags and offset).
Bytes ipv4x(std::span<const uint8_t> opts, uint8_t proto, std::span<const uint8_t> payload,
            uint16_t frag = 0) {
    Bytes h(20, 0);
    h[0] = static_cast<uint8_t>(0x40 | (20 + opts.size()) / 4);
    const size_t total = 20 + opts.size() + payload.size();
    h[2] = static_cast<uint8_t>(total >> 8), h[3] = static_cast<uint8_t>(total);
    h[6] = static_cast<uint8_t>(frag >> 8), h[7] = static_cast<uint8_t>(frag);
    h[8] = 64, h[9] = proto;
    std::copy(test::kSrc4.begin(), test::kSrc4.end(), &h[12]);
    std::copy(test::kDst4.begin(), test::kDst4.end(), &h[16]);
    h = cat(h, opts);
    const uint16_t c = test::ref_cksum(h);
    h[10] = static_cast<uint8_t>(c >> 8), h[11] = static_cast<uint8_t>(c);
    return cat(h, payload);
}

Bytes udp4(size_t n = 16, uint16_t dport = 2000) {
    return test::udp(test::kSrc4, test::kDst4, 1000, dport, Bytes(n, 0x42));
}
Bytes udp6(size_t n = 16) {
    return test::udp(test::kSrc6, test::kDst6, 1000, 2000, Bytes(n, 0x42));
}
Bytes v4(uint8_t proto, std::span<const uint8_t> payload) {
    return test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, proto, payload));
}
Bytes v6(uint8_t next, std::span<const uint8_t> payload) {
    return test::eth(0x86DD, test::ipv6(test::kSrc6, test::kDst6, next, payload));
}
// An IPv6 extension header: next, length byte, then body (padded by caller).
Bytes ext(uint8_t next, uint8_t len_byte, std::span<const uint8_t> body) {
    Bytes h{next, len_byte};
    return cat(h, body);
}

class Parser : public test::MbufTest {
  protected:
    ParseResult parse(const Bytes& frame, const ParserConfig& cfg = {}) {
        rte_mbuf* m = test::make_linear(pool(), frame);
        EXPECT_NE(m, nullptr);
        ParseResult r;
        parse_packet(m, cfg, &r);
        rte_pktmbuf_free(m);
        return r;
    }
    std::string run(const Bytes& frame, const ParserConfig& cfg = {}) {
        return describe(parse(frame, cfg));
    }
};

TEST_F(Parser, TooManyLayersKeepsTheFirstTwentyFour) {
    ParserConfig deep;
    deep.max_depth = 255;
    // IPv4 + GRE-with-checksum per level: 12 levels fill all 24 places.
    Bytes p = test::ipv4(test::kSrc4, test::kDst4, 17, udp4());
    for (int i = 0; i < 12; ++i)
        p = test::ipv4(test::kSrc4, test::kDst4, 47, test::gre(0x0800, p, true));
    ParseResult r = parse(test::eth(0x0800, p), deep);
    EXPECT_EQ(r.error, ParseError::too_many_layers);
    EXPECT_EQ(r.n, kMaxParsedLayers);
    EXPECT_EQ(r.layer[23].proto, LayerProto::gre);
    EXPECT_EQ(r.layer[23].depth, 11);
    // One level fewer fits exactly: IPv4 and UDP take the last two places.
    Bytes q = test::ipv4(test::kSrc4, test::kDst4, 17, udp4());
    for (int i = 0; i < 11; ++i)
        q = test::ipv4(test::kSrc4, test::kDst4, 47, test::gre(0x0800, q, true));
    r = parse(test::eth(0x0800, q), deep);
    EXPECT_EQ(r.error, ParseError::none);
    EXPECT_EQ(r.n, kMaxParsedLayers);
    EXPECT_EQ(r.layer[23].proto, LayerProto::udp);
    // The last place taken by an IPv4 header: TCP, UDP, SCTP and ICMP have no room.
    for (uint8_t proto : {6, 17, 132, 1}) {
        Bytes l4(40, 0);
        l4[12] = 0x50;            // a TCP data offset of 20
        l4[4] = 0, l4[5] = 40;    // a UDP length of 40
        l4[14] = 0, l4[15] = 28;  // an SCTP chunk of 28 bytes
        Bytes s = test::ipv4(test::kSrc4, test::kDst4, proto, l4);
        for (int i = 0; i < 23; ++i) s = test::ipv4(test::kSrc4, test::kDst4, 4, s);
        r = parse(test::eth(0x0800, s), deep);
        EXPECT_EQ(r.error, ParseError::too_many_layers) << int(proto);
        EXPECT_EQ(r.n, kMaxParsedLayers) << int(proto);
    }
}

TEST_F(Parser, DepthCapComesFirstOnEveryKindOfTunnel) {
    ParserConfig flat;
    flat.max_depth = 0;
    const Bytes inner = test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 17, udp4()));
    EXPECT_EQ(run(v4(47, test::gre(0x6558, inner, false)), flat), "ipv4!tunnel_too_deep");
    EXPECT_EQ(run(v4(17, test::udp(test::kSrc4, test::kDst4, 1, 4789, test::vxlan(inner))), flat),
              "ipv4,udp!tunnel_too_deep");
    Bytes sctp(16, 0);
    sctp[14] = 0, sctp[15] = 4;
    EXPECT_EQ(run(v4(17, test::udp(test::kSrc4, test::kDst4, 1, 9899, sctp)), flat),
              "ipv4,udp!tunnel_too_deep");
    EXPECT_EQ(run(v4(4, test::ipv4(test::kSrc4, test::kDst4, 17, udp4())), flat),
              "ipv4!tunnel_too_deep");
    // GRE carrying Ethernet (TEB) is walked to the inner frame's checksums.
    EXPECT_EQ(run(v4(47, test::gre(0x6558, inner, true))), "ipv4,gre,ipv4,udp");
}

TEST_F(Parser, Ipv4OptionsChooseThePseudoHeaderDestination) {
    const uint32_t hdr_dst = 14 + 16;
    struct Case {
        const char* name;
        Bytes opts;
        uint32_t dst_off;
    };
    const Case cases[] = {
        // Record Route, then a Loose Source Route already finished (pointer past it).
        {"finished lsrr", {7, 7, 4, 0, 0, 0, 0, 131, 7, 8, 9, 9, 9, 9, 0, 0}, hdr_dst},
        // NOP, then an unfinished Strict Source Route: its last address is final.
        {"unfinished ssrr", {1, 137, 11, 4, 8, 8, 8, 8, 9, 9, 9, 9}, 14 + 20 + 1 + 3 + 4},
        {"length past the header", {7, 40, 4, 0}, hdr_dst},
        {"length below 2", {7, 1, 4, 0}, hdr_dst},
        {"type in the last byte", {1, 1, 1, 7}, hdr_dst},
        {"route too short to hold one address", {131, 3, 4, 0}, hdr_dst},
        {"end of list", {0, 131, 7, 4}, hdr_dst},
    };
    for (const Case& c : cases) {
        const ParseResult r = parse(test::eth(0x0800, ipv4x(c.opts, 17, udp4())));
        ASSERT_EQ(describe(r), "ipv4,udp") << c.name;
        EXPECT_EQ(r.layer[0].len, 20 + c.opts.size()) << c.name;
        EXPECT_EQ(r.layer[1].dst_off, c.dst_off) << c.name;
        EXPECT_EQ(r.layer[1].src_off, 14 + 12u) << c.name;
    }
}

TEST_F(Parser, Ipv4FragmentsJudgeOnlyWhatTheyHold) {
    constexpr uint16_t kMf = 0x2000;
    Bytes sctp(16, 0);
    sctp[14] = 0, sctp[15] = 4;
    // First fragments: the L4 sum covers bytes that are elsewhere.
    EXPECT_EQ(run(test::eth(0x0800, ipv4x({}, 132, sctp, kMf))), "ipv4,sctp:unverifiable");
    EXPECT_EQ(run(test::eth(0x0800, ipv4x({}, 1, Bytes(8, 0), kMf))), "ipv4,icmp:unverifiable");
    EXPECT_EQ(run(test::eth(0x0800, ipv4x({}, 17, udp4(), kMf))), "ipv4,udp:unverifiable");
    EXPECT_EQ(run(test::eth(0x0800, ipv4x({}, 6, Bytes(20, 0x50), kMf))), "ipv4,tcp:unverifiable");
    // A tunnel cut in two is not entered.
    EXPECT_EQ(run(test::eth(0x0800, ipv4x({}, 47, test::gre(0x0800, Bytes(40, 0), true), kMf))),
              "ipv4");
    EXPECT_EQ(run(test::eth(0x0800, ipv4x({}, 4, Bytes(40, 0), kMf))), "ipv4");
    // Later fragments hold no L4 header at all.
    EXPECT_EQ(run(test::eth(0x0800, ipv4x({}, 17, udp4(), 0x0010))), "ipv4");
}

TEST_F(Parser, IcmpOfTheOtherFamilyIsNotAChecksum) {
    EXPECT_EQ(run(v6(1, Bytes(8, 0))), "");
    EXPECT_EQ(run(v4(58, Bytes(8, 0))), "ipv4");
    EXPECT_EQ(run(v4(1, Bytes(3, 0))), "ipv4,icmp:malformed!icmp_truncated");
    EXPECT_EQ(run(v6(58, Bytes(8, 0))), "icmpv6");
}

TEST_F(Parser, Ipv6HeadersThatLie) {
    Bytes jumbo = v6(17, udp6());
    jumbo[14 + 4] = jumbo[14 + 5] = 0;  // payload length 0: a jumbogram
    EXPECT_EQ(run(jumbo), "!ipv6_jumbogram");
    // A Destination Options header claiming 88 bytes in a 24-byte payload.
    EXPECT_EQ(run(v6(60, ext(17, 10, Bytes(22, 0)))), "!ipv6_ext_truncated");
    // A type 2 routing header must hold exactly one address (length 2).
    Bytes rh2{17, 4, 2, 1, 0, 0, 0, 0};
    rh2.resize(40, 0);
    EXPECT_EQ(run(v6(43, cat(rh2, udp6()))), "!ipv6_ext_truncated");
    // Type 0 with segments left: the final destination is unknown.
    Bytes rh0{17, 2, 0, 1, 0, 0, 0, 0};
    rh0.resize(24, 0);
    EXPECT_EQ(run(v6(43, cat(rh0, udp6()))), "udp:unverifiable");
    // Hop-by-hop anywhere but first.
    EXPECT_EQ(run(v6(60, cat(ext(0, 0, Bytes(6, 0)), ext(17, 0, Bytes(6, 0))))),
              "!ipv6_ext_truncated");
}

TEST_F(Parser, Ipv6FragmentAndAuthenticationHeaders) {
    auto frag = [](uint16_t fo) {
        return Bytes{17, 0, static_cast<uint8_t>(fo >> 8), static_cast<uint8_t>(fo), 0, 0, 0, 1};
    };
    EXPECT_EQ(run(v6(44, cat(frag(0x0000), udp6()))), "udp");  // atomic: not fragmented
    EXPECT_EQ(run(v6(44, cat(frag(0x0001), udp6()))), "udp:unverifiable");  // first of several
    EXPECT_EQ(run(v6(44, cat(frag(0x0008), udp6()))), "");                  // a later fragment
    // AH: length in 4-byte units, minus 2.
    Bytes ah = ext(17, 4, Bytes(22, 0));
    const ParseResult r = parse(v6(51, cat(ah, udp6())));
    ASSERT_EQ(describe(r), "udp");
    EXPECT_EQ(r.layer[0].off, 14 + 40 + 24u);
    EXPECT_EQ(r.tx.l3_len, 40 + 24);
    // No next header after an extension header.
    EXPECT_EQ(run(v6(60, ext(59, 0, Bytes(6, 0)))), "");
}

TEST_F(Parser, TunnelHeadersThatLie) {
    auto over_udp = [](uint16_t dport, const Bytes& body) {
        return v4(17, test::udp(test::kSrc4, test::kDst4, 1, dport, body));
    };
    EXPECT_EQ(run(over_udp(4789, Bytes(6, 0))), "ipv4,udp!vxlan_truncated");
    EXPECT_EQ(run(over_udp(6081, Bytes(6, 0))), "ipv4,udp!geneve_truncated");
    Bytes geneve{0x04, 0, 0x08, 0x00, 0, 0, 1, 0};  // 16 bytes of options announced
    EXPECT_EQ(run(over_udp(6081, cat(geneve, Bytes(8, 0)))), "ipv4,udp!geneve_bad_opt_len");
    Bytes geneve_arp{0, 0, 0x08, 0x06, 0, 0, 1, 0};  // not IP: nothing inside to judge
    EXPECT_EQ(run(over_udp(6081, cat(geneve_arp, Bytes(28, 0)))), "ipv4,udp");
    EXPECT_EQ(run(over_udp(4754, Bytes{0, 0, 0x08})), "ipv4,udp!gre_truncated");
    EXPECT_EQ(run(v4(47, Bytes{0x00, 0x01, 0x08, 0x00, 0, 0, 0, 0})), "ipv4!gre_bad_version");
    // Checksum, key and sequence announced: 16 bytes of header, 10 present.
    EXPECT_EQ(run(v4(47, Bytes{0xB0, 0x00, 0x08, 0x00, 0, 0, 0, 0, 0, 0})), "ipv4!gre_truncated");
    EXPECT_EQ(run(over_udp(9899, Bytes(8, 0))), "ipv4,udp,sctp:malformed!sctp_truncated");
}

TEST_F(Parser, TransportHeadersThatLie) {
    EXPECT_EQ(run(v4(6, Bytes(19, 0))), "ipv4,tcp:malformed!tcp_truncated");
    Bytes doff4(20, 0);
    doff4[12] = 0x40;
    EXPECT_EQ(run(v4(6, doff4)), "ipv4,tcp:malformed!tcp_bad_data_offset");
    EXPECT_EQ(run(v4(17, Bytes(7, 0))), "ipv4,udp:malformed!udp_truncated");
    EXPECT_EQ(run(v4(132, Bytes(11, 0))), "ipv4,sctp:malformed!sctp_truncated");
}

TEST_F(Parser, VlanTags) {
    const Bytes ip = test::ipv4(test::kSrc4, test::kDst4, 17, udp4());
    auto tagged = [&](int tags) {
        Bytes f{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
        for (int i = 0; i < tags; ++i) f = cat(f, Bytes{0x81, 0x00, 0x00, 0x01});
        return cat(cat(f, Bytes{0x08, 0x00}), ip);
    };
    EXPECT_EQ(run(tagged(1)), "ipv4,udp");
    EXPECT_EQ(run(tagged(2)), "ipv4,udp");
    EXPECT_EQ(run(tagged(3)), "");  // a stack we do not parse: nothing judged
    Bytes cut = test::eth(0x8100, Bytes{0, 1});
    EXPECT_EQ(run(cut), "!l2_truncated");
}

TEST_F(Parser, DescriptorsThatLieAreNamedBeforeAnyHeaderIsRead) {
    const Bytes f = v4(17, udp4());
    rte_mbuf* m = test::make_linear(pool(), f);
    ParseResult r;
    m->nb_segs = 2;  // one segment, no next
    parse_packet(m, {}, &r);
    EXPECT_EQ(describe(r), "!nb_segs_mismatch");
    m->nb_segs = 1;
    m->pkt_len = m->data_len + 1;
    parse_packet(m, {}, &r);
    EXPECT_EQ(describe(r), "!chain_shorter_than_pkt_len");
    m->pkt_len = m->data_len;
    parse_packet(m, {}, &r);
    EXPECT_EQ(describe(r), "ipv4,udp");
    rte_pktmbuf_free(m);
}

TEST_F(Parser, SplitHeadersParseAsLinearOnes) {
    // The plain shapes with their headers cut anywhere across two segments
    // (and a zero-length one) give the general walker's result, the same as linear.
    const Bytes payload(50, 0x33);
    const Bytes frames[] = {
        v4(6, test::tcp(test::kSrc4, test::kDst4, 1, 2, 3, 0x10, payload)),
        v4(17, test::udp(test::kSrc4, test::kDst4, 1, 2, payload)),
        v6(6, test::tcp(test::kSrc6, test::kDst6, 1, 2, 3, 0x10, payload)),
        v6(17, test::udp(test::kSrc6, test::kDst6, 1, 2, payload)),
    };
    for (const Bytes& f : frames) {
        const ParseResult lin = parse(f);
        ASSERT_EQ(lin.error, ParseError::none);
        for (uint32_t cut = 1; cut < 80; ++cut) {
            const uint32_t lens[] = {cut, 0, static_cast<uint32_t>(f.size()) - cut};
            rte_mbuf* m = test::make_chain(pool(), f, lens);
            ASSERT_NE(m, nullptr);
            ParseResult r;
            parse_packet(m, {}, &r);
            rte_pktmbuf_free(m);
            ASSERT_EQ(describe(r), describe(lin)) << cut;
            for (int i = 0; i < r.n; ++i) {
                EXPECT_EQ(r.layer[i].off, lin.layer[i].off) << cut;
                EXPECT_EQ(r.layer[i].len, lin.layer[i].len) << cut;
                EXPECT_EQ(r.layer[i].field_off, lin.layer[i].field_off) << cut;
                EXPECT_EQ(r.layer[i].dst_off, lin.layer[i].dst_off) << cut;
            }
            EXPECT_EQ(r.tx.l4_len, lin.tx.l4_len) << cut;
        }
    }
}

TEST_F(Parser, NvmeSegmentsAreDescribedForTheTracker) {
    const Bytes payload(30, 0x77);
    struct Case {
        Bytes frame;
        bool v6;
        uint16_t sport, dport;
    };
    const Case cases[] = {
        {v4(6, test::tcp(test::kSrc4, test::kDst4, 4420, 50000, 0x01020304, 0x18, payload)), false,
         4420, 50000},
        {v6(6, test::tcp(test::kSrc6, test::kDst6, 50000, 4420, 0x01020304, 0x18, payload)), true,
         50000, 4420},
    };
    for (const Case& c : cases) {
        const ParseResult r = parse(c.frame);
        ASSERT_TRUE(r.tcp.present);
        EXPECT_EQ(r.tcp.v6, c.v6);
        EXPECT_EQ(r.tcp.sport, c.sport);
        EXPECT_EQ(r.tcp.dport, c.dport);
        EXPECT_EQ(r.tcp.seq, 0x01020304u);
        EXPECT_EQ(r.tcp.flags, 0x18);
        EXPECT_EQ(r.tcp.payload_len, payload.size());
        EXPECT_EQ(r.tcp.payload_off, c.frame.size() - payload.size());
        EXPECT_EQ(r.layer[r.tcp.layer].proto, LayerProto::tcp);
        if (c.v6) {
            EXPECT_TRUE(std::equal(test::kSrc6.begin(), test::kSrc6.end(), r.tcp.src.begin()));
            EXPECT_TRUE(std::equal(test::kDst6.begin(), test::kDst6.end(), r.tcp.dst.begin()));
        } else {
            EXPECT_TRUE(std::equal(test::kSrc4.begin(), test::kSrc4.end(), r.tcp.src.begin()));
            EXPECT_TRUE(std::equal(test::kDst4.begin(), test::kDst4.end(), r.tcp.dst.begin()));
        }
    }
    // Port 4420 means nothing when no NVMe port is configured.
    ParserConfig none;
    none.nvme_ports = PortSet{};
    EXPECT_FALSE(parse(cases[0].frame, none).tcp.present);
    EXPECT_EQ(describe(parse(cases[0].frame, none)), "ipv4,tcp");
}

}  // namespace
}  // namespace csum
