// The Internet checksum (RFC 1071): raw sums, partial sums that compose,
// pseudo-headers, incremental update (RFC 1624) and CHECKSUM_COMPLETE math.
//
// Byte order: like DPDK's rte_raw_cksum, sums are taken over 16-bit words
// loaded in host order straight from memory, so a folded, complemented sum
// is stored into the packet as is, with no htons.
#pragma once

#include <cstddef>
#include <cstdint>

struct rte_mbuf;

namespace csum {

// Drop-in for rte_raw_cksum: the folded 16-bit sum, not complemented.
uint16_t raw_cksum(const void* data, size_t len) noexcept;

// Drop-in for rte_raw_cksum_mbuf, but right on chains with odd splits.
// Returns 0, or -1 when off + len passes pkt_len.
int raw_cksum_mbuf(const struct rte_mbuf* m, uint32_t off, uint32_t len, uint16_t* sum) noexcept;

// --- Partial sums: 32-bit ones'-complement accumulators that compose. -----

// Adds the bytes of data to sum, as if data started at an even offset.
uint32_t partial_sum(const void* data, size_t len, uint32_t sum = 0) noexcept;

// Sum of packet bytes [off, off+len) of a chain; -1 if past pkt_len.
int partial_sum_mbuf(const struct rte_mbuf* m, uint32_t off, uint32_t len,
                     uint32_t* sum) noexcept;

inline uint32_t sum_add(uint32_t a, uint32_t b) noexcept {
    uint32_t r = a + b;
    return r + (r < a);
}
inline uint32_t sum_sub(uint32_t a, uint32_t b) noexcept { return sum_add(a, ~b); }
inline uint16_t sum_fold(uint32_t s) noexcept {
    s = (s & 0xFFFF) + (s >> 16);
    s = (s & 0xFFFF) + (s >> 16);
    return static_cast<uint16_t>(s);
}
// A block's sum placed at byte `offset` of a larger region: odd offsets swap.
inline uint32_t sum_block_at(uint32_t block_sum, size_t offset) noexcept {
    if (offset & 1) {
        block_sum = sum_fold(block_sum);
        block_sum = ((block_sum & 0xFF) << 8) | (block_sum >> 8);
    }
    return block_sum;
}

// --- Pseudo-headers (sums in memory order, ready to add to partial sums). ---

// src/dst point at the 4-byte addresses as found in the packet.
uint32_t ipv4_pseudo_sum(const void* src, const void* dst, uint8_t proto, uint32_t l4_len) noexcept;
// src/dst point at 16-byte addresses; dst is the final destination (routing header).
uint32_t ipv6_pseudo_sum(const void* src, const void* dst, uint8_t proto, uint32_t l4_len) noexcept;

// The value to store in an IPv4 header's checksum field (the field itself is
// treated as zero). ihl_bytes is 20..60.
uint16_t ipv4_hdr_cksum(const void* hdr, size_t ihl_bytes) noexcept;

// True if the header, including its stored checksum, sums to 0xFFFF.
bool ipv4_hdr_cksum_ok(const void* hdr, size_t ihl_bytes) noexcept;

// --- RFC 1624 incremental update: HC' = ~(~HC + ~m + m'). ------------------

uint16_t cksum_update16(uint16_t old_cksum, uint16_t old_word, uint16_t new_word) noexcept;
uint16_t cksum_update32(uint16_t old_cksum, uint32_t old_word, uint32_t new_word) noexcept;

// --- CHECKSUM_COMPLETE -------------------------------------------------------

// Given `complete`, the sum of packet bytes [base, end), and `prefix`, the sum
// of bytes [base, layer_off), returns the sum of bytes [layer_off, end) without
// touching the payload. Handles an odd (layer_off - base).
uint32_t complete_sub_prefix(uint32_t complete, uint32_t prefix, size_t prefix_len) noexcept;

}  // namespace csum
