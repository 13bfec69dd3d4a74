// The one classifier of packet shapes. It recognises the common shapes
// (Ethernet / IPv4 without options, not fragmented, or IPv6 without extension
// headers / TCP, UDP with a checksum, or SCTP, on no tunnel or NVMe port) and
// describes where each layer and checksum lies. The engine consumes that
// description and never looks at bytes to decide what a packet is; the
// general walker (parse_packet) takes every other packet, and every doubt.
#pragma once

#include <cstdint>
#include <span>

#include <rte_mbuf.h>

#include "csum/parser_config.h"
#include "csum/verdict.h"
#include "mbuf/segment_read.h"

namespace csum {

// A chain's first bytes are gathered into one stack copy of this size when
// its headers straddle segments (as rte_pktmbuf_read does); a chained packet
// no longer than this is gathered whole and then handled as a linear one.
inline constexpr uint32_t kHeaderGather = 128;

// IP protocol numbers of the L4 kinds a shape can hold.
inline constexpr uint8_t kShapeTcp = 6, kShapeUdp = 17, kShapeSctp = 132;

struct PacketShape {
    const uint8_t* bytes;  // the packet's first `held` bytes: in place, or the gathered copy
    uint8_t* in_place;     // the same bytes when they are the packet's own (writable), else null
    uint32_t held;         // bytes at `bytes` (pkt_len when whole)
    uint32_t pkt_len;
    bool whole;  // every byte of the packet is at `bytes`
    bool v6;
    uint8_t proto;   // kShapeTcp, kShapeUdp or kShapeSctp
    uint8_t l4i;     // 0 TCP, 1 UDP, 2 SCTP
    uint8_t l4_hdr;  // TCP data offset, 8 (UDP), 12 (SCTP)
    uint8_t field;   // the L4 checksum field's offset from the L4 header
    uint16_t l3_off, l4_off;
    uint32_t l4_len;  // bytes the L4 checksum covers
    bool nvme;        // TCP on an NVMe/TCP port (only with ShapeConfig::nvme_shapes)
};

// UDP destination ports that carry an encapsulation the walker parses.
inline bool udp_encap_port(const ParserConfig& c, uint16_t dport) noexcept {
    return c.vxlan_ports.contains(dport) || c.geneve_ports.contains(dport) ||
           c.gre_udp_ports.contains(dport) || c.sctp_udp_ports.contains(dport);
}
// TCP segments the NVMe/TCP tracker may want.
inline bool nvme_port(const ParserConfig& c, uint16_t sport, uint16_t dport) noexcept {
    return c.nvme_ports.n != 0 && (c.nvme_ports.contains(sport) || c.nvme_ports.contains(dport));
}

// The parser's configuration with a one-word filter per protocol: bit
// (port & 63) is set for every special port, so most packets are cleared
// with a shift and a test, and only a hit compares the port lists.
struct ShapeConfig {
    const ParserConfig* cfg;
    uint64_t tcp_bits = 0, udp_bits = 0;
    // TCP on an NVMe/TCP port is a common shape too (s->nvme set), for an
    // engine that feeds the tracker from the shape; otherwise the walker's.
    bool nvme_shapes = false;
    explicit ShapeConfig(const ParserConfig& c) : cfg(&c) {
        for (uint8_t i = 0; i < c.nvme_ports.n; ++i) tcp_bits |= bit(c.nvme_ports.port[i]);
        for (const PortSet* ps :
             {&c.vxlan_ports, &c.geneve_ports, &c.gre_udp_ports, &c.sctp_udp_ports})
            for (uint8_t i = 0; i < ps->n; ++i) udp_bits |= bit(ps->port[i]);
    }
    static uint64_t bit(uint16_t port) { return uint64_t{1} << (port & 63); }
    bool tcp_special(uint16_t sport, uint16_t dport) const {
        return ((tcp_bits & (bit(sport) | bit(dport))) != 0) && nvme_port(*cfg, sport, dport);
    }
    bool udp_special(uint16_t dport) const {
        return (udp_bits & bit(dport)) != 0 && udp_encap_port(*cfg, dport);
    }
};

// Why a chain cannot be walked: it holds fewer bytes than pkt_len, or not
// nb_segs segments. ParseError::none if it is what its descriptor says.
ParseError chain_error(const rte_mbuf* m) noexcept;

namespace parse_detail {
// EtherTypes the classifier and the walker follow (also GRE/GENEVE protocol types).
inline constexpr uint16_t kEthIpv4 = 0x0800, kEthIpv6 = 0x86DD, kEthTeb = 0x6558;
}  // namespace parse_detail

namespace shape_detail {
inline uint16_t be16(const uint8_t* p) {
    return static_cast<uint16_t>(p[0] << 8 | p[1]);
}
// SCTP chunks walked with their lengths checked; by value, so that the
// caller's shape can live in registers.
bool sctp_chunks_ok(const rte_mbuf* m, const uint8_t* bytes, uint32_t held, uint32_t l4_off,
                    uint32_t l4_len) noexcept;
struct Front {
    uint8_t* bytes;  // nullptr: the chain contradicts its descriptor
    uint8_t* in_place;
    uint32_t held;
};
// A chain's front (its first gather.size() bytes): in place if its first
// segment holds it, else gathered.
Front gather_front(rte_mbuf* m, std::span<uint8_t> gather) noexcept;
}  // namespace shape_detail

// Classifies m. True if it has a common shape: *s then describes it, with its
// headers at s->bytes (gathered into `gather` if they straddle segments).
// False for every other packet, including chains that contradict their
// descriptor; the general walker then names what is wrong.
[[gnu::always_inline]] inline bool classify(rte_mbuf* m, const ShapeConfig& cfg,
                                            std::span<uint8_t, kHeaderGather> gather,
                                            PacketShape* s) noexcept {
    using shape_detail::be16;
    const uint32_t len = m->pkt_len;
    uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
    uint32_t held;
    if (likely(m->next == nullptr)) {
        if (unlikely(m->nb_segs != 1 || m->data_len < len)) return false;
        held = len;
        s->in_place = p;
        s->whole = true;
    } else {
        const shape_detail::Front f = shape_detail::gather_front(m, gather);
        if (f.bytes == nullptr) return false;
        p = f.bytes, held = f.held;
        s->in_place = f.in_place;
        s->whole = held == len;
    }
    s->bytes = p;
    s->held = held;
    s->pkt_len = len;
    if (held < 14 + 20 + 8) return false;  // too short for any common shape
    const uint8_t* ip = p + 14;
    const uint16_t type = be16(p + 12);
    uint32_t l4_len, l4;
    uint8_t proto;
    if (type == parse_detail::kEthIpv4) {
        const uint32_t total = be16(ip + 2);
        if (ip[0] != 0x45 || total < 20 || 14 + total > len || (be16(ip + 6) & 0x3FFF))
            return false;
        proto = ip[9], l4_len = total - 20, l4 = 34, s->v6 = false;
    } else if (type == parse_detail::kEthIpv6) {
        const uint32_t plen = be16(ip + 4);
        if (held < 14 + 40 + 8 || (ip[0] >> 4) != 6 || plen == 0 || 54 + plen > len) return false;
        proto = ip[6], l4_len = plen, l4 = 54, s->v6 = true;
    } else {
        return false;
    }
    const uint8_t* th = p + l4;
    if (proto == kShapeTcp) {
        if (l4_len < 20 || l4 + 20 > held) return false;
        const uint32_t doff = (th[12] >> 4) * 4u;
        if (doff < 20 || doff > l4_len) return false;
        s->nvme = cfg.tcp_special(be16(th), be16(th + 2));
        if (s->nvme && !cfg.nvme_shapes) return false;
        s->l4_hdr = static_cast<uint8_t>(doff), s->field = 16, s->l4i = 0;
    } else if (proto == kShapeUdp) {
        // Equal lengths and a checksum present; trimming and zero sums are the walker's.
        if (l4_len < 8 || l4 + 8 > held || be16(th + 4) != l4_len || be16(th + 6) == 0 ||
            cfg.udp_special(be16(th + 2)))
            return false;
        s->l4_hdr = 8, s->field = 6, s->l4i = 1, s->nvme = false;
    } else if (proto == kShapeSctp) {
        if (l4_len < 12 || l4 + 12 > held) return false;
        s->l4_hdr = 12, s->field = 8, s->l4i = 2, s->nvme = false;
    } else {
        return false;
    }
    s->proto = proto;
    s->l3_off = 14;
    s->l4_off = static_cast<uint16_t>(l4);
    s->l4_len = l4_len;
    return proto != kShapeSctp || shape_detail::sctp_chunks_ok(m, p, held, l4, l4_len);
}

}  // namespace csum
