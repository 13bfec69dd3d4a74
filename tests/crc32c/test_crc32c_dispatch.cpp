// Kernel listing, forcing, and the CSUM_CRC32C_KERNEL override.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "crc32c/crc32c_kernels.h"
#include "crc32c_test_util.h"
#include "csum/inet.h"
#include "csum/kernels.h"
#include "dispatch/cpu_features.h"
#include "dispatch/crc32c_pair.h"
#include "dispatch/select.h"

namespace csum {
namespace {

TEST(Crc32cKernels, NamesRoundTrip) {
    for (auto k : test::kAllKernels) {
        Crc32cKernel parsed{};
        ASSERT_TRUE(crc32c_kernel_from_name(crc32c_kernel_name(k), &parsed)) << test::kname(k);
        EXPECT_EQ(parsed, k);
    }
    Crc32cKernel untouched = Crc32cKernel::avx512;
    EXPECT_FALSE(crc32c_kernel_from_name("SSE42", &untouched));
    EXPECT_FALSE(crc32c_kernel_from_name("", &untouched));
    EXPECT_FALSE(crc32c_kernel_from_name("sse42 ", &untouched));
    // ISA-L is a peer in tests and benchmarks (testkit/), not a kernel of ours.
    EXPECT_FALSE(crc32c_kernel_from_name("isal", &untouched));
    EXPECT_EQ(untouched, Crc32cKernel::avx512);
}

TEST(Crc32cKernels, AvailableListMatchesCpuid) {
    const auto f = detail::cap_simd_bits(detail::detect_cpu(), detail::simd_bits_cap());
    const auto avail = crc32c_available_kernels();
    EXPECT_TRUE(test::cpu_has(Crc32cKernel::portable));
    EXPECT_EQ(test::cpu_has(Crc32cKernel::sse42), f.can_sse42());
    EXPECT_EQ(test::cpu_has(Crc32cKernel::vpclmul_avx2), f.can_avx2());
    EXPECT_EQ(test::cpu_has(Crc32cKernel::avx512), f.can_avx512());
    // Wider kernels imply narrower ones.
    EXPECT_TRUE(!f.can_avx512() || f.can_avx2());
    EXPECT_TRUE(!f.can_avx2() || f.can_sse42());
    EXPECT_EQ(avail.front(), Crc32cKernel::portable);
    for (auto k : test::kAllKernels) EXPECT_LE(std::count(avail.begin(), avail.end(), k), 1);
}

// Calibration times what this CPU runs and keeps, per length class, a
// kernel this CPU can run.
TEST(Crc32cKernels, CalibrationPicksAKernelThisCpuRuns) {
    detail::FamilyReport r;
    const uint32_t plan = detail::crc32c_calibrate_fresh(&r);
    EXPECT_TRUE(r.calibrated);
    ASSERT_GE(r.n, 1u);
    for (size_t cl = 0; cl < detail::kNumClasses; ++cl) {
        const auto k = static_cast<Crc32cKernel>(detail::plan_kernel(plan, detail::kProbeLen[cl]));
        EXPECT_TRUE(test::cpu_has(k)) << test::kname(k);
        EXPECT_EQ(static_cast<uint8_t>(k), r.chosen[cl]);
        // The chosen one was timed, and nothing timed was faster by more
        // than the margin a wider kernel needs.
        for (size_t i = 0; i < r.n; ++i) {
            EXPECT_GT(r.ticks[i][cl + 1], 0.0) << r.cand[i].name;
            if (r.cand[i].id == r.chosen[cl]) {
                for (size_t j = 0; j < r.n; ++j)
                    EXPECT_LE(detail::kWiderMargin * r.ticks[i][cl + 1], r.ticks[j][cl + 1]);
            }
        }
    }
    if (detail::cpu().can_sse42()) {
        EXPECT_TRUE(plan & detail::kPlanShortInline);
        for (size_t i = 0; i < r.n; ++i) EXPECT_NE(r.cand[i].id, uint8_t(Crc32cKernel::portable));
    }
    // The installed plan, unless the environment decided it, is a calibrated one.
    if (std::getenv("CSUM_CRC32C_KERNEL") == nullptr && detail::calibration_enabled()) {
        EXPECT_TRUE(detail::crc32c_report().calibrated);
        EXPECT_FALSE(kernel_calibration_table().empty());
    }
}

// The short path above 64 B is the tree fold or the crc32 lanes, as timed:
// the plan follows the timing, and either way every length and the SCTP
// pair agree with the reference.
TEST(Crc32cKernels, ShortPathFollowsItsTimingAndEitherIsRight) {
    test::KernelGuard guard;
    const detail::PathChoice& sp = detail::crc32c_short_report();
    const uint32_t plan = detail::crc32c_plan_now();
    if (sp.timed) {
        EXPECT_EQ((plan & detail::kPlanTree) != 0, sp.second_chosen);
        EXPECT_EQ(sp.second_chosen, sp.ticks[1] < detail::kWiderMargin * sp.ticks[0]);
        EXPECT_GT(sp.ticks[1], 0.0);
        EXPECT_GT(sp.ticks[0], 0.0);
        EXPECT_NE(kernel_calibration_table().find("short path"), std::string::npos);
        EXPECT_NE(kernel_choice_summary().find(sp.second_chosen ? " short 65..127:tree"
                                                                : " short 65..127:lanes"),
                  std::string::npos)
            << kernel_choice_summary();
    } else {
        EXPECT_FALSE(plan & detail::kPlanTree);
    }
    if (!(plan & detail::kPlanShortInline)) GTEST_SKIP() << "no inline short paths here";
    std::mt19937 rng(21);
    const std::vector<uint8_t> a = test::random_bytes(320, rng), b = test::random_bytes(320, rng);
    for (uint32_t flags : {plan & ~detail::kPlanTree, plan | detail::kPlanTree}) {
        detail::crc32c_plan_set(flags);
        for (size_t n = 0; n <= 300; ++n) {
            ASSERT_EQ(crc32c(a.data() + 3, n, 0x5EEDu),
                      test::reference_crc(a.data() + 3, n, 0x5EEDu))
                << "len " << n << " tree " << ((flags & detail::kPlanTree) != 0);
            const uint64_t pair = crc32c_pair(a.data(), b.data(), n, 7, 9);
            ASSERT_EQ(static_cast<uint32_t>(pair), test::reference_crc(a.data(), n, 7)) << n;
            ASSERT_EQ(static_cast<uint32_t>(pair >> 32), test::reference_crc(b.data(), n, 9)) << n;
        }
    }
}

// SCTP pairs from 128 B are folded by the avx512 kernel or run on the crc32
// lanes, as timed in a burst: the plan follows the timing (with the avx512
// kernel chosen at 512 B), the table and the summary say which.
TEST(Crc32cKernels, PairPathFollowsItsTiming) {
    test::KernelGuard guard;
    const detail::PathChoice& pp = detail::crc32c_pair_report();
    const uint32_t plan = detail::crc32c_plan_now();
    if (!pp.timed) {
        EXPECT_FALSE(plan & detail::kPlanPairFold);
        GTEST_SKIP() << "not timed here (no avx512 kernel, or CSUM_CALIBRATE=0)";
    }
    EXPECT_GT(pp.ticks[0], 0.0);
    EXPECT_GT(pp.ticks[1], 0.0);
    EXPECT_EQ(pp.second_chosen, pp.ticks[1] < detail::kWiderMargin * pp.ticks[0]);
    if (detail::crc32c_report().calibrated) {
        const bool avx512_at_512 =
            detail::plan_kernel(plan, 512) == static_cast<uint8_t>(Crc32cKernel::avx512);
        EXPECT_EQ((plan & detail::kPlanPairFold) != 0, pp.second_chosen && avx512_at_512);
    }
    EXPECT_NE(kernel_calibration_table().find("SCTP pairs 128..287 B"), std::string::npos);
    EXPECT_NE(kernel_choice_summary().find(pp.second_chosen ? " pairs 128..287:fold"
                                                            : " pairs 128..287:lanes"),
              std::string::npos)
        << kernel_choice_summary();
    // A forced narrower kernel never folds pairs.
    ASSERT_TRUE(crc32c_force_kernel(Crc32cKernel::sse42));
    EXPECT_FALSE(detail::crc32c_plan_now() & detail::kPlanPairFold);
}

TEST(Crc32cKernels, ForceChangesActiveKernelAndRefusesMissingOnes) {
    test::KernelGuard guard;
    for (auto k : test::kAllKernels) {
        const Crc32cKernel before = crc32c_active_kernel();
        if (test::cpu_has(k)) {
            EXPECT_TRUE(crc32c_force_kernel(k)) << test::kname(k);
            EXPECT_EQ(crc32c_active_kernel(), k);
            EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u) << test::kname(k);
        } else {
            EXPECT_FALSE(crc32c_force_kernel(k)) << test::kname(k);
            EXPECT_EQ(crc32c_active_kernel(), before);
        }
    }
}

// Runs only in the ctest entries crc32c_env_override_* (see CMakeLists.txt),
// which start the binary with CSUM_CRC32C_KERNEL set.
TEST(Crc32cEnvChild, ActiveKernelFollowsEnvironment) {
    const char* expect = std::getenv("CSUM_EXPECT_KERNEL");
    if (expect == nullptr)
        GTEST_SKIP() << "runs only under the crc32c_env_override_* ctest entries";
    if (std::string(expect) == "default") {
        // A bad name is ignored: calibration (or CSUM_CALIBRATE=0) decides.
        EXPECT_EQ(detail::crc32c_report().calibrated, detail::calibration_enabled());
    } else if (std::string(expect) == "widest") {
        EXPECT_FALSE(detail::crc32c_report().calibrated);
        EXPECT_EQ(crc32c_active_kernel(), crc32c_available_kernels().back());
    } else {
        EXPECT_EQ(test::kname(crc32c_active_kernel()), expect);
        EXPECT_FALSE(detail::crc32c_report().calibrated);
        // The report names the forced kernel, even one calibration skips.
        EXPECT_STREQ(detail::crc32c_report().why, "CSUM_CRC32C_KERNEL");
        EXPECT_NE(kernel_choice_summary().find(std::string("128+:") + expect), std::string::npos)
            << kernel_choice_summary();
    }
    EXPECT_TRUE(test::cpu_has(crc32c_active_kernel()));
    EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
}

TEST(SimdCap, DropsOnlyWhatIsWider) {
    detail::CpuFeatures all;
    all.sse42 = all.pclmul = all.avx = all.avx2 = all.vpclmul = all.bmi2 = true;
    all.avx512f = all.avx512vl = all.avx512bw = all.avx512dq = all.avx512vnni = true;
    all.os_ymm = all.os_zmm = true;
    ASSERT_TRUE(all.can_avx512() && all.can_engine_avx512());
    const auto c512 = detail::cap_simd_bits(all, 512);
    EXPECT_TRUE(c512.can_avx512() && c512.can_inet_avx512_vnni() && c512.can_engine_avx512());
    const auto c256 = detail::cap_simd_bits(all, 256);
    EXPECT_TRUE(c256.can_avx2() && c256.can_inet_avx2());
    EXPECT_FALSE(c256.can_avx512() || c256.can_inet_avx512() || c256.can_engine_avx512());
    const auto c128 = detail::cap_simd_bits(all, 128);
    EXPECT_TRUE(c128.can_sse42());
    EXPECT_FALSE(c128.can_vex() || c128.can_avx2() || c128.can_inet_avx2());
}

// DPDK's option as /proc/self/cmdline holds it: NUL-separated arguments.
TEST(SimdCap, EalOptionFromTheCommandLine) {
    auto bits = [](std::initializer_list<std::string> args) {
        std::string b;
        for (const auto& a : args) b += a + '\0';
        return detail::simd_bits_from_args(b.data(), b.size());
    };
    EXPECT_EQ(bits({"csumd", "-l", "0-1", "--force-max-simd-bitwidth=256", "--", "--mode"}), 256u);
    EXPECT_EQ(bits({"csumd", "--force-max-simd-bitwidth", "128", "--no-pci"}), 128u);
    EXPECT_EQ(bits({"testpmd", "--force-max-simd-bitwidth=512"}), 512u);
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidth=32768"}), 512u);  // RTE_VECT_SIMD_MAX
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidth=64"}), 128u);     // no SIMD: the baseline
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidth=300"}), 256u);
    // The last one counts, as the EAL parses them.
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidth=512", "--force-max-simd-bitwidth=256"}), 256u);
    // Absent, after "--" (the application's), empty, not a number, or cut off.
    EXPECT_EQ(bits({"csumd", "-l", "0-1"}), 0u);
    EXPECT_EQ(bits({"csumd", "--", "--force-max-simd-bitwidth=256"}), 0u);
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidth="}), 0u);
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidth=25x"}), 0u);
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidth=-256"}), 0u);
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidth=0"}), 0u);
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidth=99999999999999999999"}), 0u);
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidthX=256"}), 0u);
    EXPECT_EQ(bits({"a", "--force-max-simd-bitwidth"}), 0u);
    const std::string cut = std::string("a") + '\0' + "--force-max-simd-bitwidth=25";
    EXPECT_EQ(detail::simd_bits_from_args(cut.data(), cut.size()), 128u);  // no NUL at the end
    EXPECT_EQ(detail::simd_bits_from_args(nullptr, 0), 0u);
    // Cut right after '=' or after the option's name, with no NUL: nothing
    // past the n bytes is read (the vector ends there, so ASan would see it).
    for (const char* tail : {"--force-max-simd-bitwidth=", "--force-max-simd-bitwidth"}) {
        const std::string t = std::string("a") + '\0' + tail;
        const std::vector<char> exact(t.begin(), t.end());
        EXPECT_EQ(detail::simd_bits_from_args(exact.data(), exact.size()), 0u) << tail;
    }
}

// Runs only in the ctest entries test_crc32c_eal_simd_* (see CMakeLists.txt),
// which start the binary with DPDK's --force-max-simd-bitwidth among its
// arguments and CSUM_EXPECT_SIMD_CAP set.
TEST(SimdCapEalChild, TheEalOptionCapsEveryKernel) {
    const char* expect = std::getenv("CSUM_EXPECT_SIMD_CAP");
    if (expect == nullptr) GTEST_SKIP() << "runs only under the *_eal_simd_* ctest entries";
    const unsigned bits = unsigned(std::stoul(expect));
    EXPECT_EQ(detail::simd_bits_cap(), bits);
    ASSERT_NE(detail::simd_cap_source(), nullptr);
    EXPECT_STREQ(detail::simd_cap_source(), "--force-max-simd-bitwidth");
    if (bits < 512) {
        EXPECT_FALSE(detail::cpu().can_engine_avx512());
        for (auto k : crc32c_available_kernels()) EXPECT_NE(k, Crc32cKernel::avx512);
        const std::string summary = kernel_choice_summary();
        EXPECT_EQ(summary.find("avx512"), std::string::npos) << summary;
        EXPECT_NE(summary.find("--force-max-simd-bitwidth=" + std::string(expect)),
                  std::string::npos)
            << summary;
    }
    EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
}

// Runs only in the ctest entries test_crc32c_simd_cap_* (see CMakeLists.txt), which
// start the binary with CSUM_MAX_SIMD_BITS set.
TEST(SimdCapChild, NoKernelWiderThanTheCapRuns) {
    const char* cap = std::getenv("CSUM_MAX_SIMD_BITS");
    if (cap == nullptr) GTEST_SKIP() << "runs only under the *_simd_cap_* ctest entries";
    const unsigned bits = std::string(cap) == "128" ? 128 : std::string(cap) == "256" ? 256 : 512;
    EXPECT_EQ(detail::simd_bits_cap(), bits);
    const auto& f = detail::cpu();
    if (bits < 512) {
        EXPECT_FALSE(f.avx512f || f.os_zmm || f.can_engine_avx512());
    }
    if (bits < 256) {
        EXPECT_FALSE(f.avx2 || f.os_ymm || f.can_vex());
    }
    for (auto k : crc32c_available_kernels()) {
        if (bits < 512) {
            EXPECT_NE(k, Crc32cKernel::avx512);
        }
        if (bits < 256) {
            EXPECT_NE(k, Crc32cKernel::vpclmul_avx2);
        }
    }
    for (auto k : inet_available_kernels()) {
        if (bits < 512) {
            EXPECT_TRUE(k != InetKernel::avx512 && k != InetKernel::avx512_vnni);
        }
        if (bits < 256) {
            EXPECT_NE(k, InetKernel::avx2);
        }
    }
    const std::string summary = kernel_choice_summary();
    if (bits < 512) {
        EXPECT_EQ(summary.find("avx512"), std::string::npos) << summary;
        EXPECT_NE(summary.find("CSUM_MAX_SIMD_BITS=" + std::string(cap)), std::string::npos);
    }
    EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
}

}  // namespace
}  // namespace csum
