// PDU framing: every type, digests on and off, any split, chained mbufs.
#include "nvme_tcp/nvme_test.h"

namespace csum::test {
namespace {

// Digests on or off by the test parameter (bit 0: header, bit 1: data).
class DigestsByParam : public NvmeTest, public testing::WithParamInterface<int> {
  protected:
    const bool hd = GetParam() & 1, dd = GetParam() & 2;
    // all_types() for these digests, its RNG seeded with seed.
    std::vector<Pdu> all_types(unsigned seed) const {
        std::mt19937 rng(seed);
        return test::all_types(hd, dd, rng);
    }
};

class Framing : public DigestsByParam {};

TEST_P(Framing, EveryTypeOneSegmentEach) {
    auto pdus = all_types(1);
    const Bytes s = concat(pdus);
    NvmeTracker& t = tracker();
    Wire w = connect(t, 1000);
    Totals tot;
    for (const PduSpan& p : layout(pdus)) tot.add(w.send(s, p.start, p.end - p.start));
    expect_log(pdus);
    EXPECT_EQ(tot.pdus, pdus.size());
    EXPECT_EQ(tot.hd.good, hd ? 9u : 0u);  // all but IC and TermReq
    EXPECT_EQ(tot.dd.good, dd ? 6u : 0u);  // PDUs with data
    EXPECT_EQ(tot.hd.bad + tot.dd.bad + tot.hd.unverifiable + tot.dd.unverifiable, 0u);
    EXPECT_EQ(t.stats().desyncs, 0u);
    NvmeConnInfo info[2];
    ASSERT_EQ(t.snapshot(info), 1u);
    EXPECT_TRUE(info[0].negotiated);
    EXPECT_EQ(info[0].hdgst_on, hd);
    EXPECT_EQ(info[0].ddgst_on, dd);
}

TEST_P(Framing, EveryTypeInOneSegment) {
    auto pdus = all_types(2);
    const Bytes s = concat(pdus);
    NvmeTracker& t = tracker();
    Wire w = connect(t, 1000);
    NvmeSegmentResult r = w.send(s, 0, uint32_t(s.size()), 4);
    EXPECT_EQ(r.pdus, pdus.size());
    expect_log(pdus);
}

INSTANTIATE_TEST_SUITE_P(Digests, Framing, testing::Values(0, 1, 2, 3));

class CorruptFraming : public DigestsByParam {};

TEST_P(CorruptFraming, CorruptDigestsAreBadAndFramingHolds) {
    auto pdus = all_types(3);
    for (size_t i = 0; i < pdus.size(); ++i) {
        if (i % 2 == 0 && pdus[i].hd) corrupt_hdgst(pdus[i]);
        if (i % 3 == 0 && pdus[i].dd) corrupt_ddgst(pdus[i]);
    }
    const Bytes s = concat(pdus);
    NvmeTracker& t = tracker();
    Wire w = connect(t, 1000);
    w.send_range(s, 0, uint32_t(s.size()), 100, 2);
    expect_log(pdus);
    EXPECT_GT(t.stats().hdgst_bad + t.stats().ddgst_bad, 0u);
    EXPECT_EQ(t.stats().desyncs, 0u);
}

INSTANTIATE_TEST_SUITE_P(Digests, CorruptFraming, testing::Values(1, 2, 3));

// Feeds s cut at `cuts`, each TCP segment a chain of `mbufs` mbufs, and
// checks each segment reports exactly the digests whose last byte it holds.
void check_cuts(NvmeTest& fx, NvmeTracker& t, Wire& w, const Bytes& s,
                std::span<const PduSpan> spans, std::vector<uint32_t> cuts, unsigned mbufs) {
    w.syn();
    const auto want = expect_segments(spans, cuts);
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
        const NvmeSegmentResult r = w.send(s, cuts[k], cuts[k + 1] - cuts[k], mbufs);
        SCOPED_TRACE(testing::Message()
                     << "segment " << k << " cuts " << cuts[1] << "," << cuts[cuts.size() - 2]);
        EXPECT_EQ(r.pdus, want[k].pdus);
        EXPECT_EQ(r.hdgst.good, want[k].hd_good);
        EXPECT_EQ(r.hdgst.bad, want[k].hd_bad);
        EXPECT_EQ(r.ddgst.good, want[k].dd_good);
        EXPECT_EQ(r.ddgst.bad, want[k].dd_bad);
        EXPECT_EQ(r.hdgst.unverifiable + r.ddgst.unverifiable + r.desyncs, 0);
    }
    (void)fx;
    (void)t;
}

TEST_F(NvmeTest, SplitAtEveryByteIntoTwoSegments) {
    std::mt19937 rng(4);
    auto pdus = all_types(true, true, rng);
    corrupt_ddgst(pdus[4]);
    corrupt_hdgst(pdus[6]);
    const Bytes s = concat(pdus);
    const auto spans = layout(pdus);
    const uint32_t n = uint32_t(s.size());
    for (uint32_t cut = 1; cut < n; ++cut) {
        NvmeTracker& t = tracker(NvmeTrackerConfig{.capacity = 4});
        Wire w(t, pool(), test_key(2000));
        check_cuts(*this, t, w, s, spans, {0, cut, n}, 1 + cut % 3);
        expect_log(pdus);
        trackers_.clear();
        if (HasFailure()) break;
    }
}

TEST_F(NvmeTest, SplitAtEveryPairIntoThreeSegments) {
    std::mt19937 rng(5);
    const Bytes d1 = random_bytes(19, rng), d2 = random_bytes(7, rng);
    std::vector<Pdu> pdus = {icresp(3), capsule_cmd(true, true, d1), capsule_resp(true),
                             c2h_data(true, true, d2, 3)};
    corrupt_ddgst(pdus[1]);
    const Bytes s = concat(pdus);
    const auto spans = layout(pdus);
    const uint32_t n = uint32_t(s.size());
    NvmeTracker& t = tracker(NvmeTrackerConfig{.capacity = 64});
    uint16_t port = 1;
    for (uint32_t i = 1; i < n && !HasFailure(); ++i) {
        for (uint32_t j = i + 1; j < n && !HasFailure(); ++j) {
            clear_log();
            Wire w(t, pool(), test_key(port++));
            w.rng.seed(i * n + j);
            check_cuts(*this, t, w, s, spans, {0, i, j, n}, 1 + (i + j) % 3);
            w.ctl(kTcpRst);
            expect_log(pdus);
        }
    }
    EXPECT_EQ(t.stats().flows_active, 0u);
}

TEST_F(NvmeTest, RandomStreamsOverRandomChains) {
    std::mt19937 rng(6);
    NvmeTracker& t = tracker();
    for (int round = 0; round < 20 && !HasFailure(); ++round) {
        clear_log();
        const bool hd = round & 1, dd = round & 2;
        const std::vector<Pdu> pdus = random_pdus(hd, dd, 40, 5000, 2, false, rng, [&](Pdu& p) {
            if (rng() % 5 == 0 && p.dd) corrupt_ddgst(p);
            if (rng() % 7 == 0 && p.hd) corrupt_hdgst(p);
        });
        const Bytes s = concat(pdus);
        const auto spans = layout(pdus);
        std::vector<uint32_t> cuts = {0};
        while (cuts.back() < s.size())
            cuts.push_back(std::min<uint32_t>(cuts.back() + 1 + rng() % 1448, uint32_t(s.size())));
        Wire w(t, pool(), test_key(uint16_t(3000 + round)));
        w.rng.seed(round);
        check_cuts(*this, t, w, s, spans, cuts, 1 + round % 4);
        expect_log(pdus);
    }
}

TEST_F(NvmeTest, BothDirectionsShareNegotiation) {
    NvmeTracker& t = tracker();
    Wire host(t, pool(), test_key(4000), 100);
    Wire ctrl(t, pool(), reverse(test_key(4000)), 900);
    host.syn(kTcpSyn);
    ctrl.syn(kTcpSyn | kTcpAck);
    const Bytes req = icreq(3).bytes, resp = icresp(1).bytes;  // controller: header only
    host.send(req, 0, uint32_t(req.size()));
    ctrl.send(resp, 0, uint32_t(resp.size()));
    host.base = ctrl.base = 128;
    std::mt19937 rng(8);
    const Bytes d = random_bytes(512, rng);
    // Data digest not negotiated: a C2HData carrying one is hostile.
    const Bytes good = c2h_data(true, false, d).bytes, bad = c2h_data(true, true, d).bytes;
    Bytes s = good;
    s.insert(s.end(), bad.begin(), bad.end());
    NvmeSegmentResult r = ctrl.send(s, 0, uint32_t(s.size()));
    EXPECT_EQ(r.hdgst.good, 1);
    EXPECT_EQ(r.desyncs, 1);
    EXPECT_EQ(r.reason, NvmeDesyncReason::digest_flags);
    // The host's direction follows the same negotiation.
    const Bytes cmd = capsule_cmd(false, false, {}).bytes;
    r = host.send(cmd, 0, uint32_t(cmd.size()));
    EXPECT_EQ(r.reason, NvmeDesyncReason::digest_flags);
    ASSERT_NE(t.conn_stats(host.key()), nullptr);
    EXPECT_EQ(t.conn_stats(host.key()), t.conn_stats(ctrl.key()));
    EXPECT_EQ(t.conn_stats(host.key())->desyncs, 2u);
}

TEST_F(NvmeTest, PayloadOffsetAndLengthAreBounded) {
    NvmeTracker& t = tracker();
    Wire w = connect(t, 4100);
    std::mt19937 rng(9);
    const Bytes s =
        concat(std::vector<Pdu>{icresp(3), c2h_data(true, true, random_bytes(100, rng))});
    rte_mbuf* m = w.build(s, 0, uint32_t(s.size()), 3);
    // A length past pkt_len is clamped to the packet; nothing beyond is read.
    NvmeSegmentResult r = t.feed(w.key(), w.isn() + 1, kTcpAck, m, Wire::kHdrRoom, 1u << 30, 0);
    EXPECT_EQ(r.pdus, 2);
    EXPECT_EQ(r.ddgst.good, 1);
    r = t.feed(w.key(), w.isn() + 1 + uint32_t(s.size()), kTcpAck, m, m->pkt_len + 5, 100, 0);
    EXPECT_EQ(r.pdus, 0);
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum::test
