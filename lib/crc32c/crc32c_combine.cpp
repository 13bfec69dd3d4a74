// crc32c_combine: crc(a||b) = crc(a) * x^(8*len_b) ^ crc(b) (the inversions
// cancel), with x^n by square and multiply: O(log n) carry-less multiplies in
// GF(2). Not for the hot path: segments chain their CRC state instead.
#include "crc32c/crc32c_consts.h"
#include "csum/crc32c.h"

namespace csum {

uint32_t crc32c_combine(uint32_t crc_a, uint32_t crc_b, size_t len_b) noexcept {
    return detail::gf2_mulmod(crc_a, detail::xpow(static_cast<uint64_t>(len_b) * 8)) ^ crc_b;
}

}  // namespace csum
