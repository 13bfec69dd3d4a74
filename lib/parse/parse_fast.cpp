// The common shape first: Ethernet, IPv4 without options or IPv6 without
// extension headers, then TCP or plain UDP, headers in the first segment.
// Anything else, or anything doubtful, goes to the full walker, which
// reaches the same result for these packets (the case tests hold both to it).
#include "parse/walker.h"

namespace csum::parse_detail {

bool parse_plain(const rte_mbuf* m, const ParserConfig& cfg, ParseResult* out) {
    const uint8_t* p = rte_pktmbuf_mtod(m, const uint8_t*);
    const uint32_t seg = m->data_len < m->pkt_len ? m->data_len : m->pkt_len;
    if (seg < 14 + 20 + 8) return false;  // too short for any plain shape
    const uint16_t type = be16(p + 12);
    uint32_t l4, l4_len;
    uint8_t proto;
    bool v6;
    if (type == 0x0800) {
        const uint8_t* ip = p + 14;
        const uint32_t total = be16(ip + 2);
        if (ip[0] != 0x45 || total < 20 || 14 + total > m->pkt_len || (be16(ip + 6) & 0x3FFF))
            return false;
        proto = ip[9], l4 = 34, l4_len = total - 20, v6 = false;
    } else if (type == 0x86DD) {
        const uint8_t* ip = p + 14;
        const uint32_t plen = be16(ip + 4);
        if (seg < 14 + 40 + 8 || (ip[0] >> 4) != 6 || plen == 0 || 54 + plen > m->pkt_len)
            return false;
        proto = ip[6], l4 = 54, l4_len = plen, v6 = true;
    } else {
        return false;
    }
    uint32_t l4_hdr;
    uint32_t field;
    if (proto == 6) {
        if (l4_len < 20 || l4 + 20 > seg) return false;
        l4_hdr = (p[l4 + 12] >> 4) * 4u;
        if (l4_hdr < 20 || l4_hdr > l4_len) return false;
        if (cfg.nvme_ports.n != 0 &&
            (cfg.nvme_ports.contains(be16(p + l4)) || cfg.nvme_ports.contains(be16(p + l4 + 2))))
            return false;
        field = l4 + 16;
    } else if (proto == 17) {
        if (l4_len < 8 || l4 + 8 > seg || be16(p + l4 + 4) != l4_len || be16(p + l4 + 6) == 0)
            return false;
        const uint16_t dport = be16(p + l4 + 2);
        if (cfg.vxlan_ports.contains(dport) || cfg.geneve_ports.contains(dport) ||
            cfg.gre_udp_ports.contains(dport) || cfg.sctp_udp_ports.contains(dport))
            return false;
        l4_hdr = 8;
        field = l4 + 6;
    } else {
        return false;
    }
    uint8_t n = 0;
    if (!v6) {
        ParsedLayer& ip = out->layer[n++];
        ip = ParsedLayer{};
        ip.proto = LayerProto::ipv4;
        ip.off = 14, ip.len = 20, ip.field_off = 24;
    }
    ParsedLayer& l = out->layer[n++];
    l = ParsedLayer{};
    l.proto = proto == 6 ? LayerProto::tcp : LayerProto::udp;
    l.outer_ip_v6 = v6;
    l.off = l4, l.len = l4_len, l.field_off = field;
    l.pseudo_proto = proto;
    l.src_off = v6 ? 22 : 26;
    l.dst_off = v6 ? 38 : 30;
    out->n = n;
    out->l3_off = 14;
    out->tx.ipv4 = !v6, out->tx.ipv6 = v6;
    out->tx.l2_len = 14, out->tx.l3_len = v6 ? 40 : 20;
    out->tx.l4_proto = proto, out->tx.l4_len = static_cast<uint16_t>(l4_hdr);
    return true;
}

}  // namespace csum::parse_detail
