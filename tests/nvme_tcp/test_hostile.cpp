// Hostile headers: each desynchronises the flow under its own counter and
// never yields a verdict for bytes the tracker can't delimit.
#include <functional>

#include "nvme_tcp/nvme_test.h"
#include "support/chain_builder.h"

namespace csum::test {
namespace {

using R = NvmeDesyncReason;

void set_le32(Bytes& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

struct Hostile {
    const char* name;
    R reason;
    std::function<Bytes(std::mt19937&)> make;
};

std::vector<Hostile> hostile_headers() {
    auto data = [](std::mt19937& rng) {
        return c2h_data(true, true, random_bytes(200, rng)).bytes;
    };
    return {
        {"plen_lt_hlen", R::plen_lt_hlen,
         [](std::mt19937&) {
             Bytes b = capsule_resp(true).bytes;
             set_le32(b, 4, 10);
             return b;
         }},
        {"plen_lt_hlen_digest", R::plen_lt_hlen,
         [](std::mt19937&) {
             Bytes b = capsule_resp(true).bytes;
             set_le32(b, 4, 26);  // below hlen + HDGST
             return b;
         }},
        {"hlen_mismatch", R::hlen_mismatch,
         [=](std::mt19937& rng) {
             Bytes b = data(rng);
             b[2] = 30;
             return b;
         }},
        {"hlen_zero", R::hlen_mismatch,
         [=](std::mt19937& rng) {
             Bytes b = data(rng);
             b[2] = 0;
             return b;
         }},
        {"plen_max_u32", R::plen_too_big,
         [=](std::mt19937& rng) {
             Bytes b = data(rng);
             set_le32(b, 4, 0xFFFFFFFFu);
             return b;
         }},
        {"plen_above_max", R::plen_too_big,
         [=](std::mt19937& rng) {
             Bytes b = data(rng);
             set_le32(b, 4, (1u << 20) + 257);
             return b;
         }},
        {"termreq_too_long", R::plen_too_big,
         [](std::mt19937& rng) {
             Bytes err = random_bytes(200, rng);
             return term_req(true, err).bytes;
         }},
        {"unknown_type_8", R::unknown_type,
         [=](std::mt19937& rng) {
             Bytes b = data(rng);
             b[0] = 0x08;
             return b;
         }},
        {"unknown_type_ff", R::unknown_type,
         [=](std::mt19937& rng) {
             Bytes b = data(rng);
             b[0] = 0xFF;
             return b;
         }},
        {"pdo_below_hlen", R::pdo_invalid,
         [=](std::mt19937& rng) {
             Bytes b = data(rng);
             b[3] = 10;
             return b;
         }},
        {"pdo_past_data", R::pdo_invalid,
         [=](std::mt19937& rng) {
             Bytes b = data(rng);
             b[3] = 255;  // plen is 232
             return b;
         }},
        {"pdo_zero", R::pdo_invalid,
         [=](std::mt19937& rng) {
             Bytes b = data(rng);
             b[3] = 0;
             return b;
         }},
        {"ddgst_not_set_but_negotiated", R::digest_flags,
         [](std::mt19937& rng) { return c2h_data(true, false, random_bytes(200, rng)).bytes; }},
        {"hdgst_not_set_but_negotiated", R::digest_flags,
         [](std::mt19937& rng) { return c2h_data(false, true, random_bytes(200, rng)).bytes; }},
        {"ddgst_on_r2t", R::digest_flags,
         [](std::mt19937&) {
             Bytes b = r2t(true).bytes;
             b[1] |= 0x02;
             return b;
         }},
        {"digest_on_icreq", R::digest_flags,
         [](std::mt19937&) {
             Bytes b = icreq(3).bytes;
             b[1] = 0x01;
             return b;
         }},
        {"r2t_with_data", R::plen_invalid,
         [](std::mt19937&) {
             Bytes b = r2t(true).bytes;
             set_le32(b, 4, 40);
             b.resize(40, 0);
             return b;
         }},
        {"icresp_short", R::plen_invalid,
         [](std::mt19937&) {
             Bytes b = icresp(3).bytes;
             set_le32(b, 4, 200);
             return b;
         }},
        {"data_pdu_without_data", R::plen_invalid,
         [](std::mt19937&) {
             Bytes b = c2h_data(true, true, Bytes(1, 0)).bytes;
             b.resize(28);
             b[1] &= ~0x02;
             set_le32(b, 4, 28);
             return b;
         }},
    };
}

class HostileTest : public NvmeTest, public testing::WithParamInterface<size_t> {};

TEST_P(HostileTest, DesyncsWithNamedCounterThenResyncs) {
    const Hostile h = hostile_headers()[GetParam()];
    SCOPED_TRACE(h.name);
    std::mt19937 rng(20);
    NvmeTracker& t = tracker();
    Wire w = connect(t, 6000);
    std::vector<Pdu> before = {icresp(3), c2h_data(true, true, random_bytes(300, rng))};
    std::vector<Pdu> after;
    for (int i = 0; i < 4; ++i) after.push_back(c2h_data(true, true, random_bytes(500, rng)));
    Bytes s = concat(before);
    const Bytes bad = h.make(rng);
    s.insert(s.end(), bad.begin(), bad.end());
    const Bytes tail = concat(after);
    s.insert(s.end(), tail.begin(), tail.end());
    Totals tot;
    for (uint32_t off = 0; off < s.size(); off += 700)
        tot.add(w.send(s, off, std::min<uint32_t>(700, uint32_t(s.size()) - off), 2));
    const NvmeTrackerStats& st = t.stats();
    EXPECT_EQ(st.desyncs, 1u);
    EXPECT_EQ(st.desync_by_reason[size_t(h.reason)], 1u)
        << "reason counted: " << to_string(h.reason);
    EXPECT_EQ(tot.desyncs, 1u);
    // Nothing is judged bad; the two PDUs before are good, and after the
    // resync (first PDU tentative) the last three are good again.
    EXPECT_EQ(st.hdgst_bad + st.ddgst_bad, 0u);
    EXPECT_EQ(st.ddgst_good, 1u + 3u);
    EXPECT_EQ(st.resyncs, 1u);
}

INSTANTIATE_TEST_SUITE_P(All, HostileTest, testing::Range(size_t{0}, hostile_headers().size()),
                         [](const testing::TestParamInfo<size_t>& i) {
                             return std::string(hostile_headers()[i.param].name);
                         });

TEST_F(NvmeTest, HostileHeaderSplitAcrossSegmentsIsSafe) {
    // plen = 2^32-1 arriving a byte at a time: rejected at the 8th byte.
    NvmeTracker& t = tracker();
    Wire w = connect(t, 6100);
    Bytes b = icresp(0).bytes;
    Bytes evil = capsule_resp(false).bytes;
    set_le32(evil, 4, 0xFFFFFFFFu);
    b.insert(b.end(), evil.begin(), evil.end());
    for (uint32_t i = 0; i < b.size(); ++i) w.send(b, i, 1);
    EXPECT_EQ(t.stats().desync_by_reason[size_t(R::plen_too_big)], 1u);
}

TEST_F(NvmeTest, MaxPlenIsConfigurable) {
    NvmeTracker& t = tracker(NvmeTrackerConfig{.max_plen = 1000});
    Wire w = connect(t, 6200);
    std::mt19937 rng(21);
    const Bytes s = concat(std::vector<Pdu>{icresp(3), c2h_data(true, true, random_bytes(900, rng)),
                                            c2h_data(true, true, random_bytes(1000, rng))});
    for (uint32_t off = 0; off < s.size(); off += 1000)
        w.send(s, off, std::min<uint32_t>(1000, uint32_t(s.size()) - off), 2);
    EXPECT_EQ(t.stats().ddgst_good, 1u);
    EXPECT_EQ(t.stats().desync_by_reason[size_t(R::plen_too_big)], 1u);
}

}  // namespace
}  // namespace csum::test

namespace csum::test {
namespace {

// Descriptors are hostile too: a payload over a segment claiming data past
// its buffer, or one the chain does not hold within the head's nb_segs
// segments (a looped chain), is refused whole and counted; nothing is read.
TEST_F(NvmeTest, PayloadOverLyingDescriptorsIsRefused) {
    NvmeTracker& t = tracker();
    const NvmeFlowKey key = test_key(6300);
    EXPECT_FALSE(t.feed(key, 1000, kTcpSyn, nullptr, 0, 0, 0).refused);
    std::mt19937 rng(23);
    const Bytes b =
        concat(std::vector<Pdu>{icresp(3), c2h_data(true, true, random_bytes(600, rng))});
    const uint32_t n = uint32_t(b.size());
    const std::vector<uint32_t> lens = {100, 0, n - 100};
    uint64_t refused = 0;
    for (int lie = 0; lie < 4; ++lie) {
        SCOPED_TRACE("lie " + std::to_string(lie));
        rte_mbuf* m = make_chain(pool(), b, lens);
        ASSERT_NE(m, nullptr);
        rte_mbuf* const empty = m->next;
        rte_mbuf* const tail = empty->next;
        if (lie == 0) empty->next = empty;                // an empty segment linked to itself
        if (lie == 1) tail->next = m, m->pkt_len += 100;  // the chain loops past its end
        if (lie == 2) shrink_buffer(tail);
        if (lie == 3) shrink_buffer(m);
        const NvmeSegmentResult r = t.feed(key, 1001, 0, m, 0, m->pkt_len, 0);
        EXPECT_TRUE(r.refused);
        EXPECT_EQ(t.stats().refused_segments, ++refused);
        if (lie == 0) empty->next = tail;
        if (lie == 1) tail->next = nullptr, m->pkt_len -= 100;
        if (lie == 2) restore_buffer(tail);
        if (lie == 3) restore_buffer(m);
        rte_pktmbuf_free(m);
    }
    EXPECT_EQ(t.stats().bytes, 0u);  // nothing was taken in
    // The same chain, its descriptors sound: taken, and its digest checked.
    rte_mbuf* m = make_chain(pool(), b, lens);
    ASSERT_NE(m, nullptr);
    const NvmeSegmentResult r = t.feed(key, 1001, 0, m, 0, n, 0);
    EXPECT_FALSE(r.refused);
    EXPECT_EQ(r.ddgst.good, 1u);
    EXPECT_EQ(t.stats().refused_segments, refused);
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum::test
