// The SCTP same-shape run takes packets of several chunks (same_sctp_shape
// walks their lengths as classify does). Bursts of 1..6-chunk packets, linear
// and in chains of 2..4 segments cut anywhere (chunk headers past the
// gathered front are read from the chain), by GOOD flags and by our CRC, a
// quarter of them hostile in their chunk lengths (too short, past the end,
// off the 4-byte grid, zero), their IP length, CRC or payload: verdicts,
// bytes, counts and order as the walker's, in verify, csum and fill mode
// (fill: through TX ports that offload some fields too, and trusted ports).
// Chunk lengths split between segments at every byte are read right.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "csum/engine.h"
#include "parse/classify.h"
#include "parse/classify_same.h"
#include "support/chain_builder.h"
#include "support/crc32c_kernels.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using SctpChunksRun = test::Crc32cMbufTest;

// Where f's chunk headers start (by their lengths, as the walker steps).
std::vector<size_t> chunk_offsets(const std::vector<uint8_t>& f, size_t l4) {
    std::vector<size_t> at;
    for (size_t pos = l4 + 12; pos + 4 <= f.size();) {
        at.push_back(pos);
        const size_t clen = size_t(f[pos + 2]) << 8 | f[pos + 3];
        if (clen < 4) break;
        pos += (clen + 3) & ~size_t{3};
    }
    return at;
}

TEST_F(SctpChunksRun, SeveralChunksWithHostileLengthsMatchTheWalker) {
    test::Filler refill(pool());
    std::mt19937 rng(2960);
    constexpr int kModes = 3;
    const Mode modes[kModes] = {Mode::verify, Mode::csum, Mode::fill};
    const auto engs = test::lean_and_walker({modes[0], modes[1], modes[2]});
    auto put16 = [](std::vector<uint8_t>& f, size_t at, uint16_t v) {
        if (at + 2 <= f.size()) f[at] = uint8_t(v >> 8), f[at + 1] = uint8_t(v);
    };
    auto get16 = [](const std::vector<uint8_t>& f, size_t at) -> uint16_t {
        return at + 2 <= f.size() ? uint16_t(f[at] << 8 | f[at + 1]) : 0;
    };
    for (int iter = 0; iter < 240; ++iter) {
        const bool v6 = iter % 2, sums = iter / 2 % 2;
        const int chains = iter / 4 % 3;  // 0 linear, 1 two segments, 2 two to four
        const size_t l4 = v6 ? 54 : 34, ip_len = v6 ? 18 : 16;  // where the IP length lies
        constexpr int kN = 24;
        std::vector<test::ChainSpec> specs;
        std::vector<std::string> what;
        // Runs of one chunk count now and then, else any count per packet.
        const uint16_t burst_chunks = uint16_t(iter % 5 == 0 ? 0 : 1 + rng() % 6);
        for (int i = 0; i < kN; ++i) {
            const auto flow = uint32_t(iter * kN + i);
            const uint16_t chunks = burst_chunks ? burst_chunks : uint16_t(1 + rng() % 6);
            const uint32_t len = 64 + uint32_t(rng() % 500);
            std::vector<uint8_t> f = v6 ? refill.sctp6(len, flow, chunks)
                                        : refill.frame(gen::Proto::sctp4, len, flow, chunks);
            const std::vector<size_t> at = chunk_offsets(f, l4);
            const size_t c = at.empty() ? l4 + 12 : at[rng() % at.size()];
            const int m = rng() % 4 == 0 ? 1 + int(rng() % 8) : 0;
            switch (m) {
                case 1:  // a chunk's length under its header (0..3)
                    put16(f, c + 2, uint16_t(rng() % 4));
                    break;
                case 2:  // a chunk's length past the packet's end
                    put16(f, c + 2, uint16_t(f.size() - c + 1 + rng() % 8));
                    break;
                case 3:  // a chunk's length off the grid: the next header misread
                    put16(f, c + 2, uint16_t(get16(f, c + 2) - 1 - rng() % 3));
                    break;
                case 4:  // the IP length short: the last chunk overruns it
                    put16(f, ip_len, uint16_t(get16(f, ip_len) - 4 - rng() % 8));
                    break;
                case 5:  // the CRC field
                    f[l4 + 8 + rng() % 4] ^= uint8_t(1 + rng() % 255);
                    break;
                case 6:  // a payload byte
                    f[l4 + 12 + rng() % (f.size() - l4 - 12)] ^= uint8_t(1 + rng() % 255);
                    break;
                case 7:  // a chunk header's type or flags byte (no effect on the shape)
                    f[c + rng() % 2] ^= uint8_t(1 + rng() % 255);
                    break;
                case 8:  // the last chunk's length 0 (the loop must not stall)
                    put16(f, at.empty() ? c + 2 : at.back() + 2, 0);
                    break;
                default:
                    break;
            }
            // Half of the hostile ones with their sums right again (the shape decides).
            if (m != 0 && m != 5 && m != 6 && rng() % 2) f = refill(f);
            const auto n = uint32_t(f.size());
            std::vector<uint32_t> split{n};
            if (chains == 1) split = test::random_split(n, 2, rng);
            if (chains == 2) split = test::random_split(n, 2 + unsigned(rng() % 3), rng);
            uint64_t fl = 0;
            if (!sums) fl = RTE_MBUF_F_RX_L4_CKSUM_GOOD | (v6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD);
            specs.push_back({f, split, fl, 0, test::Lie::none});
            what.push_back(std::to_string(i) + ": chunks " + std::to_string(chunks) + " m " +
                           std::to_string(m));
        }
        for (int mi = 0; mi < kModes; ++mi) {
            Engine &el = *engs[2 * mi], &er = *engs[2 * mi + 1];
            RxPortPolicy rx;
            rx.drop_bad = iter % 3 != 0;
            rx.trusted = iter % 7 == 3;
            // Fill mode: a TX port that offloads the SCTP CRC, the IPv4 header
            // sum, both or neither: only the fields left to software are filled.
            static const uint64_t kTx[] = {
                0, RTE_ETH_TX_OFFLOAD_SCTP_CKSUM, RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
                RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_SCTP_CKSUM};
            TxPortPolicy tx;
            tx.offloads = mi == 2 ? kTx[iter / 12 % 4] : 0;  // every layout under each
            SCOPED_TRACE("iter " + std::to_string(iter) + (v6 ? " v6" : " v4") + " mode " +
                         std::string(to_string(modes[mi])) + " tx " + std::to_string(tx.offloads));
            ASSERT_NO_FATAL_FAILURE(
                test::expect_same_burst(el, er, pool(), specs, rx, 0, what, tx));
            ASSERT_NO_FATAL_FAILURE(test::expect_same_counts_and_work(el, er));
        }
    }
}

// Every chunk length read from the chain, wherever a cut falls, by both
// readers (classify, and same_sctp_shape behind a gathered front): a
// 4-chunk packet cut once at every byte, and cut around a 1-byte segment
// at every byte, is taken; the same with its last chunk's length past the
// packet is refused. A misread field (its bytes split) refuses the good
// packet or takes the lying one.
TEST_F(SctpChunksRun, ChunkLengthsCutAtEveryByteAreRead) {
    test::Filler refill(pool());
    const ShapeConfig sc{ParserConfig{}};
    for (const bool v6 : {false, true}) {
        const uint32_t l4 = v6 ? 54 : 34;
        std::vector<uint8_t> good =
            v6 ? refill.sctp6(256, 7, 4) : refill.frame(gen::Proto::sctp4, 256, 7, 4);
        const std::vector<size_t> at = chunk_offsets(good, l4);
        ASSERT_EQ(at.size(), 4u);
        std::vector<uint8_t> lying = good;
        const size_t last = at.back() + 2;
        const uint16_t over = uint16_t((lying[last] << 8 | lying[last + 1]) + 4);
        lying[last] = uint8_t(over >> 8), lying[last + 1] = uint8_t(over);
        const auto n = uint32_t(good.size());
        for (uint32_t k = 1; k + 1 < n; ++k) {
            for (const bool one_byte : {false, true}) {
                const std::vector<uint32_t> lens = one_byte ? std::vector<uint32_t>{k, 1, n - k - 1}
                                                            : std::vector<uint32_t>{k, n - k};
                for (const bool lie : {false, true}) {
                    SCOPED_TRACE(std::string(v6 ? "v6" : "v4") + " cut " + std::to_string(k) +
                                 (one_byte ? " +1" : "") + (lie ? " lying" : ""));
                    rte_mbuf* m = test::make_chain(pool(), lie ? lying : good, lens);
                    ASSERT_NE(m, nullptr);
                    alignas(16) uint8_t gather[kHeaderGather];
                    PacketShape s;
                    EXPECT_EQ(classify(m, sc, gather, &s), !lie);
                    const shape_detail::Front f = shape_detail::gather_front(
                        m, std::span<uint8_t, kHeaderGather>(gather), [l4] { return l4 + 16; });
                    ASSERT_NE(f.bytes, nullptr);
                    uint32_t l4_len = 0;
                    const bool same = v6 ? same_sctp_shape<true>(m, f.bytes, n, f.held, &l4_len)
                                         : same_sctp_shape<false>(m, f.bytes, n, f.held, &l4_len);
                    EXPECT_EQ(same, !lie);
                    if (same) {
                        EXPECT_EQ(l4_len, n - l4);
                    }
                    rte_pktmbuf_free(m);
                }
            }
        }
    }
}

}  // namespace
}  // namespace csum
