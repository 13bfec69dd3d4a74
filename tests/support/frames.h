// Frames built byte by byte, inside out, with every checksum right, from a
// reference Internet checksum and CRC32C kept here, apart from the library
// under test. Each wrapper takes what it carries and returns the bytes with
// its own header in front.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace csum::test {

using Bytes = std::vector<uint8_t>;

// RFC 1071 over bytes, folded; and the finished checksum (~sum) in network order.
uint32_t ref_sum(std::span<const uint8_t> b, uint32_t initial = 0);
uint16_t ref_cksum(std::span<const uint8_t> b, uint32_t initial = 0);
// Bitwise CRC32C (Castagnoli, reflected), as NVMe/TCP digests use it.
uint32_t ref_crc32c(std::span<const uint8_t> b);

using V4 = std::array<uint8_t, 4>;
using V6 = std::array<uint8_t, 16>;
inline constexpr V4 kSrc4{10, 0, 0, 1}, kDst4{10, 0, 0, 2};
inline constexpr V6 kSrc6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
inline constexpr V6 kDst6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

// Transport headers with their pseudo-header checksums over the given addresses.
Bytes tcp(std::span<const uint8_t> src, std::span<const uint8_t> dst, uint16_t sport,
          uint16_t dport, uint32_t seq, uint8_t flags, std::span<const uint8_t> payload);
Bytes udp(std::span<const uint8_t> src, std::span<const uint8_t> dst, uint16_t sport,
          uint16_t dport, std::span<const uint8_t> payload, bool with_csum = true);

// IP headers (IPv4 header checksum filled).
Bytes ipv4(V4 src, V4 dst, uint8_t proto, std::span<const uint8_t> payload);
Bytes ipv6(V6 src, V6 dst, uint8_t next, std::span<const uint8_t> payload);

// GRE (RFC 2784), its checksum present when with_csum; VXLAN (VNI 1).
Bytes gre(uint16_t ethertype, std::span<const uint8_t> payload, bool with_csum);
Bytes vxlan(std::span<const uint8_t> inner_frame);
// GENEVE (RFC 8926, VNI 1) carrying `protocol` (0x6558: Ethernet), with
// options (a multiple of 4 bytes, at most 252).
Bytes geneve(uint16_t protocol, std::span<const uint8_t> options, std::span<const uint8_t> inner);

Bytes eth(uint16_t ethertype, std::span<const uint8_t> payload);

// Flips one bit of the 16-bit field at off (leaves the rest alone).
void flip(Bytes& b, size_t off);

// NVMe/TCP PDUs: ICResp announcing digests (bit 0 header, bit 1 data) and a
// CapsuleResp carrying a header digest when hd.
Bytes nvme_icresp(uint8_t dgst);
Bytes nvme_capsule_resp(bool hd);

}  // namespace csum::test
