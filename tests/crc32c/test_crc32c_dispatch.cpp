// Kernel listing, forcing, and the CSUM_CRC32C_KERNEL override.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "crc32c/cpu_features.h"
#include "crc32c/crc32c_kernels.h"
#include "crc32c_test_util.h"

namespace csum {
namespace {

TEST(Crc32cKernels, NamesRoundTrip) {
    for (auto k : test::kAllKernels) {
        Crc32cKernel parsed{};
        ASSERT_TRUE(crc32c_kernel_from_name(crc32c_kernel_name(k), &parsed)) << test::kname(k);
        EXPECT_EQ(parsed, k);
    }
    Crc32cKernel untouched = Crc32cKernel::isal;
    EXPECT_FALSE(crc32c_kernel_from_name("SSE42", &untouched));
    EXPECT_FALSE(crc32c_kernel_from_name("", &untouched));
    EXPECT_FALSE(crc32c_kernel_from_name("sse42 ", &untouched));
    EXPECT_EQ(untouched, Crc32cKernel::isal);
}

TEST(Crc32cKernels, AvailableListMatchesCpuid) {
    const auto f = detail::detect_cpu();
    const auto avail = crc32c_available_kernels();
    EXPECT_TRUE(test::cpu_has(Crc32cKernel::portable));
    EXPECT_TRUE(test::cpu_has(Crc32cKernel::isal));
    EXPECT_EQ(test::cpu_has(Crc32cKernel::sse42), f.can_sse42());
    EXPECT_EQ(test::cpu_has(Crc32cKernel::vpclmul_avx2), f.can_avx2());
    EXPECT_EQ(test::cpu_has(Crc32cKernel::avx512), f.can_avx512());
    // Wider kernels imply narrower ones.
    EXPECT_TRUE(!f.can_avx512() || f.can_avx2());
    EXPECT_TRUE(!f.can_avx2() || f.can_sse42());
    EXPECT_EQ(avail.front(), Crc32cKernel::portable);
    EXPECT_EQ(std::count(avail.begin(), avail.end(), Crc32cKernel::isal), 1);
}

TEST(Crc32cKernels, DefaultIsTheWidestOfOurs) {
    const auto f = detail::detect_cpu();
    const Crc32cKernel want = f.can_avx512()  ? Crc32cKernel::avx512
                              : f.can_avx2()  ? Crc32cKernel::vpclmul_avx2
                              : f.can_sse42() ? Crc32cKernel::sse42
                                              : Crc32cKernel::portable;
    EXPECT_EQ(detail::crc32c_choose_kernel(nullptr), want);
    EXPECT_EQ(detail::crc32c_choose_kernel(""), want);
    if (std::getenv("CSUM_CRC32C_KERNEL") == nullptr) {
        EXPECT_EQ(crc32c_active_kernel(), want);
    }
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

TEST(Crc32cKernels, EnvParserAcceptsAvailableNamesOnly) {
    const Crc32cKernel def = detail::crc32c_choose_kernel(nullptr);
    EXPECT_EQ(detail::crc32c_choose_kernel("portable"), Crc32cKernel::portable);
    EXPECT_EQ(detail::crc32c_choose_kernel("isal"), Crc32cKernel::isal);
    EXPECT_EQ(detail::crc32c_choose_kernel("bogus"), def);
    EXPECT_EQ(detail::crc32c_choose_kernel("Portable"), def);
    for (auto k : test::kAllKernels) {
        const std::string name = test::kname(k);
        EXPECT_EQ(detail::crc32c_choose_kernel(name.c_str()), test::cpu_has(k) ? k : def) << name;
    }
}

// Runs only in the ctest entries crc32c_env_override_* (see CMakeLists.txt),
// which start the binary with CSUM_CRC32C_KERNEL set.
TEST(Crc32cEnvChild, ActiveKernelFollowsEnvironment) {
    const char* expect = std::getenv("CSUM_EXPECT_KERNEL");
    if (expect == nullptr)
        GTEST_SKIP() << "runs only under the crc32c_env_override_* ctest entries";
    const std::string want = std::string(expect) == "default"
                                 ? test::kname(detail::crc32c_choose_kernel(nullptr))
                                 : std::string(expect);
    EXPECT_EQ(test::kname(crc32c_active_kernel()), want);
    EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
}

}  // namespace
}  // namespace csum
