// Kernel choice, made once. Only the portable kernel is wired in so far.
#include <cstdlib>

#include "crc32c/crc32c_kernels.h"
#include "csum/crc32c.h"

namespace csum {
namespace {

constexpr Crc32cKernel kAvailable[] = {Crc32cKernel::portable};
Crc32cKernel g_active = Crc32cKernel::portable;

}  // namespace

std::string_view crc32c_kernel_name(Crc32cKernel k) noexcept {
    switch (k) {
        case Crc32cKernel::portable: return "portable";
        case Crc32cKernel::sse42: return "sse42";
        case Crc32cKernel::vpclmul_avx2: return "vpclmul_avx2";
        case Crc32cKernel::avx512: return "avx512";
        case Crc32cKernel::isal: return "isal";
    }
    return "?";
}

std::span<const Crc32cKernel> crc32c_available_kernels() noexcept { return kAvailable; }
Crc32cKernel crc32c_active_kernel() noexcept { return g_active; }

bool crc32c_force_kernel(Crc32cKernel k) noexcept {
    for (auto a : kAvailable)
        if (a == k) return g_active = k, true;
    return false;
}

bool crc32c_kernel_from_name(std::string_view name, Crc32cKernel* out) noexcept {
    for (auto k : {Crc32cKernel::portable, Crc32cKernel::sse42, Crc32cKernel::vpclmul_avx2,
                   Crc32cKernel::avx512, Crc32cKernel::isal})
        if (crc32c_kernel_name(k) == name) return *out = k, true;
    return false;
}

uint32_t crc32c_with(Crc32cKernel, const void* data, size_t len, uint32_t crc) noexcept {
    return ~detail::crc32c_portable(~crc, static_cast<const uint8_t*>(data), len);
}

uint32_t crc32c(const void* data, size_t len, uint32_t crc) noexcept {
    return ~detail::crc32c_portable(~crc, static_cast<const uint8_t*>(data), len);
}

}  // namespace csum
