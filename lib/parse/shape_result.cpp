// A classified packet described as the general walker would describe it, so
// that the walker-based work (and the reference path in tests) can take it.
#include "parse/classify.h"
#include "parse/walker.h"

namespace csum::parse_detail {

void shape_to_result(const PacketShape& s, ParseResult* out) {
    uint8_t n = 0;
    const uint32_t l4 = s.l4_off;
    if (!s.v6) {
        ParsedLayer& ip = out->layer[n++];
        ip = ParsedLayer{};
        ip.proto = LayerProto::ipv4;
        ip.off = 14, ip.len = 20, ip.field_off = 24;
    }
    ParsedLayer& l = out->layer[n++];
    l = ParsedLayer{};
    l.proto = s.proto == kShapeTcp   ? LayerProto::tcp
              : s.proto == kShapeUdp ? LayerProto::udp
                                     : LayerProto::sctp;
    l.outer_ip_v6 = s.v6;
    l.off = l4, l.len = s.l4_len, l.field_off = l4 + s.field;
    if (s.proto != kShapeSctp) {
        l.pseudo_proto = s.proto;
        l.src_off = s.v6 ? 22 : 26;
        l.dst_off = s.v6 ? 38 : 30;
    }
    out->n = n;
    out->l3_off = 14;
    out->tx.ipv4 = !s.v6, out->tx.ipv6 = s.v6;
    out->tx.l2_len = 14, out->tx.l3_len = s.v6 ? 40 : 20;
    out->tx.l4_proto = s.proto, out->tx.l4_len = s.l4_hdr;
}

}  // namespace csum::parse_detail
