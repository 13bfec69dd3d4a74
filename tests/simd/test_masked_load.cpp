// simd::maskz_loadu / mask_loadu against the bytes they should keep, for
// windows at every place around a page edge and kept ranges on either side
// of it, with the neighbouring pages PROT_NONE (a stray masked-off byte does
// not fault: what is checked here is that the lanes come out right when the
// load is moved onto one page and rotated back).
//
// Built at the baseline ISA: only check() is AVX-512 code, in a target
// region. With the whole file built for AVX-512, its static initializers
// (gtest's registration, std::string) ran AVX-512 instructions before any
// test could skip itself, and the binary died with SIGILL on a CPU without
// it (AMD Zen 1, in the ASan build's test listing).
#include <immintrin.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>
#include "simd/target_region.h"

namespace {

constexpr uintptr_t kPageBytes = 4096;  // masked_load.h's, asserted below

struct Pages {
    uint8_t* base = nullptr;  // three pages: none, read-write, none
    Pages() {
        void* m = mmap(nullptr, 3 * kPageBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return;
        base = static_cast<uint8_t*>(m);
        if (mprotect(base + kPageBytes, kPageBytes, PROT_READ | PROT_WRITE) != 0) return;
        for (size_t i = 0; i < kPageBytes; ++i)
            base[kPageBytes + i] = static_cast<uint8_t>(i * 7 + 1);
    }
    ~Pages() {
        if (base != nullptr) munmap(base, 3 * kPageBytes);
    }
    const uint8_t* page() const { return base + kPageBytes; }
};

bool cpu_ok() {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("bmi2");
}

}  // namespace

CSUM_TARGET_BEGIN(CSUM_ISA_AVX512)

#include "simd/masked_load.h"

static_assert(kPageBytes == csum::simd::kPageBytes);

namespace {

// keep: lanes [lo, hi) of the window at w. Run only where cpu_ok().
void check(const uint8_t* w, unsigned lo, unsigned hi) {
    const uint64_t keep =
        (hi >= 64 ? ~uint64_t{0} : (uint64_t{1} << hi) - 1) & ~((uint64_t{1} << lo) - 1);
    alignas(64) uint8_t got[64], merged[64];
    _mm512_store_si512(got, csum::simd::maskz_loadu(keep, w));
    _mm512_store_si512(merged, csum::simd::mask_loadu(_mm512_set1_epi8(0x5a), keep, w));
    for (unsigned i = 0; i < 64; ++i) {
        const bool kept = i >= lo && i < hi;
        ASSERT_EQ(got[i], kept ? w[i] : 0) << "lane " << i << " keep [" << lo << "," << hi << ")";
        ASSERT_EQ(merged[i], kept ? w[i] : 0x5a) << "lane " << i;
    }
    if (keep == 0) return;
    _mm512_store_si512(merged, csum::simd::mask_loadu<true>(_mm512_set1_epi8(0x3c), keep, w));
    for (unsigned i = 0; i < 64; ++i)
        ASSERT_EQ(merged[i], i >= lo && i < hi ? w[i] : 0x3c) << "lane " << i;
}

}  // namespace

CSUM_TARGET_END

namespace {

TEST(MaskedLoad, KeepsTheRightLanesAtEveryPlaceAroundAPageEdge) {
    if (!cpu_ok()) GTEST_SKIP() << "no AVX512BW on this CPU";
    Pages pages;
    ASSERT_NE(pages.base, nullptr);
    const uint8_t* page = pages.page();
    // Windows ending in the page's first bytes: keep only what is on the page.
    for (unsigned c = 1; c < 64; ++c) {  // c bytes of the window lie before the page
        const uint8_t* w = page - c;
        for (unsigned lo = c; lo < 64; ++lo)
            for (unsigned hi = lo; hi <= 64; ++hi) check(w, lo, hi);
    }
    // Windows starting in the page's last bytes: keep only what is on the page.
    for (unsigned c = 1; c < 64; ++c) {  // c bytes of the window lie on the page
        const uint8_t* w = page + kPageBytes - c;
        for (unsigned lo = 0; lo < c; ++lo)
            for (unsigned hi = lo; hi <= c; ++hi) check(w, lo, hi);
    }
    // Windows inside the page, on its edges exactly.
    for (const uint8_t* w : {page, page + kPageBytes - 64, page + 100})
        for (unsigned lo = 0; lo < 64; ++lo) check(w, lo, 64), check(w, 0, lo);
}

// A window that keeps nothing is all zeros (maskz) or the source (mask),
// wherever it points: also at a page that is not there.
TEST(MaskedLoad, KeepingNothingLoadsNothing) {
    if (!cpu_ok()) GTEST_SKIP() << "no AVX512BW on this CPU";
    Pages pages;
    ASSERT_NE(pages.base, nullptr);
    for (const uint8_t* w : {static_cast<const uint8_t*>(pages.base), pages.page() + kPageBytes,
                             pages.page() + kPageBytes - 5})
        check(w, 0, 0);
}

}  // namespace
