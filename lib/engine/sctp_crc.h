// SCTP's CRC32C over packet bytes [off, off+len) with the checksum field
// (off+8..off+12) read as zero, without writing to the packet. Shared by the
// lean path and the general walker.
#pragma once

#include <cstdint>
#include <cstring>

#include <nmmintrin.h>  // SSE4.2 crc32: in the x86-64-v2 baseline

#include <rte_mbuf.h>

#include "csum/crc32c.h"
#include "dispatch/crc32c_pair.h"
#include "inet/word_sum.h"
#include "mbuf/segment_read.h"

namespace csum {

// crc32c() of the 12-byte common header with its checksum field as zero,
// inline: three crc32 instructions instead of a call into the kernels.
inline uint32_t sctp_head_crc(const uint8_t* head) noexcept {
    uint64_t ports_tag;
    std::memcpy(&ports_tag, head, 8);
    const auto raw = static_cast<uint32_t>(_mm_crc32_u64(~0u, ports_tag));
    return ~_mm_crc32_u32(raw, 0);
}

// The whole CRC of a short range [head, head + len) (12 <= len <= 12 +
// kSctpInlineMax), inline in serial crc32 instructions: for a few words a
// call into the kernels costs more, and a run of packets overlaps the chains.
inline constexpr uint32_t kSctpInlineMax = 128;
[[gnu::always_inline]] inline uint32_t sctp_crc_inline(const uint8_t* head, uint32_t len) noexcept {
    uint64_t ports_tag;
    std::memcpy(&ports_tag, head, 8);
    uint64_t c = _mm_crc32_u32(static_cast<uint32_t>(_mm_crc32_u64(~0u, ports_tag)), 0);
    const uint8_t* p = head + 12;
    uint32_t n = len - 12;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        c = _mm_crc32_u64(c, w);
    }
    auto r = static_cast<uint32_t>(c);
    if (n & 4) {
        uint32_t w;
        std::memcpy(&w, p, 4);
        r = _mm_crc32_u32(r, w), p += 4;
    }
    if (n & 2) {
        uint16_t w;
        std::memcpy(&w, p, 2);
        r = _mm_crc32_u16(r, w), p += 2;
    }
    if (n & 1) r = _mm_crc32_u8(r, *p);
    return ~r;
}

// The CRC of a linear packet's SCTP bytes [h, h + l4_len) (l4_len >= 12), in
// a run of packets: inline up to kSctpInlineMax bytes past the common
// header, else the kernels as runs take them (crc32c_in_run).
[[gnu::always_inline]] inline uint32_t sctp_linear_crc(const uint8_t* h, uint32_t l4_len) noexcept {
    return l4_len - 12 <= kSctpInlineMax ? sctp_crc_inline(h, l4_len)
                                         : crc32c_in_run(h + 12, l4_len - 12, sctp_head_crc(h));
}

// Fill mode's SCTP fields of a linear frame at p (Ethernet, IPv4 with no
// options or IPv6, SCTP of l4_len bytes): the CRC32C, little-endian as the
// lean path puts it, and over IPv4 the header's checksum.
template <bool kV6>
[[gnu::always_inline]] inline void sctp_linear_fill(uint8_t* p, uint32_t l4_len) noexcept {
    constexpr uint32_t l4 = kV6 ? 54 : 34;
    const uint32_t crc = rte_cpu_to_le_32(sctp_linear_crc(p + l4, l4_len));
    std::memcpy(p + l4 + 8, &crc, 4);
    if (!kV6) {
        const uint16_t field = word_sum::ipv4_header_field(p + 14);
        std::memcpy(p + 24, &field, 2);
    }
}

// A range that leaves the first segment: the header and the rest walked
// along the chain.
inline uint32_t sctp_crc_chained(const rte_mbuf* m, uint32_t off, uint32_t len) noexcept {
    static constexpr uint8_t kZero[4] = {};
    uint32_t crc = crc32c_mbuf(m, off, 8);
    crc = crc32c(kZero, 4, crc);
    return crc32c_mbuf(m, off + 12, len - 12, crc);
}

inline uint32_t sctp_crc(const rte_mbuf* m, uint32_t off, uint32_t len) noexcept {
    if (unlikely(len < 12 || static_cast<uint64_t>(off) + len > m->data_len))
        return sctp_crc_chained(m, off, len);
    // All in the first segment: the common header with its checksum zeroed,
    // then the rest in one call.
    const uint8_t* p = rte_pktmbuf_mtod_offset(m, const uint8_t*, off);
    return crc32c(p + 12, len - 12, sctp_head_crc(p));
}

// crc32c_mbuf(m, pos, rest, crc) for a long range: pieces of at least
// kSctpPieceMin bytes (and the last) CRCed with the linear kernel, the state
// chained from one into the next, since the unit fold's start and piece
// crossings cost more than the linear kernel's start on pieces this long
// (SCTP 1420 B in 2 segments: ~0.9x the ticks); from the first shorter piece
// on, and for a range past pkt_len or a chain that ends early, crc32c_mbuf
// itself takes the rest in one walk.
inline constexpr uint32_t kSctpPieceMin = 512;
[[gnu::noinline]] inline uint32_t sctp_crc_chain_rest(const rte_mbuf* m, uint32_t pos,
                                                      uint32_t rest, uint32_t crc) noexcept {
    if (static_cast<uint64_t>(pos) + rest > m->pkt_len) return crc32c_mbuf(m, pos, rest, crc);
    uint32_t so = pos;  // pos's offset in segment s
    const rte_mbuf* s = m;
    unsigned left = m->nb_segs;  // segments from s on that may be visited, whatever the links say
    if (left == 0) return crc32c_mbuf(m, pos, rest, crc);
    while (so >= s->data_len) {
        so -= s->data_len, s = s->next;
        if (s == nullptr || --left == 0) return crc32c_mbuf(m, pos, rest, crc);
    }
    for (;;) {
        uint32_t n = s->data_len - so;
        if (n >= rest)
            n = rest;
        else if (n < kSctpPieceMin)
            break;
        crc = crc32c(rte_pktmbuf_mtod_offset(s, const uint8_t*, so), n, crc);
        pos += n, rest -= n;
        if (rest == 0) return crc;
        s = s->next, so = 0;
        if (s == nullptr || --left == 0) break;
    }
    return crc32c_mbuf(m, pos, rest, crc);
}

// As sctp_crc, for a classified packet whose first `held` bytes are at
// `bytes` (in place, or gathered from a chain) and whose common header lies
// within them (off + 12 <= held): the header from there, and the rest from
// there too when held, so a chain gathered whole is CRCed like a linear
// packet (crc32c_in_run: a burst's CRCs are independent); a longer one from
// off + 12 along its chain, in one walk.
inline uint32_t sctp_crc_held(const rte_mbuf* m, const uint8_t* bytes, uint32_t held, uint32_t off,
                              uint32_t len) noexcept {
    const uint32_t crc = sctp_head_crc(bytes + off);
    if (static_cast<uint64_t>(off) + len <= held)
        return crc32c_in_run(bytes + off + 12, len - 12, crc);
    // Two segments, or a first piece this long (jumbo frames in 2-KiB mbufs):
    // else the pieces of a packet this long are mostly short (1420 B in 4:
    // slower piece by piece).
    if (len - 12 >= kSctpPieceMin &&
        (m->nb_segs == 2 || uint64_t{m->data_len} >= uint64_t{off} + 12 + kSctpPieceMin))
        return sctp_crc_chain_rest(m, off + 12, len - 12, crc);
    return crc32c_mbuf(m, off + 12, len - 12, crc);
}

// The stored (little-endian) checksum at p.
inline uint32_t sctp_stored_crc_at(const uint8_t* p) noexcept {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// The stored (little-endian) checksum; 0 if it lies past the data.
inline uint32_t sctp_stored_crc(const rte_mbuf* m, uint32_t field_off) noexcept {
    uint8_t buf[4];
    const auto* p = static_cast<const uint8_t*>(read_bytes(m, field_off, 4, buf));
    return p ? uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24
             : 0;
}

}  // namespace csum
