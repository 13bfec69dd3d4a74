// The SCTP same-shape run CRCs linear packets two at a time (crc32c_pair)
// when both CRC the same length in the paired lanes' range. Runs of one
// length around that range's edges, a quarter of the packets hostile (a bad
// CRC or payload byte, another length, a broken header, a chain), first or
// second of a pair: verdicts, bytes and counts as the walker's, under every
// CRC32C kernel (only the sse42 lanes pair).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "csum/engine.h"
#include "support/chain_builder.h"
#include "support/crc32c_kernels.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using SctpPairRun = test::Crc32cMbufTest;

TEST_F(SctpPairRun, RunsOfOneLengthWithHostileMembersMatchTheWalker) {
    test::Filler refill(pool());
    std::mt19937 rng(4960);
    const auto engs = test::lean_and_walker({Mode::verify, Mode::csum});
    // IPv4 CRCs len - 46 bytes past the common header (paired from 175 to
    // 333 B), IPv6 len - 66 (195 to 353 B).
    const uint32_t lens[] = {174, 175, 176, 194, 195, 256, 300, 333, 334, 353, 354, 400};
    for_each_kernel([&] {
        for (int iter = 0; iter < 96; ++iter) {
            const bool v6 = iter % 2;
            const uint32_t len = lens[iter / 2 % std::size(lens)];
            const size_t l4 = v6 ? 54 : 34;
            constexpr int kN = 24;
            std::vector<test::ChainSpec> specs;
            std::vector<std::string> what;
            for (int i = 0; i < kN; ++i) {
                const auto flow = uint32_t(iter * kN + i);
                std::vector<uint8_t> f =
                    v6 ? refill.sctp6(len, flow) : refill.frame(gen::Proto::sctp4, len, flow);
                std::vector<uint32_t> split{uint32_t(f.size())};
                const int m = rng() % 4 == 0 ? 1 + int(rng() % 6) : 0;
                switch (m) {
                    case 1:  // the CRC field
                        f[l4 + 8 + rng() % 4] ^= uint8_t(1 + rng() % 255);
                        break;
                    case 2:  // a payload byte
                        f[l4 + 12 + rng() % (f.size() - l4 - 12)] ^= uint8_t(1 + rng() % 255);
                        break;
                    case 3:  // another length, its CRC right
                        f = v6 ? refill.sctp6(len + 4, flow)
                               : refill.frame(gen::Proto::sctp4, len + 4, flow);
                        split = {uint32_t(f.size())};
                        break;
                    case 4:  // an IP header byte
                        f[14 + rng() % 20] ^= uint8_t(1 + rng() % 255);
                        break;
                    case 5:  // a chain
                        split = test::random_split(uint32_t(f.size()), 2, rng);
                        break;
                    case 6:  // the chunk's length
                        f[l4 + 15] ^= uint8_t(1 + rng() % 255);
                        break;
                    default:
                        break;
                }
                specs.push_back({f, split, 0, 0, test::Lie::none});
                what.push_back(std::to_string(i) + ":" + std::to_string(m));
            }
            for (int mi = 0; mi < 2; ++mi) {
                Engine &el = *engs[2 * mi], &er = *engs[2 * mi + 1];
                RxPortPolicy rx;
                rx.drop_bad = iter % 3 != 0;
                SCOPED_TRACE("iter " + std::to_string(iter) + " len " + std::to_string(len) +
                             (v6 ? " v6" : " v4") + " mode " + std::to_string(mi));
                ASSERT_NO_FATAL_FAILURE(
                    test::expect_same_burst(el, er, pool(), specs, rx, 0, what));
                ASSERT_NO_FATAL_FAILURE(test::expect_same_counts_and_work(el, er));
            }
        }
    });
}

}  // namespace
}  // namespace csum
