// The all-good runs: packets settled by a verdict copy and two counts.

#include <cstring>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/engine_impl.h"
#include "engine/run_parts.h"
#include "engine/run_sums.h"

namespace csum {

// The run of packets that are all good: of a common shape, every checksum
// right by GOOD flags, by the fused sums or by SCTP's CRC. Only the verdict
// copy and two counts per packet; returns at the first packet it cannot
// settle, for the general loop, with *shaped saying whether it has a common
// shape. One loop per source of the verdict (the PMD's flags, or our sums)
// and per layout (linear, or chains that may need a gather), chosen by the
// run's first packet: a port's packets mostly come one way, and each loop
// keeps its few values (the shape too) in registers.
uint16_t Engine::Impl::good_run(const RxPortPolicy& rx, rte_mbuf** pkts, uint16_t i, uint16_t n,
                                uint16_t* kept_io, uint64_t* sum_bytes, bool* shaped,
                                KnownSum* known) {
    constexpr uint64_t kRxFlags = RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK;
    const rte_mbuf* m = pkts[i];
    const bool flags = (m->ol_flags & kRxFlags) != 0, chains = m->next != nullptr;
    if (chains)
        return flags ? good_chain_run<true>(rx, pkts, i, n, kept_io, sum_bytes, shaped, known)
                     : good_chain_run<false>(rx, pkts, i, n, kept_io, sum_bytes, shaped, known);
    return flags ? good_run_as<true, false>(rx, pkts, i, n, kept_io, sum_bytes, shaped, known)
                 : good_run_as<false, false>(rx, pkts, i, n, kept_io, sum_bytes, shaped, known);
}

// good_run for a run that starts with a chain: good_run_as classifies, and
// the chains of the shape of each TCP/UDP chain it settles that follow it
// go to same_chain_run.
template <bool kFlags>
uint16_t Engine::Impl::good_chain_run(const RxPortPolicy& rx, rte_mbuf** pkts, uint16_t i,
                                      uint16_t n, uint16_t* kept_io, uint64_t* sum_bytes,
                                      bool* shaped, KnownSum* known) {
    for (;;) {
        int key = -1;
        i = good_run_as<kFlags, true>(rx, pkts, i, n, kept_io, sum_bytes, shaped, known, &key);
        // The next burst may go on with this shape from its first packet
        // (same_burst), chains or not, as after a linear run.
        if (key >= 0) set_good_key(key);
        if (key < 0 || i == n) return i;
        SameSums ss;
        uint64_t bytes = 0;
        const unsigned e = same_dispatch<true, !kFlags>(
            key, pkts, i, n, *kept_io, &lean_outcomes.good_verdict(key), &bytes, &ss);
        if (e != i) lean_outcomes.add_good(key, e - i, bytes);
        *kept_io = static_cast<uint16_t>(*kept_io + (e - i));
        *sum_bytes += ss.summed;
        tally.crc_bytes += ss.crced;
        i = static_cast<uint16_t>(e);
        if (ss.bad) {
            // Stopped at a packet of the shape whose sums are wrong, its sum known.
            *shaped = true;
            *known = ss.known;
            return i;
        }
        if (i == n) return i;
    }
}

template <bool kFlags, bool kChains>
[[gnu::noinline]] uint16_t Engine::Impl::good_run_as(const RxPortPolicy& rx, rte_mbuf** pkts,
                                                     uint16_t first, uint16_t n, uint16_t* kept_io,
                                                     uint64_t* sum_bytes, bool* shaped,
                                                     KnownSum* known, int* chain_key) {
    constexpr uint64_t kRxFlags = RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK;
    constexpr unsigned kAhead = 3;
    const ShapeConfig& sc = *shapes;
    const int voff = verdict_off;
    unsigned kept = *kept_io, i = first;
    uint64_t summed = 0, crc_bytes = 0;
    // This run's counts of its current shape; added to the outcomes when
    // the shape changes and at the end.
    int key = -1;
    uint32_t key_n = 0;
    uint64_t key_bytes = 0;
    const PacketVerdict* verdict = nullptr;
    *shaped = false;
    if constexpr (kFlags && !kChains) {
        // Most bursts go on with the last run's shape: no classify for their first packet.
        if (last_good_key >= 0) {
            const int k = last_good_key;
            const PacketVerdict* v = &lean_outcomes.good_verdict(k);
            const unsigned e = same_dispatch<false, false>(k, pkts, i, n, kept, v, &key_bytes);
            if (e != i)
                key = k, verdict = v, key_n = e - i, kept += e - i, i = e;
            else
                i = mixed_good_start<false>(pkts, i, n, &kept, nullptr);
        }
    } else if constexpr (!kChains) {
        // The same by our sums; a packet of the shape whose sums are not
        // right ends the run here, with its sum known.
        if (last_good_key >= 0) {
            const int k = last_good_key;
            const PacketVerdict* v = &lean_outcomes.good_verdict(k);
            SameSums ss;
            const unsigned e = same_dispatch<false, true>(k, pkts, i, n, kept, v, &key_bytes, &ss);
            if (e != i)
                key = k, verdict = v, key_n = e - i, kept += e - i, i = e;
            else if (!ss.bad)
                i = mixed_good_start<true>(pkts, i, n, &kept, &ss);
            summed += ss.summed, crc_bytes += ss.crced;
            if (ss.bad) {
                *shaped = true;
                *known = ss.known;
                goto done;
            }
        }
    }
    for (; i < n; ++i) {
        if (i + kAhead < n) {
            rte_mbuf* a = pkts[i + kAhead];
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + voff);
        }
        rte_mbuf* m = pkts[i];
        alignas(16) uint8_t gather[kHeaderGather];
        PacketShape s;
        if (kChains) {
            if (!classify(m, sc, gather, &s)) break;
        } else if (uint8_t* p = linear_bytes(m)) {
            // No gather in this loop: it would take the registers of the whole loop.
            const uint32_t len = m->pkt_len;
            s.bytes = s.in_place = p, s.held = s.pkt_len = len, s.whole = true;
            if (!classify_headers(m, sc, p, len, len, &s)) break;
        } else {
            *shaped = true;  // a chain: the general loop classifies it
            break;
        }
        const uint64_t f = m->ol_flags;
        KnownSum k;  // this packet's only
        bool good;
        if (kFlags) {
            // UNKNOWN is not GOOD; IPv6 has no header checksum.
            good = (f & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD &&
                   (s.v6 || (f & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD);
        } else if ((f & kRxFlags) != 0) {
            good = false;  // the PMD has a say: the general loop reads its flags
        } else if (s.proto == kShapeSctp) {
            good = lean_detail::sctp_good(m, s.bytes, s.held, s.v6, s.l4_off, s.l4_len, &summed,
                                          &crc_bytes);
        } else {
            good = lean_detail::sums_good(m, s, &summed, &k);
        }
        if (s.nvme && good) {
            // Fed here, not by the general loop: a second classify and a
            // restart of the run per segment cost more than the tracker.
            const NvmeSegmentResult r = feed_nvme_shape(m, s, LayerStatus::good);
            if (has_digests(r)) {
                const LeanOutcome o{LayerStatus::good, LayerStatus::good, false};
                if (lean_nvme_verdict(rx, m, s, o, r)) {
                    if (kept != i) pkts[i] = pkts[kept], pkts[kept] = m;
                    ++kept;
                }
                continue;
            }
        }
        if (!good) {
            *shaped = true;
            *known = k;
            break;
        }
        const int sk = LeanOutcomes::good_key(s);
        if (sk != key) {
            // key_n != 0 means key >= 0: said too for GCC 12's -Warray-bounds.
            if (key >= 0 && key_n != 0) lean_outcomes.add_good(key, key_n, key_bytes);
            key = sk, key_n = 0, key_bytes = 0;
            verdict = &lean_outcomes.good_verdict(sk);
        }
        ++key_n;
        key_bytes += s.pkt_len;
        std::memcpy(verdict_of(m, voff), verdict, sizeof(PacketVerdict));
        if (kept != i) pkts[i] = pkts[kept], pkts[kept] = m;
        ++kept;
        if constexpr (kFlags && !kChains) {
            // The run's shape is known: the next packets only need to match it.
            // It stops at the first that does not; the loop above takes that one.
            const unsigned j = i + 1;
            unsigned e = same_dispatch<false, false>(key, pkts, j, n, kept, verdict, &key_bytes);
            set_good_key(key);
            key_n += e - j, kept += e - j;  // every packet it took is kept
            if (e == j && e < n) {
                // Another shape next: shapes may alternate (the mixed run counts its own).
                const unsigned f = mixed_good_dispatch<false>(pkts, e, n, kept);
                kept += f - e, e = f;
            }
            i = e - 1;
        } else if constexpr (!kFlags && !kChains) {
            // The same by our sums; a packet of the shape whose sums are not
            // right stops the run with its sum known (never summed twice).
            const unsigned j = i + 1;
            SameSums ss;
            unsigned e;
            set_good_key(key);  // the mixed run below may say another
            if (s.nvme) {
                e = nvme_data_run(s.v6, rx, pkts, j, n, &kept, &key_n, verdict, &key_bytes, &ss);
            } else {
                e = same_dispatch<false, true>(key, pkts, j, n, kept, verdict, &key_bytes, &ss);
                key_n += e - j, kept += e - j;
                if (e == j && e < n && !ss.bad) {
                    // As above: the mixed run, its own counts.
                    const unsigned f = mixed_good_dispatch<true>(pkts, e, n, kept, &ss);
                    kept += f - e, e = f;
                }
            }
            summed += ss.summed;
            crc_bytes += ss.crced;
            if (ss.bad) {
                i = e;
                *shaped = true;
                *known = ss.known;
                break;
            }
            i = e - 1;
        } else if constexpr (kChains) {
            // A chain: the chains of its shape after it are the same-shape
            // run's (good_chain_run), out of this loop so that its registers stay.
            *chain_key = key;
            ++i;
            break;
        }
    }
    [[maybe_unused]] done : if (key >= 0 && key_n != 0)
                                lean_outcomes.add_good(key, key_n, key_bytes);
    *kept_io = static_cast<uint16_t>(kept);
    *sum_bytes += summed;
    tally.crc_bytes += crc_bytes;
    return static_cast<uint16_t>(i);
}

[[gnu::always_inline]] inline uint16_t Engine::Impl::same_burst(rte_mbuf** pkts, uint16_t n,
                                                                bool* bad, KnownSum* stop) {
    constexpr uint64_t kRxFlags = RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK;
    // The run prefetches 3 ahead: the first 3 here.
    if (n >= 3) {
        rte_prefetch0(rte_pktmbuf_mtod(pkts[0], void*));
        rte_prefetch0(rte_pktmbuf_mtod(pkts[1], void*));
        rte_prefetch0(rte_pktmbuf_mtod(pkts[2], void*));
    } else {
        for (uint16_t i = 0; i < n; ++i) rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    }
    if (good_mixed && pkts[0]->next == nullptr) {
        // The last burst's shapes alternated: the mixed run from the first packet.
        return static_cast<uint16_t>(mixed_from(pkts, 0, n, 0, bad, stop));
    }
    const int k = last_good_key;
    const PacketVerdict* v = &lean_outcomes.good_verdict(k);
    uint64_t bytes = 0;
    unsigned e;
    if ((pkts[0]->ol_flags & kRxFlags) != 0) {
        if (pkts[0]->next != nullptr) {
            // Chains by the PMD's flags: as below.
            SameSums ss;
            e = same_dispatch<true, false>(k, pkts, 0, n, 0, v, &bytes, &ss);
        } else {
            e = same_dispatch<false, false>(k, pkts, 0, n, 0, v, &bytes);
        }
    } else if (pkts[0]->next != nullptr) {
        // Chains of the last run's shape: straight to their run, not
        // through the linear run's refusal and run_burst's classify.
        SameSums ss;
        e = same_dispatch<true, true>(k, pkts, 0, n, 0, v, &bytes, &ss);
        tally.sum_bytes += ss.summed;
        tally.crc_bytes += ss.crced;
        *bad = ss.bad, *stop = ss.known;
    } else {
        SameSums ss;
        e = same_dispatch<false, true>(k, pkts, 0, n, 0, v, &bytes, &ss);
        tally.sum_bytes += ss.summed;
        tally.crc_bytes += ss.crced;
        *bad = ss.bad, *stop = ss.known;
    }
    if (e != 0) lean_outcomes.add_good(k, e, bytes);
    return static_cast<uint16_t>(e);
}

// same_burst's stop, handed to run_burst as a known bad first packet; one
// call from Engine::process, same_burst inline.
template <Mode kMode>
[[gnu::noinline]] uint16_t Engine::Impl::same_then_rest(const RxPortPolicy& rx,
                                                        const TxPortPolicy& tx, rte_mbuf** pkts,
                                                        uint16_t n) {
    bool bad = false;
    KnownSum stop;
    const uint16_t i = same_burst(pkts, n, &bad, &stop);
    if (i == n) return n;
    return static_cast<uint16_t>(i +
                                 run_burst<kMode>(rx, tx, pkts + i, n - i, bad ? &stop : nullptr));
}
template uint16_t Engine::Impl::same_then_rest<Mode::verify>(const RxPortPolicy&,
                                                             const TxPortPolicy&, rte_mbuf**,
                                                             uint16_t);
template uint16_t Engine::Impl::same_then_rest<Mode::csum>(const RxPortPolicy&, const TxPortPolicy&,
                                                           rte_mbuf**, uint16_t);

// Returns the first packet it did not take; the packets before it are all
// kept (the dispatch moves them to kept..), their bytes added to *bytes.
template <bool kV6, bool kUdp, bool kPorts, bool kSums>
unsigned Engine::Impl::same_good_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                     const PacketVerdict* v, uint64_t* bytes, SameSums* ss) {
    const ShapeConfig& sc = *shapes;
    const run_parts::RunVerdict verdict(v, verdict_off);
    const run_parts::RunMbufTest<kV6, kSums> mbuf_ok;
    // Bytes taken in the low half, L4 bytes summed in the high half: one
    // register (a burst of at most 65535 packets of at most 65535 bytes
    // carries nothing into the high half).
    uint64_t sum = 0;
    KnownSum stop_known;
    bool stop_bad = false;
    // The Internet-sum plan, for long packets' direct kernel calls.
    const uint32_t plan = kSums ? detail::inet_plan_now() : 0;
    auto take = [&sum, &stop_known, &stop_bad, &sc, &verdict, &mbuf_ok, plan](
                    rte_mbuf* m, uint8_t* const p) [[gnu::always_inline]] {
        constexpr int64_t kMinLen = (kV6 ? 54 : 34) + (kUdp ? 8 : 20);
        if (!mbuf_ok.linear(m) || !run_parts::whole_at_hand<kMinLen>(m)) return false;
        const uint32_t len = m->pkt_len;
        uint32_t l4_len;
        // IPv6: no padding (kExact), so the L4 bytes are len - 54, counted from len.
        if (!same_plain_shape<kV6, kUdp, kPorts, true, kV6>(sc, p, len, &l4_len)) return false;
        if constexpr (kSums) {
            uint64_t counted = 0;  // counted below, in sum's high half
            if (!lean_detail::run_sums_good<kV6, kUdp>(plan, p, l4_len, &counted, &stop_known)) {
                stop_bad = true;
                return false;
            }
            if (!kV6) sum += uint64_t{l4_len} << 32;
        }
        sum += len;
        verdict.write(m);
        return true;
    };
    rte_mbuf** const p = run_parts::take_while_data(pkts + i, pkts + n, verdict.offset(), take);
    *bytes += sum & 0xFFFFFFFFu;
    if constexpr (kSums) {
        // IPv4: the L4 bytes and the header's 20 per packet, as run_sums_good
        // counts them; IPv6: len - 54 per packet.
        const uint64_t took = static_cast<uint64_t>(p - (pkts + i));
        ss->summed += kV6 ? (sum & 0xFFFFFFFFu) - 54 * took : (sum >> 32) + 20 * took;
        ss->known = stop_known, ss->bad = stop_bad;
    }
    return static_cast<unsigned>(p - pkts);
}
}  // namespace csum
