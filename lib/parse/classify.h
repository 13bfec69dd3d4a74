// The one classifier of packet shapes. It recognises the common shapes
// (Ethernet / IPv4 without options, not fragmented, or IPv6 without extension
// headers / TCP, UDP with a checksum, or SCTP, on no tunnel or NVMe port) and
// describes where each layer and checksum lies. The engine consumes that
// description and never looks at bytes to decide what a packet is; the
// general walker (parse_packet) takes every other packet, and every doubt.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
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

namespace shape_detail {
inline uint16_t be16(const uint8_t* p) {
    return static_cast<uint16_t>(p[0] << 8 | p[1]);
}
}  // namespace shape_detail

// UDP destination ports that carry an encapsulation the walker parses.
inline bool udp_encap_port(const ParserConfig& c, uint16_t dport) noexcept {
    return c.vxlan_ports.contains(dport) || c.geneve_ports.contains(dport) ||
           c.gre_udp_ports.contains(dport) || c.sctp_udp_ports.contains(dport);
}
// TCP segments the NVMe/TCP tracker may want.
inline bool nvme_port(const ParserConfig& c, uint16_t sport, uint16_t dport) noexcept {
    return c.nvme_ports.n != 0 && (c.nvme_ports.contains(sport) || c.nvme_ports.contains(dport));
}

// The parser's configuration with a filter per protocol: a byte per value
// of a port's low byte, set for every special port, so most packets are
// cleared with two loads and a test, and only a hit compares the port lists.
struct ShapeConfig {
    const ParserConfig* cfg;
    uint8_t tcp_hit[256] = {}, udp_hit[256] = {};
    // TCP on an NVMe/TCP port is a common shape too (s->nvme set), for an
    // engine that feeds the tracker from the shape; otherwise the walker's.
    bool nvme_shapes = false;
    bool tcp_ports = false;  // some TCP port is special: test each segment's
    explicit ShapeConfig(const ParserConfig& c) : cfg(&c), tcp_ports(c.nvme_ports.n != 0) {
        for (uint8_t i = 0; i < c.nvme_ports.n; ++i) tcp_hit[c.nvme_ports.port[i] & 0xFF] = 1;
        for (const PortSet* ps :
             {&c.vxlan_ports, &c.geneve_ports, &c.gre_udp_ports, &c.sctp_udp_ports})
            for (uint8_t i = 0; i < ps->n; ++i) udp_hit[ps->port[i] & 0xFF] = 1;
    }
    // th: the L4 header (ports big-endian, so a port's low byte is th[1] or th[3]).
    // Inline always: a call in the all-good loops costs more than the test.
    [[gnu::always_inline]] bool tcp_special(const uint8_t* th) const {
        return unlikely((tcp_hit[th[1]] | tcp_hit[th[3]]) != 0) &&
               tcp_listed(shape_detail::be16(th), shape_detail::be16(th + 2));
    }
    [[gnu::always_inline]] bool udp_special(const uint8_t* th) const {
        return unlikely(udp_hit[th[3]] != 0) && udp_listed(shape_detail::be16(th + 2));
    }
    bool tcp_special(uint16_t sport, uint16_t dport) const {
        return unlikely((tcp_hit[sport & 0xFF] | tcp_hit[dport & 0xFF]) != 0) &&
               tcp_listed(sport, dport);
    }
    bool udp_special(uint16_t dport) const {
        return unlikely(udp_hit[dport & 0xFF] != 0) && udp_listed(dport);
    }
    // Out of line, so that the compiler does not search the lists on every packet.
    [[gnu::noinline]] bool tcp_listed(uint16_t sport, uint16_t dport) const {
        return nvme_port(*cfg, sport, dport);
    }
    [[gnu::noinline]] bool udp_listed(uint16_t dport) const { return udp_encap_port(*cfg, dport); }
};

// Why a chain cannot be walked: it holds fewer bytes than pkt_len, or not
// nb_segs segments. ParseError::none if it is what its descriptor says.
ParseError chain_error(const rte_mbuf* m) noexcept;

namespace parse_detail {
// EtherTypes the classifier and the walker follow (also GRE/GENEVE protocol types).
inline constexpr uint16_t kEthIpv4 = 0x0800, kEthIpv6 = 0x86DD, kEthTeb = 0x6558;
}  // namespace parse_detail

namespace shape_detail {
// SCTP chunks walked with their lengths checked; by value, so that the
// caller's shape can live in registers.
bool sctp_chunks_ok(const rte_mbuf* m, const uint8_t* bytes, uint32_t held, uint32_t l4_off,
                    uint32_t l4_len) noexcept;
// The same for the chunks from packet offset pos (pos < end = l4_off +
// l4_len), read from m's chain: for a caller that walked those before pos.
bool sctp_chunks_rest(const rte_mbuf* m, uint32_t pos, uint32_t end) noexcept;
// The chunk rule, for every walk: the chunk at pos whose header says clen
// is at least its header and ends by end. Returns where the next chunk
// starts (its padded end: the last chunk's padding may be absent), or 0 if
// the rule fails (no chunk starts at 0). pos < 2^17: no wrap.
[[gnu::always_inline]] inline uint32_t sctp_next_chunk(uint32_t pos, uint32_t clen,
                                                       uint32_t end) noexcept {
    return clen < 4 || pos + clen > end ? 0 : pos + ((clen + 3) & ~3u);
}
// The same, inline for the common case of one chunk filling the packet
// (its padding may be absent); any other chunk layout takes the loop.
[[gnu::always_inline]] inline bool sctp_chunks_ok_fast(const rte_mbuf* m, const uint8_t* bytes,
                                                       uint32_t held, uint32_t l4_off,
                                                       uint32_t l4_len) noexcept {
    const uint32_t pos = l4_off + 12, end = l4_off + l4_len;
    if (pos + 4 <= end && pos + 4 <= held) {
        const uint32_t next = sctp_next_chunk(pos, be16(bytes + pos + 2), end);
        if (next == 0) return false;
        if (next >= end) return true;
    }
    return sctp_chunks_ok(m, bytes, held, l4_off, l4_len);
}
struct Front {
    uint8_t* bytes;  // nullptr: the chain contradicts its descriptor
    uint8_t* in_place;
    uint32_t held;
};
// n bytes from src to dst, inline: overlapping 16-, 8-,
// 4-byte moves instead of a call into libc for a few dozen bytes. Reads and
// writes nothing outside [src, src + n) and [dst, dst + n).
[[gnu::always_inline]] inline void small_copy(uint8_t* dst, const uint8_t* src, uint32_t n) {
    if (n >= 16) {
        for (uint32_t i = 0; i + 16 < n; i += 16) std::memcpy(dst + i, src + i, 16);
        std::memcpy(dst + n - 16, src + n - 16, 16);
    } else if (n >= 8) {
        uint64_t a, b;
        std::memcpy(&a, src, 8), std::memcpy(&b, src + n - 8, 8);
        std::memcpy(dst, &a, 8), std::memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        std::memcpy(&a, src, 4), std::memcpy(&b, src + n - 4, 4);
        std::memcpy(dst, &a, 4), std::memcpy(dst + n - 4, &b, 4);
    } else {
        for (uint32_t i = 0; i < n; ++i) dst[i] = src[i];
    }
}
// A chain's front: the whole chain if it has at most N bytes, else its
// first need() (<= N: every header the caller can need; asked only then)
// bytes; in place if its first segment holds them, else gathered.
template <size_t N, typename Need>
[[gnu::always_inline]] inline Front gather_front(rte_mbuf* m, std::span<uint8_t, N> gather,
                                                 Need&& need) noexcept {
    // One walk checks the chain against its descriptor and, when the first
    // segment is short, copies the front: each copy bounded by what is left
    // of the gather buffer. No more than nb_segs (<= RTE_MBUF_MAX_NB_SEGS)
    // segments are visited, whatever the links say.
    const uint32_t len = m->pkt_len;
    const uint32_t nb = m->nb_segs;
    uint32_t dl = m->data_len, bytes = dl, segs = 1;
    const rte_mbuf* s = m;
    uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
    // The rest of the chain, from the segment after `from`, against the descriptor.
    auto rest_ok = [&](const rte_mbuf* from) {
        for (const rte_mbuf* r = from->next; r != nullptr; r = r->next) {
            bytes += r->data_len;
            if (++segs > nb || !segment_in_buffer(r)) return false;
        }
        return bytes >= len && segs == nb;
    };
    // A chain gathered whole, or only the need() bytes its headers can need
    // (the rest is summed from the segments, so copying it is wasted).
    if (!segment_in_buffer(m)) return {};
    const uint32_t want = len <= N ? len : std::min(need(), static_cast<uint32_t>(N));
    // In place: its own return, so that the gathered path's values never
    // wait on the EtherType read that need() may take.
    if (dl >= want) {
        if (!rest_ok(m)) return {};
        return {p, p, dl < len ? dl : len};
    }
    uint8_t* d = gather.data();
    uint32_t left = want;
    for (;;) {
        const uint32_t n = dl < left ? dl : left;
        small_copy(d, rte_pktmbuf_mtod(s, const uint8_t*), n);
        d += n, left -= n;
        if (left == 0) break;
        s = s->next;
        if (s == nullptr || ++segs > nb) return {};  // shorter than pkt_len, or longer than nb_segs
        if (!segment_in_buffer(s)) return {};
        dl = s->data_len, bytes += dl;
    }
    if (!rest_ok(s)) return {};
    return {gather.data(), nullptr, want};
}
template <size_t N>
[[gnu::always_inline]] inline Front gather_front(rte_mbuf* m,
                                                 std::span<uint8_t, N> gather) noexcept {
    return gather_front(m, gather, [] { return static_cast<uint32_t>(N); });
}

// The bytes a plain shape's headers can need from the front: to the TCP
// checksum field behind IPv6 (74) or IPv4 (54); SCTP's chunk headers past
// them are read from the chain. A chain whose first segment holds them is
// read in place, not copied (the copy's loads wait on its stores).
inline uint32_t plain_front_need(const rte_mbuf* m) noexcept {
    constexpr uint32_t kV4 = 14 + 20 + 20, kV6 = 14 + 40 + 20;
    const uint32_t dl = m->data_len;
    if (dl >= kV6 || dl < kV4) return kV6;  // the EtherType is read only when it decides
    const uint8_t* p = rte_pktmbuf_mtod(m, const uint8_t*);
    return be16(p + 12) == parse_detail::kEthIpv6 ? kV6 : kV4;
}

}  // namespace shape_detail

// The headers' part of classify(): the common shape of the bytes at p
// (held of them at hand, of a packet of len bytes), with s->bytes and the
// front's fields already set by the caller.
[[gnu::always_inline]] inline bool classify_headers(const rte_mbuf* m, const ShapeConfig& cfg,
                                                    const uint8_t* p, uint32_t held, uint32_t len,
                                                    PacketShape* s) noexcept {
    using shape_detail::be16;
    if (held < 14 + 20 + 8) return false;  // too short for any common shape
    const uint8_t* ip = p + 14;
    // EtherType, version and IHL in one load; lengths checked with one
    // unsigned compare each (len >= held >= 42, so len - 34 cannot wrap).
    uint32_t head;
    std::memcpy(&head, p + 12, 4);
    uint32_t l4_len, l4;
    uint8_t proto;
    if ((head & 0x00FFFFFF) == 0x00450008) {  // 08 00 45: IPv4, no options
        const uint32_t total = be16(ip + 2);
        uint16_t frag;
        std::memcpy(&frag, ip + 6, 2);
        if (total - 20 > len - 34 || (frag & 0xFF3F)) return false;  // MF or offset
        proto = ip[9], l4_len = total - 20, l4 = 34, s->v6 = false;
    } else if ((head & 0x00F0FFFF) == 0x0060DD86) {  // 86 DD 6x: IPv6
        const uint32_t plen = be16(ip + 4);
        if (held < 14 + 40 + 8 || plen - 1 > len - 55) return false;  // 0 < plen <= len - 54
        proto = ip[6], l4_len = plen, l4 = 54, s->v6 = true;
    } else {
        return false;
    }
    const uint8_t* th = p + l4;
    if (proto == kShapeTcp) {
        if (l4_len < 20 || l4 + 20 > held) return false;
        const uint32_t doff = (th[12] >> 4) * 4u;
        if (doff < 20 || doff > l4_len) return false;
        s->nvme = cfg.tcp_ports && cfg.tcp_special(th);
        if (s->nvme && !cfg.nvme_shapes) return false;
        s->l4_hdr = static_cast<uint8_t>(doff), s->field = 16, s->l4i = 0;
    } else if (proto == kShapeUdp) {
        // Equal lengths and a checksum present; trimming and zero sums are the walker's.
        if (l4_len < 8 || l4 + 8 > held || be16(th + 4) != l4_len || be16(th + 6) == 0 ||
            cfg.udp_special(th))
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
    return proto != kShapeSctp || shape_detail::sctp_chunks_ok_fast(m, p, held, l4, l4_len);
}

// A packet in one segment that holds all of it: its bytes, else null.
[[gnu::always_inline]] inline uint8_t* linear_bytes(rte_mbuf* m) noexcept {
    if (likely(m->next == nullptr && m->nb_segs == 1 && m->data_len >= m->pkt_len &&
               segment_in_buffer(m)))
        return rte_pktmbuf_mtod(m, uint8_t*);
    return nullptr;
}

// Classifies m. True if it has a common shape: *s then describes it, with its
// headers at s->bytes (gathered into `gather` if they straddle segments).
// False for every other packet, including chains that contradict their
// descriptor; the general walker then names what is wrong.
[[gnu::always_inline]] inline bool classify(rte_mbuf* m, const ShapeConfig& cfg,
                                            std::span<uint8_t, kHeaderGather> gather,
                                            PacketShape* s) noexcept {
    const uint32_t len = m->pkt_len;
    uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
    uint32_t held;
    if (likely(m->next == nullptr)) {
        if (unlikely(m->nb_segs != 1 || m->data_len < len || !segment_in_buffer(m))) return false;
        held = len;
        s->in_place = p;
        s->whole = true;
    } else {
        const shape_detail::Front f = shape_detail::gather_front(
            m, gather, [m] { return shape_detail::plain_front_need(m); });
        if (f.bytes == nullptr) return false;
        p = f.bytes, held = f.held;
        s->in_place = f.in_place;
        s->whole = held == len;
    }
    s->bytes = p;
    s->held = held;
    s->pkt_len = len;
    return classify_headers(m, cfg, p, held, len, s);
}

}  // namespace csum
