// IPv4 (with options) and IPv6 (with extension headers).
#include "csum/inet.h"
#include "parse/walker.h"

namespace csum::parse_detail {
namespace {

constexpr uint8_t kHopByHop = 0, kRouting = 43, kFragment = 44, kDestOpts = 60, kAuth = 51,
                  kNoNext = 59;
constexpr int kMaxExtHeaders = 8;

void note_outer_l3(Walker& w, uint32_t off, uint32_t hdr_len, bool v4) {
    if (w.r.tx.ipv4 || w.r.tx.ipv6) return;
    w.r.l3_off = off;
    w.r.tx.ipv4 = v4;
    w.r.tx.ipv6 = !v4;
    w.r.tx.l2_len = static_cast<uint16_t>(off);
    w.r.tx.l3_len = static_cast<uint16_t>(hdr_len);
}

bool parse_ipv4(Walker& w, uint32_t off, uint32_t end) {
    uint8_t buf[60];
    const uint8_t* h = w.read(off, 20, end, buf);
    if (h == nullptr) return w.fail(ParseError::ipv4_truncated);
    if ((h[0] >> 4) != 4) return w.fail(ParseError::ipv4_bad_version);
    const uint32_t ihl = (h[0] & 0xF) * 4u;
    if (ihl < 20) return w.fail(ParseError::ipv4_bad_ihl);
    h = w.read(off, ihl, end, buf);
    if (h == nullptr) return w.fail(ParseError::ipv4_truncated);
    ParsedLayer* ip = w.add(LayerProto::ipv4, off, ihl, off + 10);
    if (ip == nullptr) return false;
    note_outer_l3(w, off, ihl, true);
    const uint32_t total = be16(h + 2);
    if (total < ihl) {
        ip->preset = true, ip->status = LayerStatus::malformed;
        return w.fail(ParseError::ipv4_len_below_header);
    }
    if (static_cast<uint64_t>(off) + total > end) {
        ip->preset = true, ip->status = LayerStatus::malformed;
        return w.fail(ParseError::ipv4_len_exceeds_frame);
    }
    IpContext ctx;
    ctx.proto = h[9];
    ctx.src_off = off + 12;
    ctx.dst_off = off + 16;
    const uint16_t frag = be16(h + 6);
    const bool more_frags = frag & 0x2000;
    const uint16_t frag_off = frag & 0x1FFF;
    if (frag_off != 0) return true;  // no L4 header here to judge
    return parse_l4(w, ctx, off + ihl, off + total, more_frags);
}

bool parse_ipv6(Walker& w, uint32_t off, uint32_t end) {
    uint8_t buf[40];
    const uint8_t* h = w.read(off, 40, end, buf);
    if (h == nullptr) return w.fail(ParseError::ipv6_truncated);
    const uint32_t payload = be16(h + 4);
    if (payload == 0) return w.fail(ParseError::ipv6_jumbogram);
    if (static_cast<uint64_t>(off) + 40 + payload > end)
        return w.fail(ParseError::ipv6_len_exceeds_frame);
    IpContext ctx;
    ctx.v6 = true;
    ctx.src_off = off + 8;
    ctx.dst_off = off + 24;
    const uint32_t l3_end = off + 40 + payload;
    uint8_t next = h[6];
    uint32_t pos = off + 40;
    bool fragmented = false, first_fragment = true;
    for (int n = 0;; ++n) {
        if (next != kHopByHop && next != kRouting && next != kFragment && next != kDestOpts &&
            next != kAuth)
            break;
        if (next == kHopByHop && n != 0) return w.fail(ParseError::ipv6_ext_truncated);
        if (n == kMaxExtHeaders) return w.fail(ParseError::ipv6_ext_chain_too_long);
        uint8_t ebuf[256];
        const uint8_t* e = w.read(pos, 8, l3_end, ebuf);
        if (e == nullptr) return w.fail(ParseError::ipv6_ext_truncated);
        const uint32_t elen = next == kFragment ? 8
                              : next == kAuth   ? (e[1] + 2u) * 4
                                                : (e[1] + 1u) * 8;
        if (next == kRouting) {
            e = w.read(pos, elen, l3_end, ebuf);
            if (e == nullptr) return w.fail(ParseError::ipv6_ext_truncated);
            const uint8_t* addr = nullptr;
            switch (ipv6_routing_final_dst(e, elen, &addr)) {
                case Ipv6FinalDst::ipv6_dst:
                    break;
                case Ipv6FinalDst::routing_header:
                    ctx.dst_off = pos + static_cast<uint32_t>(addr - e);
                    break;
                case Ipv6FinalDst::unverifiable:
                    ctx.final_dst_unknown = true;
                    break;  // type 0 or unknown, segments left
                case Ipv6FinalDst::malformed:
                    return w.fail(ParseError::ipv6_ext_truncated);
            }
        } else if (next == kFragment) {
            // Offset 0 with M clear is an atomic fragment: not really fragmented.
            const uint16_t fo = be16(e + 2);
            fragmented = fragmented || (fo & 0xFFF9) != 0;
            first_fragment = first_fragment && (fo & 0xFFF8) == 0;
        }
        if (static_cast<uint64_t>(pos) + elen > l3_end)
            return w.fail(ParseError::ipv6_ext_truncated);
        next = e[0];
        pos += elen;
    }
    note_outer_l3(w, off, pos - off, false);
    if (next == kNoNext || !first_fragment) return true;
    ctx.proto = next;
    // A first fragment's L4 checksum covers bytes we don't have; without the
    // final destination the pseudo-header is unknown: neither can be judged.
    return parse_l4(w, ctx, pos, l3_end, fragmented || ctx.final_dst_unknown);
}

}  // namespace

bool parse_ip(Walker& w, uint32_t off, uint32_t end, int version) {
    return version == 4 ? parse_ipv4(w, off, end) : parse_ipv6(w, off, end);
}

}  // namespace csum::parse_detail
