// Random damage (loss, duplication, reordering, byte flips, garbage) on
// random streams: the tracker must stay memory-safe (run under ASan/UBSan)
// and keep its books consistent; undamaged PDUs before any damage verify.
#include "nvme_tcp/nvme_test.h"

namespace csum::test {
namespace {

TEST_F(NvmeTest, ChaosKeepsTheTrackerSafeAndConsistent) {
    std::mt19937 rng(60);
    NvmeTracker& t = tracker(NvmeTrackerConfig{.capacity = 8, .idle_timeout_tsc = 5000});
    uint64_t now = 0;
    for (int round = 0; round < 200; ++round) {
        clear_log();
        const bool hd = rng() & 1, dd = rng() & 1;
        const std::vector<Pdu> pdus = random_pdus(hd, dd, 30, 3000, 3, true, rng);
        Bytes s = concat(pdus);
        // Damage: flip bytes anywhere (headers included).
        const uint32_t flips = rng() % 6;
        for (uint32_t i = 0; i < flips; ++i) s[rng() % s.size()] ^= uint8_t(1 + rng() % 255);
        std::vector<std::pair<uint32_t, uint32_t>> segs;
        for (uint32_t off = 0; off < s.size();) {
            const uint32_t n = std::min<uint32_t>(1 + rng() % 1448, uint32_t(s.size()) - off);
            segs.push_back({off, n});
            off += n;
        }
        // Loss, duplication and reordering.
        std::vector<std::pair<uint32_t, uint32_t>> wire;
        for (size_t i = 0; i < segs.size(); ++i) {
            const unsigned r = rng() % 20;
            if (r == 0) continue;                 // lost
            if (r == 1) wire.push_back(segs[i]);  // duplicated
            if (r == 2 && i + 1 < segs.size()) {  // swapped with the next
                wire.push_back(segs[i + 1]);
                wire.push_back(segs[i]);
                ++i;
                continue;
            }
            wire.push_back(segs[i]);
        }
        Wire w(t, pool(), test_key(uint16_t(9000 + round % 12)), uint32_t(rng()));
        w.rng.seed(round);
        if (rng() % 4) w.syn(kTcpSyn, now);
        Totals tot;
        for (auto [off, n] : wire) {
            now += rng() % 300;
            tot.add(w.send(s, off, n, 1 + rng() % 3, now));
        }
        if (rng() % 3 == 0) w.ctl(rng() % 2 ? kTcpRst : kTcpFin, now);
        // Books: results summed per segment equal the PDU log's verdicts.
        unsigned log_dd_good = 0, log_dd_bad = 0;
        for (const NvmePduRecord& r : log()) {
            log_dd_good += r.ddgst == NvmeDigestStatus::good;
            log_dd_bad += r.ddgst == NvmeDigestStatus::bad;
        }
        EXPECT_EQ(tot.pdus, log().size());
        EXPECT_EQ(tot.dd.good, log_dd_good);
        EXPECT_EQ(tot.dd.bad, log_dd_bad);
        EXPECT_LE(t.stats().flows_active, 8u);
    }
    const NvmeTrackerStats& st = t.stats();
    uint64_t by_reason = 0;
    for (uint64_t n : st.desync_by_reason) by_reason += n;
    EXPECT_EQ(by_reason, st.desyncs);
    EXPECT_EQ(st.flows_created,
              st.flows_active + st.evictions + st.idle_expired + st.fin_closed + st.rst_closed);
}

}  // namespace
}  // namespace csum::test
