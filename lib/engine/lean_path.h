// The lean path: verify and/or fill a packet the classifier described, with
// no parse result and no per-layer loop, specialised per mode at compile
// time. It reaches the walker's statuses, bytes and offload requests for
// every such packet (test_lean_path holds it to that).
#pragma once

#include <cstring>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "csum/engine.h"
#include "csum/inet.h"
#include "dispatch/inet_entry.h"
#include "engine/hw_flags.h"
#include "engine/sctp_crc.h"
#include "engine/tally.h"
#include "inet/word_sum.h"
#include "mbuf/inet_mbuf_chain.h"
#include "parse/classify.h"

namespace csum {

// A port pair's decisions for one burst, made once instead of per packet.
struct LeanBurst {
    bool trusted;          // skip verification, count as skipped
    bool drop_bad;         // drop bad checksums
    bool verify_ip;        // the port's verify list holds IPv4
    bool verify_l4[3];     // ... TCP, UDP, SCTP (lean_l4_index)
    uint64_t tx_offloads;  // RTE_ETH_TX_OFFLOAD_* for the TX port
};

inline LeanBurst make_lean_burst(const RxPortPolicy& rx, const TxPortPolicy& tx) {
    auto on = [&](LayerProto p) -> bool {
        return (rx.verify_mask >> static_cast<unsigned>(p)) & 1;
    };
    return {rx.trusted,
            rx.drop_bad,
            on(LayerProto::ipv4),
            {on(LayerProto::tcp), on(LayerProto::udp), on(LayerProto::sctp)},
            tx.offloads};
}

inline int lean_l4_index(uint8_t proto) {
    return proto == kShapeTcp ? 0 : proto == kShapeUdp ? 1 : 2;
}
inline LayerProto lean_l4_proto(int idx) {
    return idx == 0 ? LayerProto::tcp : idx == 1 ? LayerProto::udp : LayerProto::sctp;
}

// The L4 region's sum (SCTP: its CRC32C) when the all-good run already
// computed it for the packet it stopped at, so that lean_work never sums
// the payload twice.
struct KnownSum {
    uint32_t sum = 0;
    bool have = false;
};

struct LeanOutcome {
    LayerStatus ip, l4;  // ip is unused for IPv6
    bool drop;
};

namespace lean_detail {

using namespace word_sum;

// A short region's partial sum, inline (a call to the kernels costs more
// than summing 20-60 bytes): 32-bit words into 64 bits, then the tail.
inline uint32_t small_sum(const uint8_t* p, uint32_t len) {
    uint64_t s = 0;
    for (; len >= 4; len -= 4, p += 4) {
        uint32_t w;
        std::memcpy(&w, p, 4);
        s += w;
    }
    if (len >= 2) s += load16(p), p += 2, len -= 2;
    if (len) s += *p;  // the odd last byte, as the low half of its word
    s = (s & 0xFFFFFFFFu) + (s >> 32);
    s = (s & 0xFFFFFFFFu) + (s >> 32);
    return static_cast<uint32_t>(s);
}
inline constexpr uint32_t kSmallSum = 64;

// The L4 region's sum: from the bytes at hand when the packet is whole
// there, else walked across the chain (whose length classify() checked).
inline uint32_t l4_sum(const rte_mbuf* m, const PacketShape& s) {
    if (s.whole) {
        const uint8_t* p = s.bytes + s.l4_off;
        return s.l4_len <= kSmallSum ? small_sum(p, s.l4_len) : partial_sum(p, s.l4_len);
    }
    uint32_t sum = 0;
    detail::partial_sum_mbuf_trusted(m, s.l4_off, s.l4_len, &sum);
    return sum;
}

// Writes a checksum field: in place when the header bytes are the packet's.
template <typename T>
inline void put(rte_mbuf* m, const PacketShape& s, uint32_t off, T v) {
    if (s.in_place != nullptr)
        std::memcpy(s.in_place + off, &v, sizeof v);
    else
        write_value(m, off, v);
}

// Fill mode's common case, a short TCP/UDP packet whole at hand: the IPv4
// header's sum and the L4 sum fused (the addresses loaded once, for both),
// the L4 field taken as zero by subtracting it, as verify's sums_good does.
// Writes both fields; returns false (and writes nothing) if it is not that case.
[[gnu::always_inline]] inline bool fill_short(rte_mbuf* m, const PacketShape& s) {
    const uint32_t l4_len = s.l4_len;
    if (!s.whole || s.proto == kShapeSctp || l4_len + (s.v6 ? 32 : 0) > kShortSum) return false;
    const uint8_t* ip = s.bytes + s.l3_off;
    const uint8_t* th = s.bytes + s.l4_off;
    const uint64_t k = (uint64_t{s.proto} + l4_len) << 8;  // as in sums_good
    uint64_t l;
    if (!s.v6) {
        const uint64_t addrs = uint64_t{load32(ip + 12)} + load32(ip + 16);
        // Bytes 10-11, the header's own field, are the high half of this word.
        const uint64_t h =
            addrs + load32(ip) + uint64_t{load32(ip + 4)} + (load32(ip + 8) & 0xFFFF);
        put(m, s, s.l3_off + 10u, static_cast<uint16_t>(~fold64(h)));
        l = short_sum64(th, l4_len, addrs + k);
    } else {
        l = short_sum64(ip + 8, 32 + l4_len, k);
    }
    l = add_carry(l, 0xFFFFu - load16(th + s.field));
    uint16_t w = static_cast<uint16_t>(~fold64(l));
    if (s.proto == kShapeUdp && w == 0) w = 0xFFFF;
    put(m, s, s.l4_off + s.field, w);
    return true;
}

// The L4 region's sum when it is long, or not all at hand (a chain not
// gathered whole): a call into the kernels. By value, so that the caller's
// shape stays in registers.
[[gnu::noinline]] inline uint32_t long_l4_sum(const rte_mbuf* m, const uint8_t* l4, uint32_t off,
                                              uint32_t len, bool whole) {
    if (whole) return partial_sum(l4, len);
    uint32_t sum = 0;
    detail::partial_sum_mbuf_trusted(m, off, len, &sum);  // classify() checked the chain's length
    return sum;
}

// A TCP/UDP shape checked with software sums, the IPv4 header and the
// pseudo-header fused with the L4 sum (the addresses are loaded once, for
// both): true if every checksum is right, and then adds the bytes summed to
// *sum_bytes. False decides nothing: lean_work does the work again and names
// the outcome.
[[gnu::always_inline]] inline bool sums_good(const rte_mbuf* m, const PacketShape& s,
                                             uint64_t* sum_bytes, KnownSum* known) {
    const uint8_t* ip = s.bytes + s.l3_off;
    const uint8_t* l4 = s.bytes + s.l4_off;
    const uint32_t l4_len = s.l4_len;
    // The pseudo-header's protocol and length, in memory order: 256 x (proto + length).
    const uint64_t k = (uint64_t{s.proto} + l4_len) << 8;
    if (!s.v6) {
        const uint64_t addrs = uint64_t{load32(ip + 12)} + load32(ip + 16);
        const uint64_t h = addrs + load32(ip) + uint64_t{load32(ip + 4)} + uint64_t{load32(ip + 8)};
        if (h == 0 || !mod_ffff_zero(h)) return false;  // the header must fold to 0xFFFF
        uint64_t l;
        if (likely(s.whole && l4_len <= kShortSum)) {
            l = short_sum64(l4, l4_len, addrs + k);
        } else {
            const uint32_t d = long_l4_sum(m, l4, s.l4_off, l4_len, s.whole);
            *known = {d, true};  // l4_sum's own call: lean_work reuses it
            l = d + addrs + k;
        }
        if (!mod_ffff_zero(l)) return false;
        *sum_bytes += 20 + l4_len;
        return true;
    }
    // IPv6: the addresses lie just before the L4 header, one region with it.
    uint64_t l;
    if (likely(s.whole && l4_len <= kShortSum - 32)) {
        l = short_sum64(ip + 8, 32 + l4_len, k);
    } else {
        const uint32_t d = long_l4_sum(m, l4, s.l4_off, l4_len, s.whole);
        // Reused only where l4_sum would make this same call.
        if (!s.whole || l4_len > kSmallSum) *known = {d, true};
        l = uint64_t{partial_sum_fixed<32>(ip + 8)} + d + k;
    }
    if (!mod_ffff_zero(l)) return false;
    *sum_bytes += l4_len;
    return true;
}

// The shape classify_headers would describe for a same-shape run's plain
// TCP/UDP packet (its first `held` bytes at `bytes`), for the one sums_good.
template <bool kV6, bool kUdp>
[[gnu::always_inline]] inline PacketShape run_shape(const uint8_t* bytes, uint8_t* in_place,
                                                    uint32_t held, uint32_t len, uint32_t l4_len) {
    PacketShape s;
    s.bytes = bytes, s.in_place = in_place, s.held = held, s.pkt_len = len, s.whole = held == len;
    s.v6 = kV6, s.proto = kUdp ? kShapeUdp : kShapeTcp, s.l4i = kUdp ? 1 : 0;
    s.l4_hdr = 0, s.field = kUdp ? 6 : 16, s.nvme = false;
    s.l3_off = 14, s.l4_off = kV6 ? 54 : 34, s.l4_len = l4_len;
    return s;
}

// An SCTP shape's IPv4 header sum and CRC32C right (the CRC from the
// shape's bytes where they hold it, else over the chain as it lies); then
// adds the bytes summed and CRCed.
[[gnu::noinline]] inline bool sctp_good(const rte_mbuf* m, const uint8_t* bytes, uint32_t held,
                                        bool v6, uint32_t off, uint32_t len, uint64_t* sum_bytes,
                                        uint64_t* crc_bytes) {
    if (!v6 && !ipv4_hdr_cksum_ok(bytes + 14, 20)) return false;  // l3_off: 14 in every plain shape
    if (sctp_crc_held(m, bytes, held, off, len) != sctp_stored_crc_at(bytes + off + 8))
        return false;
    *sum_bytes += v6 ? 0 : 20;
    *crc_bytes += len;
    return true;
}

}  // namespace lean_detail

template <Mode kMode>
inline LeanOutcome lean_work(const LeanBurst& b, rte_mbuf* m, const PacketShape& s, Tally& t,
                             KnownSum known = {}) {
    using namespace lean_detail;
    constexpr bool verifies = kMode == Mode::verify || kMode == Mode::csum;
    constexpr bool fills = kMode == Mode::fill || kMode == Mode::csum;
    const uint8_t* ip = s.bytes + s.l3_off;
    const uint8_t* th = s.bytes + s.l4_off;
    const bool v6 = s.v6, sctp = s.proto == kShapeSctp;
    const int l4i = s.l4i;
    const uint32_t l4_len = s.l4_len;
    // The pseudo-header, in memory order (src and dst adjacent in both versions).
    auto pseudo = [&] {
        return v6 ? partial_sum_fixed<32>(
                        ip + 8, bswap16(l4_len >> 16) + bswap16(l4_len) + bswap16(s.proto))
                  : partial_sum_fixed<8>(ip + 12, bswap16(s.proto) + bswap16(l4_len));
    };
    LayerStatus ip_st = LayerStatus::skipped, l4_st = LayerStatus::skipped;
    uint32_t data_sum = 0;
    bool have_sum = false;
    if (verifies && !b.trusted) {
        const uint64_t f = m->ol_flags;
        if (!v6 && b.verify_ip) {
            if (const uint64_t h = f & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
                ip_st = h == RTE_MBUF_F_RX_IP_CKSUM_GOOD  ? LayerStatus::good
                        : h == RTE_MBUF_F_RX_IP_CKSUM_BAD ? LayerStatus::bad
                                                          : LayerStatus::partial;
            } else {
                ip_st = ipv4_hdr_cksum_ok(ip, 20) ? LayerStatus::good : LayerStatus::bad;
                t.sum_bytes += 20;
            }
        }
        if (ip_st == LayerStatus::bad) {
            l4_st = LayerStatus::unverifiable;  // a bad IPv4 header stops the walk
        } else if (b.verify_l4[l4i]) {
            if (const uint64_t h = f & RTE_MBUF_F_RX_L4_CKSUM_MASK) {
                l4_st = h == RTE_MBUF_F_RX_L4_CKSUM_GOOD  ? LayerStatus::good
                        : h == RTE_MBUF_F_RX_L4_CKSUM_BAD ? LayerStatus::bad
                                                          : LayerStatus::partial;
            } else if (sctp) {
                t.crc_bytes += l4_len;
                const uint32_t crc =
                    known.have ? known.sum : sctp_crc_held(m, s.bytes, s.held, s.l4_off, l4_len);
                l4_st = crc == sctp_stored_crc_at(th + 8) ? LayerStatus::good : LayerStatus::bad;
            } else {
                data_sum = known.have ? known.sum : l4_sum(m, s);
                have_sum = true;
                t.sum_bytes += l4_len;
                const uint32_t ps = pseudo();
                if (cksum_sum_ok(sum_add(data_sum, ps)))
                    l4_st = LayerStatus::good;
                else  // a local stack's CHECKSUM_PARTIAL leaves the folded pseudo-header sum
                    l4_st = load16(th + s.field) == sum_fold(ps) ? LayerStatus::partial
                                                                 : LayerStatus::bad;
            }
        }
    }
    const bool bad = ip_st == LayerStatus::bad || l4_st == LayerStatus::bad;
    const bool drop = b.drop_bad && bad;
    if (b.trusted) ++t.skipped_trusted;
    if (fills && !drop) {
        if (kMode == Mode::fill && !b.tx_offloads && fill_short(m, s)) {
            t.sum_bytes += l4_len;
            t.sw_filled += v6 ? 1 : 2;
            return {v6 ? LayerStatus::skipped : LayerStatus::filled, LayerStatus::filled, false};
        }
        // csum mode fills what verification left partial or skipped, as the walker does.
        auto wanted = [](LayerStatus st) {
            return kMode == Mode::fill || st == LayerStatus::partial || st == LayerStatus::skipped;
        };
        const bool fill_ip = !v6 && wanted(ip_st);
        const bool fill_l4 = wanted(l4_st);
        const uint64_t l4_cap = s.proto == kShapeTcp   ? RTE_ETH_TX_OFFLOAD_TCP_CKSUM
                                : s.proto == kShapeUdp ? RTE_ETH_TX_OFFLOAD_UDP_CKSUM
                                                       : RTE_ETH_TX_OFFLOAD_SCTP_CKSUM;
        // A device sums the L4 bytes to the frame's end: not past a trailer.
        const bool l4_hw = (b.tx_offloads & l4_cap) && s.l4_off + s.l4_len == s.pkt_len;
        const bool ip_hw = b.tx_offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
        if ((fill_l4 && l4_hw) || (fill_ip && ip_hw)) {
            m->l2_len = 14, m->l3_len = v6 ? 40 : 20, m->l4_len = s.l4_hdr;
            m->ol_flags |= v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4;
        }
        if (fill_l4) {
            if (l4_hw) {
                m->ol_flags |= s.proto == kShapeTcp   ? RTE_MBUF_F_TX_TCP_CKSUM
                               : s.proto == kShapeUdp ? RTE_MBUF_F_TX_UDP_CKSUM
                                                      : RTE_MBUF_F_TX_SCTP_CKSUM;
                l4_st = LayerStatus::offloaded;
                ++t.hw_offloaded;
            } else if (sctp) {
                t.crc_bytes += l4_len;
                put(m, s, s.l4_off + 8u,
                    rte_cpu_to_le_32(sctp_crc_held(m, s.bytes, s.held, s.l4_off, l4_len)));
                l4_st = LayerStatus::filled;
                ++t.sw_filled;
            } else {
                if (!have_sum) data_sum = l4_sum(m, s), t.sum_bytes += l4_len;
                const uint32_t total = sum_add(sum_sub(data_sum, load16(th + s.field)), pseudo());
                const uint16_t w =
                    s.proto == kShapeUdp ? udp_cksum_finish(total) : cksum_finish(total);
                put(m, s, s.l4_off + s.field, w);
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
                put(m, s, s.l3_off + 10u, ipv4_hdr_cksum(ip, 20));
                ip_st = LayerStatus::filled;
                ++t.sw_filled;
            }
        }
    }
    return {ip_st, l4_st, drop};
}

}  // namespace csum
