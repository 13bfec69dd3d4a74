// Scalar kernel: 64-bit accumulation of 32-bit loads, so a carry can only
// escape after 2^32 additions; no adc chain through memory.
#include <cstring>

#include "csum/inet.h"
#include "inet/inet_kernels.h"

namespace csum {
namespace detail {

static inline uint32_t fold64(uint64_t s) {
    s = (s & 0xFFFFFFFFu) + (s >> 32);
    s = (s & 0xFFFFFFFFu) + (s >> 32);
    return static_cast<uint32_t>(s);
}

uint32_t inet_sum_scalar(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    uint64_t acc = sum;
    while (len >= 16) {
        uint32_t w[4];
        std::memcpy(w, p, 16);
        acc += uint64_t(w[0]) + w[1] + w[2] + w[3];
        p += 16;
        len -= 16;
    }
    while (len >= 4) {
        uint32_t w;
        std::memcpy(&w, p, 4);
        acc += w;
        p += 4;
        len -= 4;
    }
    if (len >= 2) {
        uint16_t w;
        std::memcpy(&w, p, 2);
        acc += w;
        p += 2;
        len -= 2;
    }
    if (len) acc += *p;
    return fold64(acc);
}

}  // namespace detail

uint32_t partial_sum(const void* data, size_t len, uint32_t sum) noexcept {
    return detail::inet_sum_scalar(static_cast<const uint8_t*>(data), len, sum);
}

uint16_t raw_cksum(const void* data, size_t len) noexcept {
    return sum_fold(partial_sum(data, len, 0));
}

}  // namespace csum
