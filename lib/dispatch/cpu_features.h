// The one x86 CPU feature reader for kernel dispatch (CRC32C and the
// Internet sum): CPUID says what the core implements, XGETBV says whether
// the OS saves the ymm/zmm state on a context switch. A kernel may run only
// if both agree. Read once per process (cpu()).
#pragma once

#include <cpuid.h>

#include <cstddef>
#include <cstdint>

namespace csum::detail {

struct CpuFeatures {
    bool sse42 = false;
    bool pclmul = false;
    bool avx = false;
    bool avx2 = false;
    bool vpclmul = false;
    bool avx512f = false;
    bool avx512vl = false;
    bool avx512bw = false;
    bool avx512dq = false;
    bool avx512vnni = false;
    bool bmi2 = false;
    bool adx = false;     // adcx / adox: two carry chains (the runs' rest loop)
    bool os_ymm = false;  // XCR0: SSE and AVX state
    bool os_zmm = false;  // XCR0: also opmask and both zmm halves

    bool can_sse42() const { return sse42 && pclmul; }
    // VEX encoding usable: the short paths get a copy built with -mavx, so
    // dirty upper vector state left by other code costs them nothing.
    bool can_vex() const { return can_sse42() && avx && os_ymm; }
    bool can_avx2() const { return can_vex() && avx2 && vpclmul; }
    // The avx512 kernels are compiled with -mavx512{f,bw,vl,dq}: all must be there.
    bool can_avx512() const {
        return can_avx2() && avx512f && avx512vl && avx512bw && avx512dq && os_zmm;
    }
    // The Internet-sum kernels need no carry-less multiply.
    bool can_inet_avx2() const { return avx && avx2 && os_ymm; }
    bool can_inet_avx512() const {
        return can_inet_avx2() && avx512f && avx512vl && avx512bw && avx512dq && os_zmm;
    }
    bool can_inet_avx512_vnni() const { return can_inet_avx512() && avx512vnni; }
    // The engine's AVX-512 loops (chain walks, tunnel compare) also use bzhi.
    bool can_engine_avx512() const { return can_inet_avx512() && bmi2; }
};

// Internal linkage: this header is included by files built with different
// ISA flags, and one shared inline copy could be an AVX-512 one.
namespace {

inline uint64_t read_xcr0() {
    uint32_t lo, hi;
    // xgetbv by opcode, so this header needs no -mxsave.
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return (static_cast<uint64_t>(hi) << 32) | lo;
}

inline CpuFeatures detect_cpu() {
    CpuFeatures f;
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
    f.sse42 = c & bit_SSE4_2;
    f.pclmul = c & bit_PCLMUL;
    f.avx = c & bit_AVX;
    if ((c & bit_OSXSAVE) && f.avx) {
        const uint64_t xcr0 = read_xcr0();
        f.os_ymm = (xcr0 & 0x6) == 0x6;
        f.os_zmm = f.os_ymm && (xcr0 & 0xE0) == 0xE0;
    }
    if (__get_cpuid_max(0, nullptr) >= 7 && __get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        f.avx2 = b & bit_AVX2;
        f.avx512f = b & bit_AVX512F;
        f.avx512dq = b & bit_AVX512DQ;
        f.avx512bw = b & bit_AVX512BW;
        f.avx512vl = b & bit_AVX512VL;
        f.vpclmul = c & bit_VPCLMULQDQ;
        f.avx512vnni = c & bit_AVX512VNNI;
        f.bmi2 = b & bit_BMI2;
        f.adx = b & bit_ADX;
    }
    return f;
}

// Drops what is wider than `bits` (DPDK's --force-max-simd-bitwidth, for
// csum): 256 keeps AVX2, 128 keeps SSE4.2 and PCLMULQDQ, the baseline.
inline CpuFeatures cap_simd_bits(CpuFeatures f, unsigned bits) {
    if (bits < 512) {
        f.avx512f = f.avx512vl = f.avx512bw = f.avx512dq = f.avx512vnni = false;
        f.os_zmm = false;
    }
    if (bits < 256) {
        f.avx = f.avx2 = f.vpclmul = false;
        f.os_ymm = false;
    }
    return f;
}

}  // namespace

// Read once, in a baseline-ISA file (select.cpp), capped by
// simd_bits_cap(); safe from static constructors.
const CpuFeatures& cpu() noexcept;

// The cap in force: CSUM_MAX_SIMD_BITS (128, 256 or 512; any other value
// ignored, with a line on stderr), else DPDK's --force-max-simd-bitwidth
// from this process's command line, else 512.
unsigned simd_bits_cap() noexcept;
// Which of the two set it ("CSUM_MAX_SIMD_BITS" or
// "--force-max-simd-bitwidth"); nullptr: neither.
const char* simd_cap_source() noexcept;
// The cap --force-max-simd-bitwidth asks for in args (n bytes of
// NUL-separated arguments, as /proc/self/cmdline holds them; those after
// "--" are the application's): its value at or under 512, 256 or 128 (64,
// DPDK's "no SIMD", is 128: the baseline ISA has SSE4.2); 0 if absent or
// not a number.
unsigned simd_bits_from_args(const char* args, size_t n) noexcept;

}  // namespace csum::detail
