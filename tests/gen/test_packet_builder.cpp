// Every generated profile parses cleanly, and fill makes it verify.
#include <gtest/gtest.h>

#include "csum/engine.h"
#include "gen/packet_builder.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class PacketBuilder : public test::MbufTest {};

std::string layers_of(const rte_mbuf* m, int field) {
    const PacketVerdict* v = verdict_of(m, field);
    std::string s;
    for (int i = 0; i < v->n_layers; ++i)
        s += std::string(i ? "," : "") + std::string(to_string(v->layer(i).proto)) + ":" +
             std::string(to_string(v->layer(i).status));
    return s;
}

TEST_F(PacketBuilder, EveryProfileFillsAndVerifies) {
    EngineConfig fc, vc;
    fc.mode = Mode::fill;
    vc.mode = Mode::verify;
    Engine fill(fc), verify(vc);
    const std::pair<gen::Proto, const char*> protos[] = {
        {gen::Proto::tcp4, "ipv4:good,tcp:good"},
        {gen::Proto::udp4, "ipv4:good,udp:good"},
        {gen::Proto::tcp6, "tcp:good"},
        {gen::Proto::udp6, "udp:good"},
        {gen::Proto::icmp4, "ipv4:good,icmp:good"},
        {gen::Proto::sctp4, "ipv4:good,sctp:good"},
        {gen::Proto::vxlan_tcp4, "ipv4:good,udp:good,ipv4:good,tcp:good"},
        {gen::Proto::geneve_tcp4, "ipv4:good,udp:good,ipv4:good,tcp:good"},
        {gen::Proto::vxlan6_tcp4, "udp:good,ipv4:good,tcp:good"},
    };
    for (auto [proto, expect] : protos) {
        for (uint32_t len : {60u, 64u, 128u, 256u, 512u, 1420u, 2000u}) {
            for (uint16_t chunks : {1, 4}) {
                gen::PacketSpec spec{proto, len, chunks, 3};
                auto bytes = gen::build_frame(spec);
                ASSERT_GE(bytes.size(), len);
                rte_mbuf* m = test::make_linear(pool(), bytes);
                ASSERT_NE(m, nullptr);
                rte_mbuf* one[1] = {m};
                fill.process({}, {}, one, 1);
                verify.process({}, {}, one, 1);
                EXPECT_EQ(layers_of(m, verify.verdict_field()), expect)
                    << gen::to_string(proto) << " " << len << " chunks " << chunks;
                rte_pktmbuf_free(m);
            }
        }
    }
}

TEST_F(PacketBuilder, NamesRoundTrip) {
    for (int i = 0; i < int(gen::kNumProtos); ++i) {
        gen::Proto p{};
        ASSERT_TRUE(gen::proto_from_name(gen::to_string(static_cast<gen::Proto>(i)), &p));
        EXPECT_EQ(static_cast<int>(p), i);
    }
    gen::Proto p{};
    EXPECT_FALSE(gen::proto_from_name("tcp5", &p));
}

}  // namespace
}  // namespace csum
