// Shared state of one packet's parse; private to lib/parse.
#pragma once

#include <cstring>

#include "mbuf/segment_read.h"
#include "parse/classify.h"
#include "parse/parser.h"

namespace csum::parse_detail {

using shape_detail::be16;
inline uint32_t be32(const uint8_t* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

struct Walker {
    const rte_mbuf* m;
    const ParserConfig& cfg;
    ParseResult& r;
    uint8_t depth = 0;  // encapsulations entered so far

    // Header bytes [off, off+len) within limit, or nullptr (bounded copy if split).
    const uint8_t* read(uint32_t off, uint32_t len, uint32_t limit, std::span<uint8_t> buf) const {
        if (static_cast<uint64_t>(off) + len > limit) return nullptr;
        return static_cast<const uint8_t*>(read_bytes(m, off, len, buf));
    }
    bool fail(ParseError e) {
        if (r.error == ParseError::none) r.error = e;
        return false;
    }
    ParsedLayer* add(LayerProto proto, uint32_t off, uint32_t len, uint32_t field_off) {
        if (r.n >= kMaxParsedLayers) {
            fail(ParseError::too_many_layers);
            return nullptr;
        }
        ParsedLayer& l = r.layer[r.n++];
        l = ParsedLayer{};
        l.proto = proto;
        l.off = off;
        l.len = len;
        l.field_off = field_off;
        l.depth = depth;
        return &l;
    }
    // Enters one more encapsulation; false (with tunnel_too_deep) past the cap.
    bool enter_tunnel() {
        if (depth >= cfg.max_depth) return fail(ParseError::tunnel_too_deep);
        ++depth;
        r.tx.tunneled = true;
        return true;
    }
};

// The IP header an L4 layer sits on: its pseudo-header inputs.
struct IpContext {
    bool v6 = false;
    uint8_t proto = 0;
    uint32_t src_off = 0;
    uint32_t dst_off = 0;            // IPv6: where the final destination lies (routing header)
    bool final_dst_unknown = false;  // a routing header we can't follow
};

void shape_to_result(const PacketShape& s, ParseResult* out);
bool parse_ether(Walker& w, uint32_t off, uint32_t end);
bool parse_ip(Walker& w, uint32_t off, uint32_t end, int version);
bool parse_l4(Walker& w, const IpContext& ip, uint32_t off, uint32_t end, bool first_fragment_only);
bool parse_gre(Walker& w, uint32_t off, uint32_t end, bool in_udp);

}  // namespace csum::parse_detail
