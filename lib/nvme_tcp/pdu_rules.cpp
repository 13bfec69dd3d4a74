#include "nvme_tcp/pdu_rules.h"

namespace csum::nvme {
namespace {

bool is_term(uint8_t t) {
    return t == kH2CTermReq || t == kC2HTermReq;
}
bool is_ic(uint8_t t) {
    return t == kIcReq || t == kIcResp;
}
bool can_carry_data(uint8_t t) {
    return t == kCapsuleCmd || t == kH2CData || t == kC2HData;
}

// Flag bits a type may set; anything else is reserved.
uint8_t allowed_flags(uint8_t t) {
    switch (t) {
        case kCapsuleCmd:
            return kFlagHdgst | kFlagDdgst;
        case kCapsuleResp:
        case kR2T:
            return kFlagHdgst;
        case kH2CData:
            return kFlagHdgst | kFlagDdgst | kFlagDataLast;
        case kC2HData:
            return kFlagHdgst | kFlagDdgst | kFlagDataLast | kFlagDataSuccess;
        default:
            return 0;
    }
}

}  // namespace

NvmeDesyncReason check_common(const uint8_t* h, Negotiation neg, uint32_t max_plen,
                              PduLayout* out) {
    using R = NvmeDesyncReason;
    PduLayout l;
    l.type = h[0];
    l.flags = h[1];
    l.hlen = h[2];
    l.pdo = h[3];
    l.plen = load_le32(h + 4);
    const uint8_t want_hlen = fixed_hlen(l.type);
    if (want_hlen == 0) return R::unknown_type;
    if (l.hlen != want_hlen) return R::hlen_mismatch;
    const bool hf = l.flags & kFlagHdgst;
    const bool df = l.flags & kFlagDdgst;
    const uint64_t plen = l.plen;

    // ICReq/ICResp and TermReqs never carry digests, whatever was negotiated.
    if (is_ic(l.type) || is_term(l.type)) {
        if (hf || df) return R::digest_flags;
        if (plen < l.hlen) return R::plen_lt_hlen;
        if (is_ic(l.type) && plen != l.hlen) return R::plen_invalid;
        if (plen > kTermReqMaxPlen || plen > max_plen) return R::plen_too_big;
        // Nothing digested; TermReq error data is skipped like padding.
        l.data_start = l.data_end = l.plen;
        *out = l;
        return R::none;
    }

    if (neg.hd != Tri::unknown && hf != (neg.hd == Tri::on)) return R::digest_flags;
    l.hd = hf ? kDigestLen : 0;
    l.dd = df ? kDigestLen : 0;
    const uint64_t hdr_end = uint64_t{l.hlen} + l.hd;
    if (plen < hdr_end) return R::plen_lt_hlen;
    if (plen > max_plen) return R::plen_too_big;

    if (!can_carry_data(l.type)) {
        if (df) return R::digest_flags;
        if (plen != hdr_end) return R::plen_invalid;
        l.data_start = l.data_end = l.plen;
        *out = l;
        return R::none;
    }

    const bool has_data = plen > hdr_end;
    if (!has_data) {
        // A command without in-capsule data; data PDUs must carry data.
        if (l.type != kCapsuleCmd) return R::plen_invalid;
        if (df) return R::digest_flags;
        l.data_start = l.data_end = l.plen;
        *out = l;
        return R::none;
    }
    if (neg.dd != Tri::unknown && df != (neg.dd == Tri::on)) return R::digest_flags;
    if (plen < hdr_end + l.dd + 1) return R::plen_lt_hlen;
    // Data must start after the header (+HDGST) and hold at least one byte.
    if (l.pdo < hdr_end || uint64_t{l.pdo} + l.dd >= plen) return R::pdo_invalid;
    l.data_start = l.pdo;
    l.data_end = l.plen - l.dd;
    *out = l;
    return R::none;
}

bool plausible_header(const uint8_t* h, const PduLayout& l) {
    if (l.flags & ~allowed_flags(l.type)) return false;
    switch (l.type) {
        case kIcReq:
        case kIcResp:
            // PFV 0 is the only version; DGST uses two bits.
            return load_le32(h + 8) % 65536 == 0 && (h[kIcDgstOffset] & ~3u) == 0;
        case kH2CTermReq:
        case kC2HTermReq: {
            const uint32_t fes = h[8] | uint32_t{h[9]} << 8;
            return fes >= 1 && fes <= 6;
        }
        case kH2CData:
        case kC2HData:
            // DATAL must describe exactly the data the PDU carries.
            return load_le32(h + 16) == l.data_end - l.data_start && l.data_end > l.data_start;
        case kR2T:
            return load_le32(h + 16) != 0;
        default:
            return true;
    }
}

}  // namespace csum::nvme
