// The carried CRC32C's entry points: pick the vector or the 32-bit path once
// per range, bound every feed by the bytes the range has left.
#include "mbuf/crc32c_carry.h"

#include "csum/crc32c.h"
#include "dispatch/crc32c_plan.h"
#include "inet/inet_kernels.h"

namespace csum::detail {

void crc32c_carry_begin(Crc32cCarry& c, uint32_t total) noexcept {
    c.total = c.left = total;
    c.crc = 0;
    c.short_chain = false;
    c.vec = (crc32c_plan() & kPlanStream) != 0;
    if (c.vec) crc32c_carry_begin_vec(c);
}

void crc32c_carry_begin_feed(Crc32cCarry& c, uint32_t total, const uint8_t* p,
                             uint32_t n) noexcept {
    c.total = total;
    c.crc = 0;
    c.short_chain = n > total;
    if (n > total) n = total;
    c.left = total - n;
    c.vec = (crc32c_plan() & kPlanStream) != 0;
    if (c.vec)
        crc32c_carry_begin_feed_vec(c, p, n);
    else
        c.crc = crc32c(p, n, 0);
}

uint32_t crc32c_carry_feed_crc(uint32_t crc, const uint8_t* p, uint32_t n) noexcept {
    return crc32c(p, n, crc);
}

bool crc32c_carry_feed_crc(uint32_t* crc, const rte_mbuf* m, uint32_t off, uint32_t n) noexcept {
    return crc32c_mbuf_checked(m, off, n, crc) == 0;
}

uint32_t crc32c_carry_feed_summed_ref(Crc32cCarry& c, const uint8_t* p, uint32_t n, uint64_t base,
                                      bool* kept) noexcept {
    const uint32_t sum = inet_sum_scalar(p, n, 0);
    uint64_t all = base + sum;
    all += all < sum;
    *kept = all % 0xFFFF == 0;
    if (*kept) crc32c_carry_feed(c, p, n);
    return sum;
}

uint32_t crc32c_carry_end(const Crc32cCarry& c) noexcept {
    if (!c.vec) return c.crc;
    return ~crc32c_carry_end_vec(c);
}

}  // namespace csum::detail
