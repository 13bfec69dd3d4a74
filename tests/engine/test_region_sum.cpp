// RegionSum derives any nested range's sum from one pass; odd offsets included.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "csum/inet.h"
#include "engine/region_sum.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class RegionSumTest : public test::MbufTest {};

TEST_F(RegionSumTest, NestedRangesMatchDirectSumsAtAnyParity) {
    std::mt19937 rng(7);
    uint64_t bytes = 0;
    for (int iter = 0; iter < 400; ++iter) {
        const uint32_t n = 1 + rng() % 1500;
        auto data = test::random_bytes(n, rng);
        rte_mbuf* m = test::make_chain(pool(), data, test::random_split(n, 1 + rng() % 5, rng));
        const uint32_t b = rng() % n, e = b + 1 + rng() % (n - b);
        const uint32_t o = b + rng() % (e - b), l = rng() % (e - o + 1);
        RegionSum r(m, bytes);
        ASSERT_TRUE(r.compute(b, e));
        uint32_t s = 0;
        ASSERT_TRUE(r.sum_of(o, l, &s));
        EXPECT_EQ(sum_fold(s) % 0xFFFF, raw_cksum(data.data() + o, l) % 0xFFFF)
            << "b=" << b << " e=" << e << " o=" << o << " l=" << l;
        // A changed word inside the region is reflected without rereading.
        if (o + 2 <= e && o >= b) {
            uint16_t old_word, new_word = static_cast<uint16_t>(rng());
            std::memcpy(&old_word, &data[o], 2);
            std::memcpy(&data[o], &new_word, 2);
            r.replace_word(o, old_word, new_word);
            ASSERT_TRUE(r.sum_of(b, e - b, &s));
            EXPECT_EQ(sum_fold(s) % 0xFFFF, raw_cksum(data.data() + b, e - b) % 0xFFFF)
                << "replace at " << o;
        }
        rte_pktmbuf_free(m);
        if (HasFailure()) break;
    }
}

TEST_F(RegionSumTest, FromCompleteMatchesADirectPass) {
    std::mt19937 rng(8);
    uint64_t bytes = 0;
    for (int iter = 0; iter < 200; ++iter) {
        const uint32_t n = 2 + rng() % 1000;
        auto data = test::random_bytes(n, rng);
        rte_mbuf* m = test::make_chain(pool(), data, test::random_split(n, 1 + rng() % 4, rng));
        const uint32_t whole_base = rng() % (n / 2 + 1);
        const uint32_t b = whole_base + rng() % (n - whole_base), e = b + rng() % (n - b + 1);
        RegionSum r(m, bytes);
        ASSERT_TRUE(
            r.from_complete(raw_cksum(data.data() + whole_base, n - whole_base), whole_base, b, e));
        uint32_t s = 0;
        ASSERT_TRUE(r.sum_of(b, e - b, &s));
        EXPECT_EQ(sum_fold(s) % 0xFFFF, raw_cksum(data.data() + b, e - b) % 0xFFFF)
            << "base=" << whole_base << " b=" << b << " e=" << e;
        rte_pktmbuf_free(m);
        if (HasFailure()) break;
    }
}

TEST_F(RegionSumTest, RangesOutsideTheRegionAreRefused) {
    std::vector<uint8_t> data(100, 1);
    rte_mbuf* m = test::make_linear(pool(), data);
    uint64_t bytes = 0;
    RegionSum r(m, bytes);
    uint32_t s;
    EXPECT_FALSE(r.sum_of(0, 10, &s));  // not computed yet
    ASSERT_TRUE(r.compute(10, 90));
    EXPECT_FALSE(r.sum_of(5, 10, &s));
    EXPECT_FALSE(r.sum_of(85, 10, &s));
    EXPECT_FALSE(r.compute(10, 200));
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum
