// The mixed runs: linear packets of any plain TCP/UDP shape, as a port
// carries them, IPv4 and IPv6, TCP and UDP interleaved. The same-shape runs
// (same_good_run, same_fill_run) take packets of one shape with its template
// and verdict in registers; where shapes alternate they stop at every
// packet, and each packet then costs the general classify and a run's
// start. These runs read each packet's shape from its EtherType and L4
// protocol, then test it and sum (or fill) it as that shape's run does.

#include <cstring>

#include <rte_mbuf.h>

#include "engine/engine_impl.h"
#include "engine/run_parts.h"
#include "engine/run_sums.h"
#include "engine/sctp_crc.h"
#include "engine/tunnel_fill_mixed.h"
#include "inet/word_sum.h"

namespace csum {

namespace mixed_detail {

// shape<kV6, kUdp>(m, p) for the packet m at p by its plain_key, and
// sctp<kV6>(m, p) for SCTP; false for any other. The least frame of any
// plain shape (UDP/IPv4, 42 bytes) whole at hand before its bytes are read;
// each shape tests its own least.
template <class Shape, class Sctp>
[[gnu::always_inline]] inline bool by_shape(rte_mbuf* m, uint8_t* p, Shape& shape, Sctp& sctp) {
    if (!run_parts::whole_at_hand<42>(m)) return false;
    switch (run_parts::plain_key(p)) {
        case 0:
            return shape.template operator()<false, false>(m, p);
        case 1:
            return shape.template operator()<false, true>(m, p);
        case 2:
            return sctp.template operator()<false>(m, p);
        case 3:
            return shape.template operator()<true, false>(m, p);
        case 4:
            return shape.template operator()<true, true>(m, p);
        case 5:
            return sctp.template operator()<true>(m, p);
        default:
            return false;
    }
}

// Each shape's packets and bytes (took[k]: packets high, bytes low) added to
// the outcomes of key base + k.
inline void add_took(LeanOutcomes& o, const uint64_t (&took)[run_parts::kPlainKeys], int base) {
    for (int k = 0; k < run_parts::kPlainKeys; ++k)
        if (took[k] != 0)
            o.add_good(base + k, static_cast<uint32_t>(took[k] >> 32), took[k] & 0xFFFFFFFFu);
}

}  // namespace mixed_detail

// Returns the first packet it did not take; those before it are all kept
// (the dispatch moves them to kept..). Counts per shape into lean_outcomes; kSums: the
// packets carry no RX flags and our sums decide (ss as same_good_run's).
template <bool kPorts, bool kSums>
unsigned Engine::Impl::mixed_good_run(rte_mbuf** pkts, unsigned i, unsigned n, SameSums* ss) {
    constexpr int kKeys = run_parts::kPlainKeys;
    const ShapeConfig& sc = *shapes;
    const long voff = verdict_off;
    const PacketVerdict* const good = &lean_outcomes.good_verdict(0);
    const run_parts::RunMbufTest<false, kSums> ok4;
    const run_parts::RunMbufTest<true, kSums> ok6;
    // Per shape: bytes taken in the low half, packets in the high half (a
    // burst of at most 65535 packets of at most 65535 bytes).
    uint64_t took[kKeys] = {};
    uint64_t summed = 0;
    KnownSum stop_known;
    bool stop_bad = false;
    int last = -1;  // the shape of the last packet taken
    // Changes of kind from packet to packet (the first counts one): a plain
    // shape, or a tunnel (kPlainKeys).
    int prev = -1;
    unsigned changes = 0;
    const uint32_t plan = kSums ? detail::inet_plan_now() : 0;
    auto shape = [&]<bool kV6, bool kUdp>(rte_mbuf* m, uint8_t* p) [[gnu::always_inline]] {
        constexpr int kKey = kV6 * 3 + kUdp;
        if (!(kV6 ? ok6.linear(m) : ok4.linear(m))) return false;
        const uint32_t len = m->pkt_len;
        uint32_t l4_len;
        // IPv6: no padding (kExact), as same_good_run takes it.
        if (!same_plain_shape<kV6, kUdp, kPorts, false, kV6>(sc, p, len, &l4_len)) return false;
        if constexpr (kSums) {
            if (!lean_detail::run_sums_good<kV6, kUdp>(plan, p, l4_len, &summed, &stop_known)) {
                stop_bad = true;
                return false;
            }
        }
        took[kKey] += len + (uint64_t{1} << 32);
        changes += prev != kKey;
        last = prev = kKey;
        std::memcpy(verdict_of(m, voff), good + kKey, sizeof(PacketVerdict));
        return true;
    };
    // SCTP as same_sctp_run takes a linear packet (its CRC one at a time).
    uint64_t crced = 0;
    auto sctp = [&]<bool kV6>(rte_mbuf* m, uint8_t* p) [[gnu::always_inline]] {
        constexpr int kKey = kV6 * 3 + 2;
        constexpr uint32_t kL4 = kV6 ? 54 : 34;
        const uint32_t len = m->pkt_len;
        uint32_t l4_len;
        if (!(kV6 ? ok6.linear(m) : ok4.linear(m)) ||
            !same_sctp_shape<kV6>(m, p, len, len, &l4_len))
            return false;
        if constexpr (kSums) {
            if (!kV6 && !lean_detail::mod_ffff_zero(word_sum::ipv4_header_words(p + 14)))
                return false;
            const uint32_t crc = sctp_linear_crc(p + kL4, l4_len);
            if (crc != sctp_stored_crc_at(p + kL4 + 8)) {
                stop_known = {crc, true}, stop_bad = true;  // never computed twice
                return false;
            }
            crced += l4_len;
            if (!kV6) summed += 20;  // the IPv4 header, as same_sctp_run counts it
        }
        took[kKey] += len + (uint64_t{1} << 32);
        changes += prev != kKey;
        last = prev = kKey;
        std::memcpy(verdict_of(m, voff), good + kKey, sizeof(PacketVerdict));
        return true;
    };
    // Tunnels among them by their kinds' templates (out of line), as the
    // tunnel runs take them; not past a plain packet whose sums are wrong.
    TunnelMixedTook tunnels;
    const TunnelRun* const runs = tunnel_runs;
    auto take = [&](rte_mbuf * m, uint8_t * p) __attribute__((always_inline)) {
        if (mixed_detail::by_shape(m, p, shape, sctp)) return true;
        if (stop_bad || !tunnel_run_detail::take_one_tunnel<kPorts>(sc, runs, m, p, voff, &tunnels))
            return false;
        changes += prev != kKeys;
        prev = kKeys;
        return true;
    };
    rte_mbuf** const e = run_parts::take_while_data(pkts + i, pkts + n, voff, take);
    mixed_detail::add_took(lean_outcomes, took, 0);
    if (tunnels.kinds != 0) count_mixed_tunnels(tunnels);
    if (last >= 0) last_good_key = last;  // where the next burst's same_burst starts
    // Alternating kinds over most of the burst: the next burst starts mixed
    // (where it starts in plain_burst: one of mostly tunnels starts in
    // tunnel_burst). A burst mostly of one shape, its other shapes at the
    // end, keeps the same-shape start.
    const unsigned taken = static_cast<unsigned>(e - (pkts + i));
    good_mixed = changes > 1 && changes * kMixedEvery >= taken && 2 * taken >= burst_n;
    if constexpr (kSums) {
        ss->summed += summed;
        ss->crced += crced;
        ss->known = stop_known, ss->bad = stop_bad;
    }
    return static_cast<unsigned>(e - pkts);
}

uint16_t Engine::Impl::plain_among_tunnels(rte_mbuf** pkts, uint16_t i, uint16_t n, uint16_t* kept,
                                           KnownSum* known) {
    if (!run_parts::mixed_may_take(pkts[i], 0x3Fu, shapes->udp_hit)) return i;
    const unsigned e = mixed_from(pkts, i, n, *kept, nullptr, known);
    *kept = static_cast<uint16_t>(*kept + (e - i));
    return static_cast<uint16_t>(e);
}

unsigned Engine::Impl::mixed_from(rte_mbuf** pkts, unsigned i, unsigned n, unsigned kept, bool* bad,
                                  KnownSum* known) {
    constexpr uint64_t kRxFlags = RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK;
    if ((pkts[i]->ol_flags & kRxFlags) != 0) return mixed_good_dispatch<false>(pkts, i, n, kept);
    SameSums ss;
    const unsigned e = mixed_good_dispatch<true>(pkts, i, n, kept, &ss);
    tally.sum_bytes += ss.summed;
    tally.crc_bytes += ss.crced;
    if (ss.bad) {
        if (bad != nullptr) *bad = true;
        *known = ss.known;
    }
    return e;
}

// Fill mode's: the packets from i on of the shapes in `keys` (fill_sw_keys:
// both fields left to software), filled as same_fill_run fills them, with
// fill_run's counts per shape; moved to *kept.. as fill_run moves them.
template <bool kPorts>
unsigned Engine::Impl::mixed_fill_run(uint32_t keys, rte_mbuf** pkts, unsigned i, unsigned n,
                                      uint16_t* kept, bool trusted) {
    constexpr int kKeys = run_parts::kPlainKeys;
    const ShapeConfig& sc = *shapes;
    const long voff = verdict_off;
    const PacketVerdict* const filled = &lean_outcomes.good_verdict(LeanOutcomes::kFilled);
    const run_parts::RunMbufTest<false, true, true> mbuf_ok;  // nb_segs only: no flag is read
    uint64_t took[kKeys] = {};                                // as mixed_good_run's
    uint64_t summed = 0, fields = 0;
    int last = -1;
    const uint32_t plan = detail::inet_plan_now();
    auto shape = [&]<bool kV6, bool kUdp>(rte_mbuf* m, uint8_t* p) [[gnu::always_inline]] {
        constexpr int kKey = kV6 * 3 + kUdp;
        if (((keys >> kKey) & 1) == 0 || !mbuf_ok.linear(m)) return false;
        const uint32_t len = m->pkt_len;
        uint32_t l4_len;
        if (!same_plain_shape<kV6, kUdp, kPorts>(sc, p, len, &l4_len)) return false;
        lean_detail::run_fill<kV6, kUdp>(plan, p, l4_len);
        took[kKey] += len + (uint64_t{1} << 32);
        summed += l4_len;
        fields += kV6 ? 1 : 2;
        last = kKey;
        std::memcpy(verdict_of(m, voff), filled + kKey, sizeof(PacketVerdict));
        return true;
    };
    // SCTP as same_sctp_fill_run fills it.
    uint64_t crced = 0;
    auto sctp = [&]<bool kV6>(rte_mbuf* m, uint8_t* p) [[gnu::always_inline]] {
        constexpr int kKey = kV6 * 3 + 2;
        if (((keys >> kKey) & 1) == 0 || !mbuf_ok.linear(m)) return false;
        const uint32_t len = m->pkt_len;
        uint32_t l4_len;
        if (!same_sctp_shape<kV6>(m, p, len, len, &l4_len)) return false;
        sctp_linear_fill<kV6>(p, l4_len);
        took[kKey] += len + (uint64_t{1} << 32);
        crced += l4_len;
        fields += kV6 ? 1 : 2;
        last = kKey;
        std::memcpy(verdict_of(m, voff), filled + kKey, sizeof(PacketVerdict));
        return true;
    };
    // Tunnels among them by their kinds' fill templates (out of line), as
    // the tunnel fill runs take them.
    tunnel_fill_detail::TunnelFillTook tunnels;
    const TunnelRun* const fills = tunnel_fills;
    auto take = [&](rte_mbuf * m, uint8_t * p) __attribute__((always_inline)) {
        return mixed_detail::by_shape(m, p, shape, sctp) ||
               tunnel_fill_detail::fill_one_tunnel<kPorts>(sc, fills, trusted, plan, m, p, voff,
                                                           &tunnels);
    };
    rte_mbuf** const e = run_parts::take_while_data(pkts + i, pkts + n, voff, take);
    const unsigned count = static_cast<unsigned>(e - (pkts + i));
    if (count == 0) return i;
    const unsigned plain = count - count_fill_tunnels(tunnels);
    mixed_detail::add_took(lean_outcomes, took, LeanOutcomes::kFilled);
    if (last >= 0) last_fill_key = last;  // the next burst starts on this shape (fill_burst)
    tally.sum_bytes += summed;
    tally.crc_bytes += crced;
    tally.sw_filled += fields;
    if (trusted) tally.skipped_trusted += plain;  // fill_counts counts the tunnels
    fill_keep(pkts, i, count, kept);
    return i + count;
}

template unsigned Engine::Impl::mixed_fill_run<false>(uint32_t, rte_mbuf**, unsigned, unsigned,
                                                      uint16_t*, bool);
template unsigned Engine::Impl::mixed_fill_run<true>(uint32_t, rte_mbuf**, unsigned, unsigned,
                                                     uint16_t*, bool);

template unsigned Engine::Impl::mixed_good_run<false, false>(rte_mbuf**, unsigned, unsigned,
                                                             SameSums*);
template unsigned Engine::Impl::mixed_good_run<false, true>(rte_mbuf**, unsigned, unsigned,
                                                            SameSums*);
template unsigned Engine::Impl::mixed_good_run<true, false>(rte_mbuf**, unsigned, unsigned,
                                                            SameSums*);
template unsigned Engine::Impl::mixed_good_run<true, true>(rte_mbuf**, unsigned, unsigned,
                                                           SameSums*);

}  // namespace csum
