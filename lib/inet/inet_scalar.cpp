// Scalar kernel: 64-bit loads into four independent accumulators, each with
// its own carry count, so no single adc chain serialises the loop.
#include "inet/inet_kernels.h"

namespace csum::detail {

uint32_t inet_sum_scalar(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    uint64_t a[4] = {sum, 0, 0, 0};
    uint64_t c[4] = {0, 0, 0, 0};
    while (len >= 32) {
        for (int i = 0; i < 4; ++i) {
            uint64_t w;
            std::memcpy(&w, p + 8 * i, 8);
            a[i] += w;
            c[i] += a[i] < w;
        }
        p += 32;
        len -= 32;
    }
    // Carries are 2^64 each, which is 1 mod 2^64-1.
    uint64_t s = add64c(add64c(a[0], a[1]), add64c(a[2], a[3]));
    s = add64c(s, c[0] + c[1] + c[2] + c[3]);
    return sum_short(p, len, fold64(s));
}

}  // namespace csum::detail
