// Packets whose sums cannot be computed: an mbuf chain holding fewer bytes
// than pkt_len, or nb_segs that disagree with the chain; and packets with
// more checksummed layers than the parser keeps (too_many_layers). Every
// mode names the error, counts it, writes nothing, and (drop_bad) drops it.
#include <gtest/gtest.h>

#include <algorithm>

#include <rte_mbuf.h>

#include "case_file.h"
#include "support/chain_builder.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::Bytes;

Bytes udp_frame() {
    Bytes p(400);
    for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<uint8_t>(i);
    return test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 17,
                                        test::udp(test::kSrc4, test::kDst4, 1000, 2000, p)));
}

// Nested IPv4-in-GRE (with checksum) levels around an IPv4/UDP packet.
Bytes gre_nest(int levels) {
    Bytes p(32, 0xA5);
    Bytes inner =
        test::ipv4(test::kSrc4, test::kDst4, 17, test::udp(test::kSrc4, test::kDst4, 1, 2, p));
    for (int i = 0; i < levels; ++i)
        inner = test::ipv4(test::kSrc4, test::kDst4, 47, test::gre(0x0800, inner, true));
    return test::eth(0x0800, inner);
}

struct Lie {
    const char* name;
    ParseError error;
    void (*apply)(rte_mbuf*);
    void (*undo)(rte_mbuf*);
};

const Lie kLies[] = {
    {"pkt_len past the chain", ParseError::chain_shorter_than_pkt_len,
     [](rte_mbuf* m) { m->pkt_len += 100; }, [](rte_mbuf* m) { m->pkt_len -= 100; }},
    {"last segment cut", ParseError::chain_shorter_than_pkt_len,
     [](rte_mbuf* m) { rte_pktmbuf_lastseg(m)->data_len -= 1; },
     [](rte_mbuf* m) { rte_pktmbuf_lastseg(m)->data_len += 1; }},
    {"nb_segs too high", ParseError::nb_segs_mismatch, [](rte_mbuf* m) { m->nb_segs += 1; },
     [](rte_mbuf* m) { m->nb_segs -= 1; }},
    {"nb_segs too low", ParseError::nb_segs_mismatch, [](rte_mbuf* m) { m->nb_segs -= 1; },
     [](rte_mbuf* m) { m->nb_segs += 1; }},
    {"first segment past its buffer", ParseError::segment_past_buffer,
     [](rte_mbuf* m) { test::shrink_buffer(m); }, [](rte_mbuf* m) { test::restore_buffer(m); }},
    {"empty middle segment past its buffer", ParseError::segment_past_buffer,
     [](rte_mbuf* m) { test::shrink_buffer(m->next); },
     [](rte_mbuf* m) { test::restore_buffer(m->next); }},
    {"last segment past its buffer", ParseError::segment_past_buffer,
     [](rte_mbuf* m) { test::shrink_buffer(rte_pktmbuf_lastseg(m)); },
     [](rte_mbuf* m) { test::restore_buffer(rte_pktmbuf_lastseg(m)); }},
};

class DescriptorLies : public test::MbufTest {};

TEST_F(DescriptorLies, EveryModeNamesTheErrorAndWritesNothing) {
    const Bytes f = udp_frame();
    const uint32_t lens[] = {100, 0, static_cast<uint32_t>(f.size()) - 100};
    for (const Lie& lie : kLies) {
        for (Mode mode : {Mode::verify, Mode::fill, Mode::csum}) {
            for (bool fast : {true, false}) {
                EngineConfig c;
                c.mode = mode;
                c.plain_fast_path = fast;
                Engine e(c);
                rte_mbuf* m = test::make_chain(pool(), f, lens);
                ASSERT_NE(m, nullptr);
                lie.apply(m);
                const auto o = test::run_engine(e, m, {}, TxPortPolicy{~0ull});
                const std::string what = std::string(lie.name) + " " +
                                         std::string(to_string(mode)) + (fast ? " fast" : "");
                EXPECT_EQ(o.error, to_string(lie.error)) << what;
                EXPECT_EQ(o.layers, "") << what;
                EXPECT_EQ(o.ip_summed, "CHECKSUM_NONE") << what;
                EXPECT_TRUE(o.forwarded) << what;
                EXPECT_EQ(m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK, 0u) << what;
                EXPECT_EQ(e.stats().parse_error[int(lie.error)].get(), 1u) << what;
                EXPECT_EQ(e.stats().sum_bytes.get(), 0u) << what;
                EXPECT_EQ(e.stats().sw_filled.get(), 0u) << what;
                lie.undo(m);  // the truth again: no byte changed
                EXPECT_EQ(test::chain_bytes(m), f) << what;
                rte_pktmbuf_free(m);
            }
        }
    }
}

TEST_F(DescriptorLies, LinearMbufShorterThanPktLen) {
    const Bytes f = udp_frame();
    Engine e(EngineConfig{});
    rte_mbuf* m = test::make_linear(pool(), f);
    m->pkt_len += 1;  // one segment, data_len < pkt_len
    RxPortPolicy rx;
    rx.drop_bad = true;
    const auto o = test::run_engine(e, m, rx);
    EXPECT_EQ(o.error, "chain_shorter_than_pkt_len");
    EXPECT_FALSE(o.forwarded);
    EXPECT_EQ(e.stats().drop[int(DropReason::malformed)].get(), 1u);
    EXPECT_EQ(e.stats().drop[int(DropReason::bad_checksum)].get(), 0u);
    m->pkt_len -= 1;
    rte_pktmbuf_free(m);
}

// One segment whose descriptor claims a byte past its buffer (buf_len one
// short of data_off + data_len, or 100 bytes short):
// every mode and path names it, reads nothing past the buffer and writes
// nothing; drop_bad drops it as malformed.
TEST_F(DescriptorLies, LinearMbufPastItsBuffer) {
    const Bytes f = udp_frame();
    for (bool empty_tail : {false, true})
        for (Mode mode : {Mode::verify, Mode::fill, Mode::csum})
            for (bool fast : {true, false})
                for (bool drop : {false, true}) {
                    EngineConfig c;
                    c.mode = mode;
                    c.plain_fast_path = fast;
                    Engine e(c);
                    rte_mbuf* m = test::make_linear(pool(), f);
                    ASSERT_NE(m, nullptr);
                    const uint16_t truth = m->buf_len;
                    if (empty_tail)
                        m->buf_len = uint16_t(m->data_off + m->data_len - 100);
                    else
                        test::shrink_buffer(m);
                    RxPortPolicy rx;
                    rx.drop_bad = drop;
                    const auto o = test::run_engine(e, m, rx, TxPortPolicy{~0ull});
                    const std::string what = std::string(to_string(mode)) + (fast ? " fast" : "") +
                                             (drop ? " drop" : "");
                    EXPECT_EQ(o.error, "segment_past_buffer") << what;
                    EXPECT_EQ(o.layers, "") << what;
                    EXPECT_EQ(o.forwarded, !drop) << what;
                    EXPECT_EQ(m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK, 0u) << what;
                    EXPECT_EQ(e.stats().parse_error[int(ParseError::segment_past_buffer)].get(), 1u)
                        << what;
                    EXPECT_EQ(e.stats().drop[int(DropReason::malformed)].get(), drop ? 1u : 0u)
                        << what;
                    EXPECT_EQ(e.stats().sum_bytes.get(), 0u) << what;
                    m->buf_len = truth;
                    EXPECT_EQ(test::chain_bytes(m), f) << what;
                    rte_pktmbuf_free(m);
                }
}

class TooManyLayers : public test::MbufTest {};

TEST_F(TooManyLayers, TheParserKeepsTwentyFourAndNamesTheRest) {
    // 11 GRE levels: 11 x (IPv4 + GRE) + IPv4 + UDP = 24 layers, all kept.
    // 12 levels: the 25th layer has no room: too_many_layers.
    EngineConfig c;
    c.parser.max_depth = 255;
    for (int levels : {11, 12}) {
        Engine e(c);
        rte_mbuf* m = test::make_linear(pool(), gre_nest(levels));
        const auto o = test::run_engine(e, m);
        const bool over = levels == 12;
        EXPECT_EQ(o.error, over ? "too_many_layers" : "none") << levels;
        // The verdict keeps 12 layers; the counters see all 24 that were parsed.
        EXPECT_EQ(std::count(o.layers.begin(), o.layers.end(), ':'), kMaxVerdictLayers);
        EXPECT_EQ(o.layers.find("bad"), std::string::npos) << o.layers;
        EXPECT_EQ(e.stats().parse_error[int(ParseError::too_many_layers)].get(), over ? 1u : 0u);
        uint64_t judged = 0;
        for (int p = 0; p < kLayerProtoCount; ++p)
            for (int s = 0; s < kLayerStatusCount; ++s) judged += e.stats().layer[p][s].get();
        EXPECT_EQ(judged, 24u) << levels;
        EXPECT_EQ(e.stats().layer[int(LayerProto::gre)][int(LayerStatus::good)].get(),
                  over ? 12u : 11u);
        rte_pktmbuf_free(m);
    }
}

TEST_F(TooManyLayers, IsMalformedForDropBadAndDeepEnoughIpInIpToo) {
    EngineConfig c;
    c.parser.max_depth = 255;
    Engine e(c);
    RxPortPolicy rx;
    rx.drop_bad = true;
    // 30 IPv4-in-IPv4 headers: 24 are kept.
    Bytes p = test::ipv4(test::kSrc4, test::kDst4, 17,
                         test::udp(test::kSrc4, test::kDst4, 1, 2, Bytes(16, 1)));
    for (int i = 0; i < 29; ++i) p = test::ipv4(test::kSrc4, test::kDst4, 4, p);
    rte_mbuf* m = test::make_linear(pool(), test::eth(0x0800, p));
    const auto o = test::run_engine(e, m, rx);
    EXPECT_EQ(o.error, "too_many_layers");
    EXPECT_FALSE(o.forwarded);
    EXPECT_EQ(e.stats().drop[int(DropReason::malformed)].get(), 1u);
    EXPECT_EQ(e.stats().layer[int(LayerProto::ipv4)][int(LayerStatus::good)].get(), 24u);
    rte_pktmbuf_free(m);
    // The default depth cap stops the same packet first, with its own name.
    Engine shallow{EngineConfig{}};
    m = test::make_linear(pool(), test::eth(0x0800, p));
    EXPECT_EQ(test::run_engine(shallow, m).error, "tunnel_too_deep");
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum
