// crc32c_pair (two CRCs of one length at once) and crc32c_in_run against
// the portable reference under every kernel, with and without the folded
// pairs: every length 0..300, odd addresses, two initial CRCs; and the
// paired lanes and the short fold themselves where the CPU runs them.
#include <gtest/gtest.h>

#include <vector>

#include "crc32c/crc32c_kernels.h"
#include "crc32c_test_util.h"
#include "dispatch/cpu_features.h"
#include "dispatch/crc32c_pair.h"

namespace csum {
namespace {

TEST(Crc32cPair, EveryLengthAtOddAddressesUnderEveryKernel) {
    test::KernelGuard guard;
    std::mt19937 rng(3720);
    const std::vector<uint8_t> src = test::random_bytes(700, rng);
    for (auto k : crc32c_available_kernels())
        for (bool fold : {false, true}) {
            ASSERT_TRUE(crc32c_force_kernel(k));
            if (fold && !detail::cpu().can_avx512()) continue;
            const uint32_t plan = detail::crc32c_plan_now();
            detail::crc32c_plan_set(fold ? plan | detail::kPlanPairFold
                                         : plan & ~detail::kPlanPairFold);
            SCOPED_TRACE(fold ? "pairs folded" : "pairs not folded");
            for (size_t n = 0; n <= 300; ++n)
                for (size_t off : {1u, 3u, 7u}) {
                    // Two buffers, not a multiple of 8 apart.
                    const uint8_t* p = src.data() + off;
                    const uint8_t* q = src.data() + 333 + off;
                    const uint64_t r = crc32c_pair(p, q, n, 0x1234u, 0xDEADBEEFu);
                    ASSERT_EQ(uint32_t(r), test::reference_crc(p, n, 0x1234u))
                        << test::kname(k) << " len " << n << " off " << off;
                    ASSERT_EQ(uint32_t(r >> 32), test::reference_crc(q, n, 0xDEADBEEFu))
                        << test::kname(k) << " len " << n << " off " << off;
                    ASSERT_EQ(crc32c_in_run(q, n, 0x5EEDu), test::reference_crc(q, n, 0x5EEDu))
                        << test::kname(k) << " len " << n << " off " << off << " alone";
                }
        }
}

// The paired lanes called directly (they run only under the VEX plan),
// on RFC 3720 B.4's 32-byte patterns repeated to each length, each buffer
// exactly sized on the heap so ASan sees any read past its end.
TEST(Crc32cPair, PairedLanesMatchTheReference) {
    if (!detail::cpu().can_vex()) GTEST_SKIP() << "no AVX: the paired lanes never run here";
    std::vector<uint8_t> pat[4];
    for (int i = 0; i < 32; ++i)
        pat[0].push_back(0), pat[1].push_back(0xFF), pat[2].push_back(uint8_t(i)),
            pat[3].push_back(uint8_t(31 - i));
    EXPECT_EQ(test::reference_crc(pat[0].data(), 32, 0), 0x8A9136AAu);
    EXPECT_EQ(test::reference_crc(pat[2].data(), 32, 0), 0x46DD794Eu);
    for (size_t n = detail::kPairMin; n <= detail::kPairMax; ++n)
        for (int a = 0; a < 4; ++a) {
            std::vector<uint8_t> x(n), y(n + 1);
            for (size_t i = 0; i < n; ++i) x[i] = pat[a][i % 32], y[i + 1] = pat[3 - a][i % 32];
            const uint64_t r = detail::crc32c_pair_vex(x.data(), y.data() + 1, n, 0, 77);
            ASSERT_EQ(uint32_t(r), test::reference_crc(x.data(), n, 0))
                << "len " << n << " pattern " << a;
            ASSERT_EQ(uint32_t(r >> 32), test::reference_crc(y.data() + 1, n, 77))
                << "len " << n << " pattern " << a;
        }
}

// The avx512 short fold, paired and alone, called directly (crc32c_pair and
// crc32c_in_run run it under kPlanPairFold): every length they take, random bytes and states,
// each buffer exactly sized on the heap so ASan sees any read past its end
// (the last partial block comes in as a window that ends there).
TEST(Crc32cPair, FoldedPairsAndSinglesMatchTheReference) {
    if (!detail::cpu().can_avx512()) GTEST_SKIP() << "no AVX-512 + VPCLMULQDQ: no folded pairs";
    std::mt19937 rng(2960);
    for (size_t n = detail::kAvx512ShortMin; n < detail::kAvx512PairEnd; ++n)
        for (int rep = 0; rep < 3; ++rep) {
            const std::vector<uint8_t> x = test::random_bytes(n, rng);
            std::vector<uint8_t> y = test::random_bytes(n + 1, rng);
            const uint32_t s = rng(), t = rep == 0 ? 0 : rng();
            const uint64_t r = detail::crc32c_avx512_pair(s, x.data(), t, y.data() + 1, n);
            ASSERT_EQ(uint32_t(r), ~test::reference_crc(x.data(), n, ~s)) << "len " << n;
            ASSERT_EQ(uint32_t(r >> 32), ~test::reference_crc(y.data() + 1, n, ~t)) << "len " << n;
            ASSERT_EQ(detail::crc32c_avx512_short(s, x.data(), n),
                      ~test::reference_crc(x.data(), n, ~s))
                << "len " << n << " alone";
        }
}

}  // namespace
}  // namespace csum
