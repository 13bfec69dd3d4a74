// IPv4 (with options) and IPv6 (with extension headers).
#include <algorithm>

#include "csum/inet.h"
#include "parse/walker.h"

namespace csum::parse_detail {
namespace {

constexpr uint8_t kHopByHop = 0, kRouting = 43, kFragment = 44, kDestOpts = 60, kAuth = 51,
                  kNoNext = 59;
constexpr int kMaxExtHeaders = 8;

// Packet offset of the final destination when an unfinished Loose or Strict
// Source Route option names it (RFC 791 3.1, RFC 1122 4.1.3.4: the
// pseudo-header uses it); else the header's destination. h holds ihl bytes.
uint32_t ipv4_final_dst_off(const uint8_t* h, uint32_t ihl, uint32_t off) {
    constexpr uint8_t kEol = 0, kNop = 1, kLsrr = 131, kSsrr = 137;
    for (uint32_t i = 20; i < ihl;) {
        const uint8_t type = h[i];
        if (type == kEol) break;
        if (type == kNop) {
            ++i;
            continue;
        }
        if (i + 1 >= ihl) break;
        const uint32_t len = h[i + 1];
        if (len < 2 || i + len > ihl) break;  // options that lie: stop, as Linux does
        if ((type == kLsrr || type == kSsrr) && len >= 7) {
            const uint32_t ptr = h[i + 2];
            const uint32_t n_addrs = (len - 3) / 4;
            // The pointer past the route data: the header holds the final hop.
            if (ptr <= len) return off + i + 3 + (n_addrs - 1) * 4;
            break;
        }
        i += len;
    }
    return off + 16;
}

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
    ctx.dst_off = ihl > 20 ? ipv4_final_dst_off(h, ihl, off) : off + 16;
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
        // Never copied whole (up to 2048 bytes): the fixed part, and for a
        // routing header its first address, are all that is read.
        uint8_t ebuf[kIpv6RoutingPrefixLen];
        const uint8_t* e = w.read(pos, 8, l3_end, ebuf);
        if (e == nullptr) return w.fail(ParseError::ipv6_ext_truncated);
        const uint32_t elen = next == kFragment ? 8
                              : next == kAuth   ? (e[1] + 2u) * 4
                                                : (e[1] + 1u) * 8;
        if (static_cast<uint64_t>(pos) + elen > l3_end)
            return w.fail(ParseError::ipv6_ext_truncated);
        if (next == kRouting) {
            const uint32_t prefix = std::min<uint32_t>(elen, kIpv6RoutingPrefixLen);
            e = w.read(pos, prefix, l3_end, ebuf);
            if (e == nullptr) return w.fail(ParseError::ipv6_ext_truncated);
            const uint8_t* addr = nullptr;
            switch (ipv6_routing_final_dst_prefix(e, prefix, elen, &addr)) {
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
