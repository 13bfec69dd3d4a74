// SCTP's CRC32C over packet bytes [off, off+len) with the checksum field
// (off+8..off+12) read as zero, without writing to the packet. Shared by the
// lean path and the general walker.
#pragma once

#include <cstdint>

#include <rte_mbuf.h>

#include "csum/crc32c.h"
#include "mbuf/segment_read.h"

namespace csum {

inline uint32_t sctp_crc(const rte_mbuf* m, uint32_t off, uint32_t len) noexcept {
    static constexpr uint8_t kZero[4] = {};
    uint32_t crc = crc32c_mbuf(m, off, 8);
    crc = crc32c(kZero, 4, crc);
    return crc32c_mbuf(m, off + 12, len - 12, crc);
}

// The stored (little-endian) checksum; 0 if it lies past the data.
inline uint32_t sctp_stored_crc(const rte_mbuf* m, uint32_t field_off) noexcept {
    uint8_t buf[4];
    const auto* p = static_cast<const uint8_t*>(read_bytes(m, field_off, 4, buf));
    return p ? uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24
             : 0;
}

}  // namespace csum
