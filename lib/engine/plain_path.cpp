#include "engine/plain_path.h"

#include <cstring>

#include <rte_byteorder.h>
#include <rte_ethdev.h>

#include "csum/inet.h"
#include "engine/sctp_crc.h"

namespace csum {
namespace {

inline uint16_t be16(const uint8_t* p) {
    return static_cast<uint16_t>(p[0] << 8 | p[1]);
}
inline uint16_t bswap16(uint32_t v) {
    return static_cast<uint16_t>(((v & 0xFF) << 8) | ((v >> 8) & 0xFF));
}
inline uint16_t load16(const uint8_t* p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}

bool tunnel_or_nvme_port(const ParserConfig& c, uint8_t proto, uint16_t sport, uint16_t dport) {
    if (proto == 6)
        return c.nvme_ports.n != 0 &&
               (c.nvme_ports.contains(sport) || c.nvme_ports.contains(dport));
    return c.vxlan_ports.contains(dport) || c.geneve_ports.contains(dport) ||
           c.gre_udp_ports.contains(dport) || c.sctp_udp_ports.contains(dport);
}

LayerStatus from_flags(uint64_t flags, uint64_t mask, uint64_t good, uint64_t bad, bool* known) {
    const uint64_t f = flags & mask;
    *known = f != 0;
    if (f == good) return LayerStatus::good;
    if (f == bad) return LayerStatus::bad;
    return LayerStatus::partial;  // NONE: intact, not filled
}

bool chain_matches_descriptor(const rte_mbuf* m) {
    uint32_t bytes = 0, segs = 0;
    for (const rte_mbuf* s = m; s != nullptr && segs <= RTE_MBUF_MAX_NB_SEGS; s = s->next)
        bytes += s->data_len, ++segs;
    return segs == m->nb_segs && bytes >= m->pkt_len;
}

// The L4 region's sum: in place, or walked across the chain.
uint32_t l4_sum(const rte_mbuf* m, const uint8_t* th, uint32_t l4, uint32_t len, bool chained) {
    if (!chained) return partial_sum(th, len);
    uint32_t s = 0;
    partial_sum_mbuf(m, l4, len, &s);  // the chain was checked to hold pkt_len bytes
    return s;
}

// SCTP chunks walked with their lengths checked, as the general parser does.
bool sctp_chunks_ok(const uint8_t* sh, uint32_t len) {
    for (uint32_t pos = 12; pos < len;) {
        if (pos + 4 > len) return false;
        const uint32_t clen = be16(sh + pos + 2);
        if (clen < 4 || pos + clen > len) return false;
        pos += (clen + 3) & ~3u;
    }
    return true;
}

}  // namespace

PlainOutcome process_plain(const EngineConfig& cfg, const RxPortPolicy& rx, const TxPortPolicy& tx,
                           rte_mbuf* m, PacketVerdict* v, Tally& t) noexcept {
    if (rx.trusted || rx.complete_in_verdict || rx.verify_mask != 0xFFFF ||
        (m->packet_type & RTE_PTYPE_TUNNEL_MASK))
        return PlainOutcome::not_plain;
    // A chain is fine if it is what its descriptor says and the headers sit
    // in the first segment; the L4 sum then walks the chain.
    const bool chained = m->next != nullptr;
    if (!chained && (m->nb_segs != 1 || m->data_len < m->pkt_len)) return PlainOutcome::not_plain;
    if (chained && !chain_matches_descriptor(m)) return PlainOutcome::not_plain;
    uint8_t* p = rte_pktmbuf_mtod(m, uint8_t*);
    const uint32_t len = m->pkt_len;
    const uint32_t seg = m->data_len < len ? m->data_len : len;  // header bytes at hand
    if (seg < 14 + 20 + 8) return PlainOutcome::not_plain;
    uint8_t* ip = p + 14;
    uint32_t l4_len, pseudo = 0;
    uint8_t proto;
    bool v6;
    if (be16(p + 12) == 0x0800) {
        const uint32_t total = be16(ip + 2);
        if (ip[0] != 0x45 || total < 28 || 14 + total > len || (be16(ip + 6) & 0x3FFF))
            return PlainOutcome::not_plain;
        proto = ip[9], l4_len = total - 20, v6 = false;
    } else if (be16(p + 12) == 0x86DD) {
        const uint32_t plen = be16(ip + 4);
        if (seg < 14 + 40 + 8 || (ip[0] >> 4) != 6 || plen < 8 || 54 + plen > len)
            return PlainOutcome::not_plain;
        proto = ip[6], l4_len = plen, v6 = true;
    } else {
        return PlainOutcome::not_plain;
    }
    const uint32_t l4 = v6 ? 54 : 34;
    uint8_t* th = p + l4;
    uint32_t l4_hdr, field;
    if (proto == 6) {
        if (l4_len < 20 || l4 + 20 > seg) return PlainOutcome::not_plain;
        l4_hdr = (th[12] >> 4) * 4u;
        if (l4_hdr < 20 || l4_hdr > l4_len) return PlainOutcome::not_plain;
        field = 16;
    } else if (proto == 17) {
        if (l4 + 8 > seg || be16(th + 4) != l4_len || load16(th + 6) == 0)
            return PlainOutcome::not_plain;
        l4_hdr = 8, field = 6;
    } else if (proto == 132) {
        if (chained || l4_len < 12 || !sctp_chunks_ok(th, l4_len)) return PlainOutcome::not_plain;
        l4_hdr = 12, field = 8;
    } else {
        return PlainOutcome::not_plain;
    }
    const bool sctp = proto == 132;
    if (!sctp) {
        if (tunnel_or_nvme_port(cfg.parser, proto, be16(th), be16(th + 2)))
            return PlainOutcome::not_plain;
        pseudo = v6 ? partial_sum_fixed<32>(
                          ip + 8, bswap16(l4_len >> 16) + bswap16(l4_len) + bswap16(proto))
                    : partial_sum_fixed<8>(ip + 12,
                                           bswap16(proto) + bswap16(l4_len));  // src, dst adjacent
    }

    // From here the packet is ours: judge, fill, set the verdict, count.
    const LayerProto l4_proto = proto == 6    ? LayerProto::tcp
                                : proto == 17 ? LayerProto::udp
                                              : LayerProto::sctp;
    const Mode mode = cfg.mode;
    const bool verifies = mode == Mode::verify || mode == Mode::csum;
    LayerStatus ip_st = LayerStatus::skipped, l4_st = LayerStatus::skipped;
    uint32_t data_sum = 0;
    bool have_sum = false;
    if (verifies) {
        bool known;
        if (!v6) {
            ip_st = from_flags(m->ol_flags, RTE_MBUF_F_RX_IP_CKSUM_MASK,
                               RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_IP_CKSUM_BAD, &known);
            if (!known) {
                ip_st = ipv4_hdr_cksum_ok(ip, 20) ? LayerStatus::good : LayerStatus::bad;
                t.sum_bytes += 20;
            }
        }
        if (ip_st == LayerStatus::bad) {
            l4_st = LayerStatus::unverifiable;  // a bad IPv4 header stops the walk
        } else {
            l4_st = from_flags(m->ol_flags, RTE_MBUF_F_RX_L4_CKSUM_MASK,
                               RTE_MBUF_F_RX_L4_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_BAD, &known);
            if (!known && sctp) {
                t.crc_bytes += l4_len;
                l4_st = sctp_crc(m, l4, l4_len) == sctp_stored_crc(m, l4 + 8) ? LayerStatus::good
                                                                              : LayerStatus::bad;
            } else if (!known) {
                data_sum = l4_sum(m, th, l4, l4_len, chained);
                have_sum = true;
                t.sum_bytes += l4_len;
                if (cksum_sum_ok(sum_add(data_sum, pseudo)))
                    l4_st = LayerStatus::good;
                else
                    l4_st = load16(th + field) == sum_fold(pseudo) ? LayerStatus::partial
                                                                   : LayerStatus::bad;
            }
        }
    }
    const bool bad = ip_st == LayerStatus::bad || l4_st == LayerStatus::bad;
    const bool drop = rx.drop_bad && bad;
    const bool fills = mode == Mode::fill || mode == Mode::csum;
    if (fills && !drop) {
        // csum mode fills what verification left partial, as the walker does.
        const bool fill_ip = !v6 && (mode == Mode::fill || ip_st == LayerStatus::partial);
        const bool fill_l4 = mode == Mode::fill || l4_st == LayerStatus::partial;
        const bool l4_hw = tx.offloads & (proto == 6    ? RTE_ETH_TX_OFFLOAD_TCP_CKSUM
                                          : proto == 17 ? RTE_ETH_TX_OFFLOAD_UDP_CKSUM
                                                        : RTE_ETH_TX_OFFLOAD_SCTP_CKSUM);
        const bool ip_hw = tx.offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
        if ((fill_l4 && l4_hw) || (fill_ip && ip_hw)) {
            m->l2_len = 14, m->l3_len = v6 ? 40 : 20, m->l4_len = static_cast<uint8_t>(l4_hdr);
            m->ol_flags |= v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4;
        }
        if (fill_l4) {
            if (l4_hw) {
                m->ol_flags |= proto == 6    ? RTE_MBUF_F_TX_TCP_CKSUM
                               : proto == 17 ? RTE_MBUF_F_TX_UDP_CKSUM
                                             : RTE_MBUF_F_TX_SCTP_CKSUM;
                l4_st = LayerStatus::offloaded;
                ++t.hw_offloaded;
            } else if (sctp) {
                t.crc_bytes += l4_len;
                const uint32_t crc = rte_cpu_to_le_32(sctp_crc(m, l4, l4_len));
                std::memcpy(th + 8, &crc, 4);
                l4_st = LayerStatus::filled;
                ++t.sw_filled;
            } else {
                if (!have_sum) data_sum = l4_sum(m, th, l4, l4_len, chained), t.sum_bytes += l4_len;
                const uint16_t old_word = load16(th + field);
                const uint32_t total = sum_add(sum_sub(data_sum, old_word), pseudo);
                const uint16_t w = proto == 17 ? udp_cksum_finish(total) : cksum_finish(total);
                std::memcpy(th + field, &w, 2);
                l4_st = LayerStatus::filled;
                ++t.sw_filled;
            }
        }
        if (fill_ip) {
            if (ip_hw) {
                m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
                ip_st = LayerStatus::offloaded;
                ++t.hw_offloaded;
            } else {
                const uint16_t w = ipv4_hdr_cksum(ip, 20);
                std::memcpy(ip + 10, &w, 2);
                ip_st = LayerStatus::filled;
                ++t.sw_filled;
            }
        }
    }

    // The verdict, as the general path writes it.
    int n = 0;
    if (!v6) v->set_layer(n++, {LayerProto::ipv4, ip_st});
    v->set_layer(n++, {l4_proto, l4_st});
    v->n_layers = static_cast<uint8_t>(n);
    v->error = 0;
    v->csum = v->csum_offset = 0;
    v->csum_level = 0;
    const bool ip_ok = v6 || ip_st == LayerStatus::good || ip_st == LayerStatus::filled ||
                       ip_st == LayerStatus::offloaded;
    const bool l4_ok = l4_st == LayerStatus::good || l4_st == LayerStatus::filled;
    const bool wrong = ip_st == LayerStatus::bad || l4_st == LayerStatus::bad;
    if (l4_st == LayerStatus::offloaded || (l4_st == LayerStatus::partial && !wrong)) {
        v->ip_summed = IpSummed::partial;
        v->csum = static_cast<uint16_t>(l4);
        v->csum_offset = static_cast<uint16_t>(field);
    } else {
        v->ip_summed = ip_ok && l4_ok ? IpSummed::unnecessary : IpSummed::none;
    }
    ++t.packets;
    t.bytes += len;
    if (!v6) ++t.layer[int(LayerProto::ipv4)][int(ip_st)];
    ++t.layer[int(l4_proto)][int(l4_st)];
    ++t.ip_summed[int(v->ip_summed)];
    if (v->ip_summed == IpSummed::unnecessary) ++t.csum_level[0];
    if (drop) ++t.drop[int(DropReason::bad_checksum)];
    return drop ? PlainOutcome::drop_bad : PlainOutcome::forward;
}

}  // namespace csum
