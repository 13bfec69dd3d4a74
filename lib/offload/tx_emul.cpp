#include "offload/tx_emul.h"

#include <cstring>

#include <rte_byteorder.h>

#include "csum/inet.h"
#include "engine/lean_path.h"
#include "engine/sctp_crc.h"
#include "mbuf/segment_read.h"

namespace csum {
namespace {

constexpr uint8_t kTcp = 6, kUdp = 17, kSctp = 132;

uint16_t be16(const uint8_t* p) {
    return static_cast<uint16_t>(p[0] << 8 | p[1]);
}

// One IP header as the request's lengths place it, checked against the packet.
struct Ip {
    bool v4 = false;
    uint32_t off = 0, hlen = 0;
    uint32_t l4_off = 0, l4_len = 0;  // from the IP length fields
    uint8_t proto = 0;                // IPv4 protocol / last IPv6 next header
    bool fragment = false;
    bool routing_unknown = false;
    uint8_t src[16], dst[16];  // dst: the final destination
};

// The walk over the descriptors, before anything is read. false: one of
// the first nb_segs segments claims data past its buffer. *sound: the chain
// is exactly nb_segs such segments (at least one) holding pkt_len bytes or
// more, so every byte below pkt_len lies in a checked segment and reads and
// writes there need no further check (crc32c_mbuf, which trusts the
// descriptors, included). Another chain (nb_segs or pkt_len lying, a loop)
// is read only through checked walks.
bool walk_chain(const rte_mbuf* m, bool* sound) {
    uint32_t held = 0;  // < 2^32: at most 65535 segments of 65535 bytes
    const rte_mbuf* g = m;
    for (uint32_t k = m->nb_segs; k != 0; --k, g = g->next) {
        if (g == nullptr) {
            *sound = false;  // nb_segs says more
            return true;
        }
        if (!segment_in_buffer(g)) return false;
        held += g->data_len;
    }
    *sound = g == nullptr && held >= m->pkt_len;
    return true;
}

// Packet bytes [off, off+len) when they lie in the first segment (the usual
// case: headers and, for most frames, the whole L4 segment), else nullptr.
// The first segment was checked by the walk unless nb_segs is 0.
inline uint8_t* in_first_seg(rte_mbuf* m, uint32_t off, uint32_t len, bool sound) {
    const uint64_t end = uint64_t(off) + len;
    return end <= m->data_len && end <= m->pkt_len && (sound || segment_in_buffer(m))
               ? rte_pktmbuf_mtod_offset(m, uint8_t*, off)
               : nullptr;
}

// Writes a checksum field at packet offset off: in place in the first
// segment, else along the chain.
template <typename T>
void put(rte_mbuf* m, uint32_t off, T v, bool sound) {
    if (uint8_t* p = in_first_seg(m, off, sizeof v, sound))
        std::memcpy(p, &v, sizeof v);
    else
        write_value(m, off, v);
}

// want: 4 or 6 from the flags, 0 when the flags don't say (IP_CKSUM alone).
// need_l4: the L4 lengths must hold up too.
bool parse_ip(const rte_mbuf* m, uint32_t off, uint32_t l3_len, int want, bool need_l4, Ip* ip,
              csum_tx_error* err) {
    ip->off = off;
    ip->hlen = l3_len;
    uint8_t one[1];
    const auto* p0 = static_cast<const uint8_t*>(read_bytes(m, off, 1, one));
    if (p0 == nullptr) {
        *err = CSUM_TX_ERR_HDR_BEYOND_PACKET;
        return false;
    }
    const int version = *p0 >> 4;
    if ((version != 4 && version != 6) || (want != 0 && version != want)) {
        *err = CSUM_TX_ERR_IP_VERSION_MISMATCH;
        return false;
    }
    ip->v4 = version == 4;
    if (ip->v4) {
        if (l3_len < 20 || l3_len > 60) {
            *err = CSUM_TX_ERR_L3_LEN_BAD;
            return false;
        }
        uint8_t buf[60];
        const auto* h = static_cast<const uint8_t*>(read_bytes(m, off, l3_len, buf));
        if (h == nullptr) {
            *err = CSUM_TX_ERR_HDR_BEYOND_PACKET;
            return false;
        }
        if ((h[0] & 0xF) * 4u != l3_len) {
            *err = CSUM_TX_ERR_L3_LEN_BAD;
            return false;
        }
        const uint32_t tot = be16(h + 2);
        if (need_l4 && (tot < l3_len || uint64_t(off) + tot > m->pkt_len)) {
            *err = CSUM_TX_ERR_IP_LEN_BAD;
            return false;
        }
        ip->proto = h[9];
        ip->fragment = (be16(h + 6) & 0x3FFF) != 0;
        std::memcpy(ip->src, h + 12, 4);
        std::memcpy(ip->dst, h + 16, 4);
        ip->l4_off = off + l3_len;
        ip->l4_len = tot - l3_len;
        return true;
    }
    // IPv6: l3_len must end exactly where the header chain ends.
    if (l3_len < 40) {
        *err = CSUM_TX_ERR_L3_LEN_BAD;
        return false;
    }
    uint8_t buf[512];  // l3_len is a 9-bit field
    const auto* h = static_cast<const uint8_t*>(read_bytes(m, off, l3_len, buf));
    if (h == nullptr) {
        *err = CSUM_TX_ERR_HDR_BEYOND_PACKET;
        return false;
    }
    std::memcpy(ip->src, h + 8, 16);
    std::memcpy(ip->dst, h + 24, 16);
    uint8_t nh = h[6];
    uint32_t pos = 40;
    while (pos < l3_len) {
        uint32_t len;
        if (nh == 0 || nh == 43 || nh == 60) {
            if (pos + 2 > l3_len) break;
            len = (h[pos + 1] + 1u) * 8;
            if (pos + len > l3_len) break;
            if (nh == 43) {
                const uint8_t* addr = nullptr;
                switch (ipv6_routing_final_dst(h + pos, len, &addr)) {
                    case Ipv6FinalDst::ipv6_dst:
                        break;
                    case Ipv6FinalDst::routing_header:
                        std::memcpy(ip->dst, addr, 16);
                        break;
                    case Ipv6FinalDst::unverifiable:
                        ip->routing_unknown = true;
                        break;
                    case Ipv6FinalDst::malformed:
                        *err = CSUM_TX_ERR_L3_LEN_BAD;
                        return false;
                }
            }
        } else if (nh == 44) {
            len = 8;
            if (pos + len > l3_len) break;
            ip->fragment = true;
        } else {
            break;  // not an extension header, yet l3_len goes on
        }
        nh = h[pos];
        pos += len;
    }
    if (pos != l3_len) {
        *err = CSUM_TX_ERR_L3_LEN_BAD;
        return false;
    }
    const uint32_t plen = be16(h + 4);
    if (need_l4 && (plen < l3_len - 40 || uint64_t(off) + 40 + plen > m->pkt_len)) {
        *err = CSUM_TX_ERR_IP_LEN_BAD;
        return false;
    }
    ip->proto = nh;
    ip->l4_off = off + l3_len;
    ip->l4_len = plen - (l3_len - 40);
    return true;
}

// Checks that the IP header carries L4 `proto` whose lengths hold up.
bool check_l4(const rte_mbuf* m, const Ip& ip, uint8_t proto, uint16_t l4_len_field,
              csum_tx_error* err) {
    if (ip.proto != proto) {
        *err = CSUM_TX_ERR_L4_PROTO_MISMATCH;
        return false;
    }
    if (ip.fragment) {
        *err = CSUM_TX_ERR_IP_FRAGMENT;
        return false;
    }
    if (ip.routing_unknown) {
        *err = CSUM_TX_ERR_IPV6_ROUTING;
        return false;
    }
    const uint32_t min = proto == kTcp ? 20 : proto == kUdp ? 8 : 12;
    if (ip.l4_len < min) {
        *err = CSUM_TX_ERR_L4_LEN_BAD;
        return false;
    }
    uint8_t buf[20];
    const auto* h = static_cast<const uint8_t*>(read_bytes(m, ip.l4_off, min, buf));
    if (h == nullptr) {
        *err = CSUM_TX_ERR_HDR_BEYOND_PACKET;
        return false;
    }
    uint32_t hdr = min;
    if (proto == kTcp) {
        hdr = (h[12] >> 4) * 4u;
        if (hdr < 20 || hdr > ip.l4_len) {
            *err = CSUM_TX_ERR_L4_LEN_BAD;
            return false;
        }
    } else if (proto == kUdp && be16(h + 4) != ip.l4_len) {
        *err = CSUM_TX_ERR_L4_LEN_BAD;
        return false;
    }
    if (l4_len_field != 0 && l4_len_field != hdr) {
        *err = CSUM_TX_ERR_L4_LEN_BAD;
        return false;
    }
    return true;
}

uint16_t load16(const rte_mbuf* m, uint32_t off) {
    uint16_t v = 0;
    uint8_t buf[2];
    if (const void* p = read_bytes(m, off, 2, buf)) std::memcpy(&v, p, 2);
    return v;
}

void write_ip_cksum(rte_mbuf* m, const Ip& ip, bool sound) {
    if (uint8_t* h = in_first_seg(m, ip.off, ip.hlen, sound)) {
        const uint16_t c = ipv4_hdr_cksum(h, ip.hlen);
        std::memcpy(h + 10, &c, 2);
        return;
    }
    uint8_t buf[60];
    const void* h = read_bytes(m, ip.off, ip.hlen, buf);
    if (h == nullptr) return;  // parse_ip read the same bytes: not reached
    const uint16_t c = ipv4_hdr_cksum(h, ip.hlen);
    write_value(m, ip.off + 10, c);
}

uint32_t pseudo_sum(const Ip& ip, uint8_t proto) {
    return ip.v4 ? ipv4_pseudo_sum(ip.src, ip.dst, proto, ip.l4_len)
                 : ipv6_pseudo_sum(ip.src, ip.dst, proto, ip.l4_len);
}

// Writes the checksum of the L4 segment [off, off+len) at its field; the
// caller has proved the range readable (a sound chain, or range_in_buffers).
// TCP/UDP: the full sum over the pseudo-header (sum `pseudo`) and segment,
// whatever the field held (an application may have left the pseudo-header
// sum in it).
[[gnu::always_inline]] inline void fill_l4(rte_mbuf* m, uint32_t off, uint32_t len, uint8_t proto,
                                           uint32_t pseudo, bool sound) {
    if (proto == kSctp) {
        put(m, off + 8, rte_cpu_to_le_32(sctp_crc(m, off, len)), sound);
        return;
    }
    // The field counts as zero: its value is taken back out of the sum (its
    // offset is even), rather than zeroed first, whose store the sum's wide
    // loads would wait on.
    const uint32_t rel = proto == kTcp ? 16 : 6;  // the field's offset in the segment
    uint32_t s = pseudo;
    if (uint8_t* l4 = in_first_seg(m, off, len, sound)) {
        uint16_t v;
        std::memcpy(&v, l4 + rel, 2);
        s = sum_sub(partial_sum(l4, len, s), v);
        const uint16_t c = proto == kUdp ? udp_cksum_finish(s) : cksum_finish(s);
        std::memcpy(l4 + rel, &c, 2);
        return;
    }
    partial_sum_mbuf(m, off, len, &s);  // can't fail: proved readable
    s = sum_sub(s, load16(m, off + rel));
    put(m, off + rel, proto == kUdp ? udp_cksum_finish(s) : cksum_finish(s), sound);
}

// The common case in one pass: plain IPv4 (no options) or IPv6 (no
// extension headers) with TCP, UDP or SCTP on a sound chain, headers in the
// first segment, no outer request; the L4 segment in place or along the
// chain. Returns false, having written nothing, for anything else or
// anything doubtful: the general path then decides (and names the error).
template <bool kV6>
bool plain_fast(rte_mbuf* m, uint64_t f, bool ip_req, uint8_t l4_proto, bool sound,
                TxServed* served) {
    constexpr uint32_t kHdr = kV6 ? 40 : 20;
    // With both type flags the general path takes IPv4 (as parse_ip's want).
    const bool typed = kV6 ? (f & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6)) == RTE_MBUF_F_TX_IPV6
                           : (f & RTE_MBUF_F_TX_IPV4) != 0;
    // IPv6 has no header checksum: a request for one is the general path's error.
    if (!sound || !typed || m->l3_len != kHdr || (kV6 && ip_req)) return false;
    const uint32_t l2 = m->l2_len;
    // The L4 header's fixed part: what is read and written of it.
    const uint32_t min = l4_proto == kTcp ? 20 : l4_proto == kUdp ? 8 : l4_proto == kSctp ? 12 : 0;
    if (l2 + kHdr + min > m->data_len) return false;
    uint8_t* h = rte_pktmbuf_mtod_offset(m, uint8_t*, l2);
    uint32_t tot;  // the IP packet's length
    if constexpr (kV6) {
        // Version 6; no extension header (l3_len 40): the next header is L4's.
        if ((h[0] >> 4) != 6 || h[6] != l4_proto) return false;
        tot = 40 + be16(h + 4);
    } else {
        if (h[0] != 0x45) return false;
        tot = be16(h + 2);
    }
    if (tot < kHdr + min || l2 + tot > m->pkt_len) return false;
    if (!kV6 && l4_proto != 0 && (h[9] != l4_proto || (be16(h + 6) & 0x3FFF) != 0)) return false;
    uint8_t* l4 = h + kHdr;
    const uint32_t l4_off = l2 + kHdr, l4_len = tot - kHdr;
    if (l4_proto != 0) {
        uint32_t hdr = min;
        if (l4_proto == kTcp) {
            hdr = (l4[12] >> 4) * 4u;
            if (hdr < 20 || hdr > l4_len) return false;
        } else if (l4_proto == kUdp && be16(l4 + 4) != l4_len) {
            return false;
        }
        if (m->l4_len != 0 && m->l4_len != hdr) return false;
        auto pseudo = [&] {
            return kV6 ? ipv6_pseudo_sum(h + 8, h + 24, l4_proto, l4_len)
                       : ipv4_pseudo_sum(h + 12, h + 16, l4_proto, l4_len);
        };
        if (l4_proto != kSctp && l2 + tot <= m->data_len) {
            // TCP/UDP in place: fill_l4's first branch, its bounds checked
            // above (GCC 12 spends ~15 more instructions inlining fill_l4).
            uint8_t* field = l4 + (l4_proto == kTcp ? 16 : 6);
            uint16_t v;
            std::memcpy(&v, field, 2);
            uint32_t s;
            // A short one inline, the pseudo-header's addresses with it (IPv6:
            // the addresses and the segment are one range), as the engine's
            // fill_short: two calls cost more than the sum at this length.
            const uint32_t span = l4_len + (kV6 ? 32 : 0);
            if (span <= lean_detail::kShortSum) {
                using namespace lean_detail;
                const uint64_t k = (uint64_t{l4_proto} + l4_len) << 8;  // as big-endian words
                const uint64_t a =
                    kV6 ? short_sum64(h + 8, span, k)
                        : short_sum64(l4, l4_len, k + load32(h + 12) + uint64_t{load32(h + 16)});
                s = fold64(add_carry(a, 0xFFFFu - v));
            } else {
                s = sum_sub(partial_sum(l4, l4_len, pseudo()), v);
            }
            const uint16_t c = l4_proto == kUdp ? udp_cksum_finish(s) : cksum_finish(s);
            std::memcpy(field, &c, 2);
        } else {  // SCTP, or the segment on along the chain
            fill_l4(m, l4_off, l4_len, l4_proto, l4_proto == kSctp ? 0 : pseudo(), true);
        }
        (l4_proto == kTcp ? served->tcp : l4_proto == kUdp ? served->udp : served->sctp) = 1;
    }
    if (!kV6 && ip_req) {
        const uint16_t c = ipv4_hdr_cksum(h, 20);
        std::memcpy(h + 10, &c, 2);
        served->ip = 1;
    }
    return true;
}

}  // namespace

int tx_emulate(rte_mbuf* m, uint64_t emulate, TxServed* served, csum_tx_error* err) noexcept {
    *served = TxServed{};
    const uint64_t f = m->ol_flags;
    const uint64_t l4_req = f & RTE_MBUF_F_TX_L4_MASK;
    uint8_t l4_proto = 0;
    uint64_t l4_capa = 0;
    switch (l4_req) {
        case RTE_MBUF_F_TX_TCP_CKSUM:
            l4_proto = kTcp, l4_capa = RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
            break;
        case RTE_MBUF_F_TX_UDP_CKSUM:
            l4_proto = kUdp, l4_capa = RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
            break;
        case RTE_MBUF_F_TX_SCTP_CKSUM:
            l4_proto = kSctp, l4_capa = RTE_ETH_TX_OFFLOAD_SCTP_CKSUM;
            break;
        default:
            break;
    }
    const bool outer_udp =
        (f & RTE_MBUF_F_TX_OUTER_UDP_CKSUM) && (emulate & RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM);
    const bool outer_ip =
        (f & RTE_MBUF_F_TX_OUTER_IP_CKSUM) && (emulate & RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM);
    // Hardware would change the inner checksums after our outer UDP sum.
    const bool inner_ip =
        (f & RTE_MBUF_F_TX_IP_CKSUM) && (outer_udp || (emulate & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM));
    const bool inner_l4 = l4_proto != 0 && (outer_udp || (emulate & l4_capa));
    if (!outer_udp && !outer_ip && !inner_ip && !inner_l4) {
        served->to_hw = (f & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK |
                              RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM)) != 0;
        return 0;
    }

    // Descriptors are untrusted: a segment claiming data past its buffer is
    // refused before anything is read or written.
    bool sound;
    if (!walk_chain(m, &sound)) {
        *err = CSUM_TX_ERR_SEGMENT_PAST_BUFFER;
        return -1;
    }

    constexpr uint64_t kOuter = RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM |
                                RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IPV6;
    const uint8_t fast_l4 = inner_l4 ? l4_proto : 0;
    if (!(f & kOuter) &&
        ((f & RTE_MBUF_F_TX_IPV4) ? plain_fast<false>(m, f, inner_ip, fast_l4, sound, served)
                                  : plain_fast<true>(m, f, inner_ip, fast_l4, sound, served))) {
        const uint64_t clear =
            (inner_ip ? RTE_MBUF_F_TX_IP_CKSUM : 0) | (inner_l4 ? RTE_MBUF_F_TX_L4_MASK : 0);
        m->ol_flags = f & ~clear;
        served->to_hw = (m->ol_flags & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)) != 0;
        return 0;
    }

    // Validate every request first, so a refused packet is left as it was.
    // The outer lengths mean something only with an outer request or type.
    const bool tunnel = (f & (RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM |
                              RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IPV6)) != 0;
    const uint32_t inner_base = tunnel ? uint32_t(m->outer_l2_len) + m->outer_l3_len : 0;
    Ip in, out;
    if (inner_ip || inner_l4) {
        int want = (f & RTE_MBUF_F_TX_IPV4) ? 4 : (f & RTE_MBUF_F_TX_IPV6) ? 6 : 0;
        if (inner_l4 && want == 0) {
            *err = CSUM_TX_ERR_IP_TYPE_MISSING;
            return -1;
        }
        if (inner_ip && want == 6) {
            *err = CSUM_TX_ERR_IP_VERSION_MISMATCH;
            return -1;
        }
        if (inner_ip) want = 4;
        if (!parse_ip(m, inner_base + m->l2_len, m->l3_len, want, inner_l4, &in, err)) return -1;
        if (inner_l4 && !check_l4(m, in, l4_proto, m->l4_len, err)) return -1;
    }
    if (outer_ip || outer_udp) {
        int want = (f & RTE_MBUF_F_TX_OUTER_IPV4) ? 4 : (f & RTE_MBUF_F_TX_OUTER_IPV6) ? 6 : 0;
        if (outer_udp && want == 0) {
            *err = CSUM_TX_ERR_IP_TYPE_MISSING;
            return -1;
        }
        if (outer_ip && want == 6) {
            *err = CSUM_TX_ERR_IP_VERSION_MISMATCH;
            return -1;
        }
        if (outer_ip) want = 4;
        if (!parse_ip(m, m->outer_l2_len, m->outer_l3_len, want, outer_udp, &out, err)) return -1;
        if (outer_udp && !check_l4(m, out, kUdp, 0, err)) return -1;
    }

    // The L4 sums run to the segments' end: off a chain not proven sound they
    // are walked now, so that a chain shorter than pkt_len is refused before
    // anything is written.
    if (!sound && ((inner_l4 && !range_in_buffers(m, in.l4_off, in.l4_len)) ||
                   (outer_udp && !range_in_buffers(m, out.l4_off, out.l4_len)))) {
        *err = CSUM_TX_ERR_HDR_BEYOND_PACKET;
        return -1;
    }

    // Innermost first: the outer UDP sum covers the inner checksum fields.
    uint64_t clear = 0;
    if (inner_ip) {
        write_ip_cksum(m, in, sound);
        served->ip = 1;
        clear |= RTE_MBUF_F_TX_IP_CKSUM;
    }
    if (inner_l4) {
        fill_l4(m, in.l4_off, in.l4_len, l4_proto, l4_proto == kSctp ? 0 : pseudo_sum(in, l4_proto),
                sound);
        (l4_proto == kTcp ? served->tcp : l4_proto == kUdp ? served->udp : served->sctp) = 1;
        clear |= RTE_MBUF_F_TX_L4_MASK;
    }
    if (outer_udp) {
        fill_l4(m, out.l4_off, out.l4_len, kUdp, pseudo_sum(out, kUdp), sound);
        served->outer_udp = 1;
        clear |= RTE_MBUF_F_TX_OUTER_UDP_CKSUM;
    }
    if (outer_ip) {
        write_ip_cksum(m, out, sound);
        served->outer_ip = 1;
        clear |= RTE_MBUF_F_TX_OUTER_IP_CKSUM;
    }
    m->ol_flags = f & ~clear;
    served->to_hw =
        (m->ol_flags & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK |
                        RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM)) != 0;
    return 0;
}

}  // namespace csum
