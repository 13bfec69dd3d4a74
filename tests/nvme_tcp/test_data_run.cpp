// The engine's NVMe run as seen by the tracker (DataRun): in-data segments
// by took(), PDU boundaries by boundary() or else feed_boundary(), counts
// added by close(). Driven as the engine drives it, over random PDU streams
// with bad digests and padding, it must leave the same totals and
// per-connection counts as feed() of every segment, and boundary() must say
// exactly what feed() reports for the segments it takes.
#include <algorithm>
#include <cstring>
#include <random>

#include "csum/crc32c.h"
#include "nvme_tcp/data_run.h"
#include "nvme_tcp/nvme_test.h"

namespace csum::test {
namespace {

class DataRunTest : public NvmeTest {};

TEST_F(DataRunTest, RunCountsEqualFeedsAndBoundarySaysWhatFeedReports) {
    std::mt19937 rng(77);
    const Crc32cKernel was = crc32c_active_kernel();
    Crc32cKernel avx512;
    const bool vec = crc32c_kernel_from_name("avx512", &avx512) && crc32c_force_kernel(avx512);
    unsigned taken = 0, declined = 0;
    uint64_t bad_dd = 0;
    for (int iter = 0; iter < 12; ++iter) {
        SCOPED_TRACE("iter " + std::to_string(iter));
        const bool hd = iter % 3 != 2;
        const auto corrupt = [&](Pdu& p) {
            if (p.type != 0x07) return;
            if (rng() % 8 == 0) corrupt_ddgst(p);
            if (p.hd && rng() % 10 == 0) corrupt_hdgst(p);
        };
        // Every other stream all C2HData of 1000-5000 B, some padded; the
        // others of every type and length.
        std::vector<Pdu> pdus;
        if (iter % 2 == 0) {
            pdus.push_back(icresp(uint8_t((hd ? 1 : 0) | 2)));
            for (int i = 0; i < 30; ++i) {
                Bytes data(1000 + rng() % 4000);
                for (auto& b : data) b = uint8_t(rng());
                pdus.push_back(c2h_data(hd, true, data, rng() % 4 == 0 ? uint8_t(8) : uint8_t(0)));
                corrupt(pdus.back());
            }
        } else {
            pdus = random_pdus(hd, true, 30, 5000, 3, iter % 4 == 1, rng, corrupt);
        }
        const Bytes stream = concat(pdus);
        // Without a PDU log (with one, boundary() declines every segment).
        NvmeTracker ref{NvmeTrackerConfig{}}, run{NvmeTrackerConfig{}};
        Wire wr(ref, pool(), test_key(5000)), wn(run, pool(), test_key(5000));
        wr.syn(), wn.syn();
        for (uint32_t at = 0; at < stream.size();) {
            const uint32_t n = std::min<uint32_t>(rng() % 4 == 0 ? 1 + rng() % 1448 : 1448,
                                                  uint32_t(stream.size()) - at);
            const NvmeSegmentResult want = wr.send(stream, at, n);
            rte_mbuf* m = wn.build(stream, at, n, 1);
            const uint32_t seq = wn.isn() + 1 + at;
            const uint8_t* p = rte_pktmbuf_mtod_offset(m, const uint8_t*, Wire::kHdrRoom);
            nvme::DataRun r = nvme::TrackerAccess::open(run, 0);
            if (r.s != nullptr && r.in_order(seq, n)) {
                if (r.in_data(n)) {
                    if (r.s->dd_on) detail::crc32c_carry_feed(r.s->dcarry, p, n);
                    r.took(n);
                } else if (const int h = r.boundary(p, n, seq); h >= 0) {
                    ++taken;
                    NvmeSegmentResult said;
                    said.hdgst.good = uint16_t(h);
                    said.ddgst.good = 1;
                    said.pdus = 1;
                    EXPECT_EQ(0, std::memcmp(&said, &want, sizeof said)) << "at " << at;
                } else {
                    ++declined;
                    const NvmeSegmentResult got =
                        nvme::TrackerAccess::feed_boundary(run, r, m, seq, Wire::kHdrRoom, n, 0);
                    EXPECT_EQ(0, std::memcmp(&got, &want, sizeof got)) << "at " << at;
                }
                nvme::TrackerAccess::close(run, r, 0);
            } else {
                wn.feed_mbuf(m, at, n);
            }
            rte_pktmbuf_free(m);
            at += n;
        }
        EXPECT_EQ(0, std::memcmp(&ref.stats(), &run.stats(), sizeof(NvmeTrackerStats)));
        const NvmeConnStats *a = ref.conn_stats(wr.key()), *b = run.conn_stats(wn.key());
        ASSERT_NE(a, nullptr);
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(0, std::memcmp(a, b, sizeof *a));
        bad_dd += run.stats().ddgst_bad;
        if (HasFailure()) break;
    }
    crc32c_force_kernel(was);
    EXPECT_GT(declined, 20u);
    EXPECT_GT(bad_dd, 10u);
    if (vec) {
        EXPECT_GT(taken, 40u);  // boundary() needs the carried vector state
    }
}

}  // namespace
}  // namespace csum::test
