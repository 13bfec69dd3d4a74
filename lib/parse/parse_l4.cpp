// Transport headers and the tunnels that ride on them.
#include "csum/inet.h"
#include "parse/walker.h"

namespace csum::parse_detail {
namespace {

constexpr uint8_t kIpProtoIcmp = 1, kIpProtoIpip = 4, kIpProtoTcp = 6, kIpProtoUdp = 17,
                  kIpProtoIpv6 = 41, kIpProtoGre = 47, kIpProtoIcmpv6 = 58, kIpProtoSctp = 132;

void set_pseudo(ParsedLayer* l, const IpContext& ip, uint8_t proto) {
    l->pseudo_proto = proto;
    l->src_off = ip.src_off;
    l->dst_off = ip.dst_off;
}

void note_outer_l4(Walker& w, uint8_t proto, uint32_t hdr_len) {
    if (w.r.tx.tunneled || w.r.tx.l4_proto != 0) return;
    w.r.tx.l4_proto = proto;
    w.r.tx.l4_len = static_cast<uint16_t>(hdr_len);
}

void mark(ParsedLayer* l, LayerStatus s) {
    if (l != nullptr) l->preset = true, l->status = s;
}

// Dispatches on an encapsulated protocol type (GRE, GENEVE).
bool parse_inner_ethertype(Walker& w, uint16_t type, uint32_t off, uint32_t end) {
    if (type != kEthTeb && type != kEthIpv4 && type != kEthIpv6) return true;
    if (!w.enter_tunnel()) return false;
    if (type == kEthTeb) return parse_ether(w, off, end);
    return parse_ip(w, off, end, type == kEthIpv4 ? 4 : 6);
}

bool parse_tcp(Walker& w, const IpContext& ip, uint32_t off, uint32_t end, bool fragment) {
    uint8_t buf[20];
    const uint32_t len = end - off;
    const uint8_t* h = w.read(off, 20, end, buf);
    ParsedLayer* l = w.add(LayerProto::tcp, off, len, off + 16);
    if (l == nullptr) return false;
    l->outer_ip_v6 = ip.v6;
    if (h == nullptr) return mark(l, LayerStatus::malformed), w.fail(ParseError::tcp_truncated);
    if (fragment) return mark(l, LayerStatus::unverifiable), true;
    const uint32_t doff = (h[12] >> 4) * 4u;
    if (doff < 20 || doff > len)
        return mark(l, LayerStatus::malformed), w.fail(ParseError::tcp_bad_data_offset);
    set_pseudo(l, ip, kIpProtoTcp);
    note_outer_l4(w, kIpProtoTcp, doff);
    const uint16_t sport = be16(h), dport = be16(h + 2);
    if (w.cfg.nvme_ports.contains(sport) || w.cfg.nvme_ports.contains(dport)) {
        TcpSegmentInfo& t = w.r.tcp;
        t.present = true;
        t.v6 = ip.v6;
        t.flags = h[13];
        t.sport = sport;
        t.dport = dport;
        t.seq = be32(h + 4);
        t.payload_off = off + doff;
        t.payload_len = len - doff;
        t.layer = static_cast<uint8_t>(l - w.r.layer.data());
        const uint32_t alen = ip.v6 ? 16 : 4;
        uint8_t abuf[16];
        if (const uint8_t* a = w.read(ip.src_off, alen, w.m->pkt_len, abuf))
            std::memcpy(t.src.data(), a, alen);
        if (const uint8_t* a = w.read(ip.dst_off, alen, w.m->pkt_len, abuf))
            std::memcpy(t.dst.data(), a, alen);
    }
    return true;
}

bool parse_sctp(Walker& w, uint32_t off, uint32_t end) {
    uint8_t buf[12];
    ParsedLayer* l = w.add(LayerProto::sctp, off, end - off, off + 8);
    if (l == nullptr) return false;
    if (w.read(off, 12, end, buf) == nullptr)
        return mark(l, LayerStatus::malformed), w.fail(ParseError::sctp_truncated);
    note_outer_l4(w, kIpProtoSctp, 12);
    for (uint32_t pos = off + 12; pos < end;) {
        const uint8_t* c = w.read(pos, 4, end, buf);
        const uint32_t clen = c ? be16(c + 2) : 0;
        if (clen < 4 || static_cast<uint64_t>(pos) + clen > end)
            return mark(l, LayerStatus::malformed), w.fail(ParseError::sctp_bad_chunk_len);
        pos += (clen + 3) & ~3u;  // the last chunk's padding may be absent
    }
    return true;
}

bool parse_vxlan(Walker& w, uint32_t off, uint32_t end) {
    uint8_t buf[8];
    if (w.read(off, 8, end, buf) == nullptr) return w.fail(ParseError::vxlan_truncated);
    if (!w.enter_tunnel()) return false;
    return parse_ether(w, off + 8, end);
}

bool parse_geneve(Walker& w, uint32_t off, uint32_t end) {
    uint8_t buf[8];
    const uint8_t* h = w.read(off, 8, end, buf);
    if (h == nullptr) return w.fail(ParseError::geneve_truncated);
    const uint32_t hlen = 8 + (h[0] & 0x3F) * 4u;
    if (static_cast<uint64_t>(off) + hlen > end) return w.fail(ParseError::geneve_bad_opt_len);
    return parse_inner_ethertype(w, be16(h + 2), off + hlen, end);
}

bool parse_udp(Walker& w, const IpContext& ip, uint32_t off, uint32_t end, bool fragment) {
    uint8_t buf[8];
    const uint32_t ip_len = end - off;
    const uint8_t* h = w.read(off, 8, end, buf);
    ParsedLayer* l = w.add(LayerProto::udp, off, ip_len, off + 6);
    if (l == nullptr) return false;
    l->outer_ip_v6 = ip.v6;
    if (h == nullptr) return mark(l, LayerStatus::malformed), w.fail(ParseError::udp_truncated);
    if (fragment) return mark(l, LayerStatus::unverifiable), true;
    // A UDP length below the IP payload is trimmed to, as Linux does
    // (udp_rcv: pskb_trim_rcsum); one beyond it, or below the header, is not.
    const uint32_t len = be16(h + 4);
    if (len < 8 || len > ip_len)
        return mark(l, LayerStatus::malformed), w.fail(ParseError::udp_len_mismatch);
    l->len = len;
    end = off + len;
    set_pseudo(l, ip, kIpProtoUdp);
    note_outer_l4(w, kIpProtoUdp, 8);
    const uint16_t dport = be16(h + 2);
    if (be16(h + 6) == 0)
        mark(l, !ip.v6 || w.cfg.udp6_zero_csum_ok.contains(dport) ? LayerStatus::zero
                                                                  : LayerStatus::illegal);
    const ParserConfig& c = w.cfg;
    if (c.vxlan_ports.contains(dport)) return parse_vxlan(w, off + 8, end);
    if (c.geneve_ports.contains(dport)) return parse_geneve(w, off + 8, end);
    if (c.gre_udp_ports.contains(dport)) return parse_gre(w, off + 8, end, true);
    // SCTP over UDP (RFC 6951) is an encapsulation: two L4 checksums, so the
    // packet is no longer one a NIC can offload as plain.
    if (c.sctp_udp_ports.contains(dport)) return w.enter_tunnel() && parse_sctp(w, off + 8, end);
    return true;
}

bool parse_icmp(Walker& w, const IpContext& ip, uint32_t off, uint32_t end, bool fragment) {
    const bool v6 = ip.proto == kIpProtoIcmpv6;
    ParsedLayer* l = w.add(v6 ? LayerProto::icmpv6 : LayerProto::icmp, off, end - off, off + 2);
    if (l == nullptr) return false;
    l->outer_ip_v6 = ip.v6;
    if (end - off < 4) return mark(l, LayerStatus::malformed), w.fail(ParseError::icmp_truncated);
    if (fragment) return mark(l, LayerStatus::unverifiable), true;
    if (v6) set_pseudo(l, ip, kIpProtoIcmpv6);
    // An ICMP error quotes a packet; it is covered by this sum, never judged itself.
    return true;
}

}  // namespace

bool parse_gre(Walker& w, uint32_t off, uint32_t end, bool in_udp) {
    uint8_t buf[16];
    const uint8_t* h = w.read(off, 4, end, buf);
    if (h == nullptr) return w.fail(ParseError::gre_truncated);
    const uint16_t flags = be16(h);
    if ((flags & 7) != 0) return w.fail(ParseError::gre_bad_version);
    const bool c = flags & 0x8000, k = flags & 0x2000, s = flags & 0x1000;
    const uint32_t hlen = 4 + 4u * (c + k + s);
    if (w.read(off, hlen, end, buf) == nullptr) return w.fail(ParseError::gre_truncated);
    if (c && w.add(LayerProto::gre, off, end - off, off + 4) == nullptr) return false;
    if (!in_udp) note_outer_l4(w, kIpProtoGre, hlen);
    return parse_inner_ethertype(w, be16(h + 2), off + hlen, end);
}

bool parse_l4(Walker& w, const IpContext& ip, uint32_t off, uint32_t end, bool fragment) {
    switch (ip.proto) {
        case kIpProtoTcp:
            return parse_tcp(w, ip, off, end, fragment);
        case kIpProtoUdp:
            return parse_udp(w, ip, off, end, fragment);
        case kIpProtoIcmp:
            return ip.v6 ? true : parse_icmp(w, ip, off, end, fragment);
        case kIpProtoIcmpv6:
            return ip.v6 ? parse_icmp(w, ip, off, end, fragment) : true;
        case kIpProtoSctp:
            if (fragment) {
                ParsedLayer* l = w.add(LayerProto::sctp, off, end - off, off + 8);
                if (l != nullptr) mark(l, LayerStatus::unverifiable);
                return true;
            }
            return parse_sctp(w, off, end);
        case kIpProtoGre:
            return fragment ? true : parse_gre(w, off, end, false);
        case kIpProtoIpip:
        case kIpProtoIpv6:
            if (fragment || !w.enter_tunnel()) return false;
            return parse_ip(w, off, end, ip.proto == kIpProtoIpip ? 4 : 6);
        default:
            return true;
    }
}

}  // namespace csum::parse_detail

namespace csum {

uint32_t layer_pseudo_sum(const rte_mbuf* m, const ParsedLayer& l) noexcept {
    if (l.pseudo_proto == 0) return 0;
    const uint32_t alen = l.outer_ip_v6 ? 16 : 4;
    uint8_t sbuf[16], dbuf[16];
    const void* src = read_bytes(m, l.src_off, alen, sbuf);
    const void* dst = read_bytes(m, l.dst_off, alen, dbuf);
    if (src == nullptr || dst == nullptr) return 0;  // parsing checked these; a chain can't shrink
    return l.outer_ip_v6 ? ipv6_pseudo_sum(src, dst, l.pseudo_proto, l.len)
                         : ipv4_pseudo_sum(src, dst, l.pseudo_proto, l.len);
}

}  // namespace csum
