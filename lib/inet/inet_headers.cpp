// Pseudo-headers, the IPv4 header checksum, RFC 1624 updates and the
// CHECKSUM_COMPLETE prefix arithmetic.
#include <cstring>

#include "csum/inet.h"
#include "inet/inet_kernels.h"

namespace csum {
namespace {

inline uint16_t bswap16(uint16_t v) {
    return static_cast<uint16_t>((v << 8) | (v >> 8));
}

}  // namespace

uint32_t ipv4_pseudo_sum(const void* src, const void* dst, uint8_t proto,
                         uint32_t l4_len) noexcept {
    uint32_t s = partial_sum_fixed<4>(src, 0);
    s = partial_sum_fixed<4>(dst, s);
    // proto and length are big-endian 16-bit words on the wire.
    s = sum_add(s, bswap16(proto));
    s = sum_add(s, bswap16(static_cast<uint16_t>(l4_len)));
    return s;
}

uint32_t ipv6_pseudo_sum(const void* src, const void* dst, uint8_t proto,
                         uint32_t l4_len) noexcept {
    uint32_t s = partial_sum_fixed<16>(src, 0);
    s = partial_sum_fixed<16>(dst, s);
    s = sum_add(s, bswap16(static_cast<uint16_t>(l4_len >> 16)));
    s = sum_add(s, bswap16(static_cast<uint16_t>(l4_len)));
    s = sum_add(s, bswap16(proto));
    return s;
}

uint16_t ipv4_hdr_cksum_any(const void* hdr, size_t ihl_bytes) noexcept {
    const auto* p = static_cast<const uint8_t*>(hdr);
    // Inline sums: inet/ sits below the dispatch that partial_sum() goes through.
    uint32_t s = detail::sum_short(p, 10, 0);
    s = detail::sum_short(p + 12, ihl_bytes - 12, s);
    return static_cast<uint16_t>(~sum_fold(s));
}

uint16_t cksum_update16(uint16_t old_cksum, uint16_t old_word, uint16_t new_word) noexcept {
    uint32_t s = sum_add(static_cast<uint16_t>(~old_cksum), static_cast<uint16_t>(~old_word));
    s = sum_add(s, new_word);
    return static_cast<uint16_t>(~sum_fold(s));
}

uint16_t cksum_update32(uint16_t old_cksum, uint32_t old_word, uint32_t new_word) noexcept {
    uint16_t c =
        cksum_update16(old_cksum, static_cast<uint16_t>(old_word), static_cast<uint16_t>(new_word));
    return cksum_update16(c, static_cast<uint16_t>(old_word >> 16),
                          static_cast<uint16_t>(new_word >> 16));
}

uint32_t complete_sub_prefix(uint32_t complete, uint32_t prefix, size_t prefix_len) noexcept {
    // An odd prefix shifted every later byte by one lane: swap back.
    return sum_block_at(sum_sub(complete, prefix), prefix_len);
}

}  // namespace csum
