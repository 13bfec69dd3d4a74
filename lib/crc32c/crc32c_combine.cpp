// crc32c_combine by multiplying with x^(8*len_b) mod P, using precomputed
// x^(2^k) powers: O(log n) carry-less multiplies in GF(2).
#include <array>

#include "csum/crc32c.h"

namespace csum {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;

// a*b mod P, reflected bit order (bit 31 is x^0).
constexpr uint32_t gf2_mul(uint32_t a, uint32_t b) {
    uint32_t prod = 0;
    for (int i = 0; i < 32; ++i) {
        if (a & 0x80000000u) prod ^= b;
        a <<= 1;
        b = (b >> 1) ^ ((b & 1) ? kPoly : 0);
    }
    return prod;
}

// kPow[k] = x^(2^k) mod P.
constexpr std::array<uint32_t, 64> make_powers() {
    std::array<uint32_t, 64> p{};
    p[0] = 0x40000000u;  // x^1 in reflected order
    for (int k = 1; k < 64; ++k) p[k] = gf2_mul(p[k - 1], p[k - 1]);
    return p;
}

constexpr auto kPow = make_powers();

}  // namespace

uint32_t crc32c_combine(uint32_t crc_a, uint32_t crc_b, size_t len_b) noexcept {
    // crc(a||b) = crc(a) * x^(8*len_b) ^ crc(b); inversions cancel out.
    uint32_t x = 0x80000000u;  // 1
    uint64_t bits = static_cast<uint64_t>(len_b) * 8;
    for (int k = 0; bits != 0; ++k, bits >>= 1)
        if (bits & 1) x = gf2_mul(x, kPow[k]);
    return gf2_mul(crc_a, x) ^ crc_b;
}

}  // namespace csum
