// The Internet checksum (RFC 1071): raw sums, partial sums that compose,
// pseudo-headers, incremental update (RFC 1624) and CHECKSUM_COMPLETE math.
//
// Byte order: like DPDK's rte_raw_cksum, sums are taken over 16-bit words
// loaded in host order straight from memory, so a folded, complemented sum
// is stored into the packet as is, with no htons.
#pragma once

#include "csum/export.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

struct rte_mbuf;

namespace csum {

// Drop-in for rte_raw_cksum: the folded 16-bit sum, not complemented.
CSUM_API uint16_t raw_cksum(const void* data, size_t len) noexcept;

// Drop-in for rte_raw_cksum_mbuf, but right on chains with odd splits.
// Returns 0, or -1 when off + len passes pkt_len, the chain ends early (or
// within the head's nb_segs segments: links that loop), or a segment of the
// range claims data past its buffer.
CSUM_API int raw_cksum_mbuf(const struct rte_mbuf* m, uint32_t off, uint32_t len,
                            uint16_t* sum) noexcept;

// --- Partial sums: 32-bit ones'-complement accumulators that compose. -----

// Adds the bytes of data to sum, as if data started at an even offset.
CSUM_API uint32_t partial_sum(const void* data, size_t len, uint32_t sum = 0) noexcept;

// Sum of packet bytes [off, off+len) of a chain; -1 if past pkt_len, past
// the chain's end or its head's nb_segs segments, or over a segment
// claiming data past its buffer.
CSUM_API int partial_sum_mbuf(const struct rte_mbuf* m, uint32_t off, uint32_t len,
                              uint32_t* sum) noexcept;

inline uint32_t sum_add(uint32_t a, uint32_t b) noexcept {
    uint32_t r = a + b;
    return r + (r < a);
}
inline uint32_t sum_sub(uint32_t a, uint32_t b) noexcept {
    return sum_add(a, ~b);
}
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

// Partial sum of exactly N bytes (N a multiple of 4, e.g. 20 or 40), inline:
// for fixed-size headers, with no call and no length loop.
template <size_t N>
inline uint32_t partial_sum_fixed(const void* data, uint32_t sum = 0) noexcept {
    static_assert(N % 4 == 0 && N <= 4096, "whole 32-bit words, and few enough to not overflow");
    const auto* p = static_cast<const uint8_t*>(data);
    uint64_t s = sum;
#pragma GCC unroll 64
    for (size_t i = 0; i < N; i += 4) {
        uint32_t w;
        std::memcpy(&w, p + i, 4);
        s += w;
    }
    s = (s & 0xFFFFFFFFu) + (s >> 32);
    s = (s & 0xFFFFFFFFu) + (s >> 32);
    return static_cast<uint32_t>(s);
}

// --- Pseudo-headers (sums in memory order, ready to add to partial sums). ---

// src/dst point at the 4-byte addresses as found in the packet.
CSUM_API uint32_t ipv4_pseudo_sum(const void* src, const void* dst, uint8_t proto,
                                  uint32_t l4_len) noexcept;
// src/dst point at 16-byte addresses; dst is the final destination (routing header).
CSUM_API uint32_t ipv6_pseudo_sum(const void* src, const void* dst, uint8_t proto,
                                  uint32_t l4_len) noexcept;

// The IPv4 header checksum for any IHL (ipv4_hdr_cksum inlines only 20).
CSUM_API uint16_t ipv4_hdr_cksum_any(const void* hdr, size_t ihl_bytes) noexcept;

// The value to store in an IPv4 header's checksum field (the field itself is
// treated as zero). ihl_bytes is 20..60; 20 is inline.
inline uint16_t ipv4_hdr_cksum(const void* hdr, size_t ihl_bytes) noexcept {
    if (ihl_bytes != 20) return ipv4_hdr_cksum_any(hdr, ihl_bytes);
    const auto* p = static_cast<const uint8_t*>(hdr);
    uint16_t ttl_proto;  // bytes 8-9; bytes 10-11 are the checksum field
    std::memcpy(&ttl_proto, p + 8, 2);
    uint32_t s = partial_sum_fixed<8>(p, ttl_proto);
    s = partial_sum_fixed<8>(p + 12, s);
    return static_cast<uint16_t>(~sum_fold(s));
}

// True if the header, including its stored checksum, sums to 0xFFFF.
inline bool ipv4_hdr_cksum_ok(const void* hdr, size_t ihl_bytes) noexcept {
    const uint32_t s = ihl_bytes == 20 ? partial_sum_fixed<20>(hdr) : partial_sum(hdr, ihl_bytes);
    return sum_fold(s) == 0xFFFF;
}

// --- The final destination of an IPv6 packet with a Routing header. --------
//
// The upper-layer pseudo-header uses the final destination (RFC 8200 8.1).
// While Segments Left is non-zero that address is in the Routing header:
// type 2 (RFC 6275) carries exactly one address, the home address; type 4
// (SRH, RFC 8754) lists segments in reverse, so Segment List[0] is the last.
// Once Segments Left is 0, the IPv6 Destination Address is the final one.
//
// Policy for type 0 (deprecated, RFC 5095) and every other type (1, 3 RPL,
// ...): handled as RFC 8200 4.4 says for an unrecognised type. With Segments
// Left 0 the header is ignored and the IPv6 destination is used; otherwise a
// conforming node discards the packet, so we do not guess an address and say
// `unverifiable`: the checksum must be left unverified, not called bad.
enum class Ipv6FinalDst : uint8_t {
    ipv6_dst,        // use the IPv6 header's Destination Address
    routing_header,  // use the 16 bytes at *addr (inside the routing header)
    unverifiable,    // type 0 or unknown type with Segments Left > 0
    malformed,       // truncated, or lengths/counts that contradict each other
};

// rh points at the routing header (its Next Header byte); avail is how many
// bytes of it are readable. On routing_header, *addr points into rh.
CSUM_API Ipv6FinalDst ipv6_routing_final_dst(const void* rh, size_t avail,
                                             const uint8_t** addr) noexcept;

// The same from the first prefix_len bytes of a routing header of hdr_len
// bytes: a header up to 2048 bytes long is judged from its first
// kIpv6RoutingPrefixLen (fixed part + first address) without being copied.
inline constexpr size_t kIpv6RoutingPrefixLen = 24;
CSUM_API Ipv6FinalDst ipv6_routing_final_dst_prefix(const void* rh, size_t prefix_len,
                                                    size_t hdr_len, const uint8_t** addr) noexcept;

// --- RFC 1624 incremental update: HC' = ~(~HC + ~m + m'). ------------------

CSUM_API uint16_t cksum_update16(uint16_t old_cksum, uint16_t old_word, uint16_t new_word) noexcept;
CSUM_API uint16_t cksum_update32(uint16_t old_cksum, uint32_t old_word, uint32_t new_word) noexcept;

// For a UDP checksum after an update: 0 would mean "none", so send 0xFFFF.
// (Never update a UDP field that is 0: the sender sent no checksum.)
inline uint16_t udp_cksum_nonzero(uint16_t c) noexcept {
    return c == 0 ? 0xFFFF : c;
}

// --- Zero rules -------------------------------------------------------------
//
// In ones' complement 0x0000 and 0xFFFF are both zero (RFC 1624 section 3).
// A sender's complemented sum can be 0x0000 (TCP, ICMP: stored as is), but
// for UDP 0 means "no checksum", so a computed 0 is sent as 0xFFFF (RFC 768;
// RFC 8200 8.1 for IPv6). A receiver must accept either form: with the
// stored field included, a good packet's sum folds to 0xFFFF (or to 0 when
// every word summed was 0, which a real pseudo-header never is).

// The value to store in a TCP/ICMP/ICMPv6 checksum field from the full sum
// (pseudo-header + segment, with the field taken as 0).
inline uint16_t cksum_finish(uint32_t sum) noexcept {
    return static_cast<uint16_t>(~sum_fold(sum));
}

// As cksum_finish, for UDP: a computed 0x0000 is stored as 0xFFFF.
inline uint16_t udp_cksum_finish(uint32_t sum) noexcept {
    const uint16_t c = cksum_finish(sum);
    return c == 0 ? 0xFFFF : c;
}

// Verification: sum covers pseudo-header and segment, stored field included.
inline bool cksum_sum_ok(uint32_t sum) noexcept {
    const uint16_t f = sum_fold(sum);
    return f == 0xFFFF || f == 0;
}

enum class UdpCsumState : uint8_t {
    good,
    bad,
    none,     // field is 0 over IPv4 (or over IPv6 where allowed): not checked
    illegal,  // field is 0 over IPv6 without an exception (RFC 8200 8.1)
};

// stored_field: the UDP checksum field as found in the packet. ipv6_zero_ok:
// the tunnel exceptions of RFC 6935/6936 apply on this path.
inline UdpCsumState udp_cksum_state(uint16_t stored_field, uint32_t sum, bool ipv6,
                                    bool ipv6_zero_ok = false) noexcept {
    if (stored_field == 0)
        return !ipv6 || ipv6_zero_ok ? UdpCsumState::none : UdpCsumState::illegal;
    return cksum_sum_ok(sum) ? UdpCsumState::good : UdpCsumState::bad;
}

// --- CHECKSUM_COMPLETE -------------------------------------------------------

// Given `complete`, the sum of packet bytes [base, end), and `prefix`, the sum
// of bytes [base, layer_off), returns the sum of bytes [layer_off, end) without
// touching the payload. Handles an odd (layer_off - base).
CSUM_API uint32_t complete_sub_prefix(uint32_t complete, uint32_t prefix,
                                      size_t prefix_len) noexcept;

// --- Kernels, for tests and benchmarks ---------------------------------------
//
// partial_sum runs short buffers inline and the rest on the active kernel,
// chosen once from CPUID; CSUM_INET_KERNEL=<name> in the environment
// overrides it (an unknown or unsupported name is reported and ignored).
enum class InetKernel : uint8_t { scalar, avx2, avx512, avx512_vnni };

CSUM_API std::string_view inet_kernel_name(InetKernel k) noexcept;
// Kernels this CPU can run, fastest last.
CSUM_API std::span<const InetKernel> inet_available_kernels() noexcept;
CSUM_API InetKernel inet_active_kernel() noexcept;
// Returns false (and changes nothing) if this CPU can't run `k`.
CSUM_API bool inet_force_kernel(InetKernel k) noexcept;
// Parses a kernel name; false if unknown.
CSUM_API bool inet_kernel_from_name(std::string_view name, InetKernel* out) noexcept;
// Runs one kernel at any length, bypassing dispatch; a kernel this CPU can't
// run falls back to scalar.
CSUM_API uint32_t partial_sum_with(InetKernel k, const void* data, size_t len,
                                   uint32_t sum = 0) noexcept;

}  // namespace csum
