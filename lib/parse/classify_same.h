// A narrower classifier for runs of one shape: does this linear packet have
// the plain TCP/UDP (or SCTP) over IPv4/IPv6 shape kV6/kUdp, exactly as
// classify_headers would describe it (no NVMe port, no special UDP port)?
// A strict subset of classify_headers: every "no" goes back to it, so it
// decides nothing the classifier would decide otherwise; it only skips
// building the PacketShape when the run's shape is already known. The
// EtherType/version/IHL/fragment/protocol bytes are one masked 16-byte
// compare against a template of the shape.
#pragma once

#include <smmintrin.h>  // SSE4.1 (ptest): in the x86-64-v2 baseline

#include <cstdint>
#include <cstring>

#include "inet/word_sum.h"
#include "parse/classify.h"

namespace csum {

namespace same_detail {
// Bytes 12..27 of the frame: EtherType, then the first 14 bytes of the IP header.
struct Template {
    alignas(16) uint8_t mask[16];
    alignas(16) uint8_t value[16];
};
template <bool kV6, bool kUdp>
inline constexpr Template kTemplate = [] {
    Template t{};
    const uint8_t proto = kUdp ? kShapeUdp : kShapeTcp;
    if (kV6) {
        // 86 DD, version 6, next header at IP byte 6.
        t.mask[0] = 0xFF, t.value[0] = 0x86;
        t.mask[1] = 0xFF, t.value[1] = 0xDD;
        t.mask[2] = 0xF0, t.value[2] = 0x60;
        t.mask[2 + 6] = 0xFF, t.value[2 + 6] = proto;
    } else {
        // 08 00, 45 (no options), MF and fragment offset zero, protocol.
        t.mask[0] = 0xFF, t.value[0] = 0x08;
        t.mask[1] = 0xFF, t.value[1] = 0x00;
        t.mask[2] = 0xFF, t.value[2] = 0x45;
        t.mask[2 + 6] = 0x3F, t.mask[2 + 7] = 0xFF;  // frag & 0xFF3F (little-endian load)
        t.mask[2 + 9] = 0xFF, t.value[2 + 9] = proto;
    }
    return t;
}();
// SCTP's: TCP's with protocol 132.
template <bool kV6>
inline constexpr Template kSctpTemplate = [] {
    Template t = kTemplate<kV6, false>;
    t.value[kV6 ? 2 + 6 : 2 + 9] = kShapeSctp;
    return t;
}();
using word_sum::load16;
// The big-endian 16-bit field at p + 2.
inline uint32_t be16_low(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return __builtin_bswap32(v) & 0xFFFF;
}
// A TCP header's byte 12 to the least L4 length it allows: its data offset
// in bytes, or more than any length for an offset below 5 words.
struct TcpMinL4 {
    uint32_t at[256];
};
inline constexpr TcpMinL4 kTcpMinL4 = [] {
    TcpMinL4 t{};
    for (uint32_t b = 0; b < 256; ++b) t.at[b] = b >= 0x50 ? (b >> 2) & 0x3C : ~0u;
    return t;
}();
}  // namespace same_detail

// p: the packet's bytes, all `len` of them in place (a linear packet).
// kPorts: the config has special TCP ports (ShapeConfig::tcp_ports).
// *l4_len_out: the bytes the L4 checksum covers, when it says yes.
// kLenChecked: the caller knows len >= the shape's least length.
// kExact (IPv6): also no bytes after the IP payload (a frame of 62 bytes or
// more has no Ethernet padding); a padded one says no.
template <bool kV6, bool kUdp, bool kPorts, bool kLenChecked = false, bool kExact = false>
[[gnu::always_inline]] inline bool same_plain_shape(const ShapeConfig& cfg, const uint8_t* p,
                                                    uint32_t len,
                                                    uint32_t* l4_len_out = nullptr) noexcept {
    using shape_detail::be16;
    constexpr uint32_t l4 = kV6 ? 54 : 34;
    // The least classify_headers takes of this shape (also >= 42, and >= 62 for IPv6).
    constexpr uint32_t min_len = l4 + (kUdp ? 8 : 20);
    if (!kLenChecked && len < min_len) return false;
    const auto& t = same_detail::kTemplate<kV6, kUdp>;
    static_assert([] {
        for (int i = 0; i < 16; ++i)
            if (same_detail::kTemplate<kV6, kUdp>.value[i] &
                ~same_detail::kTemplate<kV6, kUdp>.mask[i])
                return false;
        return true;
    }());
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 12));
    // (x ^ value) & mask == 0: value lies within mask.
    const __m128i d = _mm_xor_si128(x, _mm_load_si128(reinterpret_cast<const __m128i*>(t.value)));
    if (!_mm_testz_si128(d, _mm_load_si128(reinterpret_cast<const __m128i*>(t.mask)))) return false;
    uint32_t l4_len;
    // The least L4 length: UDP's 8 here; TCP's 20 by its data offset below
    // (which also turns away a zero IPv6 payload length).
    constexpr uint32_t kLeast = kUdp ? 8 : 0;
    // The length fields by a 32-bit byte swap (a 16-bit one costs a partial register).
    if (kV6) {
        l4_len = same_detail::be16_low(p + 16);
        if (kExact ? l4_len != len - 54 : l4_len - kLeast > len - 54 - kLeast)
            return false;  // least <= plen <= len - 54 (kExact: = len - 54)
    } else {
        l4_len = same_detail::be16_low(p + 14) - 20u;
        if (l4_len - kLeast > len - 34 - kLeast) return false;  // also total < 20 (wraps)
    }
    const uint8_t* th = p + l4;
    if (l4_len_out != nullptr) *l4_len_out = l4_len;
    if (kUdp) {
        // The UDP length equals the IP one's L4 length: compared as loaded.
        const bool same = kV6 ? same_detail::load16(th + 4) == same_detail::load16(p + 18)
                              : be16(th + 4) == l4_len;
        return __builtin_expect(same && be16(th + 6) != 0 && cfg.udp_hit[th[3]] == 0, 1);
    }
    // The data offset (th[12] >> 4 words) at least 5 and doff * 4 <= l4_len,
    // which gives l4_len >= 20: one table look-up.
    return same_detail::kTcpMinL4.at[th[12]] <= l4_len &&
           (!kPorts || (cfg.tcp_hit[th[1]] | cfg.tcp_hit[th[3]]) == 0);
}

// The same for SCTP over IPv4/IPv6 (kV6): the common header and chunks
// whose lengths hold, as classify_headers takes them: one chunk that fills
// the packet (its padding present or not) inline, several (DATA bundled
// with SACK, say) by sctp_chunks_ok's walk, the chunk headers past the
// `held` bytes at p read from m's chain. A length that lies says no and
// goes to classify_headers, which names it. Reads p[0, l4 + 16) inline, and
// only when len reaches that far (a chain's gathered front will do).
// *l4_len_out: the bytes the CRC covers.
template <bool kV6>
[[gnu::always_inline]] inline bool same_sctp_shape(const rte_mbuf* m, const uint8_t* p,
                                                   uint32_t len, uint32_t held,
                                                   uint32_t* l4_len_out) noexcept {
    using shape_detail::be16;
    constexpr uint32_t l4 = kV6 ? 54 : 34;
    // The common header and one chunk header (classify_headers' fast case).
    constexpr uint32_t min_len = l4 + 16;
    if (len < min_len) return false;
    const auto& t = same_detail::kSctpTemplate<kV6>;
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 12));
    // (x ^ value) & mask == 0: value lies within mask (as kTemplate's).
    const __m128i d = _mm_xor_si128(x, _mm_load_si128(reinterpret_cast<const __m128i*>(t.value)));
    if (!_mm_testz_si128(d, _mm_load_si128(reinterpret_cast<const __m128i*>(t.mask)))) return false;
    uint32_t l4_len;
    if (kV6) {
        l4_len = be16(p + 18);
        if (l4_len - 16 > len - l4 - 16) return false;  // 16 <= plen <= len - 54
    } else {
        l4_len = be16(p + 16) - 20u;
        if (l4_len - 16 > len - l4 - 16) return false;  // 16 <= total - 20 <= len - 34
    }
    // The first chunk's length: at least its header and within the packet;
    // one chunk when its padded end is at or past the packet's end.
    const uint32_t room = l4_len - 12, clen = be16(p + l4 + 14);
    *l4_len_out = l4_len;
    if (clen - 4 > room - 4) return false;
    const uint32_t end = l4 + l4_len;
    uint32_t pos = l4 + 12 + ((clen + 3) & ~3u);
    // The rest as sctp_chunks_ok walks them, inline while their headers are
    // at hand (no call, and the first chunk not walked again).
    while (pos < end) {
        if (pos + 4 > held) return shape_detail::sctp_chunks_rest(m, pos, end);
        if ((pos = shape_detail::sctp_next_chunk(pos, be16(p + pos + 2), end)) == 0) return false;
    }
    return true;
}

}  // namespace csum
