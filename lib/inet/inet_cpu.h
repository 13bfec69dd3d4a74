// CPU features the Internet checksum kernels need, read once from CPUID and
// XGETBV (the OS must also save the wider registers). Self-contained on
// purpose: no dependency on the other concerns' detection.
#pragma once

#include <cpuid.h>

#include <cstdint>

namespace csum::detail {

struct InetCpu {
    bool avx2 = false;
    bool avx512 = false;  // avx512f, dq, bw and vl
};

inline InetCpu inet_cpu_detect() noexcept {
    InetCpu c;
    unsigned a, b, cx, d;
    if (!__get_cpuid(1, &a, &b, &cx, &d)) return c;
    const bool osxsave = cx & (1u << 27);
    const bool avx = cx & (1u << 28);
    if (!osxsave || !avx) return c;
    uint32_t xlo, xhi;
    __asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
    const bool ymm_os = (xlo & 0x6) == 0x6;    // SSE + AVX state
    const bool zmm_os = (xlo & 0xE6) == 0xE6;  // + opmask, ZMM_Hi256, Hi16_ZMM
    if (!__get_cpuid_count(7, 0, &a, &b, &cx, &d)) return c;
    c.avx2 = ymm_os && (b & (1u << 5));
    // f, dq, bw, vl: the whole set CSUM_ISA_AVX512_FLAGS lets the compiler use.
    constexpr unsigned kAvx512 = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);
    c.avx512 = c.avx2 && zmm_os && (b & kAvx512) == kAvx512;
    return c;
}

}  // namespace csum::detail
