// The lean path for VXLAN and GENEVE (classify_tunnel's shapes): the walker's
// statuses, bytes and verdicts, with no parse result. The inner L4 region is
// summed once; the outer UDP sum is that sum plus the header bytes between
// the two L4 headers (CHECKSUM_COMPLETE arithmetic: every header here is an
// even number of bytes, so the inner sum needs no byte swap). Tunnelled
// packets are never handed to TX offload, as the walker never hands them.
#pragma once

#include <type_traits>

#include "engine/lean_path.h"
#include "engine/verdict_slots.h"
#include "parse/classify_tunnel.h"

namespace csum {

// Statuses in the walker's layer order: outer IPv4, outer UDP, inner IPv4,
// inner L4 (the IPv4 ones unused for IPv6).
struct TunnelOutcome {
    LayerStatus oip, oudp, iip, il4;
    bool drop;
};

namespace lean_detail {

// Header and payload sums as 64-bit integers of 32-bit memory-order words:
// congruent modulo 0xFFFF to the 16-bit word sums, which is all a checksum
// needs (2^16 is 1 modulo 0xFFFF). They add with no carries to track, fold
// once, and a field is taken out or put back by subtracting or adding its
// 16-bit value, wherever it lies in its 32-bit word. A sum of bytes that are
// not all zero stays nonzero, so each fold below is the canonical one the
// walker's arithmetic reaches.
template <uint32_t N>
[[gnu::always_inline]] inline uint64_t fixed_sum(const uint8_t* p) {
    static_assert(N % 4 == 0);
    uint64_t s = 0;
#pragma GCC unroll 16
    for (uint32_t i = 0; i < N; i += 4) {
        uint32_t a;
        std::memcpy(&a, p + i, 4);
        s += a;
    }
    return s;
}
// Any short region: 16 bytes at a time, then what is left.
[[gnu::always_inline]] inline uint64_t region_sum(const uint8_t* p, uint32_t len) {
    uint64_t s = 0;
    for (; len >= 16; len -= 16, p += 16) s += fixed_sum<16>(p);
    if (len & 8) s += fixed_sum<8>(p), p += 8;
    if (len & 4) s += fixed_sum<4>(p), p += 4;
    if (len & 2) s += load16(p), p += 2;
    if (len & 1) s += *p;  // the odd last byte, as the low half of its word
    return s;
}
[[gnu::always_inline]] inline uint16_t fold16(uint64_t s) {
    s = (s & 0xFFFFFFFFu) + (s >> 32);
    s = (s & 0xFFFF) + (s >> 16);
    s = (s & 0xFFFF) + (s >> 16);
    s = (s & 0xFFFF) + (s >> 16);
    return static_cast<uint16_t>(s);
}
// A verified sum: a region with its stored checksum folds to 0xFFFF (or 0),
// that is, sums to 0 modulo 0xFFFF (a multiply and a compare).
[[gnu::always_inline]] inline bool sum_ok(uint64_t s) {
    return mod_ffff_zero(s);
}

// The pseudo-header sum: IPv4 or IPv6 addresses of the header at `ip`. Its
// protocol and length words in memory order are 256 x (proto + len) modulo
// 0xFFFF (a byte swap multiplies a 16-bit word by 256; 2^16 is 1).
[[gnu::always_inline]] inline uint64_t pseudo64(const uint8_t* ip, bool v6, uint8_t proto,
                                                uint32_t len) {
    return (v6 ? fixed_sum<32>(ip + 8) : fixed_sum<8>(ip + 12)) + ((uint64_t{proto} + len) << 8);
}

// Writes a field into the packet and into the header copy the sums read.
template <typename T>
[[gnu::always_inline]] inline void put_both(rte_mbuf* m, const TunnelShape& s, uint32_t off, T v) {
    std::memcpy(s.bytes + off, &v, sizeof v);
    if (s.in_place == nullptr) write_value(m, off, v);
}

// A TCP/UDP checksum judged from its region's sum and pseudo-header sum.
[[gnu::always_inline]] inline LayerStatus l4_status(uint64_t region, uint64_t pseudo,
                                                    const uint8_t* field) {
    if (sum_ok(region + pseudo)) return LayerStatus::good;
    // A local stack's CHECKSUM_PARTIAL leaves the folded pseudo-header sum.
    return load16(field) == fold16(pseudo) ? LayerStatus::partial : LayerStatus::bad;
}

inline constexpr uint64_t kTunnelRxFlags =
    RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK | RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK |
    RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD;
// A tunnel's flags (of kTunnelRxFlags) from a PMD that checked every sum it
// can: the inner IP and L4 ones and the outer UDP one. DPDK has no outer IP
// GOOD, so the outer IPv4 header stays software's. They speak for the inner
// headers only with a tunnel packet_type (tunnel_hw_flags).
inline constexpr uint64_t kTunnelAllGood =
    RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
// The runs' and tunnel_all_good's shortcut: f (masked by kTunnelRxFlags)
// is kTunnelAllGood from a PMD that saw the tunnel.
[[gnu::always_inline]] inline bool pmd_vouches_for_tunnel(uint64_t f, uint32_t ptype) {
    return f == kTunnelAllGood && (ptype & RTE_PTYPE_TUNNEL_MASK) != 0;
}

// Which layer each PMD flag speaks for, as map_hw_flags decides: a PMD that
// saw the tunnel (packet_type) and reports the outer sums (OUTER_*) reports
// the inner headers in IP/L4; one that names a tunnel without them, none
// (it may have checked only the outer ones); one that did not see it, the
// first IPv4 and the outer UDP.
struct TunnelHw {
    HwFlag oip, oudp, iip, il4;
};
[[gnu::always_inline]] inline TunnelHw tunnel_hw_flags(uint64_t f, uint32_t ptype, bool ov4,
                                                       bool iv4) {
    TunnelHw h{HwFlag::unknown, HwFlag::unknown, HwFlag::unknown, HwFlag::unknown};
    if (ptype & RTE_PTYPE_TUNNEL_MASK) {
        if (!pmd_saw_outer(f)) return h;
        h.il4 = l4_flag(f);
        h.oudp = outer_l4_flag(f);
        if (iv4) {
            h.iip = ip_flag(f);
            if (ov4 && (f & RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD)) h.oip = HwFlag::bad;
        } else if (ov4) {
            h.oip = ip_flag(f);
        }
    } else {
        h.oudp = l4_flag(f);
        if (ov4)
            h.oip = ip_flag(f);
        else if (iv4)
            h.iip = ip_flag(f);
    }
    return h;
}

}  // namespace lean_detail

template <Mode kMode>
[[gnu::always_inline]] inline TunnelOutcome lean_tunnel_work(const LeanBurst& b, rte_mbuf* m,
                                                             const TunnelShape& s, Tally& t) {
    using namespace lean_detail;
    constexpr bool verifies = kMode == Mode::verify || kMode == Mode::csum;
    constexpr bool fills = kMode == Mode::fill || kMode == Mode::csum;
    const uint8_t* const p = s.bytes;
    const uint8_t* const oip = p + 14;
    const uint8_t* const iip = p + s.il3;
    const bool ov4 = !s.ov6, iv4 = !s.iv6;
    const uint32_t ofield = s.ol4 + 6u, ifield = s.il4 + uint32_t{s.ifield};
    // Each region read at most once, on demand: the inner L4 region (the
    // payload), the inner IP header, and the bytes from the outer UDP header
    // to it; the outer UDP sum is the three together.
    uint32_t oip_reads = 0;  // outer IPv4 header sums (the other regions: have_*)
    uint64_t inner = 0, ihdr = 0, mid = 0;
    bool have_inner = false, have_ihdr = false, have_mid = false;
    auto inner_sum = [&]() __attribute__((always_inline)) {
        if (!have_inner) {
            if (!s.whole) {
                uint32_t v = 0;
                detail::partial_sum_mbuf_trusted(m, s.il4, s.il4_len, &v);
                inner = v;
            } else {
                inner = s.il4_len <= 128 ? region_sum(p + s.il4, s.il4_len)
                                         : partial_sum(p + s.il4, s.il4_len);
            }
            have_inner = true;
        }
        return inner;
    };
    auto ihdr_sum = [&]() __attribute__((always_inline)) {
        if (!have_ihdr) {
            // Folded to 33 bits: the sums below add it with plain adds (an
            // end-around sum may lie just under 2^64, and a wrap is one off).
            const uint64_t x = iv4 ? adc_words<2>(load32(iip + 16), iip) : adc_words<5>(0, iip);
            ihdr = (x & 0xFFFFFFFFu) + (x >> 32);
            have_ihdr = true;
        }
        return ihdr;
    };
    auto outer_sum = [&]() __attribute__((always_inline)) {
        if (!have_mid) {
            // UDP and tunnel headers (16 bytes), GENEVE options, inner Ethernet.
            mid = fixed_sum<16>(p + s.ol4);
            if (s.opts != 0) mid += region_sum(p + s.ol4 + 16, s.opts);
            if (s.eth) mid += fixed_sum<12>(iip - 14) + load16(iip - 2);
            have_mid = true;
        }
        return mid + ihdr_sum() + inner_sum();
    };
    auto opseudo = [&]() __attribute__((always_inline)) {
        return pseudo64(oip, s.ov6, kShapeUdp, s.olen);
    };
    auto ipseudo = [&]() __attribute__((always_inline)) {
        return pseudo64(iip, s.iv6, s.iproto, s.il4_len);
    };

    LayerStatus oip_st = LayerStatus::skipped, iip_st = LayerStatus::skipped;
    LayerStatus oudp_st = s.ocsum ? LayerStatus::skipped : s.ozero;
    LayerStatus il4_st = LayerStatus::skipped;
    // Outermost first; a bad IPv4 header leaves what follows unverifiable.
    // Compiled twice: with the PMD's flags, and without (all in software).
    auto verify = [&](auto with_flags, const TunnelHw& hw) __attribute__((always_inline)) {
        auto known = [&](HwFlag h) { return with_flags && h != HwFlag::unknown; };
        bool under_bad = false;
        if (ov4 && b.verify_ip) {
            if (known(hw.oip)) {
                oip_st = status_of(hw.oip);
            } else {
                ++oip_reads;
                oip_st = sum_ok(fixed_sum<20>(oip)) ? LayerStatus::good : LayerStatus::bad;
            }
            under_bad = oip_st == LayerStatus::bad;
        }
        if (under_bad)
            oudp_st = LayerStatus::unverifiable;
        else if (s.ocsum && b.verify_l4[1])
            oudp_st =
                known(hw.oudp) ? status_of(hw.oudp) : l4_status(outer_sum(), opseudo(), p + ofield);
        if (iv4) {
            if (under_bad) {
                iip_st = LayerStatus::unverifiable;
            } else if (b.verify_ip) {
                iip_st = known(hw.iip)        ? status_of(hw.iip)
                         : sum_ok(ihdr_sum()) ? LayerStatus::good
                                              : LayerStatus::bad;
                under_bad = iip_st == LayerStatus::bad;
            }
        }
        if (under_bad)
            il4_st = LayerStatus::unverifiable;
        else if (b.verify_l4[s.il4i])
            il4_st =
                known(hw.il4) ? status_of(hw.il4) : l4_status(inner_sum(), ipseudo(), p + ifield);
    };
    if (verifies && !b.trusted) {
        const uint64_t f = m->ol_flags;
        if (f & kTunnelRxFlags)
            verify(std::true_type{}, tunnel_hw_flags(f, m->packet_type, ov4, iv4));
        else
            verify(std::false_type{}, TunnelHw{});
    }
    const bool bad = oip_st == LayerStatus::bad || oudp_st == LayerStatus::bad ||
                     oudp_st == LayerStatus::illegal || iip_st == LayerStatus::bad ||
                     il4_st == LayerStatus::bad;
    const bool drop = b.drop_bad && bad;
    if (b.trusted) ++t.skipped_trusted;
    if (fills && !drop) {
        // Innermost first, all in software: csum mode fills what verification
        // left partial, illegal or skipped; an outer UDP sum that was good
        // follows a field written inside it (a zero one stays absent). Each
        // write is carried into the sums that cover it.
        auto wanted = [](LayerStatus st) {
            return kMode == Mode::fill || st == LayerStatus::partial ||
                   st == LayerStatus::illegal || st == LayerStatus::skipped;
        };
        bool changed = false;
        if (wanted(il4_st)) {
            // The old field out as its complement in: a kernel's sum may be
            // folded below the field's value, and a 64-bit wrap is off by one.
            const uint64_t sum = inner_sum() + (0xFFFFu - load16(p + ifield));
            const uint16_t folded = fold16(sum + ipseudo());
            const uint16_t w =
                static_cast<uint16_t>(s.iproto == kShapeUdp && folded == 0xFFFF ? 0xFFFF : ~folded);
            put_both(m, s, ifield, w);
            inner = sum + w;
            il4_st = LayerStatus::filled;
            ++t.sw_filled;
            changed = true;
        }
        if (iv4 && wanted(iip_st)) {
            // The field out as its complement in, as the L4 one: ihdr may
            // have wrapped (an end-around carry) to below the field's value.
            const uint64_t sum = ihdr_sum() + (0xFFFFu - load16(iip + 10));
            const uint16_t w = static_cast<uint16_t>(~fold16(sum));
            put_both(m, s, s.il3 + 10u, w);
            ihdr = sum + w;
            iip_st = LayerStatus::filled;
            ++t.sw_filled;
            changed = true;
        }
        const bool fill_oudp = wanted(oudp_st);
        if (fill_oudp || (changed && oudp_st == LayerStatus::good)) {
            const uint16_t folded = fold16(outer_sum() - load16(p + ofield) + opseudo());
            put_both(m, s, ofield, static_cast<uint16_t>(folded == 0xFFFF ? 0xFFFF : ~folded));
            if (fill_oudp) oudp_st = LayerStatus::filled, ++t.sw_filled;
        }
        if (ov4 && wanted(oip_st)) {
            ++oip_reads;
            const uint16_t w =
                static_cast<uint16_t>(~fold16(fixed_sum<20>(oip) - load16(oip + 10)));
            put_both(m, s, 24u, w);
            oip_st = LayerStatus::filled;
            ++t.sw_filled;
        }
    }
    // Bytes read, each region once.
    t.sum_bytes += oip_reads * 20u + (have_mid ? s.il3 - s.ol4 : 0u) +
                   (have_ihdr ? s.il4 - s.il3 : 0u) + (have_inner ? s.il4_len : 0u);
    return {oip_st, oudp_st, iip_st, il4_st, drop};
}

// The tunnel packets' verdicts, grouped per burst by outcome as the plain
// lean path's are: written once by the one verdict writer (and kept for the
// bursts after), copied to each packet, counted once per group. The key holds all a verdict depends
// on: the statuses, the IP versions, the inner protocol and the inner L4 offset (a PARTIAL verdict
// names it; the other offsets follow from these).
class TunnelOutcomes {
  public:
    // The inner L4 header lies at most IPv6 + UDP + GENEVE with 252 bytes of
    // options + Ethernet + IPv6 into the packet: 11 bits.
    static_assert(14 + 40 + 8 + 8 + 252 + 14 + 40 < (1u << 11));
    [[gnu::always_inline]] static uint32_t key_of(bool trusted, const TunnelShape& s,
                                                  const TunnelOutcome& o) {
        return uint32_t(o.oip) | uint32_t(o.oudp) << 4 | uint32_t(o.iip) << 8 |
               uint32_t(o.il4) << 12 | uint32_t(s.ov6) << 16 | uint32_t(s.iv6) << 17 |
               uint32_t(s.il4i) << 18 | uint32_t(o.drop) << 19 | uint32_t(trusted) << 20 |
               uint32_t(s.il4) << 21;
    }
    // Whether the key's packets came from a trusted port.
    [[gnu::always_inline]] static bool key_trusted(uint32_t key) { return (key >> 20) & 1; }
    // Whether the outcome `key` names is one the all-good tunnel run gives:
    // each layer good, skipped or an absent outer UDP sum, and kept.
    [[gnu::always_inline]] static bool key_all_good(uint32_t key) {
        constexpr uint32_t kOk = 1u << static_cast<unsigned>(LayerStatus::good) |
                                 1u << static_cast<unsigned>(LayerStatus::zero) |
                                 1u << static_cast<unsigned>(LayerStatus::skipped);
        return ((kOk >> (key & 15)) & (kOk >> (key >> 4 & 15)) & (kOk >> (key >> 8 & 15)) &
                (kOk >> (key >> 12 & 15)) & 1) != 0 &&
               (key >> 19 & 1) == 0;
    }
    // Writes the verdict of the outcome `key` names; counts it into `t` when
    // the slots are full.
    [[gnu::always_inline]] void record(uint32_t key, uint32_t pkt_len, PacketVerdict* v, Tally& t) {
        const auto* sl = slots_.add(key, key_drop(key), key_trusted(key), pkt_len,
                                    [key](VerdictLayer* out) { return layers_of(key, out); });
        if (likely(sl != nullptr)) {
            std::memcpy(v, &sl->v, sizeof *v);
            return;
        }
        overflow(key, pkt_len, v, t);
    }

    // The verdict of the outcome `key` names, as its slot holds it.
    static void verdict_of_key(uint32_t key, PacketVerdict* v) {
        VerdictLayer layers[4];
        const int n = layers_of(key, layers);
        write_verdict(v, n, ParseError::none, key_trusted(key), [&](int i) { return layers[i]; });
        std::memset(v->layers + n, 0, kMaxVerdictLayers - n);
    }
    // Counts `count` packets of the outcome `key`, `bytes` in all, that
    // a same-shape run gave its verdict (verdict_of_key's).
    void add_run(uint32_t key, uint32_t count, uint64_t bytes, Tally& t) {
        auto* sl = slots_.add(key, key_drop(key), key_trusted(key), 0,
                              [key](VerdictLayer* out) { return layers_of(key, out); });
        if (likely(sl != nullptr)) {
            sl->count += count - 1;
            sl->bytes += bytes;
            return;
        }
        overflow_run(key, count, bytes, t);
    }

    // Counts the burst's groups; their verdicts stay for the next bursts.
    void flush_into(EngineStats& st) { slots_.flush_into(st); }

  private:
    // More outcomes in one burst are counted per packet.
    VerdictSlots<8> slots_;

    static bool key_drop(uint32_t key) { return (key >> 19) & 1; }
    // The verdict layers a key describes, outermost first.
    static int layers_of(uint32_t key, VerdictLayer* out) {
        auto st = [&](int i) { return static_cast<LayerStatus>((key >> (4 * i)) & 0xF); };
        const bool ov6 = (key >> 16) & 1, iv6 = (key >> 17) & 1;
        const int il4i = (key >> 18) & 1;
        const uint32_t il4 = key >> 21, il3 = il4 - (iv6 ? 40 : 20), ol4 = ov6 ? 54 : 34;
        int n = 0;
        if (!ov6) out[n++] = {LayerProto::ipv4, st(0), 14, 24};
        out[n++] = {LayerProto::udp, st(1), ol4, ol4 + 6};
        if (!iv6) out[n++] = {LayerProto::ipv4, st(2), il3, il3 + 10};
        out[n++] = {lean_l4_proto(il4i), st(3), il4, il4 + (il4i == 0 ? 16u : 6u)};
        return n;
    }
    [[gnu::noinline]] static void overflow_run(uint32_t key, uint32_t count, uint64_t bytes,
                                               Tally& t) {
        VerdictLayer layers[4];
        const int n = layers_of(key, layers);
        PacketVerdict v;
        write_verdict(&v, n, ParseError::none, key_trusted(key), [&](int i) { return layers[i]; });
        t.dirty = true;
        count_verdict(
            t, v, n, [&](int i) { return layers[i]; }, count, bytes,
            key_drop(key) ? static_cast<int>(DropReason::bad_checksum) : -1);
    }
    [[gnu::noinline]] static void overflow(uint32_t key, uint32_t pkt_len, PacketVerdict* v,
                                           Tally& t) {
        VerdictLayer layers[4];
        const int n = layers_of(key, layers);
        write_verdict(v, n, ParseError::none, key_trusted(key), [&](int i) { return layers[i]; });
        t.count(
            *v, n, [&](int i) { return layers[i]; }, pkt_len,
            key_drop(key) ? static_cast<int>(DropReason::bad_checksum) : -1);
    }
};

// The all-good test of a tunnel shape, for the all-good run (verify and
// csum modes, every layer on the port's verify list, untrusted port): true
// if every checksum is right, by GOOD flags or by software sums, with the
// outer UDP sum absent where that is legal; then *key is the outcome's
// (TunnelOutcomes::key_of) and the bytes summed are added to *sum_bytes,
// as lean_tunnel_work counts them. False decides nothing: lean_tunnel_work
// does the work again and names the outcome. A PMD that saw the tunnel
// leaves the outer IPv4 header to software: DPDK has OUTER_IP_CKSUM_BAD but
// no GOOD, and its absence may mean the PMD never looked.
[[gnu::always_inline]] inline bool tunnel_all_good(rte_mbuf* m, const TunnelShape& s,
                                                   uint64_t* sum_bytes, uint32_t* key) {
    using namespace lean_detail;
    const uint8_t* const p = s.bytes;
    const uint8_t* const iip = p + s.il3;
    const bool ov4 = !s.ov6, iv4 = !s.iv6;
    LayerStatus oudp = LayerStatus::good;
    if (!s.ocsum) {
        if (s.ozero != LayerStatus::zero) return false;  // illegal
        oudp = LayerStatus::zero;
    }
    // Which sums software takes: all of them, unless the PMD said GOOD.
    bool sw_oip = ov4, sw_oudp = s.ocsum, sw_iip = iv4, sw_il4 = true;
    const uint64_t f = m->ol_flags & kTunnelRxFlags;
    if (iv4 && pmd_vouches_for_tunnel(f, m->packet_type)) {
        // A PMD that saw the tunnel vouches for all but the outer IPv4 header.
        sw_oudp = sw_iip = sw_il4 = false;
    } else if (f != 0) {
        const TunnelHw hw = tunnel_hw_flags(f, m->packet_type, ov4, iv4);
        auto sw = [](HwFlag h, bool* need) {
            if (h == HwFlag::unknown) return true;
            *need = false;
            return h == HwFlag::good;
        };
        if (!sw(hw.il4, &sw_il4)) return false;
        if (ov4 && !sw(hw.oip, &sw_oip)) return false;
        if (iv4 && !sw(hw.iip, &sw_iip)) return false;
        if (s.ocsum && !sw(hw.oudp, &sw_oudp)) return false;
    }
    uint64_t bytes = 0;
    if (sw_oip) {
        // Headers in 8-byte words with carries (adc_words): fewer loads and adds.
        if (!sum_ok(adc_words<2>(load32(p + 30), p + 14))) return false;
        bytes += 20;
    }
    // The inner L4 region, then the inner IP header, each summed once; the
    // outer UDP sum is both plus the bytes from the outer UDP header on.
    uint64_t inner = 0, ihdr = 0;
    if (sw_il4 || sw_oudp) {
        if (!s.whole) {
            uint32_t v = 0;
            detail::partial_sum_mbuf_trusted(m, s.il4, s.il4_len, &v);
            inner = v;
        } else if (s.il4_len <= kShortSum) {
            inner = short_sum64(p + s.il4, s.il4_len, 0);
        } else {
            inner = long_l4_sum(m, p + s.il4, s.il4, s.il4_len, true);
        }
        bytes += s.il4_len;
        if (sw_il4 && !sum_ok(add_carry(inner, pseudo64(iip, s.iv6, s.iproto, s.il4_len))))
            return false;
    }
    if (sw_iip || sw_oudp) {
        ihdr = iv4 ? adc_words<2>(load32(iip + 16), iip) : adc_words<5>(0, iip);
        bytes += s.il4 - s.il3;
        if (sw_iip && !sum_ok(ihdr)) return false;
    }
    if (sw_oudp) {
        // UDP and tunnel headers, inner Ethernet, GENEVE options.
        uint64_t mid =
            adc_words<2>(s.eth ? uint64_t{load32(iip - 6)} + load16(iip - 2) : 0, p + s.ol4);
        if (s.eth) mid = adc_words<1>(mid, iip - 14);
        if (s.opts != 0) mid = add_carry(mid, region_sum(p + s.ol4 + 16, s.opts));
        bytes += s.il3 - s.ol4;
        const uint64_t o = add_carry(add_carry(add_carry(inner, mid), ihdr),
                                     pseudo64(p + 14, s.ov6, kShapeUdp, s.olen));
        if (!sum_ok(o)) return false;
    }
    *sum_bytes += bytes;
    constexpr LayerStatus g = LayerStatus::good, sk = LayerStatus::skipped;
    *key = TunnelOutcomes::key_of(false, s, {ov4 ? g : sk, oudp, iv4 ? g : sk, g, false});
    return true;
}

// tunnel_all_good for any tunnel shape (classify_tunnel's), out of line;
// its shape in *out when true (a chain's front gathered into `gather`).
[[gnu::noinline]] inline bool any_tunnel_all_good(rte_mbuf* m, const ShapeConfig& sc,
                                                  std::span<uint8_t, kTunnelGather> gather,
                                                  uint64_t* sum_bytes, uint32_t* key,
                                                  TunnelShape* out) {
    TunnelShape s;
    if (!classify_tunnel(m, sc, gather, &s) || !tunnel_all_good(m, s, sum_bytes, key)) return false;
    *out = s;
    return true;
}

// lean_tunnel_packet's answers: not a tunnel shape (the walker's), or
// handled and kept, or handled and dropped. By value, so that the burst
// loop's locals stay in registers.
inline constexpr int kTunnelNone = 0, kTunnelKeep = 1, kTunnelDrop = 2;

// The work of one packet of the common tunnel shape s
// (classify_common_tunnel's): its verdict written, its counts taken, its
// outcome recorded under *key.
template <Mode kMode>
[[gnu::always_inline]] inline int common_tunnel_packet(const LeanBurst& b, rte_mbuf* m,
                                                       const TunnelShape& s, int verdict_off,
                                                       Tally& t, TunnelOutcomes& out,
                                                       uint32_t* key) {
    const TunnelOutcome o = lean_tunnel_work<kMode>(b, m, s, t);
    *key = TunnelOutcomes::key_of(b.trusted, s, o);
    out.record(*key, m->pkt_len, verdict_of(m, verdict_off), t);
    return o.drop ? kTunnelDrop : kTunnelKeep;
}

// Classifies and handles one packet of any tunnel shape as
// common_tunnel_packet does. Out of line: the common shape is done inline.
template <Mode kMode>
[[gnu::noinline]] int any_tunnel_packet(const LeanBurst& b, rte_mbuf* m, const ShapeConfig& sc,
                                        int verdict_off, Tally& t, TunnelOutcomes& out,
                                        uint32_t* key) {
    alignas(16) uint8_t gather[kTunnelGather];
    TunnelShape s;
    if (!classify_tunnel(m, sc, gather, &s)) return kTunnelNone;
    return common_tunnel_packet<kMode>(b, m, s, verdict_off, t, out, key);
}

// Classifies and handles one packet if it has a tunnel shape: its verdict
// written, its counts taken, its outcome key in *key. The common shape's
// offsets are constants here.
template <Mode kMode>
[[gnu::always_inline]] inline int lean_tunnel_packet(const LeanBurst& b, rte_mbuf* m,
                                                     const ShapeConfig& sc, int verdict_off,
                                                     Tally& t, TunnelOutcomes& out, uint32_t* key) {
    TunnelShape s;
    if (classify_common_tunnel(m, sc, &s))
        return common_tunnel_packet<kMode>(b, m, s, verdict_off, t, out, key);
    return any_tunnel_packet<kMode>(b, m, sc, verdict_off, t, out, key);
}

}  // namespace csum
