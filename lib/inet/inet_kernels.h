// Ones'-complement partial-sum kernels: 16-bit host-order words, the result
// folded to 32 bits. An odd trailing byte counts as the low byte of a word.
#pragma once

#include <cstddef>
#include <cstdint>

namespace csum::detail {

uint32_t inet_sum_scalar(const uint8_t* p, size_t len, uint32_t sum) noexcept;

}  // namespace csum::detail
