// Compile-time powers of x modulo the Castagnoli polynomial, in the
// reflected bit order the crc32 instruction uses (bit 31 is x^0).
//
// Facts the kernels rely on (derived in the comments of crc32c_x86.h):
//   crc32_u64(0, d)            == D(x) * x^32           mod P
//   crc32_u64(0, clmul(a, k))  == A(x) * K(x) * x^33    mod P
// so shifting a CRC state c forward over n zero bytes is
//   crc32_u64(0, clmul(c, xpow(8n - 33))).
#pragma once

#include <cstddef>
#include <cstdint>

namespace csum::detail {

inline constexpr uint32_t kCrc32cPoly = 0x82F63B78u;

// a*b mod P, reflected.
constexpr uint32_t gf2_mulmod(uint32_t a, uint32_t b) {
    uint32_t prod = 0;
    for (int i = 0; i < 32; ++i) {
        if (a & 0x80000000u) prod ^= b;
        a <<= 1;
        b = (b >> 1) ^ ((b & 1) ? kCrc32cPoly : 0);
    }
    return prod;
}

// x^n mod P, by square and multiply: cheap enough for constexpr tables.
constexpr uint32_t xpow(uint64_t n) {
    uint32_t result = 0x80000000u;  // 1
    uint32_t sq = 0x40000000u;      // x
    for (; n != 0; n >>= 1) {
        if (n & 1) result = gf2_mulmod(result, sq);
        sq = gf2_mulmod(sq, sq);
    }
    return result;
}

// Constant that shifts a 32-bit CRC state over n bytes via clmul + crc32.
constexpr uint64_t shift_const(size_t n_bytes) {
    return xpow(8 * n_bytes - 33);
}

// Constants that fold the low and high qword of a 16-byte lane forward by
// d bytes: lo holds x^64 more than hi, and clmul adds x^33 (see above).
constexpr uint64_t fold_lo(size_t d_bytes) {
    return xpow(8 * d_bytes + 31);
}
constexpr uint64_t fold_hi(size_t d_bytes) {
    return xpow(8 * d_bytes - 33);
}

static_assert(xpow(0) == 0x80000000u && xpow(1) == 0x40000000u && xpow(31) == 1u);
static_assert(xpow(32) == kCrc32cPoly);  // x^32 == P - x^32 mod P

}  // namespace csum::detail
