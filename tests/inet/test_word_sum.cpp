// The same-shape runs' inline word sums (inet/word_sum.h): adc_words_n's
// two rest loops, one adc chain and adcx/adox in two, against a 64-bit
// one's-complement reference, for every rest length modulo 4, with data
// that carries out of every add, and with the region against guard pages.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <vector>

#include "dispatch/cpu_features.h"
#include "dispatch/select.h"
#include "inet/word_sum.h"

namespace csum {
namespace {

constexpr uint32_t kMax = 512;

// a plus the words, with end-around carry, as a residue modulo 2^64 - 1
// (all ones taken as 0).
uint64_t reference(uint64_t a, const uint8_t* p, uint32_t words) {
    for (uint32_t i = 0; i < words; ++i) {
        const uint64_t w = word_sum::load64(p + 8 * i);
        a += w;
        a += a < w;
    }
    return a == ~uint64_t{0} ? 0 : a;
}
uint64_t residue(uint64_t a) {
    return a == ~uint64_t{0} ? 0 : a;
}

template <int kW>
uint64_t sum(uint64_t a, const uint8_t* p, uint32_t words, bool adx) {
    return word_sum::adc_words_n<kW, kMax>(a, p, words, adx);
}

std::vector<bool> ways() {
    std::vector<bool> w{false};
    if (detail::detect_cpu().adx) w.push_back(true);
    return w;
}

// Every word count from kW to kMax / 8, each rest loop, three fills.
template <int kW>
void check_counts() {
    std::mt19937_64 rng(kW);
    alignas(64) uint8_t buf[kMax];
    for (int fill = 0; fill < 3; ++fill) {
        for (uint32_t i = 0; i < kMax; i += 8) {
            const uint64_t w = fill == 0 ? rng() : fill == 1 ? ~uint64_t{0} : uint64_t{1} << 63;
            std::memcpy(buf + i, &w, 8);
        }
        for (uint64_t a : {uint64_t{0}, uint64_t{0x1FFFF}, (uint64_t{1} << 57) - 1})
            for (uint32_t words = kW; words <= kMax / 8; ++words)
                for (bool adx : ways())
                    ASSERT_EQ(residue(sum<kW>(a, buf, words, adx)), reference(a, buf, words))
                        << "kW " << kW << " words " << words << " fill " << fill << " a " << a
                        << " adx " << adx;
    }
}

TEST(WordSumRest, EveryCountBothLoops) {
    check_counts<2>();
    check_counts<3>();
    check_counts<5>();
    check_counts<6>();
}

// The plan takes the two-chain loop exactly when calibration timed it (on
// a CPU with ADX) and it won by the wider kernels' margin.
TEST(WordSumRest, PlanTakesAdxOnlyWhereTimedFaster) {
    const detail::PathChoice& r = detail::inet_rest_report();
    const bool bit = (detail::inet_plan_now() & detail::kPlanAdxRest) != 0;
    EXPECT_EQ(bit, r.timed && r.second_chosen);
    if (!detail::detect_cpu().adx) {
        EXPECT_FALSE(r.timed);
    }
    if (r.timed) {
        EXPECT_EQ(r.second_chosen, r.ticks[1] < detail::kWiderMargin * r.ticks[0]);
    }
}

// The region flush against a PROT_NONE page on either side: a load outside
// it faults.
TEST(WordSumRest, ReadsStayInTheRegion) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    auto* base = static_cast<uint8_t*>(
        mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(base, MAP_FAILED);
    ASSERT_EQ(mprotect(base, page, PROT_NONE), 0);
    ASSERT_EQ(mprotect(base + 2 * page, page, PROT_NONE), 0);
    uint8_t* data = base + page;
    std::mt19937_64 rng(7);
    for (size_t i = 0; i < page; ++i) data[i] = static_cast<uint8_t>(rng());
    for (uint32_t words = 2; words <= kMax / 8; ++words)
        for (bool adx : ways()) {
            const uint8_t* at_start = data;
            const uint8_t* at_end = data + page - 8 * words;
            EXPECT_EQ(residue(sum<2>(5, at_start, words, adx)), reference(5, at_start, words));
            EXPECT_EQ(residue(sum<2>(5, at_end, words, adx)), reference(5, at_end, words));
        }
    munmap(base, 3 * page);
}

}  // namespace
}  // namespace csum
