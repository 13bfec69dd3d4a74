// Calibration times every batch from one vector state (select.cpp,
// clean_vector_state): without it the avx512 kernel timed nearly 2x slow in
// some processes and lost its length class. Each probe here finds
// out whether zmm16 is zero when it is called, then leaves it dirty, so
// only a batch's first call can find it clean, and only if the timing
// cleaned it.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "dispatch/cpu_features.h"
#include "dispatch/select.h"

namespace csum {
namespace {

unsigned g_calls = 0, g_clean = 0;

[[gnu::target("avx512f")]] bool zmm16_is_zero() {
    unsigned char zero;
    asm volatile("vptestmq %%zmm16, %%zmm16, %%k1\n\tkortestw %%k1, %%k1\n\tsetz %0"
                 : "=r"(zero)
                 :
                 : "k1", "cc");
    return zero != 0;
}

[[gnu::target("avx512f")]] void dirty_zmm16() {
    asm volatile("vpternlogd $0xff, %%zmm16, %%zmm16, %%zmm16" ::: "xmm16");
}

void count_call() {
    ++g_calls;
    if (zmm16_is_zero()) ++g_clean;
    dirty_zmm16();
}

uint32_t probe(const uint8_t*, size_t, uint32_t state) noexcept {
    count_call();
    return state + 1;
}

uint64_t pair_probe(const uint8_t*, const uint8_t*, size_t) noexcept {
    count_call();
    return 1;
}

class CalibrationState : public ::testing::Test {
  protected:
    void SetUp() override {
        // Where the SIMD cap allows 512 bits (its runs of this binary skip).
        const detail::CpuFeatures& f = detail::cpu();
        if (!(f.avx512f && f.os_zmm)) GTEST_SKIP() << "no zmm16..31 here, or capped";
        dirty_zmm16();
        g_calls = g_clean = 0;
    }
};

TEST_F(CalibrationState, EveryProbeBatchStartsClean) {
    const detail::ProbeFn fn[3] = {probe, probe, probe};
    double ticks[3];
    detail::time_probes(fn, 3, 64, ticks);
    EXPECT_EQ(g_clean, detail::kTimedRounds * 3);
    EXPECT_GT(g_calls, g_clean);  // the later calls of a batch found it dirty
}

TEST_F(CalibrationState, EveryPairBatchStartsClean) {
    const detail::PairProbeFn fn[2] = {pair_probe, pair_probe};
    double ticks[2];
    detail::time_pair_probes(fn, 2, 222, ticks);
    EXPECT_EQ(g_clean, detail::kTimedRounds * 2);
    EXPECT_GT(g_calls, g_clean);
}

TEST_F(CalibrationState, EveryCalibrationBatchStartsClean) {
    const detail::Candidate c[2] = {{1, "first", probe}, {2, "second", probe}};
    detail::FamilyReport r;
    detail::calibrate(c, 2, &r);
    EXPECT_EQ(g_clean, detail::kTimedRounds * detail::kNumProbes * 2);
    EXPECT_GT(g_calls, g_clean);
    EXPECT_TRUE(r.calibrated);
}

}  // namespace
}  // namespace csum
