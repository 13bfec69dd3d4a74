#include "engine/packet_work.h"

#include <algorithm>
#include <cstring>

#include <rte_byteorder.h>
#include <rte_ethdev.h>

#include "csum/crc32c.h"
#include "csum/inet.h"
#include "engine/hw_flags.h"
#include "engine/sctp_crc.h"
#include "engine/verdict_writer.h"
#include "mbuf/segment_read.h"

namespace csum {
namespace {

bool hw_l4_kind(LayerProto p) {
    return p == LayerProto::tcp || p == LayerProto::udp || p == LayerProto::sctp;
}

// Which layer each PMD flag speaks for. A PMD that recognised the tunnel
// (packet_type says so) reports the inner headers in IP/L4 and the outer in
// OUTER_*; one that did not can only have looked at the outer headers.
void map_hw_flags(const rte_mbuf* m, const ParseResult& pr, HwFlag* hw) {
    int first_ip = -1, last_ip = -1, first_l4 = -1, last_l4 = -1;
    for (int i = 0; i < pr.n; ++i) {
        hw[i] = HwFlag::unknown;
        const LayerProto p = pr.layer[i].proto;
        if (p == LayerProto::ipv4) {
            if (first_ip < 0) first_ip = i;
            last_ip = i;
        } else if (hw_l4_kind(p)) {
            if (first_l4 < 0) first_l4 = i;
            last_l4 = i;
        }
    }
    const uint64_t f = m->ol_flags;
    // A PMD that names a tunnel type (packet_type) and reports the outer sums
    // (OUTER_*) parsed the tunnel: IP/L4 speak for the inner headers. One that
    // names a tunnel and says nothing of the outer ones may have checked only
    // those (net_tap: rte_net_get_ptype names GRE and IP-in-IP, its sums are
    // the outermost headers'): its flags are taken for no layer.
    const bool hw_saw_tunnel = pr.tx.tunneled && (m->packet_type & RTE_PTYPE_TUNNEL_MASK);
    if (hw_saw_tunnel && !pmd_saw_outer(f)) return;
    const int ip = hw_saw_tunnel ? last_ip : first_ip;
    const int l4 = hw_saw_tunnel ? last_l4 : first_l4;
    if (ip >= 0) hw[ip] = ip_flag(f);
    // A PMD sums an L4 header with the IP header's addresses: where a source
    // route or routing header names another final destination, its word (GOOD
    // or BAD) is about the wrong pseudo-header, and software decides.
    if (l4 >= 0 && pseudo_addresses_in_header(pr.layer[l4])) hw[l4] = l4_flag(f);
    if (hw_saw_tunnel) {
        if (first_ip >= 0 && first_ip != last_ip && (f & RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD))
            hw[first_ip] = HwFlag::bad;
        if (first_l4 >= 0 && first_l4 != last_l4 && pr.layer[first_l4].proto == LayerProto::udp)
            hw[first_l4] = outer_l4_flag(f);
    }
}

uint16_t load16(const rte_mbuf* m, uint32_t off) {
    uint16_t v = 0;
    uint8_t buf[2];
    if (const void* p = read_bytes(m, off, 2, buf)) std::memcpy(&v, p, 2);
    return v;
}

bool ipv4_header_ok(const rte_mbuf* m, const ParsedLayer& l, uint64_t& bytes) {
    uint8_t buf[60];
    const void* h = read_bytes(m, l.off, l.len, buf);
    bytes += l.len;
    return h != nullptr && ipv4_hdr_cksum_ok(h, l.len);
}

}  // namespace

void PacketWork::skip_all() {
    trusted = true;
    for (int i = 0; i < pr.n; ++i)
        status[i] = pr.layer[i].preset ? pr.layer[i].status : LayerStatus::skipped;
}

void PacketWork::verify(const RxPortPolicy& rx, const PacketVerdict* in_verdict) {
    HwFlag hw[kMaxParsedLayers];
    map_hw_flags(m, pr, hw);
    const bool have_complete =
        rx.complete_in_verdict && in_verdict->ip_summed == IpSummed::complete && pr.l3_off != 0;
    bool under_bad_ip = false;
    for (int i = 0; i < pr.n; ++i) {
        const ParsedLayer& l = pr.layer[i];
        LayerStatus& st = status[i];
        if (under_bad_ip) {  // a bad IPv4 header stops the walk
            st = LayerStatus::unverifiable;
            continue;
        }
        if (l.preset) {
            st = l.status;
            if (l.proto == LayerProto::ipv4 && st == LayerStatus::malformed) under_bad_ip = true;
            continue;
        }
        if (!(rx.verify_mask & (1u << static_cast<unsigned>(l.proto)))) {
            st = LayerStatus::skipped;  // this port's policy leaves it unchecked
            continue;
        }
        switch (hw[i]) {
            case HwFlag::good:
            case HwFlag::bad:
            case HwFlag::none:  // NONE: intact; filled before TX
                st = status_of(hw[i]);
                break;
            case HwFlag::unknown:
                if (l.proto == LayerProto::ipv4) {
                    st = ipv4_header_ok(m, l, stats.sum_bytes) ? LayerStatus::good
                                                               : LayerStatus::bad;
                } else if (l.proto == LayerProto::sctp) {
                    stats.crc_bytes += l.len;
                    st = sctp_crc(m, l.off, l.len) == sctp_stored_crc(m, l.field_off)
                             ? LayerStatus::good
                             : LayerStatus::bad;
                } else {
                    if (!region.valid()) {
                        const bool ok = have_complete
                                            ? region.from_complete(in_verdict->csum, pr.l3_off,
                                                                   l.off, l.off + l.len)
                                            : region.compute(l.off, l.off + l.len);
                        if (!ok) {
                            st = LayerStatus::unverifiable;
                            break;
                        }
                    }
                    uint32_t s;
                    if (!region.sum_of(l.off, l.len, &s)) {
                        st = LayerStatus::unverifiable;
                        break;
                    }
                    const uint32_t pseudo = layer_pseudo_sum(m, l);
                    if (cksum_sum_ok(sum_add(s, pseudo))) {
                        st = LayerStatus::good;
                    } else {
                        // A local stack's CHECKSUM_PARTIAL leaves the folded pseudo-header sum.
                        const bool partial =
                            l.pseudo_proto != 0 && load16(m, l.field_off) == sum_fold(pseudo);
                        st = partial ? LayerStatus::partial : LayerStatus::bad;
                    }
                }
                break;
        }
        if (l.proto == LayerProto::ipv4 && st == LayerStatus::bad) under_bad_ip = true;
    }
}

void PacketWork::fill(const TxPortPolicy& tx, bool fill_everything) {
    bool target[kMaxParsedLayers];
    int outermost_sum = -1;
    for (int i = 0; i < pr.n; ++i) {
        const ParsedLayer& l = pr.layer[i];
        const bool fixable = !(l.preset && (l.status == LayerStatus::malformed ||
                                            l.status == LayerStatus::unverifiable)) &&
                             l.proto != LayerProto::nvme_hdgst && l.proto != LayerProto::nvme_ddgst;
        const LayerStatus s = status[i];
        target[i] = fixable && (fill_everything || s == LayerStatus::partial ||
                                s == LayerStatus::illegal || s == LayerStatus::skipped);
        if (target[i] && outermost_sum < 0 && is_sum_l4(l.proto)) outermost_sum = i;
    }

    // Hardware does what it can for an untunneled packet; software does the rest.
    // DPDK's pseudo-header preparation reads the IPv6 header's next header and
    // payload length, which are wrong for L4 behind extension headers, and
    // its addresses, which are wrong where an IPv4 source route names another
    // final destination; devices sum the L4 bytes to the frame's end (net_tap
    // does), which is wrong where a trailer follows the IP packet.
    auto l4_offloadable = [&](const ParsedLayer& l) {
        return !(pr.tx.ipv6 && pr.tx.l3_len != 40) && pseudo_addresses_in_header(l) &&
               l.off + l.len == m->pkt_len;
    };
    if (!pr.tx.tunneled && tx.offloads != 0) {
        bool l4_offloaded = false;
        for (int i = 0; i < pr.n; ++i) {
            if (!target[i]) continue;
            const LayerProto p = pr.layer[i].proto;
            uint64_t flag = 0;
            if (p == LayerProto::ipv4 && (tx.offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM))
                flag = RTE_MBUF_F_TX_IP_CKSUM;
            else if (p == LayerProto::tcp && (tx.offloads & RTE_ETH_TX_OFFLOAD_TCP_CKSUM))
                flag = RTE_MBUF_F_TX_TCP_CKSUM;
            else if (p == LayerProto::udp && (tx.offloads & RTE_ETH_TX_OFFLOAD_UDP_CKSUM))
                flag = RTE_MBUF_F_TX_UDP_CKSUM;
            else if (p == LayerProto::sctp && (tx.offloads & RTE_ETH_TX_OFFLOAD_SCTP_CKSUM))
                flag = RTE_MBUF_F_TX_SCTP_CKSUM;
            const bool l4 = p != LayerProto::ipv4;
            // One L4 checksum at most, and only the one l2/l3/l4_len describe.
            if (flag == 0 || (l4 && (!l4_offloadable(pr.layer[i]) || l4_offloaded ||
                                     pr.layer[i].off != uint32_t{pr.tx.l2_len} + pr.tx.l3_len)))
                continue;
            l4_offloaded = l4_offloaded || l4;
            m->ol_flags |= flag | (pr.tx.ipv4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6);
            m->l2_len = pr.tx.l2_len;
            m->l3_len = pr.tx.l3_len;
            m->l4_len = pr.tx.l4_len;
            status[i] = LayerStatus::offloaded;
            target[i] = false;
            ++stats.hw_offloaded;
            if (i == outermost_sum) outermost_sum = -1;
        }
    }

    const ParsedLayer* outer = outermost_sum >= 0 ? &pr.layer[outermost_sum] : nullptr;
    if (outer &&
        !(region.valid() && region.base() <= outer->off && outer->off + outer->len <= region.end()))
        region.compute(outer->off, outer->off + outer->len);

    // Innermost first: an outer sum covers the inner checksum fields.
    bool changed_inside = false;
    for (int i = pr.n - 1; i >= 0; --i) {
        const ParsedLayer& l = pr.layer[i];
        if (l.proto == LayerProto::nvme_hdgst || l.proto == LayerProto::nvme_ddgst)
            continue;  // the tracker's
        // An outer sum covering a field just written must follow it; an IPv4
        // header's sum covers only the header, never what it carries.
        const bool dependent =
            changed_inside && status[i] == LayerStatus::good && l.proto != LayerProto::ipv4;
        if (!target[i] && !dependent) continue;
        if (l.proto == LayerProto::ipv4) {
            uint8_t buf[60];
            const void* h = read_bytes(m, l.off, l.len, buf);
            if (h == nullptr) continue;
            const uint16_t old_word = load16(m, l.field_off);
            const uint16_t new_word = ipv4_hdr_cksum(h, l.len);
            write_value(m, l.field_off, new_word);
            region.replace_word(l.field_off, old_word, new_word);
        } else if (l.proto == LayerProto::sctp) {
            const uint16_t old_lo = load16(m, l.field_off), old_hi = load16(m, l.field_off + 2);
            stats.crc_bytes += l.len;
            const uint32_t crc = rte_cpu_to_le_32(sctp_crc(m, l.off, l.len));
            write_value(m, l.field_off, crc);
            region.replace_word(l.field_off, old_lo, load16(m, l.field_off));
            region.replace_word(l.field_off + 2, old_hi, load16(m, l.field_off + 2));
        } else {
            uint32_t s;
            if (!region.valid() || !region.sum_of(l.off, l.len, &s)) {
                if (!region.compute(l.off, l.off + l.len) || !region.sum_of(l.off, l.len, &s))
                    continue;
            }
            const uint16_t old_word = load16(m, l.field_off);
            const uint32_t pseudo = layer_pseudo_sum(m, l);
            const uint32_t total = sum_add(sum_sub(s, old_word), pseudo);
            const uint16_t new_word =
                l.proto == LayerProto::udp ? udp_cksum_finish(total) : cksum_finish(total);
            write_value(m, l.field_off, new_word);
            region.replace_word(l.field_off, old_word, new_word);
        }
        changed_inside = true;
        if (target[i]) {
            status[i] = LayerStatus::filled;
            ++stats.sw_filled;
        }
    }
}

void PacketWork::write_verdict(PacketVerdict* v) const {
    csum::write_verdict(v, pr.n, pr.error, trusted, [&](int i) {
        const ParsedLayer& l = pr.layer[i];
        return VerdictLayer{l.proto, status[i], l.off, l.field_off};
    });
}

}  // namespace csum
