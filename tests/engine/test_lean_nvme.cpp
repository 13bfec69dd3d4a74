// NVMe/TCP segments on the lean path against the reference walker.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "gen/checksum_fill.h"
#include "gen/nvme_tcp.h"
#include "gen/packet_builder.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

// NVMe/TCP segments on the lean path (verify mode feeds the tracker from the
// classified headers, and hands segments that complete a digest to the
// walker with their statuses): per packet the same verdict and forwarding as
// the walker-only engine, and the same counters and tracker totals, through
// bad TCP sums, bad data digests, PMD flags, drop_bad, trusted ports and
// chains split inside the headers.
class LeanNvme : public test::MbufTest {};

TEST_F(LeanNvme, StreamsMatchTheWalker) {
    std::mt19937 rng(91);
    for (uint32_t pdu : {3000u, 4096u, 20000u}) {
        gen::NvmeStreamSpec spec;
        spec.pdu_data = pdu;
        spec.pdus = 6;
        spec.end_with_rst = true;
        std::vector<uint32_t> data_bytes;
        auto frames = gen::build_nvme_c2h_frames(spec, &data_bytes);
        for (auto& f : frames) gen::fill_checksums(f);
        // A corrupted data byte with its TCP sum refreshed: that PDU's DDGST is bad.
        size_t bad_frame = 0;
        for (size_t i = frames.size() / 2; i < frames.size() && bad_frame == 0; ++i)
            if (data_bytes[i] > 0 && data_bytes[i] + 54 == frames[i].size()) bad_frame = i;
        ASSERT_NE(bad_frame, 0u);
        frames[bad_frame][80] ^= 0x11;
        gen::fill_checksums(frames[bad_frame]);
        for (int policy = 0; policy < 4; ++policy) {
            EngineConfig lean, ref;
            ref.plain_fast_path = false;
            Engine el(lean), er(ref);
            RxPortPolicy rx;
            rx.drop_bad = policy & 1;
            rx.trusted = policy == 2;
            for (size_t i = 0; i < frames.size(); ++i) {
                std::vector<uint8_t> f = frames[i];
                uint64_t flags = 0;
                const unsigned r = rng() % 16;
                if (r == 0 && policy == 3) f[f.size() - 1] ^= 0x40;  // a bad TCP sum: not fed
                if (r == 1) flags = RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_IP_CKSUM_GOOD;
                if (r == 2 && policy == 3) flags = RTE_MBUF_F_RX_L4_CKSUM_BAD;
                const auto n = uint32_t(f.size());
                std::vector<uint32_t> lens =
                    rng() % 3 == 0 ? test::random_split(n, 3, rng) : std::vector<uint32_t>{n};
                rte_mbuf* ma = test::make_chain(pool(), f, lens);
                rte_mbuf* mb = test::make_chain(pool(), f, lens);
                ma->ol_flags = mb->ol_flags = flags;
                rte_mbuf* a[1] = {ma};
                rte_mbuf* b[1] = {mb};
                SCOPED_TRACE("pdu " + std::to_string(pdu) + " policy " + std::to_string(policy) +
                             " frame " + std::to_string(i));
                ASSERT_EQ(el.process(rx, {}, a, 1), er.process(rx, {}, b, 1));
                const PacketVerdict* va = verdict_of(ma, el.verdict_field());
                const PacketVerdict* vb = verdict_of(mb, er.verdict_field());
                ASSERT_EQ(va->n_layers, vb->n_layers);
                ASSERT_EQ(0, std::memcmp(va, vb, 8 + va->n_layers));
                rte_pktmbuf_free(ma);
                rte_pktmbuf_free(mb);
            }
            const EngineStats &a = el.stats(), &b = er.stats();
            for (int p = 0; p < kLayerProtoCount; ++p)
                for (int s = 0; s < kLayerStatusCount; ++s)
                    ASSERT_EQ(a.layer[p][s].get(), b.layer[p][s].get()) << p << " " << s;
            for (int i = 0; i < 4; ++i) ASSERT_EQ(a.ip_summed[i].get(), b.ip_summed[i].get());
            for (int i = 0; i < 8; ++i) ASSERT_EQ(a.csum_level[i].get(), b.csum_level[i].get());
            for (int i = 0; i < kDropReasonCount; ++i) ASSERT_EQ(a.drop[i].get(), b.drop[i].get());
            ASSERT_EQ(a.sum_bytes.get(), b.sum_bytes.get());
            ASSERT_EQ(a.skipped_trusted.get(), b.skipped_trusted.get());
            NvmeTrackerStats na{}, nb{};
            ASSERT_TRUE(el.nvme_stats(&na));
            ASSERT_TRUE(er.nvme_stats(&nb));
            ASSERT_EQ(na.pdus, nb.pdus);
            ASSERT_EQ(na.ddgst_good, nb.ddgst_good);
            ASSERT_EQ(na.ddgst_bad, nb.ddgst_bad);
            ASSERT_EQ(na.hdgst_good, nb.hdgst_good);
            ASSERT_EQ(na.bytes, nb.bytes);
            if (policy != 3) {  // no segment lost
                ASSERT_GT(na.ddgst_good, 0u);
                ASSERT_EQ(na.ddgst_bad, 1u);
                ASSERT_EQ(a.layer[int(LayerProto::nvme_ddgst)][int(LayerStatus::bad)].get(), 1u);
            }
        }
    }
}

}  // namespace
}  // namespace csum
