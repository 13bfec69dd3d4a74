// NVMe/TCP segments in bursts: the all-good run takes the segments of a flow
// after the one it fed (nvme_data_run), checks their sums and extends the
// data digest without the tracker's feed. Two interleaved streams in random
// bursts (apart by port or only by address), with bad data digests, bad TCP sums, PMD flags,
// retransmits, lost segments and chains, must give per packet the same verdict, order and
// forwarding as the walker-only engine, and the same counters and tracker
// totals, published after every burst.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "csum/nvme_tcp.h"
#include "csum/verdict.h"
#include "gen/checksum_fill.h"
#include "gen/nvme_tcp.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::Bytes;

// The same TCP segment over IPv6, addresses derived from the IPv4 ones.
Bytes to_v6(const Bytes& f) {
    test::V6 src = test::kSrc6, dst = test::kDst6;
    std::memcpy(src.data() + 12, &f[26], 4);
    std::memcpy(dst.data() + 12, &f[30], 4);
    const std::span<const uint8_t> tcp(f.data() + 34, f.size() - 34);
    return test::eth(0x86DD, test::ipv6(src, dst, 6, tcp));
}

// One stream's frames: an optional SYN (seq 999: data from 1000), C2HData
// PDUs with both digests, an RST; one data byte of a middle segment
// corrupted (its TCP sum refreshed), so that PDU's DDGST is bad.
// same_port: flow 0's ports, another source address.
std::vector<Bytes> stream(uint32_t pdu, uint32_t flow, bool syn, bool v6, bool same_port) {
    gen::NvmeStreamSpec spec;
    spec.pdu_data = pdu;
    spec.pdus = 6;
    spec.flow = flow;
    spec.end_with_rst = true;
    std::vector<uint32_t> data_bytes;
    std::vector<Bytes> frames = gen::build_nvme_c2h_frames(spec, &data_bytes);
    for (size_t i = frames.size() / 2; i < frames.size(); ++i)
        if (data_bytes[i] > 0 && data_bytes[i] + 54 == frames[i].size()) {
            frames[i][80] ^= 0x11;
            break;
        }
    if (syn) {
        Bytes s(frames[0].begin(), frames[0].begin() + 54);
        s[16] = 0, s[17] = 40;                             // IPv4 total length
        s[38] = 0, s[39] = 0, s[40] = 0x03, s[41] = 0xE7;  // seq 999
        s[47] = 0x02;                                      // SYN
        frames.insert(frames.begin(), s);
    }
    for (auto& f : frames) {
        if (same_port) {
            f[34 + 2] = 40000 >> 8, f[34 + 3] = 40000 & 0xFF;
            f[29] ^= 0x80;
        }
        if (v6) f = to_v6(f);
        gen::fill_checksums(f);
    }
    return frames;
}

class NvmeRun : public test::MbufTest {};

TEST_F(NvmeRun, BurstsMatchTheWalker) {
    std::mt19937 rng(2026);
    int cases = 0;
    for (int iter = 0; iter < 48; ++iter) {
        const bool v6 = iter & 1;
        const uint32_t pdu = std::array{3000u, 4096u, 20000u}[(iter >> 1) % 3];
        const int policy = (iter / 6) % 4;  // 1: drop_bad, 2: trusted, 3: damage
        // Two streams interleaved in chunks of 1..12 frames.
        const bool same_port = iter % 4 >= 2;
        std::vector<Bytes> s[2] = {stream(pdu, 0, rng() % 4 != 0, v6, false),
                                   stream(pdu, 1, rng() % 4 != 0, v6, same_port)};
        std::vector<Bytes> frames;
        std::vector<uint64_t> flags;
        std::vector<std::vector<uint32_t>> splits;
        size_t at[2] = {0, 0};
        for (int who = 0; at[0] < s[0].size() || at[1] < s[1].size(); who ^= 1) {
            for (unsigned k = 1 + rng() % 12; k > 0 && at[who] < s[who].size(); --k) {
                Bytes f = s[who][at[who]++];
                uint64_t fl = 0;
                const unsigned r = rng() % 24;
                if (policy == 3 && r == 0) f[f.size() - 1] ^= 0x40;  // bad TCP sum
                if (policy == 3 && r == 1) continue;                 // lost
                if (policy == 3 && r == 2) {                         // retransmitted
                    frames.push_back(f);
                    flags.push_back(0);
                    splits.push_back({uint32_t(f.size())});
                }
                if (r == 3) fl = RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_IP_CKSUM_GOOD;
                if (policy == 3 && r == 4) fl = RTE_MBUF_F_RX_L4_CKSUM_BAD;
                const auto n = uint32_t(f.size());
                splits.push_back(r == 5 ? test::random_split(n, 3, rng) : std::vector<uint32_t>{n});
                frames.push_back(std::move(f));
                flags.push_back(fl);
            }
        }
        EngineConfig lean, ref;
        ref.plain_fast_path = false;
        // The run's one-pass sum and fold (where the CPU has it), and the two passes.
        setenv("CSUM_NVME_FUSED", iter % 3 == 0 ? "0" : "1", 1);
        Engine el(lean), er(ref);
        unsetenv("CSUM_NVME_FUSED");
        Engine* engines[2] = {&el, &er};
        RxPortPolicy rx;
        rx.drop_bad = policy == 1 || policy == 3;
        rx.trusted = policy == 2;
        std::vector<std::string> verdicts[2];
        std::vector<size_t> order[2];
        std::vector<NvmeTrackerStats> published[2];  // after each burst
        std::vector<unsigned> bursts;
        for (size_t i = 0; i < frames.size();) {
            const auto b = unsigned(std::min<size_t>(1 + rng() % 32, frames.size() - i));
            bursts.push_back(b);
            i += b;
        }
        for (int e = 0; e < 2; ++e) {
            size_t i = 0;
            for (unsigned b : bursts) {
                rte_mbuf* burst[32];
                rte_mbuf* orig[32];
                for (unsigned k = 0; k < b; ++k) {
                    orig[k] = burst[k] = test::make_chain(pool(), frames[i + k], splits[i + k]);
                    burst[k]->ol_flags = flags[i + k];
                }
                const uint16_t kept = engines[e]->process(rx, {}, burst, uint16_t(b));
                for (unsigned j = 0; j < kept; ++j)
                    order[e].push_back(i + size_t(std::find(orig, orig + b, burst[j]) - orig));
                for (unsigned k = 0; k < b; ++k) {
                    const PacketVerdict* v = verdict_of(orig[k], engines[e]->verdict_field());
                    verdicts[e].push_back(
                        std::to_string(i + k) + " " +
                        std::string(reinterpret_cast<const char*>(v), 8) +
                        std::string(reinterpret_cast<const char*>(v->layers), v->n_layers));
                }
                rte_pktmbuf_free_bulk(orig, b);
                i += b;
                NvmeTrackerStats ts{};
                ASSERT_TRUE(engines[e]->nvme_stats(&ts));
                published[e].push_back(ts);
            }
        }
        SCOPED_TRACE("iter " + std::to_string(iter));
        ASSERT_EQ(order[0], order[1]);
        for (size_t k = 0; k < bursts.size(); ++k)
            ASSERT_EQ(0, std::memcmp(&published[0][k], &published[1][k], sizeof(NvmeTrackerStats)))
                << "burst " << k;
        ASSERT_EQ(verdicts[0], verdicts[1]);
        const EngineStats &a = el.stats(), &b = er.stats();
        for (int p = 0; p < kLayerProtoCount; ++p)
            for (int st = 0; st < kLayerStatusCount; ++st)
                ASSERT_EQ(a.layer[p][st].get(), b.layer[p][st].get()) << p << " " << st;
        for (int i = 0; i < 4; ++i) ASSERT_EQ(a.ip_summed[i].get(), b.ip_summed[i].get());
        for (int i = 0; i < kDropReasonCount; ++i) ASSERT_EQ(a.drop[i].get(), b.drop[i].get());
        ASSERT_EQ(a.sum_bytes.get(), b.sum_bytes.get());
        ASSERT_EQ(a.packets.get(), b.packets.get());
        ASSERT_EQ(a.bytes.get(), b.bytes.get());
        NvmeTrackerStats na{}, nb{};
        ASSERT_TRUE(el.nvme_stats(&na));
        ASSERT_TRUE(er.nvme_stats(&nb));
        ASSERT_EQ(0, std::memcmp(&na, &nb, sizeof na));
        if (policy != 3) {
            // Both streams' bad PDU, and most PDUs verified.
            ASSERT_EQ(na.ddgst_bad, 2u);
            ASSERT_GE(na.ddgst_good, 8u);
            ++cases;
        }
    }
    ASSERT_EQ(cases, 36);
}

}  // namespace
}  // namespace csum
