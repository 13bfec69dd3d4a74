// Retransmission, reordering, loss, resynchronisation.
#include "nvme_tcp/nvme_test.h"

namespace csum::test {
namespace {

using S = NvmeDigestStatus;

// ICResp then n C2HData PDUs of `len` random data bytes each (RNG seeded with seed).
std::vector<Pdu> data_stream(bool hd, bool dd, int n, uint32_t len, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<Pdu> pdus = {icresp(uint8_t((hd ? 1 : 0) | (dd ? 2 : 0)))};
    for (int i = 0; i < n; ++i) pdus.push_back(c2h_data(hd, dd, random_bytes(len, rng)));
    return pdus;
}

TEST_F(NvmeTest, RetransmittedBytesAreIgnored) {
    auto pdus = data_stream(true, true, 4, 3000, 10);
    const Bytes s = concat(pdus);
    NvmeTracker& t = tracker();
    Wire w = connect(t, 5000);
    Totals tot;
    const uint32_t n = uint32_t(s.size());
    uint32_t off = 0;
    while (off < n) {
        const uint32_t len = std::min<uint32_t>(1448, n - off);
        tot.add(w.send(s, off, len, 2));
        // Full duplicate, then a segment overlapping old and new bytes.
        NvmeSegmentResult dup = w.send(s, off, len);
        EXPECT_TRUE(dup.retransmit);
        EXPECT_EQ(dup.pdus, 0);
        tot.add(dup);
        const uint32_t next = std::min<uint32_t>(off + len + 700, n);
        const NvmeSegmentResult r = w.send(s, off + len / 2, next - off - len / 2, 3);
        EXPECT_TRUE(r.retransmit);  // it starts inside old bytes
        tot.add(r);
        off = next;
    }
    expect_log(pdus);
    EXPECT_EQ(tot.pdus, pdus.size());
    EXPECT_EQ(tot.dd.good, 4);
    EXPECT_EQ(t.stats().bytes, n);
    EXPECT_GT(t.stats().retransmitted_bytes, 0u);
}

TEST_F(NvmeTest, LossInsideDataKeepsFraming) {
    for (bool hd : {false, true}) {
        auto pdus = data_stream(hd, true, 5, 4096, 11);
        const Bytes s = concat(pdus);
        const auto spans = layout(pdus);
        NvmeTracker& t = tracker();
        Wire w = connect(t, 5100);
        // Lose 1000 bytes in the middle of PDU 2's data.
        const uint32_t lost_from = spans[2].start + 1000, lost_to = lost_from + 1000;
        Totals tot = w.send_range(s, 0, lost_from, 1448, 2);
        tot.add(w.send_range(s, lost_to, uint32_t(s.size()), 1448, 3));
        EXPECT_EQ(tot.pdus, pdus.size());
        EXPECT_EQ(tot.desyncs, 0u);
        EXPECT_EQ(tot.dd.good, 4);
        EXPECT_EQ(tot.dd.unverifiable, 1);
        EXPECT_EQ(tot.dd.bad, 0);
        auto recs = log();
        ASSERT_EQ(recs.size(), pdus.size());
        EXPECT_EQ(recs[2].ddgst, S::unverifiable);
        EXPECT_EQ(recs[2].hdgst, hd ? S::good : S::none);
        EXPECT_EQ(recs[3].ddgst, S::good);
        EXPECT_EQ(t.stats().gaps, 1u);
        trackers_.clear();
    }
}

TEST_F(NvmeTest, LossOfDigestBytesIsUnverifiable) {
    auto pdus = data_stream(true, true, 3, 100, 12);
    const Bytes s = concat(pdus);
    const auto spans = layout(pdus);
    NvmeTracker& t = tracker();
    Wire w = connect(t, 5200);
    // Lose the last 2 bytes of PDU 1's DDGST and 2 bytes of PDU 2's HDGST.
    const uint32_t a = spans[1].end - 2, b = spans[2].start + 24 + 2;
    Totals tot;
    tot.add(w.send(s, 0, a));
    tot.add(w.send(s, spans[1].end, b - spans[1].end));
    tot.add(w.send(s, b + 2, uint32_t(s.size()) - b - 2));
    auto recs = log();
    ASSERT_EQ(recs.size(), 4u);
    EXPECT_EQ(recs[1].ddgst, S::unverifiable);
    EXPECT_EQ(recs[1].hdgst, S::good);
    EXPECT_EQ(recs[2].hdgst, S::unverifiable);
    EXPECT_EQ(recs[2].ddgst, S::good);
    EXPECT_EQ(recs[3].ddgst, S::good);
    EXPECT_EQ(tot.desyncs, 0u);
}

TEST_F(NvmeTest, ReorderedSegmentsNeverReportBad) {
    auto pdus = data_stream(true, true, 6, 2000, 13);
    const Bytes s = concat(pdus);
    NvmeTracker& t = tracker();
    Wire w = connect(t, 5300);
    // Segments of 1448 bytes; swap segments 3 and 4 (both inside PDU data).
    std::vector<std::pair<uint32_t, uint32_t>> segs;
    for (uint32_t off = 0; off < s.size(); off += 1448)
        segs.push_back({off, std::min<uint32_t>(1448, uint32_t(s.size()) - off)});
    std::swap(segs[3], segs[4]);
    Totals tot;
    for (auto [off, len] : segs) tot.add(w.send(s, off, len, 2));
    EXPECT_EQ(tot.dd.bad + tot.hd.bad, 0);
    EXPECT_GE(tot.dd.good, 4);
    EXPECT_GE(tot.dd.unverifiable, 1);
    EXPECT_EQ(tot.dd.good + tot.dd.unverifiable, 6);
    // The late segment comes in as old bytes.
    EXPECT_GT(t.stats().retransmitted_bytes, 0u);
}

// Loses a whole PDU header; the tracker must resync on a later PDU.
void lose_header_and_resync(NvmeTest& fx, NvmeTracker& t, bool hd, uint8_t confirm) {
    auto pdus = data_stream(hd, true, 8, 700, 14);
    corrupt_ddgst(pdus[7]);
    const Bytes s = concat(pdus);
    const auto spans = layout(pdus);
    Wire w(t, fx.pool_for_test(), test_key(uint16_t(5400 + hd)));
    w.syn();
    // Lose from inside PDU 2's data through PDU 3's header.
    const uint32_t a = spans[2].start + 100, b = spans[3].start + 10;
    Totals tot = w.send_range(s, 0, a, 1448);
    tot.add(w.send_range(s, b, uint32_t(s.size()), 500, 2));
    EXPECT_EQ(tot.desyncs, 1u);
    EXPECT_EQ(t.stats().desync_by_reason[size_t(NvmeDesyncReason::gap)], 1u);
    EXPECT_EQ(tot.resyncs, 1u);
    // PDU 2 (delimited) unverifiable, PDU 3 lost, PDUs 4.. found by scanning:
    // the first confirm-1 are tentative (unverifiable), later ones verified,
    // including the corrupted PDU 7.
    EXPECT_EQ(tot.dd.bad, 1);
    EXPECT_EQ(tot.dd.good, 1u + (5u - confirm));
    auto recs = fx.log_for_test();
    ASSERT_EQ(recs.size(), 3u + 5u);
    EXPECT_EQ(recs[2].ddgst, S::unverifiable);
    EXPECT_EQ(recs[3].seq, w.isn() + 1 + spans[4].start);
    for (uint8_t i = 0; i + 1 < confirm; ++i) EXPECT_EQ(recs[3 + i].ddgst, S::unverifiable);
    EXPECT_EQ(recs[6].ddgst, S::bad);
}

TEST_F(NvmeTest, ResyncAfterLostHeaderWithHeaderDigest) {
    lose_header_and_resync(*this, tracker(), true, 2);
}

TEST_F(NvmeTest, ResyncAfterLostHeaderWithoutHeaderDigest) {
    lose_header_and_resync(*this, tracker(), false, 2);
}

TEST_F(NvmeTest, ResyncConfirmIsConfigurable) {
    lose_header_and_resync(*this, tracker(NvmeTrackerConfig{.resync_confirm = 3}), true, 3);
}

TEST_F(NvmeTest, MidStreamPickupScansForAHeader) {
    auto pdus = data_stream(true, true, 6, 900, 15);
    const Bytes s = concat(pdus);
    const auto spans = layout(pdus);
    NvmeTracker& t = tracker();
    Wire w(t, pool(), test_key(5500));
    // No SYN: first seen in the middle of PDU 1's data.
    const Totals tot = w.send_range(s, spans[1].start + 333, uint32_t(s.size()), 1448, 2);
    EXPECT_EQ(tot.desyncs, 0u);  // never had framing to lose
    EXPECT_EQ(tot.resyncs, 1u);
    EXPECT_EQ(tot.dd.bad + tot.hd.bad, 0);
    EXPECT_EQ(tot.dd.good, 4);  // PDU 2 tentative, 3..6 verified
    EXPECT_EQ(tot.hd.good, 4);
    // Negotiation was learned from trusted PDUs.
    NvmeConnInfo info[1];
    ASSERT_EQ(t.snapshot(info), 1u);
    EXPECT_FALSE(info[0].negotiated);
    EXPECT_TRUE(info[0].hdgst_on);
    EXPECT_TRUE(info[0].ddgst_on);
}

TEST_F(NvmeTest, RandomBytesNeverGetAVerdict) {
    std::mt19937 rng(16);
    const Bytes s = random_bytes(1 << 20, rng);
    for (uint8_t confirm : {1, 2}) {
        NvmeTracker& t = tracker(NvmeTrackerConfig{.resync_confirm = confirm});
        Wire w(t, pool(), test_key(5600));
        w.send_range(s, 0, uint32_t(s.size()), 1448, 3);
        const NvmeTrackerStats& st = t.stats();
        EXPECT_EQ(st.hdgst_good + st.hdgst_bad + st.ddgst_good + st.ddgst_bad, 0u);
        EXPECT_EQ(st.scanned_bytes, s.size());
    }
}

TEST_F(NvmeTest, HeaderSplitAcrossScanCarryIsFound) {
    // While scanning, a candidate header that straddles segments (even
    // three tiny ones) must still be found.
    auto pdus = data_stream(true, true, 5, 64, 17);
    const Bytes s = concat(pdus);
    const auto spans = layout(pdus);
    for (uint32_t step = 1; step <= 40; ++step) {
        NvmeTracker& t = tracker();
        Wire w(t, pool(), test_key(5700));
        const Totals tot = w.send_range(s, spans[1].start + 5, uint32_t(s.size()), step);
        EXPECT_EQ(tot.resyncs, 1u) << "step " << step;
        EXPECT_EQ(tot.dd.good, 3u) << "step " << step;  // PDU 2 tentative; 3, 4, 5 good
        trackers_.clear();
    }
}

}  // namespace
}  // namespace csum::test
