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

#include "csum/crc32c.h"
#include "csum/engine.h"
#include "csum/nvme_tcp.h"
#include "csum/verdict.h"
#include "gen/checksum_fill.h"
#include "gen/nvme_tcp.h"
#include "support/chain_builder.h"
#include "support/engine_compare.h"
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

class NvmeRun : public test::MbufTest {
  protected:
    // Runs the packets of specs through the run engine and the walker-only
    // engine (the run's one-pass sum and fold where the CPU has it when
    // fused, else two passes) in the same random bursts: the verdicts, the
    // kept order, every counter and the tracker's totals after each burst
    // must be equal. The run engine's tracker totals in *totals. Fatal on
    // the first difference: callers check HasFailure() or wrap it in
    // ASSERT_NO_FATAL_FAILURE.
    void expect_same(const std::vector<test::ChainSpec>& specs, const RxPortPolicy& rx, bool fused,
                     std::mt19937& rng, NvmeTrackerStats* totals) {
        EngineConfig lean, ref;
        ref.plain_fast_path = false;
        setenv("CSUM_NVME_FUSED", fused ? "1" : "0", 1);
        Engine el(lean), er(ref);
        unsetenv("CSUM_NVME_FUSED");
        Engine* engines[2] = {&el, &er};
        std::vector<std::string> verdicts[2];
        std::vector<size_t> order[2];
        std::vector<NvmeTrackerStats> published[2];  // after each burst
        std::vector<unsigned> bursts;
        for (size_t i = 0; i < specs.size();) {
            const auto b = unsigned(std::min<size_t>(1 + rng() % 32, specs.size() - i));
            bursts.push_back(b);
            i += b;
        }
        for (int e = 0; e < 2; ++e) {
            size_t i = 0;
            for (unsigned b : bursts) {
                test::ChainBurst cb;
                ASSERT_NO_FATAL_FAILURE(cb.build(pool(), std::span(specs).subspan(i, b)));
                rte_mbuf* const* orig = cb.orig();
                const uint16_t kept = engines[e]->process(rx, {}, cb.burst(), uint16_t(b));
                for (unsigned j = 0; j < kept; ++j)
                    order[e].push_back(i + size_t(std::find(orig, orig + b, cb.burst()[j]) - orig));
                for (unsigned k = 0; k < b; ++k)
                    verdicts[e].push_back(std::to_string(i + k) + " " +
                                          test::verdict_key(orig[k], *engines[e]));
                i += b;
                NvmeTrackerStats ts{};
                ASSERT_TRUE(engines[e]->nvme_stats(&ts));
                published[e].push_back(ts);
            }
        }
        ASSERT_EQ(order[0], order[1]);
        for (size_t k = 0; k < bursts.size(); ++k)
            ASSERT_EQ(0, std::memcmp(&published[0][k], &published[1][k], sizeof(NvmeTrackerStats)))
                << "burst " << k;
        ASSERT_EQ(verdicts[0], verdicts[1]);
        ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(el, er));
        ASSERT_EQ(el.stats().sum_bytes.get(), er.stats().sum_bytes.get());
        NvmeTrackerStats na{}, nb{};
        ASSERT_TRUE(el.nvme_stats(&na));
        ASSERT_TRUE(er.nvme_stats(&nb));
        ASSERT_EQ(0, std::memcmp(&na, &nb, sizeof na));
        *totals = na;
    }
};

// One controller-to-host stream cut at random places, so that PDU
// boundaries fall everywhere in a segment: from 1-byte segments to full
// ones. Some PDUs lie about their length (PLEN changed, HDGST made to match,
// so the tracker trusts them until the framing breaks), and segments that
// hold a PDU boundary get a byte changed after their TCP sum was computed
// (in the data's rest, the DDGST, the next header or the next data), so
// their sum is wrong. Under the avx512 CRC plan where the CPU has it (the
// boundary's one-call end and begin), with and without the one-pass kernel.
TEST_F(NvmeRun, BoundariesMatchTheWalkerUnderRandomCutsAndLies) {
    std::mt19937 rng(1414);
    const Crc32cKernel was = crc32c_active_kernel();
    Crc32cKernel avx512;
    if (crc32c_kernel_from_name("avx512", &avx512)) crc32c_force_kernel(avx512);  // if it can
    unsigned bad_sums = 0, lies = 0, boundaries = 0;
    for (int iter = 0; iter < 24; ++iter) {
        SCOPED_TRACE("iter " + std::to_string(iter));
        // The PDUs and where each one starts in the stream.
        Bytes stream;
        std::vector<uint32_t> starts;
        const int pdus = 8 + int(rng() % 8);
        for (int i = 0; i < pdus; ++i) {
            const uint32_t dl = rng() % 4 == 0 ? 1 + rng() % 200 : 1000 + rng() % 4000;
            Bytes pdu = gen::build_c2h_pdu(dl, uint16_t(i), 0, uint32_t(iter), i + 1 == pdus);
            if (rng() % 6 == 0) {  // a lying PLEN with a matching HDGST
                uint32_t plen = uint32_t(pdu.size()) + uint32_t(rng() % 64) - 32;
                plen = std::max<uint32_t>(plen, 33);
                for (int b = 0; b < 4; ++b) pdu[4 + b] = uint8_t(plen >> (8 * b));
                const uint32_t h = test::ref_crc32c(std::span<const uint8_t>(pdu.data(), 24));
                for (int b = 0; b < 4; ++b) pdu[24 + b] = uint8_t(h >> (8 * b));
                ++lies;
            }
            starts.push_back(uint32_t(stream.size()));
            stream.insert(stream.end(), pdu.begin(), pdu.end());
        }
        const bool lossy = iter % 4 == 3;
        std::vector<test::ChainSpec> specs;
        auto frame = [&](uint32_t seq, uint8_t fl, std::span<const uint8_t> payload) {
            Bytes f = test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 6,
                                                   test::tcp(test::kSrc4, test::kDst4, 4420, 40000,
                                                             seq, fl, payload)));
            const auto n = uint32_t(f.size());
            specs.push_back({std::move(f), {n}});
        };
        frame(999, 0x02, {});  // SYN: data from 1000
        for (uint32_t at = 0; at < stream.size();) {
            const unsigned r = rng() % 8;
            uint32_t n = r < 5 ? 1448 : r == 5 ? 1 + rng() % 64 : 1 + rng() % 1448;
            n = std::min<uint32_t>(n, uint32_t(stream.size()) - at);
            frame(1000 + at, 0x10, std::span<const uint8_t>(stream.data() + at, n));
            // A segment that holds a PDU start past its first byte: a boundary.
            const auto next = std::upper_bound(starts.begin(), starts.end(), at);
            if (next != starts.end() && *next < at + n) {
                ++boundaries;
                if (rng() % 3 == 0) {
                    // Around the boundary: the data's rest, the DDGST, the
                    // header, the next data; the sum is now wrong.
                    const int32_t d = int32_t(*next) - int32_t(at) + int32_t(rng() % 48) - 12;
                    const uint32_t off = uint32_t(std::clamp<int32_t>(d, 0, int32_t(n) - 1));
                    specs.back().bytes[54 + off] ^= uint8_t(1 + rng() % 255);
                    ++bad_sums;
                    if (lossy && rng() % 2 == 0) {  // and a retransmit, right
                        frame(1000 + at, 0x10, std::span<const uint8_t>(stream.data() + at, n));
                    }
                }
            }
            at += n;
        }
        frame(1000 + uint32_t(stream.size()), 0x04, {});  // RST
        RxPortPolicy rx;
        rx.drop_bad = iter % 2 == 0;
        NvmeTrackerStats totals{};
        expect_same(specs, rx, iter % 3 != 0, rng, &totals);
        if (HasFailure()) break;
    }
    crc32c_force_kernel(was);
    // The input reached what it is for.
    EXPECT_GE(boundaries, 150u);
    EXPECT_GE(bad_sums, 40u);
    EXPECT_GE(lies, 10u);
}

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
        std::vector<test::ChainSpec> specs;
        size_t at[2] = {0, 0};
        for (int who = 0; at[0] < s[0].size() || at[1] < s[1].size(); who ^= 1) {
            for (unsigned k = 1 + rng() % 12; k > 0 && at[who] < s[who].size(); --k) {
                Bytes f = s[who][at[who]++];
                uint64_t fl = 0;
                const unsigned r = rng() % 24;
                if (policy == 3 && r == 0) f[f.size() - 1] ^= 0x40;  // bad TCP sum
                if (policy == 3 && r == 1) continue;                 // lost
                if (policy == 3 && r == 2)                           // retransmitted
                    specs.push_back({f, {uint32_t(f.size())}});
                if (r == 3) fl = RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_IP_CKSUM_GOOD;
                if (policy == 3 && r == 4) fl = RTE_MBUF_F_RX_L4_CKSUM_BAD;
                const auto n = uint32_t(f.size());
                auto lens = r == 5 ? test::random_split(n, 3, rng) : std::vector<uint32_t>{n};
                specs.push_back({std::move(f), std::move(lens), fl});
            }
        }
        RxPortPolicy rx;
        rx.drop_bad = policy == 1 || policy == 3;
        rx.trusted = policy == 2;
        SCOPED_TRACE("iter " + std::to_string(iter));
        // The run's one-pass sum and fold (where the CPU has it), and the two passes.
        NvmeTrackerStats na{};
        ASSERT_NO_FATAL_FAILURE(expect_same(specs, rx, iter % 3 != 0, rng, &na));
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
