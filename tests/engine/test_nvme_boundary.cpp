// PDU boundaries inside the NVMe run whose TCP sums are right but whose PDUs
// are not the common case the run takes itself (DataRun::boundary): a wrong
// HDGST or DDGST, padding before the data, PDUs without data, data that
// ends inside the segment, a header cut by the segment's end, lying PLENs
// with matching HDGSTs, streams without header digests. Every packet's
// verdict, the kept order, every counter and the tracker's totals after each
// burst must equal the walker-only engine's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/crc32c.h"
#include "csum/engine.h"
#include "csum/nvme_tcp.h"
#include "support/engine_compare.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::Bytes;

void put_le32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// A C2HData PDU of dlen data bytes, pad bytes between its header (and
// HDGST) and its data, both digests right.
Bytes c2h(uint32_t dlen, bool hd, bool dd, uint8_t pad, std::mt19937& rng) {
    const uint32_t pdo = 24 + (hd ? 4 : 0) + pad;
    const uint32_t plen = pdo + dlen + (dd ? 4 : 0);
    Bytes p(plen, 0);
    p[0] = 0x07;
    p[1] = static_cast<uint8_t>((hd ? 1 : 0) | (dd ? 2 : 0));
    p[2] = 24;
    p[3] = static_cast<uint8_t>(pdo);
    put_le32(&p[4], plen);
    p[8] = static_cast<uint8_t>(rng());  // CCCID
    put_le32(&p[16], dlen);              // DATAL
    for (uint32_t i = 0; i < dlen; ++i) p[pdo + i] = static_cast<uint8_t>(rng());
    if (hd) put_le32(&p[24], test::ref_crc32c(std::span(p).first(24)));
    if (dd) put_le32(&p[pdo + dlen], test::ref_crc32c(std::span(p).subspan(pdo, dlen)));
    return p;
}

struct Case {
    std::vector<Bytes> frames;
    unsigned bad_hd = 0, bad_dd = 0, padded = 0, lies = 0, other = 0;
};

// One controller-to-host stream (SYN, ICResp, PDUs, RST) from port 4420 to
// `port` in TCP segments with right sums, appended to c; PDU boundaries fall
// inside segments.
void add_stream(Case& c, bool v6, bool hd, uint16_t port, std::mt19937& rng) {
    Bytes stream = test::nvme_icresp(static_cast<uint8_t>((hd ? 1 : 0) | 2));
    std::vector<uint32_t> starts;
    for (int i = 0; i < 40; ++i) {
        starts.push_back(uint32_t(stream.size()));
        const unsigned r = rng() % 32;
        Bytes p;
        if (r < 3) {  // no data
            p = test::nvme_capsule_resp(hd);
            ++c.other;
        } else if (r < 5) {  // data that ends inside a segment
            p = c2h(1 + rng() % 300, hd, true, 0, rng);
        } else if (r < 7) {
            p = c2h(1000 + rng() % 4000, hd, true, uint8_t(4 * (1 + rng() % 4)), rng);
            ++c.padded;
        } else {
            p = c2h(1000 + rng() % 4000, hd, true, 0, rng);
            if (r < 10 && hd) {
                p[24 + rng() % 4] ^= uint8_t(1 + rng() % 255);
                ++c.bad_hd;
            } else if (r < 13) {
                p[p.size() - 1 - rng() % 4] ^= uint8_t(1 + rng() % 255);
                ++c.bad_dd;
            } else if (r < 15 && hd) {  // a lying PLEN with a matching HDGST
                const uint32_t plen = r == 13 ? 0x7FFFFFF0u : uint32_t(p.size()) + rng() % 64 - 32;
                put_le32(&p[4], plen);
                put_le32(&p[24], test::ref_crc32c(std::span(p).first(24)));
                ++c.lies;
            }
        }
        stream.insert(stream.end(), p.begin(), p.end());
    }
    auto frame = [&](uint32_t seq, uint8_t flags, std::span<const uint8_t> payload) {
        const Bytes t = v6 ? test::tcp(test::kSrc6, test::kDst6, 4420, port, seq, flags, payload)
                           : test::tcp(test::kSrc4, test::kDst4, 4420, port, seq, flags, payload);
        c.frames.push_back(v6 ? test::eth(0x86DD, test::ipv6(test::kSrc6, test::kDst6, 6, t))
                              : test::eth(0x0800, test::ipv4(test::kSrc4, test::kDst4, 6, t)));
    };
    frame(999, 0x02, {});  // SYN: data from 1000
    for (uint32_t at = 0; at < stream.size();) {
        uint32_t n = 1448;
        const auto next = std::upper_bound(starts.begin(), starts.end(), at);
        const unsigned r = rng() % 8;
        if (r == 0) n = 1 + rng() % 1448;
        // End the segment inside the next header, or right after it.
        if (r == 1 && next != starts.end()) n = *next - at + 1 + rng() % 27;
        if (r == 2 && next != starts.end()) n = *next - at + 24 + (hd ? 4 : 0);
        n = std::clamp<uint32_t>(n, 1, std::min<uint32_t>(1448, uint32_t(stream.size()) - at));
        frame(1000 + at, 0x10, std::span<const uint8_t>(stream.data() + at, n));
        at += n;
    }
    frame(1000 + uint32_t(stream.size()), 0x04, {});  // RST
}

class NvmeBoundary : public test::MbufTest {};

TEST_F(NvmeBoundary, UncommonBoundariesWithRightSumsMatchTheWalker) {
    std::mt19937 rng(4096);
    const Crc32cKernel was = crc32c_active_kernel();
    Crc32cKernel avx512;
    if (crc32c_kernel_from_name("avx512", &avx512)) crc32c_force_kernel(avx512);  // if it can
    Case total;
    for (int iter = 0; iter < 16; ++iter) {
        SCOPED_TRACE("iter " + std::to_string(iter));
        // One engine sees a stream with header digests and one without
        // (its all-good verdicts differ by a layer), one after the other.
        const bool v6 = iter & 1, hd_first = (iter & 2) == 0;
        Case c;
        add_stream(c, v6, hd_first, 40000, rng);
        add_stream(c, v6, !hd_first, 40001, rng);
        total.bad_hd += c.bad_hd, total.bad_dd += c.bad_dd, total.padded += c.padded;
        total.lies += c.lies, total.other += c.other;
        EngineConfig lean, ref;
        ref.plain_fast_path = false;
        setenv("CSUM_NVME_FUSED", iter % 4 == 3 ? "0" : "1", 1);
        Engine el(lean), er(ref);
        unsetenv("CSUM_NVME_FUSED");
        Engine* engines[2] = {&el, &er};
        RxPortPolicy rx;
        rx.drop_bad = iter % 3 == 0;
        std::vector<unsigned> bursts;
        for (size_t i = 0; i < c.frames.size();) {
            const auto b = unsigned(std::min<size_t>(1 + rng() % 32, c.frames.size() - i));
            bursts.push_back(b);
            i += b;
        }
        std::vector<test::BurstRecord> rec[2];
        std::vector<NvmeTrackerStats> published[2];
        for (int e = 0; e < 2; ++e) {
            size_t i = 0;
            for (unsigned b : bursts) {
                rte_mbuf* burst[32];
                rte_mbuf* orig[32];
                std::vector<std::string> what;
                for (unsigned k = 0; k < b; ++k) {
                    const uint32_t whole[1] = {uint32_t(c.frames[i + k].size())};
                    orig[k] = burst[k] = test::make_chain(pool(), c.frames[i + k], whole);
                    what.push_back(std::to_string(i + k));
                }
                const uint16_t kept = engines[e]->process(rx, {}, burst, uint16_t(b));
                rec[e].push_back(test::record_burst(*engines[e], orig, burst, int(b), kept, what));
                rte_pktmbuf_free_bulk(orig, b);
                i += b;
                NvmeTrackerStats ts{};
                ASSERT_TRUE(engines[e]->nvme_stats(&ts));
                published[e].push_back(ts);
            }
        }
        for (size_t k = 0; k < bursts.size(); ++k) {
            ASSERT_EQ(rec[0][k], rec[1][k]) << "burst " << k;
            ASSERT_EQ(0, std::memcmp(&published[0][k], &published[1][k], sizeof(NvmeTrackerStats)))
                << "burst " << k;
        }
        ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(el, er));
        // The verdicts the input is for were given.
        const NvmeTrackerStats& s = published[0].back();
        EXPECT_GE(s.ddgst_good, 10u);
        if (c.bad_dd > 0) {
            EXPECT_GE(s.ddgst_bad, 1u);
        }
        if (c.bad_hd > 0) {
            EXPECT_GE(s.hdgst_bad, 1u);
        }
    }
    crc32c_force_kernel(was);
    EXPECT_GE(total.bad_hd, 10u);
    EXPECT_GE(total.bad_dd, 20u);
    EXPECT_GE(total.padded, 20u);
    EXPECT_GE(total.lies, 5u);
    EXPECT_GE(total.other, 20u);
}

}  // namespace
}  // namespace csum
