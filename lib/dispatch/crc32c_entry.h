// The planned CRC32C path: inline short paths below the crossover, then one
// direct call per length class behind predictable branches (no call through
// a pointer). Included by two files: crc32c_dispatch.cpp (SSE4.2 encoding,
// for CPUs without AVX) and crc32c_entry_vex.cpp (-mavx: the same code
// VEX-encoded, so dirty upper vector state left by other code, e.g. ISA-L's
// AVX-512 CRC, costs no SSE/AVX transitions).
#pragma once

#include <atomic>

#include "crc32c/crc32c_fold128.h"
#include "crc32c/crc32c_kernels.h"
#include "crc32c/crc32c_x86.h"
#include "dispatch/crc32c_plan.h"
#include "dispatch/select.h"

namespace csum::detail {

// The VEX-encoded copies (crc32c_entry_vex.cpp); run only under kPlanVex.
// crc32c_short_vex takes len <= x86::kTreeMax, or len < x86::kCrossover under
// kPlanTree.
uint32_t crc32c_entry_vex(uint32_t plan, const uint8_t* p, size_t len, uint32_t crc) noexcept;
uint32_t crc32c_short_vex(uint32_t plan, const uint8_t* p, size_t len, uint32_t crc) noexcept;
// Under kPlanFirstXmm, past the short paths and below kClassFrom[1]: the
// first class's kernel, sse42's lanes or pclmul (plan_first_lanes).
uint32_t crc32c_lanes_vex(const uint8_t* p, size_t len, uint32_t crc) noexcept;
uint32_t crc32c_fold128_vex(const uint8_t* p, size_t len, uint32_t crc) noexcept;
uint32_t crc32c_raw_vex(uint32_t plan, uint32_t state, const uint8_t* p, size_t len) noexcept;

// Internal linkage: each includer has its own ISA flags.
namespace {

// Out of line: the lanes need callee-saved registers, whose push/pop would
// tax every short call if inlined.
__attribute__((noinline)) uint32_t lanes_here(uint32_t s, const uint8_t* p, size_t n) {
    return x86::crc_lanes_short(s, p, n);
}
__attribute__((noinline)) uint32_t sse42_here(uint32_t s, const uint8_t* p, size_t n) {
    return x86::crc_3way(s, p, n);
}
__attribute__((noinline)) uint32_t pclmul_here(uint32_t s, const uint8_t* p, size_t n) {
    return x86::crc_pclmul(s, p, n);
}

// Raw state in, raw state out.
inline uint32_t run_planned(uint32_t plan, uint32_t s, const uint8_t* p, size_t len) {
    if (len < x86::kCrossover && (plan & kPlanShortInline)) {
        if (len <= x86::kTreeMax) return x86::crc_short_path(s, p, len);
        if (plan & kPlanTree) return x86::crc_tree_fold(s, p, len);
        return lanes_here(s, p, len);
    }
    switch (static_cast<Crc32cKernel>(plan_kernel(plan, len))) {
        case Crc32cKernel::avx512:
            return crc32c_avx512(s, p, len);
        case Crc32cKernel::vpclmul_avx2:
            return crc32c_vpclmul_avx2(s, p, len);
        case Crc32cKernel::pclmul:
            return pclmul_here(s, p, len);
        case Crc32cKernel::sse42:
            return sse42_here(s, p, len);
        case Crc32cKernel::portable:
            break;
    }
    return crc32c_portable(s, p, len);
}

}  // namespace
}  // namespace csum::detail
