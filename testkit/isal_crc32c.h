// ISA-L's crc32_iscsi: the peer our CRC32C kernels are compared with in
// differential tests and benchmarks. Not part of libcsum. <isa-l/crc.h> is
// reachable through this target for programs that call ISA-L directly.
#pragma once

#include <cstddef>
#include <cstdint>

namespace csum::testkit {

// Raw state in, raw state out, as csum's kernels (no pre/post inversion).
// Any length, including 0 and lengths past INT_MAX.
uint32_t isal_crc32c_raw(uint32_t state, const uint8_t* p, size_t len) noexcept;

// The convention of csum::crc32c: isal_crc32c("123456789", 9) == 0xE3069283.
inline uint32_t isal_crc32c(const void* p, size_t len, uint32_t crc = 0) noexcept {
    return ~isal_crc32c_raw(~crc, static_cast<const uint8_t*>(p), len);
}

}  // namespace csum::testkit
