// Every kernel this CPU runs, and the dispatcher, against the byte-at-a-time
// reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "csum/inet.h"
#include "csum/kernels.h"
#include "dispatch/select.h"
#include "inet/inet_reference.h"

namespace csum {
namespace {

using test::ref_sum;

TEST(InetRfc1071, WorkedExample) {
    // RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2 (big-endian
    // words). In host order the folded sum, stored to memory, reads dd f2.
    const uint8_t b[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    EXPECT_EQ(test::as_wire(raw_cksum(b, sizeof b)), 0xddf2);
    for (InetKernel k : inet_available_kernels())
        EXPECT_EQ(test::as_wire(sum_fold(partial_sum_with(k, b, sizeof b))), 0xddf2)
            << inet_kernel_name(k);
}

TEST(InetKernels, ScalarIsAlwaysAvailableAndListsAreConsistent) {
    auto ks = inet_available_kernels();
    ASSERT_FALSE(ks.empty());
    EXPECT_EQ(ks.front(), InetKernel::scalar);
    for (InetKernel k : ks) {
        InetKernel back;
        ASSERT_TRUE(inet_kernel_from_name(inet_kernel_name(k), &back));
        EXPECT_EQ(back, k);
    }
    InetKernel dummy;
    EXPECT_FALSE(inet_kernel_from_name("sse9", &dummy));
}

// Every length 0..2048 at every alignment 0..63, for each kernel. The
// reference grows one byte at a time, so the oracle costs O(n) per alignment.
TEST(InetKernels, EveryLengthAndAlignmentMatchesReference) {
    constexpr size_t kMaxLen = 2048;
    std::mt19937 rng(1);
    std::vector<uint8_t> buf(kMaxLen + 64);
    for (auto& b : buf) b = static_cast<uint8_t>(rng());
    for (InetKernel k : inet_available_kernels()) {
        for (size_t align = 0; align < 64; ++align) {
            const uint8_t* p = buf.data() + align;
            test::RefSum ref;
            for (size_t len = 0; len <= kMaxLen; ++len) {
                const uint16_t got = sum_fold(partial_sum_with(k, p, len));
                const uint16_t disp = sum_fold(partial_sum(p, len));  // short path + dispatch
                if (got != ref.folded() || disp != ref.folded()) {
                    ADD_FAILURE() << inet_kernel_name(k) << " len " << len << " align " << align;
                    return;
                }
                if (len < kMaxLen) ref.add_byte(p[len], len);
            }
        }
    }
}

TEST(InetKernels, RandomBuffersAndStartSumsMatchReference) {
    std::mt19937 rng(2);
    std::vector<uint8_t> buf(20000 + 64);
    for (int iter = 0; iter < 400; ++iter) {
        for (auto& b : buf) b = static_cast<uint8_t>(rng());
        const size_t len = rng() % 20000;
        const size_t align = rng() % 64;
        const uint32_t init = iter % 3 == 0 ? 0xFFFFFFFFu : static_cast<uint32_t>(rng());
        const uint16_t want = ref_sum(buf.data() + align, len, init);
        EXPECT_EQ(sum_fold(partial_sum(buf.data() + align, len, init)), want) << len;
        for (InetKernel k : inet_available_kernels())
            EXPECT_EQ(sum_fold(partial_sum_with(k, buf.data() + align, len, init)), want)
                << inet_kernel_name(k) << " len " << len;
    }
}

// Constant data drives every lane to its extreme (0xFF: the largest words;
// 0x00: the most negative biased words in the AVX2 kernel). Long enough to
// cross the vector kernels' lane-flush blocks many times.
TEST(InetKernels, ExtremeLongBuffersKeepEveryCarry) {
    std::vector<uint8_t> buf((3u << 20) + 131);
    for (uint8_t fill : {0xFF, 0x00, 0x80, 0x7F}) {
        std::fill(buf.begin(), buf.end(), fill);
        for (size_t len : {size_t{1} << 20, (size_t{1} << 20) + 1, buf.size() - 3, buf.size()}) {
            const uint16_t want = ref_sum(buf.data(), len);
            for (InetKernel k : inet_available_kernels())
                EXPECT_EQ(sum_fold(partial_sum_with(k, buf.data(), len)), want)
                    << inet_kernel_name(k) << " fill " << int(fill) << " len " << len;
        }
    }
}

TEST(InetKernels, ZeroDataSumsToZeroNotFFFF) {
    std::vector<uint8_t> zeros(5000, 0);
    for (InetKernel k : inet_available_kernels()) {
        EXPECT_EQ(partial_sum_with(k, zeros.data(), zeros.size()), 0u) << inet_kernel_name(k);
        EXPECT_EQ(sum_fold(partial_sum_with(k, zeros.data(), zeros.size(), 0xFFFF)), 0xFFFF);
    }
}

TEST(InetKernels, Avx512MatchesReference) {
    bool have = false;
    for (InetKernel k : inet_available_kernels()) have |= k == InetKernel::avx512;
    if (!have) GTEST_SKIP() << "no AVX-512 (f/dq/bw/vl) here: the AVX-512 kernel is untested";
    std::mt19937 rng(3);
    std::vector<uint8_t> buf(70000);
    for (auto& b : buf) b = static_cast<uint8_t>(rng());
    for (size_t len = 0; len < buf.size() - 64; len = len * 3 / 2 + 1)
        for (size_t align = 0; align < 64; align += 7)
            ASSERT_EQ(sum_fold(partial_sum_with(InetKernel::avx512, buf.data() + align, len)),
                      ref_sum(buf.data() + align, len));
}

TEST(InetDispatch, ForceKernelSwitchesAndRefusesUnavailable) {
    const uint32_t before = detail::inet_plan_now();
    std::vector<uint8_t> buf(3000);
    std::iota(buf.begin(), buf.end(), 0);
    for (InetKernel k : inet_available_kernels()) {
        ASSERT_TRUE(inet_force_kernel(k));
        EXPECT_EQ(inet_active_kernel(), k);
        EXPECT_EQ(raw_cksum(buf.data(), buf.size()), ref_sum(buf.data(), buf.size()));
    }
    bool have512 = false;
    for (InetKernel k : inet_available_kernels()) have512 |= k == InetKernel::avx512;
    if (!have512) {
        EXPECT_FALSE(inet_force_kernel(InetKernel::avx512));
        // partial_sum_with falls back rather than faulting.
        EXPECT_EQ(sum_fold(partial_sum_with(InetKernel::avx512, buf.data(), buf.size())),
                  ref_sum(buf.data(), buf.size()));
    }
    detail::inet_plan_set(before);
}

bool available(InetKernel k) {
    for (InetKernel a : inet_available_kernels())
        if (a == k) return true;
    return false;
}

// Calibration keeps, per length class, a kernel this CPU runs: the fastest
// it timed.
TEST(InetDispatch, CalibrationPicksAKernelThisCpuRuns) {
    detail::FamilyReport r;
    const uint32_t plan = detail::inet_calibrate_fresh(&r);
    EXPECT_TRUE(r.calibrated);
    EXPECT_EQ(r.n, inet_available_kernels().size());
    // 128..255 B takes the 256..767 B kernel (inet_dispatch.cpp: sums
    // there overlap, the probe times latency); the others are timed.
    EXPECT_EQ(r.chosen[0], r.chosen[1]);
    for (size_t cl = 0; cl < detail::kNumClasses; ++cl) {
        const auto k = static_cast<InetKernel>(detail::plan_kernel(plan, detail::kProbeLen[cl]));
        EXPECT_TRUE(available(k)) << inet_kernel_name(k);
        if (cl == 0) continue;
        for (size_t i = 0; i < r.n; ++i) {
            if (r.cand[i].id != r.chosen[cl]) continue;
            for (size_t j = 0; j < r.n; ++j)
                EXPECT_LE(detail::kWiderMargin * r.ticks[i][cl + 1], r.ticks[j][cl + 1]);
        }
    }
    if (std::getenv("CSUM_INET_KERNEL") == nullptr && detail::calibration_enabled()) {
        EXPECT_TRUE(detail::inet_report().calibrated);
    }
    // Whatever the plan, the dispatched sum is right at every class.
    std::vector<uint8_t> buf(10000);
    std::iota(buf.begin(), buf.end(), 7);
    for (size_t n : {64u, 200u, 1500u, 5000u, 9999u})
        EXPECT_EQ(sum_fold(partial_sum(buf.data(), n)), ref_sum(buf.data(), n)) << n;
}

// Run by ctest with CSUM_INET_KERNEL=scalar and =bogus (tests/inet/CMakeLists.txt):
// a usable name is obeyed, anything else leaves calibration to decide.
TEST(InetDispatch, EnvOverride) {
    const char* env = std::getenv("CSUM_INET_KERNEL");
    if (env == nullptr) GTEST_SKIP() << "CSUM_INET_KERNEL not set";
    InetKernel named;
    if (inet_kernel_from_name(env, &named) && available(named)) {
        EXPECT_EQ(inet_active_kernel(), named) << "CSUM_INET_KERNEL=" << env;
        EXPECT_FALSE(detail::inet_report().calibrated);
        EXPECT_STREQ(detail::inet_report().why, "CSUM_INET_KERNEL");
        EXPECT_NE(kernel_choice_summary().find(std::string("4096+:") + env), std::string::npos)
            << kernel_choice_summary();
    } else {
        EXPECT_EQ(detail::inet_report().calibrated, detail::calibration_enabled());
        EXPECT_TRUE(available(inet_active_kernel()));
    }
}

// Run by ctest with CSUM_CALIBRATE=0: the fixed choice, avx2 (if there)
// below 4 KiB and the widest kernel from 4 KiB.
TEST(InetDispatch, CalibrateOff) {
    if (detail::calibration_enabled()) GTEST_SKIP() << "CSUM_CALIBRATE=0 not set";
    EXPECT_FALSE(detail::inet_report().calibrated);
    const InetKernel widest = inet_available_kernels().back();
    const uint32_t plan = detail::inet_plan_now();
    EXPECT_EQ(static_cast<InetKernel>(detail::plan_kernel(plan, 9000)), widest);
    EXPECT_EQ(inet_active_kernel(), available(InetKernel::avx2) ? InetKernel::avx2 : widest);
}

TEST(InetFixed, FixedSizeSumsMatchReference) {
    std::mt19937 rng(4);
    uint8_t b[44];
    for (int iter = 0; iter < 1000; ++iter) {
        for (auto& x : b) x = static_cast<uint8_t>(rng());
        const uint32_t init = static_cast<uint32_t>(rng());
        EXPECT_EQ(sum_fold(partial_sum_fixed<20>(b + 1, init)), ref_sum(b + 1, 20, init));
        EXPECT_EQ(sum_fold(partial_sum_fixed<40>(b + 3, init)), ref_sum(b + 3, 40, init));
        EXPECT_EQ(sum_fold(partial_sum_fixed<4>(b, init)), ref_sum(b, 4, init));
    }
}

TEST(InetFixed, Ipv4HeaderChecksumAllLengths) {
    std::mt19937 rng(5);
    for (size_t ihl = 20; ihl <= 60; ihl += 4) {
        for (int iter = 0; iter < 200; ++iter) {
            uint8_t h[60];
            for (auto& x : h) x = static_cast<uint8_t>(rng());
            h[0] = static_cast<uint8_t>(0x40 | ihl / 4);
            const uint16_t c = ipv4_hdr_cksum(h, ihl);  // ignores the field's old value
            std::memcpy(h + 10, &c, 2);
            EXPECT_EQ(ref_sum(h, ihl), 0xFFFF) << ihl;
            EXPECT_TRUE(ipv4_hdr_cksum_ok(h, ihl));
            h[ihl - 1] ^= 0x40;
            EXPECT_FALSE(ipv4_hdr_cksum_ok(h, ihl));
        }
    }
}

}  // namespace
}  // namespace csum
