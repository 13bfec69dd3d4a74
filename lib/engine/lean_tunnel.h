// The lean path for VXLAN and GENEVE (classify_tunnel's shapes): the walker's
// statuses, bytes and verdicts, with no parse result. The inner L4 region is
// summed once; the outer UDP sum is that sum plus the header bytes between
// the two L4 headers (CHECKSUM_COMPLETE arithmetic: every header here is an
// even number of bytes, so the inner sum needs no byte swap). Tunnelled
// packets are never handed to TX offload, as the walker never hands them.
#pragma once

#include "engine/lean_path.h"
#include "parse/classify_tunnel.h"

namespace csum {

// Statuses in the walker's layer order: outer IPv4, outer UDP, inner IPv4,
// inner L4 (the IPv4 ones unused for IPv6).
struct TunnelOutcome {
    LayerStatus oip, oudp, iip, il4;
    bool drop;
};

namespace lean_detail {

// The pseudo-header sum: IPv4 or IPv6 addresses at `ip`, protocol, length.
inline uint32_t pseudo_sum(const uint8_t* ip, bool v6, uint8_t proto, uint32_t len) {
    return v6 ? partial_sum_fixed<32>(ip + 8, bswap16(len >> 16) + bswap16(len) + bswap16(proto))
              : partial_sum_fixed<8>(ip + 12, bswap16(proto) + bswap16(len));
}

// Writes a field into the packet and into the header copy the sums read.
template <typename T>
inline void put_both(rte_mbuf* m, const TunnelShape& s, uint32_t off, T v) {
    std::memcpy(s.bytes + off, &v, sizeof v);
    if (s.in_place == nullptr) write_value(m, off, v);
}

inline LayerStatus ipv4_status(HwFlag h, const uint8_t* ip, Tally& t) {
    if (h != HwFlag::unknown) return status_of(h);
    t.sum_bytes += 20;
    return ipv4_hdr_cksum_ok(ip, 20) ? LayerStatus::good : LayerStatus::bad;
}

// A TCP/UDP checksum judged from its region's sum and pseudo-header sum.
inline LayerStatus l4_status(uint32_t region, uint32_t pseudo, const uint8_t* field) {
    if (cksum_sum_ok(sum_add(region, pseudo))) return LayerStatus::good;
    // A local stack's CHECKSUM_PARTIAL leaves the folded pseudo-header sum.
    return load16(field) == sum_fold(pseudo) ? LayerStatus::partial : LayerStatus::bad;
}

}  // namespace lean_detail

template <Mode kMode>
inline TunnelOutcome lean_tunnel_work(const LeanBurst& b, rte_mbuf* m, const TunnelShape& s,
                                      Tally& t) {
    using namespace lean_detail;
    constexpr bool verifies = kMode == Mode::verify || kMode == Mode::csum;
    constexpr bool fills = kMode == Mode::fill || kMode == Mode::csum;
    const uint8_t* oip = s.bytes + 14;
    const uint8_t* iip = s.bytes + s.il3;
    const bool ov4 = !s.ov6, iv4 = !s.iv6;
    const uint32_t ofield = s.ol4 + 6u, ifield = s.il4 + uint32_t{s.ifield};
    // The inner L4 region's sum, read once, on demand.
    uint32_t inner = 0;
    bool have_inner = false;
    auto inner_sum = [&] {
        if (!have_inner) {
            if (s.whole) {
                const uint8_t* p = s.bytes + s.il4;
                inner =
                    s.il4_len <= kSmallSum ? small_sum(p, s.il4_len) : partial_sum(p, s.il4_len);
            } else {
                partial_sum_mbuf(m, s.il4, s.il4_len, &inner);
            }
            t.sum_bytes += s.il4_len;
            have_inner = true;
        }
        return inner;
    };
    // The outer UDP region's sum: its headers up to the inner L4, then that.
    auto outer_sum = [&] {
        const uint32_t hdr = s.il4 - s.ol4;
        t.sum_bytes += hdr;
        return sum_add(small_sum(s.bytes + s.ol4, hdr), inner_sum());
    };
    auto opseudo = [&] { return pseudo_sum(oip, s.ov6, kShapeUdp, s.olen); };
    auto ipseudo = [&] { return pseudo_sum(iip, s.iv6, s.iproto, s.il4_len); };

    LayerStatus oip_st = LayerStatus::skipped, iip_st = LayerStatus::skipped;
    LayerStatus oudp_st = s.ocsum ? LayerStatus::skipped : s.ozero;
    LayerStatus il4_st = LayerStatus::skipped;
    if (verifies && !b.trusted) {
        // Which layer each PMD flag speaks for, as map_hw_flags decides: a
        // PMD that saw the tunnel reports the inner headers in IP/L4 and the
        // outer in OUTER_*; one that did not, the first IPv4 and the outer UDP.
        const uint64_t f = m->ol_flags;
        HwFlag h_oip = HwFlag::unknown, h_oudp, h_iip = HwFlag::unknown, h_il4 = HwFlag::unknown;
        if (m->packet_type & RTE_PTYPE_TUNNEL_MASK) {
            h_il4 = l4_flag(f);
            h_oudp = outer_l4_flag(f);
            if (iv4) {
                h_iip = ip_flag(f);
                if (ov4 && (f & RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD)) h_oip = HwFlag::bad;
            } else if (ov4) {
                h_oip = ip_flag(f);
            }
        } else {
            h_oudp = l4_flag(f);
            if (ov4)
                h_oip = ip_flag(f);
            else if (iv4)
                h_iip = ip_flag(f);
        }
        // Outermost first; a bad IPv4 header leaves what follows unverifiable.
        bool under_bad = false;
        if (ov4 && b.verify_ip) {
            oip_st = ipv4_status(h_oip, oip, t);
            under_bad = oip_st == LayerStatus::bad;
        }
        if (under_bad) {
            oudp_st = LayerStatus::unverifiable;
        } else if (s.ocsum && b.verify_l4[1]) {
            oudp_st = h_oudp != HwFlag::unknown
                          ? status_of(h_oudp)
                          : l4_status(outer_sum(), opseudo(), s.bytes + ofield);
        }
        if (iv4 && !under_bad) {
            if (b.verify_ip) {
                iip_st = ipv4_status(h_iip, iip, t);
                under_bad = iip_st == LayerStatus::bad;
            }
        } else if (iv4) {
            iip_st = LayerStatus::unverifiable;
        }
        if (under_bad) {
            il4_st = LayerStatus::unverifiable;
        } else if (b.verify_l4[s.il4i]) {
            il4_st = h_il4 != HwFlag::unknown ? status_of(h_il4)
                                              : l4_status(inner_sum(), ipseudo(), s.bytes + ifield);
        }
    }
    const bool bad = oip_st == LayerStatus::bad || oudp_st == LayerStatus::bad ||
                     oudp_st == LayerStatus::illegal || iip_st == LayerStatus::bad ||
                     il4_st == LayerStatus::bad;
    const bool drop = b.drop_bad && bad;
    if (b.trusted) ++t.skipped_trusted;
    if (fills && !drop) {
        // Innermost first, all in software: csum mode fills what verification
        // left partial, illegal or skipped; an outer UDP sum that was good
        // follows a field written inside it (a zero one stays absent).
        auto wanted = [](LayerStatus st) {
            return kMode == Mode::fill || st == LayerStatus::partial ||
                   st == LayerStatus::illegal || st == LayerStatus::skipped;
        };
        bool changed = false;
        if (wanted(il4_st)) {
            const uint32_t sum = inner_sum();
            const uint16_t old = load16(s.bytes + ifield);
            const uint32_t total = sum_add(sum_sub(sum, old), ipseudo());
            const uint16_t w =
                s.iproto == kShapeUdp ? udp_cksum_finish(total) : cksum_finish(total);
            put_both(m, s, ifield, w);
            inner = sum_add(sum_sub(sum, old), w);
            il4_st = LayerStatus::filled;
            ++t.sw_filled;
            changed = true;
        }
        if (iv4 && wanted(iip_st)) {
            put_both(m, s, s.il3 + 10u, ipv4_hdr_cksum(iip, 20));
            iip_st = LayerStatus::filled;
            ++t.sw_filled;
            changed = true;
        }
        const bool fill_oudp = wanted(oudp_st);
        if (fill_oudp || (changed && oudp_st == LayerStatus::good)) {
            const uint16_t old = load16(s.bytes + ofield);
            const uint32_t total = sum_add(sum_sub(outer_sum(), old), opseudo());
            put_both(m, s, ofield, udp_cksum_finish(total));
            if (fill_oudp) oudp_st = LayerStatus::filled, ++t.sw_filled;
        }
        if (ov4 && wanted(oip_st)) {
            put_both(m, s, 24u, ipv4_hdr_cksum(oip, 20));
            oip_st = LayerStatus::filled;
            ++t.sw_filled;
        }
    }
    return {oip_st, oudp_st, iip_st, il4_st, drop};
}

// The tunnel packets' verdicts, grouped per burst by outcome as the plain
// lean path's are: written once by the one verdict writer, copied to each
// packet, counted once per group. An outcome with a PARTIAL layer names
// offsets, so it is written and counted per packet.
class TunnelOutcomes {
  public:
    // Writes m's verdict; counts it into `t` when it is not grouped.
    void record(const LeanBurst& b, const TunnelShape& s, const TunnelOutcome& o, PacketVerdict* v,
                Tally& t) {
        const bool partial = o.oudp == LayerStatus::partial || o.il4 == LayerStatus::partial ||
                             o.oip == LayerStatus::partial || o.iip == LayerStatus::partial;
        const uint32_t key = uint32_t(s.ov6) | uint32_t(s.iv6) << 1 | uint32_t(s.il4i) << 2 |
                             uint32_t(o.oip) << 3 | uint32_t(o.oudp) << 7 | uint32_t(o.iip) << 11 |
                             uint32_t(o.il4) << 15 | uint32_t(o.drop) << 19 |
                             uint32_t(b.trusted) << 20;
        if (likely(!partial)) {
            Slot* sl = n_ != 0 && slot_[last_].key == key ? &slot_[last_] : find(key);
            if (likely(sl != nullptr)) {
                if (sl->count == 0) write(&sl->v, b, s, o), sl->drop = o.drop;
                ++sl->count;
                sl->bytes += s.pkt_len;
                std::memcpy(v, &sl->v, sizeof *v);
                return;
            }
        }
        VerdictLayer layers[4];
        const int n = layers_of(s, o, layers);
        write_verdict(v, n, ParseError::none, b.trusted, [&](int i) { return layers[i]; });
        t.count(
            *v, n, [&](int i) { return layers[i]; }, s.pkt_len,
            o.drop ? static_cast<int>(DropReason::bad_checksum) : -1);
    }

    void flush_into(EngineStats& st) {
        for (int i = 0; i < n_; ++i) {
            const Slot& sl = slot_[i];
            count_verdict(
                st, sl.v, sl.v.n_layers,
                [&](int k) {
                    const LayerVerdict l = sl.v.layer(k);
                    return VerdictLayer{l.proto, l.status, 0, 0};
                },
                sl.count, sl.bytes, sl.drop ? static_cast<int>(DropReason::bad_checksum) : -1);
        }
        n_ = 0, last_ = 0;
    }

  private:
    struct Slot {
        uint32_t key;
        bool drop;
        uint32_t count;
        uint64_t bytes;
        PacketVerdict v;
    };
    static constexpr int kSlots = 8;  // more outcomes in one burst are counted per packet
    Slot slot_[kSlots];
    int n_ = 0, last_ = 0;

    Slot* find(uint32_t key) {
        for (int i = 0; i < n_; ++i)
            if (slot_[i].key == key) return &slot_[last_ = i];
        if (n_ == kSlots) return nullptr;
        Slot& sl = slot_[last_ = n_++];
        sl.key = key, sl.count = 0, sl.bytes = 0;
        return &sl;
    }

    static int layers_of(const TunnelShape& s, const TunnelOutcome& o, VerdictLayer* out) {
        int n = 0;
        if (!s.ov6) out[n++] = {LayerProto::ipv4, o.oip, 14, 24};
        out[n++] = {LayerProto::udp, o.oudp, s.ol4, s.ol4 + 6u};
        if (!s.iv6) out[n++] = {LayerProto::ipv4, o.iip, s.il3, s.il3 + 10u};
        out[n++] = {lean_l4_proto(s.il4i), o.il4, s.il4, s.il4 + uint32_t{s.ifield}};
        return n;
    }
    static void write(PacketVerdict* v, const LeanBurst& b, const TunnelShape& s,
                      const TunnelOutcome& o) {
        VerdictLayer layers[4];
        const int n = layers_of(s, o, layers);
        write_verdict(v, n, ParseError::none, b.trusted, [&](int i) { return layers[i]; });
        std::memset(v->layers + n, 0, kMaxVerdictLayers - n);
    }
};

// Classifies and handles one packet if it has a tunnel shape: its verdict
// written, its counts taken. False: the packet is the walker's.
template <Mode kMode>
[[gnu::always_inline]] inline bool lean_tunnel_packet(const LeanBurst& b, rte_mbuf* m,
                                                      const ShapeConfig& sc, int verdict_off,
                                                      Tally& t, TunnelOutcomes& out, bool* keep) {
    alignas(16) uint8_t gather[kTunnelGather];
    TunnelShape s;
    if (!classify_tunnel(m, sc, gather, &s)) return false;
    const TunnelOutcome o = lean_tunnel_work<kMode>(b, m, s, t);
    out.record(b, s, o, verdict_of(m, verdict_off), t);
    *keep = !o.drop;
    return true;
}

}  // namespace csum
