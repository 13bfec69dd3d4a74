// Raw CRC32C kernels: no pre/post inversion; state in, state out.
// crc32c(data) == ~kernel(data, len, ~0u).
#pragma once

#include <cstddef>
#include <cstdint>

namespace csum::detail {

uint32_t crc32c_portable(uint32_t state, const uint8_t* p, size_t len) noexcept;

}  // namespace csum::detail
