// Helpers shared by the CRC32C tests.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "crc32c/crc32c_kernels.h"
#include "csum/crc32c.h"
#include "dispatch/select.h"
#include "support/crc32c_kernels.h"  // KernelGuard

namespace csum::test {

// Seeds come from random_device; the trace prints them so a failure replays.
inline uint32_t fresh_seed() {
    return std::random_device{}();
}

// CRC32C of [p, p + n) continuing crc, by the portable kernel: the oracle.
inline uint32_t reference_crc(const void* p, size_t n, uint32_t crc = 0) {
    return ~detail::crc32c_portable(~crc, static_cast<const uint8_t*>(p), n);
}

inline std::string kname(Crc32cKernel k) {
    return std::string(crc32c_kernel_name(k));
}

inline bool cpu_has(Crc32cKernel k) {
    for (auto a : crc32c_available_kernels())
        if (a == k) return true;
    return false;
}

inline constexpr Crc32cKernel kAllKernels[] = {Crc32cKernel::portable, Crc32cKernel::sse42,
                                               Crc32cKernel::pclmul, Crc32cKernel::vpclmul_avx2,
                                               Crc32cKernel::avx512};

}  // namespace csum::test
