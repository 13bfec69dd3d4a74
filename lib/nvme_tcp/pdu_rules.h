// NVMe/TCP PDU header layout and the rules a header must satisfy.
//
// Common header (8 bytes): type, flags, hlen, pdo, plen (u32 LE). A PDU is
// laid out as: header [0,hlen) | HDGST [hlen,+hd) | pad | data [data_start,
// data_end) | DDGST [data_end, plen). Digests are CRC32C stored little-endian.
#pragma once

#include <cstdint>
#include <cstring>

#include <nmmintrin.h>

#include "csum/crc32c.h"
#include "csum/nvme_tcp.h"

namespace csum::nvme {

enum PduType : uint8_t {
    kIcReq = 0x00,
    kIcResp = 0x01,
    kH2CTermReq = 0x02,
    kC2HTermReq = 0x03,
    kCapsuleCmd = 0x04,
    kCapsuleResp = 0x05,
    kH2CData = 0x06,
    kC2HData = 0x07,
    kR2T = 0x09,
};

inline constexpr uint8_t kFlagHdgst = 0x01;
inline constexpr uint8_t kFlagDdgst = 0x02;
inline constexpr uint8_t kFlagDataLast = 0x04;
inline constexpr uint8_t kFlagDataSuccess = 0x08;

inline constexpr uint32_t kCommonHdrLen = 8;
inline constexpr uint32_t kDigestLen = 4;
inline constexpr uint32_t kMaxHlen = 128;
// TermReq carries at most the 128-byte offending header after its own 24.
inline constexpr uint32_t kTermReqMaxPlen = 24 + 128;
// ICReq/ICResp DGST field (byte 11): bit 0 header digest, bit 1 data digest.
inline constexpr uint32_t kIcDgstOffset = 11;

// Fixed header length for a PDU type; 0 if the type is unknown.
constexpr uint8_t fixed_hlen(uint8_t type) {
    switch (type) {
        case kIcReq:
        case kIcResp:
            return 128;
        case kCapsuleCmd:
            return 72;
        case kH2CTermReq:
        case kC2HTermReq:
        case kCapsuleResp:
        case kH2CData:
        case kC2HData:
        case kR2T:
            return 24;
        default:
            return 0;
    }
}

// Negotiated digest use for a connection: unknown until ICReq/ICResp (or
// until learned from a trusted PDU when the handshake was missed).
enum class Tri : uint8_t { unknown, off, on };
struct Negotiation {
    Tri hd = Tri::unknown;
    Tri dd = Tri::unknown;
    bool from_ic = false;
};

struct PduLayout {
    uint32_t plen = 0;
    uint32_t data_start = 0;  // data region; empty when data_start == data_end
    uint32_t data_end = 0;
    uint8_t type = 0, flags = 0, hlen = 0, pdo = 0;
    uint8_t hd = 0;  // header digest length, 0 or 4
    uint8_t dd = 0;  // data digest length, 0 or 4
    uint32_t hdr_end() const { return uint32_t{hlen} + hd; }
};

inline uint32_t load_le32(const uint8_t* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
inline void store_le32(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v);
    p[1] = static_cast<uint8_t>(v >> 8);
    p[2] = static_cast<uint8_t>(v >> 16);
    p[3] = static_cast<uint8_t>(v >> 24);
}

// CRC32C of a PDU header: every fixed HLEN (24, 72, 128) is a multiple of 8,
// so the crc32 instruction (SSE4.2, the baseline) takes it inline, without
// the dispatched kernel's call and setup for 24 bytes.
[[gnu::always_inline]] inline uint32_t header_crc(const uint8_t* h, uint32_t len) {
    if (len % 8 != 0) return crc32c(h, len);
    uint64_t c = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < len; i += 8) {
        uint64_t w;
        std::memcpy(&w, h + i, 8);
        c = _mm_crc32_u64(c, w);
    }
    return ~static_cast<uint32_t>(c);
}

// Checks the 8-byte common header against the PDU rules and the
// negotiation; fills *out when it passes. Arithmetic is 64-bit, so any plen
// (including 2^32-1) is safe.
NvmeDesyncReason check_common(const uint8_t* hdr8, Negotiation neg, uint32_t max_plen,
                              PduLayout* out);

// check_common for the commonest header, a data PDU (H2CData, C2HData)
// that passes every rule: true with *out filled as check_common fills it.
// False decides nothing: check_common runs and names the reason.
[[gnu::always_inline]] inline bool check_data_pdu(const uint8_t* h, Negotiation neg,
                                                  uint32_t max_plen, PduLayout* out) {
    if ((h[0] != kH2CData && h[0] != kC2HData) || h[2] != 24) return false;
    const bool hf = h[1] & kFlagHdgst, df = h[1] & kFlagDdgst;
    if ((neg.hd != Tri::unknown && hf != (neg.hd == Tri::on)) ||
        (neg.dd != Tri::unknown && df != (neg.dd == Tri::on)))
        return false;
    const uint32_t plen = load_le32(h + 4), hd = hf ? kDigestLen : 0, dd = df ? kDigestLen : 0;
    const uint32_t pdo = h[3], hdr_end = 24 + hd;
    // plen >= hdr_end + dd + 1 (with data) and the data's bounds; no overflow
    // as pdo < 256 and plen <= max_plen < 2^32.
    if (plen > max_plen || plen < hdr_end + dd + 1 || pdo < hdr_end || pdo + dd >= plen)
        return false;
    out->plen = plen;
    out->data_start = pdo;
    out->data_end = plen - dd;
    out->type = h[0], out->flags = h[1], out->hlen = 24, out->pdo = h[3];
    out->hd = static_cast<uint8_t>(hd), out->dd = static_cast<uint8_t>(dd);
    return true;
}

// Stricter checks on a complete header (hlen bytes), used to accept a resync
// candidate: reserved flag bits clear, and type fields consistent with the
// layout (e.g. DATAL equal to the data length of a data PDU).
bool plausible_header(const uint8_t* hdr, const PduLayout& l);

}  // namespace csum::nvme
