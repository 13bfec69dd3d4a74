// Every kernel against the portable reference and against ISA-L, plus known
// answers.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string_view>
#include <vector>

#include "crc32c/crc32c_kernels.h"
#include "crc32c_test_util.h"
#include "support/mbuf_helpers.h"
#include "testkit/isal_crc32c.h"

namespace csum {
namespace {

const char* needs(Crc32cKernel k) {
    switch (k) {
        case Crc32cKernel::avx512:
            return "avx512f+avx512vl+avx512bw+avx512dq+vpclmulqdq and OS zmm state";
        case Crc32cKernel::vpclmul_avx2:
            return "avx2+vpclmulqdq and OS ymm state";
        case Crc32cKernel::sse42:
        case Crc32cKernel::pclmul:
            return "sse4.2+pclmulqdq";
        case Crc32cKernel::portable:
            break;
    }
    return "nothing";
}

class Crc32cKernelTest : public testing::TestWithParam<Crc32cKernel> {
  protected:
    void SetUp() override {
        if (!test::cpu_has(GetParam()))
            GTEST_SKIP() << "this CPU cannot run the " << test::kname(GetParam())
                         << " kernel (needs " << needs(GetParam()) << "); it is NOT tested here";
    }
    uint32_t run(const void* p, size_t n, uint32_t crc = 0) const {
        return crc32c_with(GetParam(), p, n, crc);
    }
};

TEST_P(Crc32cKernelTest, CheckValue) {
    EXPECT_EQ(run("123456789", 9), 0xE3069283u);
    EXPECT_EQ(run("", 0), 0u);
    EXPECT_EQ(run("", 0, 0x12345678u), 0x12345678u);
}

// RFC 3720 appendix B.4. The RFC lists the CRC bytes in wire order
// (aa 36 91 8a); read as a little-endian uint32 they are the values below,
// which the portable reference confirms.
TEST_P(Crc32cKernelTest, Rfc3720Vectors) {
    std::vector<uint8_t> v(32, 0x00);
    EXPECT_EQ(run(v.data(), 32), 0x8A9136AAu);
    EXPECT_EQ(test::reference_crc(v.data(), 32), 0x8A9136AAu);
    std::fill(v.begin(), v.end(), 0xFF);
    EXPECT_EQ(run(v.data(), 32), 0x62A8AB43u);
    std::iota(v.begin(), v.end(), 0);
    EXPECT_EQ(run(v.data(), 32), 0x46DD794Eu);
    for (int i = 0; i < 32; ++i) v[i] = static_cast<uint8_t>(31 - i);
    EXPECT_EQ(run(v.data(), 32), 0x113FDB5Cu);
    const uint8_t read_pdu[48] = {0x01, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,    0, 0, 0, 0,
                                  0x14, 0,    0, 0, 0, 0, 4, 0, 0, 0, 0, 0x14, 0, 0, 0, 0x18,
                                  0x28, 0,    0, 0, 0, 0, 0, 0, 2, 0, 0, 0,    0, 0, 0, 0};
    EXPECT_EQ(run(read_pdu, sizeof read_pdu), 0xD9963A56u);
    EXPECT_EQ(test::reference_crc(read_pdu, sizeof read_pdu), 0xD9963A56u);
}

// Every length 0..1024 at every alignment 0..63, each buffer exactly sized on
// the heap so ASan sees any read past its end. Two initial CRCs.
TEST_P(Crc32cKernelTest, EveryLengthEveryAlignment) {
    std::mt19937 rng(1234);
    const std::vector<uint8_t> src = test::random_bytes(1024, rng);
    std::vector<uint32_t> ref0(1025), ref1(1025);
    for (size_t n = 0; n <= 1024; ++n) {
        ref0[n] = test::reference_crc(src.data(), n);
        ref1[n] = test::reference_crc(src.data(), n, 0xDEADBEEFu);
    }
    for (size_t align = 0; align < 64; ++align) {
        for (size_t n = 0; n <= 1024; ++n) {
            std::vector<uint8_t> buf(align + n);
            std::copy_n(src.begin(), n, buf.begin() + static_cast<std::ptrdiff_t>(align));
            const uint32_t got0 = run(buf.data() + align, n);
            const uint32_t got1 = run(buf.data() + align, n, 0xDEADBEEFu);
            if (got0 != ref0[n] || got1 != ref1[n]) {
                ADD_FAILURE() << "len " << n << " align " << align << std::hex << ": got " << got0
                              << "/" << got1 << " want " << ref0[n] << "/" << ref1[n];
                return;
            }
        }
    }
}

TEST_P(Crc32cKernelTest, RandomLengthsUpTo64KiB) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<size_t> len(0, 65536);
    for (int i = 0; i < 60; ++i) {
        const size_t n = len(rng);
        const std::vector<uint8_t> buf = test::random_bytes(n, rng);
        const uint32_t init = rng();
        ASSERT_EQ(run(buf.data(), n, init), test::reference_crc(buf.data(), n, init))
            << "len " << n;
    }
}

// Lengths around every block boundary of the 3-way and folding loops.
TEST_P(Crc32cKernelTest, BlockBoundaries) {
    std::mt19937 rng(99);
    const std::vector<uint8_t> buf = test::random_bytes(3 * 3072 + 600, rng);
    for (size_t base : {3 * 1024, 2 * 3072, 3 * 3072, 4096, 8192}) {
        for (size_t n = base - 300; n <= base + 300 && n <= buf.size(); ++n)
            ASSERT_EQ(run(buf.data(), n, 7), test::reference_crc(buf.data(), n, 7)) << "len " << n;
    }
}

// crc(a||b) == crc(b, crc(a)) and == combine(crc(a), crc(b), |b|).
TEST_P(Crc32cKernelTest, ExtensionAndCombine) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const std::vector<uint8_t> buf = test::random_bytes(20000, rng);
    std::uniform_int_distribution<size_t> cut(0, buf.size());
    for (int i = 0; i < 50; ++i) {
        const size_t a = cut(rng), b = buf.size() - a;
        const uint32_t whole = run(buf.data(), buf.size());
        const uint32_t ca = run(buf.data(), a);
        EXPECT_EQ(run(buf.data() + a, b, ca), whole) << "cut " << a;
        EXPECT_EQ(crc32c_combine(ca, run(buf.data() + a, b), b), whole) << "cut " << a;
    }
}

INSTANTIATE_TEST_SUITE_P(All, Crc32cKernelTest, testing::ValuesIn(test::kAllKernels),
                         [](const auto& info) { return test::kname(info.param); });

// The public entry (inline short path + active kernel) under every kernel,
// across the crossover.
TEST(Crc32cDispatch, PublicEntryMatchesReferenceUnderEveryKernel) {
    test::KernelGuard guard;
    std::mt19937 rng(5);
    const std::vector<uint8_t> buf = test::random_bytes(2048, rng);
    for (auto k : crc32c_available_kernels()) {
        ASSERT_TRUE(crc32c_force_kernel(k));
        for (size_t n = 0; n < buf.size(); n += (n < 600 ? 1 : 37))
            ASSERT_EQ(crc32c(buf.data() + 1, n, 3), test::reference_crc(buf.data() + 1, n, 3))
                << test::kname(k) << " len " << n;
    }
}

// Differential against an independent implementation: ISA-L's crc32_iscsi
// (testkit/), every kernel this CPU runs and the public entry, every length
// to 1 KiB at a few alignments, then random lengths to 64 KiB.
TEST(Crc32cIsalPeer, EveryKernelAgreesWithIsal) {
    EXPECT_EQ(testkit::isal_crc32c("123456789", 9), 0xE3069283u);
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const std::vector<uint8_t> buf = test::random_bytes(65536 + 64, rng);
    std::vector<size_t> lens;
    for (size_t n = 0; n <= 1024; ++n) lens.push_back(n);
    std::uniform_int_distribution<size_t> big(1025, 65536);
    for (int i = 0; i < 40; ++i) lens.push_back(big(rng));
    for (size_t n : lens) {
        const size_t align = n % 7;
        const uint8_t* p = buf.data() + align;
        const uint32_t init = static_cast<uint32_t>(n * 2654435761u);
        const uint32_t want = testkit::isal_crc32c(p, n, init);
        for (auto k : crc32c_available_kernels())
            ASSERT_EQ(crc32c_with(k, p, n, init), want) << test::kname(k) << " len " << n;
        ASSERT_EQ(crc32c(p, n, init), want) << "crc32c() len " << n;
    }
}

TEST(Crc32cDispatch, CombineIdentities) {
    std::mt19937 rng(77);
    const std::vector<uint8_t> buf = test::random_bytes(5000, rng);
    EXPECT_EQ(crc32c_combine(crc32c(buf.data(), 5000), 0, 0), crc32c(buf.data(), 5000));
    EXPECT_EQ(crc32c_combine(0, crc32c(buf.data(), 5000), 5000), crc32c(buf.data(), 5000));
    for (size_t a : {0u, 1u, 63u, 64u, 255u, 256u, 1420u, 4999u}) {
        const uint32_t ca = crc32c(buf.data(), a), cb = crc32c(buf.data() + a, 5000 - a);
        EXPECT_EQ(crc32c_combine(ca, cb, 5000 - a), crc32c(buf.data(), 5000)) << a;
    }
}

}  // namespace
}  // namespace csum

namespace csum {
namespace {

// The tuning variants of the vpclmul_avx2 loops (fold only, and crc32 lanes
// of each length) must all agree with the reference, across many strides.
TEST(Crc32cAvx2Variants, FoldOnlyAndMixedLoops) {
    if (!test::cpu_has(Crc32cKernel::vpclmul_avx2)) GTEST_SKIP() << "no AVX2 + VPCLMULQDQ here";
    std::mt19937 rng(11);
    const std::vector<uint8_t> buf = test::random_bytes(6000, rng);
    for (size_t s : {0u, 2u, 4u, 5u, 6u, 8u, 12u}) {
        for (size_t n = 128; n <= buf.size(); n += (n < 1200 ? 1 : 61)) {
            const uint32_t want = ~test::reference_crc(buf.data(), n, 0x1234u);
            ASSERT_EQ(detail::crc32c_vpclmul_avx2_mix(s, ~0x1234u, buf.data(), n), want)
                << "s " << s << " len " << n;
        }
        EXPECT_EQ(detail::crc32c_vpclmul_avx2_fold(~0u, buf.data(), 4000),
                  ~test::reference_crc(buf.data(), 4000));
    }
}

// The pclmul kernel's loops (fold only, and crc32 lanes of each length), at
// every length across the first strides and at unaligned starts.
TEST(Crc32cPclmulVariants, FoldOnlyAndMixedLoops) {
    if (!test::cpu_has(Crc32cKernel::pclmul)) GTEST_SKIP() << "no SSE4.2 + PCLMULQDQ here";
    std::mt19937 rng(15);
    const std::vector<uint8_t> src = test::random_bytes(6000 + 16, rng);
    for (size_t s : {0u, 1u, 2u, 4u, 8u})
        for (size_t align : {0u, 3u, 8u}) {
            const uint8_t* p = src.data() + align;
            for (size_t n = 64; n <= 6000; n += (n < 1200 ? 1 : 61)) {
                const uint32_t want = ~test::reference_crc(p, n, 0x1234u);
                ASSERT_EQ(detail::crc32c_pclmul_mix(s, ~0x1234u, p, n), want)
                    << "s " << s << " align " << align << " len " << n;
            }
        }
}

// The avx512 loop variants (the default is covered by the typed tests above):
// every length across the first strides, then a sparser sweep, at several
// alignments.
TEST(Crc32cAvx512Variants, LaneShapesMatchReference) {
    if (!test::cpu_has(Crc32cKernel::avx512)) GTEST_SKIP() << "no AVX-512 + VPCLMULQDQ here";
    std::mt19937 rng(13);
    const std::vector<uint8_t> src = test::random_bytes(6000 + 64, rng);
    for (size_t v = 0; v <= 7; ++v)
        for (size_t align : {0u, 1u, 8u, 37u}) {
            const uint8_t* p = src.data() + align;
            for (size_t n = 0; n <= 6000; n += (n < 2200 ? 1 : 53)) {
                const uint32_t want = ~test::reference_crc(p, n, 0x1234u);
                ASSERT_EQ(detail::crc32c_avx512_mix(v, ~0x1234u, p, n), want)
                    << "variant " << v << " align " << align << " len " << n;
            }
        }
}

// The default runs the crc32 lane from 4 KiB; from 8 KiB its first lane
// absorbs the misalignment (h < 64 bytes) and from 32 KiB it also
// prefetches: every alignment, lengths on both sides of those switches.
TEST(Crc32cAvx512Variants, AligningLaneAtEveryAlignment) {
    if (!test::cpu_has(Crc32cKernel::avx512)) GTEST_SKIP() << "no AVX-512 + VPCLMULQDQ here";
    std::mt19937 rng(14);
    const std::vector<uint8_t> src = test::random_bytes(40000 + 64, rng);
    for (size_t align = 0; align < 64; ++align) {
        const uint8_t* p = src.data() + align;
        for (size_t n : {4095u, 4096u, 4096u + 640u + 17u, 8191u, 8192u, 8192u + 640u + 63u, 9000u,
                         16384u + 5u, 32767u, 32768u, 40000u}) {
            ASSERT_EQ(detail::crc32c_avx512(~0u, p, n), ~test::reference_crc(p, n))
                << "align " << align << " len " << n;
        }
        for (size_t n = 896; n <= 1800; n += 29)
            ASSERT_EQ(detail::crc32c_avx512_mix(6, ~0u, p, n), ~test::reference_crc(p, n))
                << "align " << align << " len " << n;
    }
}

}  // namespace
}  // namespace csum

namespace csum {
namespace {

TEST(Crc32cShortPaths, LanesAndTreeFoldMatchReference) {
    if (!test::cpu_has(Crc32cKernel::sse42)) GTEST_SKIP() << "no SSE4.2 + PCLMULQDQ here";
    std::mt19937 rng(12);
    const std::vector<uint8_t> src = test::random_bytes(256, rng);
    for (size_t align = 0; align < 16; ++align) {
        for (size_t n = 0; n <= 256; ++n) {
            std::vector<uint8_t> buf(align + n);
            std::copy_n(src.begin(), n, buf.begin() + align);
            const uint8_t* p = buf.data() + align;
            const uint32_t want = detail::crc32c_portable(0xA5A5A5A5u, p, n);
            ASSERT_EQ(detail::crc32c_short_lanes(0xA5A5A5A5u, p, n), want) << n;
            if (n < 128) {
                ASSERT_EQ(detail::crc32c_short_tree(0xA5A5A5A5u, p, n), want) << n;
            }
        }
    }
}

}  // namespace
}  // namespace csum
