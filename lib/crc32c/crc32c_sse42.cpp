// sse42 kernel: three interleaved crc32 streams, recombined with pclmulqdq.
#include "crc32c/crc32c_kernels.h"
#include "crc32c/crc32c_x86.h"

namespace csum::detail {

uint32_t crc32c_sse42(uint32_t state, const uint8_t* p, size_t len) noexcept {
    return x86::crc_3way(state, p, len);
}

}  // namespace csum::detail
