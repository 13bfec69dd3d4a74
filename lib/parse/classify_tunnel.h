// The classifier's tunnel shapes: Ethernet / IPv4 (no options, not
// fragmented) or IPv6 (no extension headers) / UDP to a VXLAN or GENEVE port
// / VXLAN, or GENEVE with its options / inner Ethernet (or GENEVE carrying IP)
// / IPv4 or IPv6 as above / TCP or UDP with a checksum, on no special port.
// Lengths must agree exactly: the outer UDP length is the outer IP payload,
// the inner IP packet ends where the outer UDP does. Every other tunnel (VLAN
// tags, trimmed or lying lengths, fragments, nested tunnels, other inner
// protocols, headers past the gather window) is left to the general walker.
#pragma once

#include "parse/classify.h"

namespace csum {

namespace shape_detail {
inline uint32_t load_u32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
}  // namespace shape_detail

// Header bytes a chain's front is gathered into for a tunnel: IPv6 in IPv6
// with 48 bytes of GENEVE options and the inner TCP header fit.
inline constexpr uint32_t kTunnelGather = 192;

struct TunnelShape {
    uint8_t* bytes;     // the packet's first `held` bytes: in place, or the gathered copy
    uint8_t* in_place;  // the same bytes when they are the packet's own, else null
    uint32_t held;
    uint32_t pkt_len;
    bool whole;         // every byte of the packet is at `bytes`
    bool ov6, iv6;      // outer, inner IP version 6
    bool ocsum;         // the outer UDP checksum field is not 0
    LayerStatus ozero;  // the outer UDP's status when it is 0: zero, or illegal (IPv6)
    uint8_t iproto;     // kShapeTcp or kShapeUdp
    uint8_t il4i;       // 0 TCP, 1 UDP (lean_l4_index)
    uint8_t ifield;     // the inner L4 checksum field's offset in its header
    bool eth;           // an inner Ethernet header (14 bytes) precedes the inner IP one
    uint16_t opts;      // GENEVE option bytes
    uint16_t ol4;       // the outer UDP header (34 or 54)
    uint16_t il3, il4;  // the inner IP and L4 headers
    uint32_t olen;      // outer UDP length: ol4 + olen is where both IP packets end
    uint32_t il4_len;   // bytes the inner L4 checksum covers
};

// Classifies m as a tunnel shape. True: *s describes it, its headers (up to
// the inner L4 header) at s->bytes. False for anything else.
[[gnu::always_inline]] inline bool classify_tunnel(rte_mbuf* m, const ShapeConfig& cfg,
                                                   std::span<uint8_t, kTunnelGather> gather,
                                                   TunnelShape* s) noexcept {
    using parse_detail::kEthIpv4;
    using parse_detail::kEthIpv6;
    using shape_detail::be16;
    const ParserConfig& c = *cfg.cfg;
    const uint32_t len = m->pkt_len;
    uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
    uint32_t held;
    if (likely(m->next == nullptr)) {
        if (unlikely(m->nb_segs != 1 || m->data_len < len || !segment_in_buffer(m))) return false;
        held = len;
        s->in_place = p;
    } else {
        const shape_detail::Front f = shape_detail::gather_front(m, gather);
        if (f.bytes == nullptr) return false;
        p = f.bytes, held = f.held;
        s->in_place = f.in_place;
    }
    // The smallest tunnel shape: IPv4 / UDP / GENEVE / IPv4 / UDP.
    if (held < 14 + 20 + 8 + 8 + 20 + 8 || c.max_depth == 0) return false;
    s->bytes = p;
    s->held = held;
    s->pkt_len = len;
    s->whole = held == len;
    // Outer IP: UDP, its length the IP payload's.
    const uint8_t* ip = p + 14;
    const uint16_t type = be16(p + 12);
    uint32_t ol4, olen;
    if (type == kEthIpv4) {
        const uint32_t total = be16(ip + 2);
        if (ip[0] != 0x45 || ip[9] != kShapeUdp || total < 20 + 8 || 14 + total > len ||
            (be16(ip + 6) & 0x3FFF))
            return false;
        ol4 = 34, olen = total - 20, s->ov6 = false;
    } else if (type == kEthIpv6) {
        const uint32_t plen = be16(ip + 4);
        if ((ip[0] >> 4) != 6 || ip[6] != kShapeUdp || plen < 8 || 54 + plen > len) return false;
        ol4 = 54, olen = plen, s->ov6 = true;
    } else {
        return false;
    }
    const uint8_t* uh = p + ol4;
    const uint16_t dport = be16(uh + 2);
    if (be16(uh + 4) != olen) return false;
    const uint32_t end = ol4 + olen;  // where the outer UDP, and the inner IP packet, end
    uint32_t il3;
    // The tunnel header; the walker takes VXLAN first when a port is in both lists.
    const uint32_t t = ol4 + 8;
    uint32_t eth;  // the inner Ethernet header, or 0: GENEVE carrying IP
    uint16_t itype;
    if (c.vxlan_ports.contains(dport)) {
        eth = t + 8;
        s->opts = 0;
    } else if (c.geneve_ports.contains(dport)) {
        const uint32_t hlen = 8 + (p[t] & 0x3F) * 4u;  // options: bounded by `held` below
        s->opts = static_cast<uint16_t>(hlen - 8);
        itype = be16(p + t + 2);
        eth = itype == parse_detail::kEthTeb ? t + hlen : 0;
        if (eth == 0 && itype != kEthIpv4 && itype != kEthIpv6) return false;
        if (eth == 0) il3 = t + hlen;
    } else {
        return false;
    }
    if (eth != 0) {
        if (eth + 14 > held) return false;
        itype = be16(p + eth + 12);
        il3 = eth + 14;
    }
    // Inner IP, ending where the outer UDP does.
    const uint8_t* iip = p + il3;
    uint32_t il4, il4_len;
    uint8_t iproto;
    if (itype == kEthIpv4) {
        if (il3 + 20 > held) return false;
        const uint32_t total = be16(iip + 2);
        if (iip[0] != 0x45 || total < 20 || il3 + total != end || (be16(iip + 6) & 0x3FFF))
            return false;
        iproto = iip[9], il4 = il3 + 20, il4_len = total - 20, s->iv6 = false;
    } else if (itype == kEthIpv6) {
        if (il3 + 40 > held) return false;
        const uint32_t plen = be16(iip + 4);
        if ((iip[0] >> 4) != 6 || plen == 0 || il3 + 40 + plen != end) return false;
        iproto = iip[6], il4 = il3 + 40, il4_len = plen, s->iv6 = true;
    } else {
        return false;
    }
    const uint8_t* th = p + il4;
    if (iproto == kShapeTcp) {
        if (il4_len < 20 || il4 + 20 > held) return false;
        const uint32_t doff = (th[12] >> 4) * 4u;
        const uint16_t sport = be16(th), dport = be16(th + 2);
        if (doff < 20 || doff > il4_len) return false;
        if (cfg.tcp_special(sport, dport)) return false;
        s->ifield = 16, s->il4i = 0;
    } else if (iproto == kShapeUdp) {
        // A nested tunnel, a trimmed length or an absent checksum is the walker's.
        if (il4_len < 8 || il4 + 8 > held || be16(th + 4) != il4_len || be16(th + 6) == 0)
            return false;
        const uint16_t dport = be16(th + 2);
        if (cfg.udp_special(dport)) return false;
        s->ifield = 6, s->il4i = 1;
    } else {
        return false;
    }
    s->iproto = iproto;
    s->eth = eth != 0;
    s->ocsum = be16(uh + 6) != 0;
    s->ozero =
        !s->ov6 || c.udp6_zero_csum_ok.contains(dport) ? LayerStatus::zero : LayerStatus::illegal;
    s->ol4 = static_cast<uint16_t>(ol4);
    s->il3 = static_cast<uint16_t>(il3);
    s->il4 = static_cast<uint16_t>(il4);
    s->olen = olen;
    s->il4_len = il4_len;
    return true;
}

// The commonest tunnel shape alone, at fixed offsets: a linear Ethernet /
// IPv4 / UDP / VXLAN, or GENEVE with no options carrying Ethernet, /
// Ethernet / IPv4 / TCP or UDP. True exactly when classify_tunnel would
// take m with this layout; then *s is what it would write, its offsets
// constants the caller's code can fold. False says nothing: classify_tunnel
// decides. (test_lean_tunnel holds the two to that.)
[[gnu::always_inline]] inline bool classify_common_tunnel(rte_mbuf* m, const ShapeConfig& cfg,
                                                          TunnelShape* s) noexcept {
    using shape_detail::be16;
    using shape_detail::load_u32;
    constexpr uint32_t ol4 = 34, il3 = 64, il4 = 84;
    const ParserConfig& c = *cfg.cfg;
    const uint32_t len = m->pkt_len;
    uint8_t* const p = rte_pktmbuf_mtod(m, uint8_t*);
    if (unlikely(m->next != nullptr || m->nb_segs != 1 || m->data_len < len ||
                 !segment_in_buffer(m)))
        return false;
    if (len < il4 + 8 || c.max_depth == 0) return false;
    // Four bytes at a time, in memory order: the outer and inner EtherType
    // IPv4 and version 4 with no options; no fragment, UDP outside.
    if (((load_u32(p + 12) & 0xFFFFFF) ^ 0x450008) | ((load_u32(p + 62) & 0xFFFFFF) ^ 0x450008) |
        ((load_u32(p + 20) & 0xFF00FF3F) ^ 0x11000000) | (load_u32(p + il3 + 6) & 0xFF3F))
        return false;
    const uint32_t total = be16(p + 16), olen = total - 20;
    if (total < 20 + 8 || 14 + total > len || be16(p + ol4 + 4) != olen) return false;
    const uint16_t dport = be16(p + ol4 + 2);
    if (!c.vxlan_ports.contains(dport) &&
        !(c.geneve_ports.contains(dport) && (p[ol4 + 8] & 0x3F) == 0 &&
          be16(p + ol4 + 10) == parse_detail::kEthTeb))
        return false;
    const uint32_t itotal = be16(p + il3 + 2), il4_len = itotal - 20;
    if (itotal < 20 || il3 + itotal != ol4 + olen) return false;
    const uint8_t iproto = p[il3 + 9];
    const uint8_t* th = p + il4;
    if (iproto == kShapeTcp) {
        if (il4_len < 20 || il4 + 20 > len) return false;
        const uint32_t doff = (th[12] >> 4) * 4u;
        if (doff < 20 || doff > il4_len || (cfg.tcp_ports && cfg.tcp_special(th))) return false;
        s->ifield = 16, s->il4i = 0;
    } else if (iproto == kShapeUdp) {
        if (il4_len < 8 || be16(th + 4) != il4_len || be16(th + 6) == 0 || cfg.udp_special(th))
            return false;
        s->ifield = 6, s->il4i = 1;
    } else {
        return false;
    }
    s->bytes = p, s->in_place = p;
    s->held = len, s->pkt_len = len;
    s->whole = true;
    s->ov6 = false, s->iv6 = false;
    s->ocsum = be16(p + ol4 + 6) != 0;
    s->ozero = LayerStatus::zero;
    s->iproto = iproto;
    s->eth = true;
    s->opts = 0;
    s->ol4 = ol4, s->il3 = il3, s->il4 = il4;
    s->olen = olen;
    s->il4_len = il4_len;
    return true;
}

}  // namespace csum
