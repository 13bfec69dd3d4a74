// Fill mode: the tracker writes digests the sender left as zeros; verify
// mode must then find them all good, and the bytes must match a sender
// that computed them itself.
#include "nvme_tcp/nvme_test.h"
#include "support/mbuf_helpers.h"

namespace csum::test {
namespace {

struct FillCase {
    std::vector<Pdu> pdus;  // with correct digests
    Bytes good, zeroed;     // streams
};

FillCase make_case(std::mt19937& rng, int n) {
    FillCase fc;
    fc.pdus.push_back(icresp(3));
    for (int i = 0; i < n; ++i) {
        const Bytes d = random_bytes(1 + rng() % 3000, rng);
        switch (i % 4) {
            case 0:
                fc.pdus.push_back(c2h_data(true, true, d));
                break;
            case 1:
                fc.pdus.push_back(capsule_cmd(true, true, d, 4));
                break;
            case 2:
                fc.pdus.push_back(capsule_resp(true));
                break;
            default:
                fc.pdus.push_back(h2c_data(true, true, d));
                break;
        }
    }
    fc.good = concat(fc.pdus);
    std::vector<Pdu> z = fc.pdus;
    for (Pdu& p : z) zero_digests(p);
    fc.zeroed = concat(z);
    return fc;
}

// Fills `fc.zeroed` cut at `cuts`, then verifies the written packets.
void fill_then_verify(NvmeTest& fx, NvmeTracker& filler, NvmeTracker& verifier, const FillCase& fc,
                      const std::vector<uint32_t>& cuts, unsigned mbufs, uint16_t port) {
    Wire wf(filler, fx.pool_for_test(), test_key(port));
    Wire wv(verifier, fx.pool_for_test(), test_key(port));
    wf.rng.seed(port);
    wf.syn();
    wv.syn();
    Bytes out;
    Totals fill_tot, verify_tot;
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
        const uint32_t n = cuts[k + 1] - cuts[k];
        rte_mbuf* m = wf.build(fc.zeroed, cuts[k], n, mbufs);
        const NvmeSegmentResult r = wf.feed_mbuf(m, cuts[k], n);
        fill_tot.add(r);
        verify_tot.add(wv.feed_mbuf(m, cuts[k], n));
        const Bytes b = chain_bytes(m);
        out.insert(out.end(), b.begin() + Wire::kHdrRoom, b.end());
        rte_pktmbuf_free(m);
    }
    ASSERT_EQ(out.size(), fc.good.size());
    EXPECT_TRUE(out == fc.good) << "filled bytes differ from correctly digested ones";
    unsigned hds = 0, dds = 0;
    for (const Pdu& p : fc.pdus) hds += p.hd, dds += p.dd;
    EXPECT_EQ(fill_tot.hd.filled, hds);
    EXPECT_EQ(fill_tot.dd.filled, dds);
    EXPECT_EQ(fill_tot.hd.unfillable + fill_tot.dd.unfillable, 0);
    EXPECT_EQ(verify_tot.hd.good, hds);
    EXPECT_EQ(verify_tot.dd.good, dds);
}

TEST_F(NvmeTest, FillWritesDigestsThatVerify) {
    std::mt19937 rng(40);
    const FillCase fc = make_case(rng, 24);
    NvmeTracker& filler = tracker(NvmeTrackerConfig{.mode = NvmeMode::fill});
    NvmeTracker& verifier = tracker();
    std::vector<uint32_t> cuts = {0};
    while (cuts.back() < fc.zeroed.size())
        cuts.push_back(std::min<uint32_t>(cuts.back() + 1448, uint32_t(fc.zeroed.size())));
    fill_then_verify(*this, filler, verifier, fc, cuts, 3, 100);
}

TEST_F(NvmeTest, FillDigestsStraddlingSegmentsAtEveryByte) {
    // Every 2-way cut, so each digest byte boundary falls between TCP
    // segments (and between mbufs) at some point.
    std::mt19937 rng(41);
    const FillCase fc = make_case(rng, 4);
    const uint32_t n = uint32_t(fc.zeroed.size());
    for (uint32_t cut = 1; cut < std::min<uint32_t>(n, 1448) && !HasFailure(); ++cut) {
        NvmeTracker& filler = tracker(NvmeTrackerConfig{.capacity = 2, .mode = NvmeMode::fill});
        NvmeTracker& verifier = tracker(NvmeTrackerConfig{.capacity = 2});
        std::vector<uint32_t> cuts = {0};
        for (uint32_t c = cut; c < n; c += 1448) cuts.push_back(c);
        cuts.push_back(n);
        fill_then_verify(*this, filler, verifier, fc, cuts, 1 + cut % 3, uint16_t(cut));
        trackers_.clear();
    }
}

TEST_F(NvmeTest, FillCannotWriteWhatItCannotCompute) {
    std::mt19937 rng(42);
    const FillCase fc = make_case(rng, 4);
    const auto spans = layout(fc.pdus);
    NvmeTracker& t = tracker(NvmeTrackerConfig{.mode = NvmeMode::fill});
    Wire w = connect(t, 200);
    Totals tot;
    // Lose 10 data bytes of PDU 1: its DDGST can't be computed.
    const uint32_t a = spans[1].start + 40;
    tot.add(w.send(fc.zeroed, 0, a));
    for (uint32_t off = a + 10; off < fc.zeroed.size(); off += 1448)
        tot.add(w.send(fc.zeroed, off, std::min<uint32_t>(1448, uint32_t(fc.zeroed.size()) - off)));
    EXPECT_EQ(tot.dd.unfillable, 1);
    EXPECT_EQ(tot.hd.unfillable, 0);
    EXPECT_EQ(tot.dd.filled, 2);  // PDUs 2 (resp has none), 3, 4
    EXPECT_EQ(t.stats().unfillable, 1u);
}

TEST_F(NvmeTest, VerifyModeNeverWrites) {
    std::mt19937 rng(43);
    const FillCase fc = make_case(rng, 4);
    NvmeTracker& t = tracker();
    Wire w = connect(t, 300);
    rte_mbuf* m = w.build(fc.zeroed, 0, 1448, 2);
    const NvmeSegmentResult r = w.feed_mbuf(m, 0, 1448);
    EXPECT_FALSE(r.modified);
    const Bytes b = chain_bytes(m);
    EXPECT_TRUE(std::equal(b.begin() + Wire::kHdrRoom, b.end(), fc.zeroed.begin()));
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum::test
