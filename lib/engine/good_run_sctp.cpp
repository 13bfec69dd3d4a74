// The all-good run of SCTP packets of one shape (same_sctp_run): the
// linear ones, and with kChains the chained ones.

#include <type_traits>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "dispatch/crc32c_pair.h"
#include "engine/engine_impl.h"
#include "engine/run_parts.h"
#include "engine/sctp_crc.h"
#include "inet/word_sum.h"

namespace csum {

// As same_good_run, for SCTP: linear packets (kChains: or chains, their
// front gathered as classify() does) of the run's SCTP shape, their chunks'
// lengths right (same_sctp_shape); with kSums, their IPv4 header sum and
// CRC32C right. A packet of the shape whose CRC is wrong stops the run with
// its CRC known (never computed twice).
template <bool kV6, bool kSums, bool kChains>
unsigned Engine::Impl::same_sctp_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                     const PacketVerdict* v, uint64_t* bytes, SameSums* ss) {
    const run_parts::RunVerdict verdict(v, verdict_off);
    const run_parts::RunMbufTest<kV6, kSums> mbuf_ok;
    uint64_t sum = 0, crced = 0;
    KnownSum stop_known;
    bool stop_bad = false;
    constexpr uint32_t l4 = kV6 ? 54 : 34;
    // A linear packet of the shape (l4_len: the bytes its CRC covers).
    auto linear_shape = [&mbuf_ok](rte_mbuf* m, const uint8_t* p,
                                   uint32_t* l4_len) [[gnu::always_inline]] {
        const uint32_t len = m->pkt_len;
        return m->next == nullptr && mbuf_ok.linear(m) && m->data_len >= len &&
               segment_in_buffer(m) && same_sctp_shape<kV6>(m, p, len, len, l4_len);
    };
    // kSums: the IPv4 header must fold to 0xFFFF.
    auto header_ok = [](const uint8_t* p) [[gnu::always_inline]] {
        return kV6 || lean_detail::mod_ffff_zero(word_sum::ipv4_header_words(p + 14));
    };
    // kSums: m's CRC against the one stored in its common header h; a wrong
    // one stops the run with it known.
    auto crc_right = [&stop_known, &stop_bad, &crced](uint32_t crc, const uint8_t* h,
                                                      uint32_t l4_len) [[gnu::always_inline]] {
        if (crc != sctp_stored_crc_at(h + 8)) {
            stop_known = {crc, true}, stop_bad = true;
            return false;
        }
        crced += l4_len;
        return true;
    };
    // kChains: f is m's front (gather_front's), gathered an iteration
    // earlier (below).
    auto take = [&](rte_mbuf* m, const shape_detail::Front& f) [[gnu::always_inline]] {
        const uint32_t len = m->pkt_len;
        const uint8_t* p;
        uint32_t held, l4_len;
        if constexpr (kChains) {
            // The flags alone (any nb_segs); the chain checked against its
            // descriptor by the gather, which copies the headers if split.
            if (!mbuf_ok.flags(m)) return false;
            p = f.bytes, held = f.held;
            if (p == nullptr || !same_sctp_shape<kV6>(m, p, len, held, &l4_len)) return false;
        } else {
            p = rte_pktmbuf_mtod(m, const uint8_t*), held = len;
            if (!linear_shape(m, p, &l4_len)) return false;
        }
        if constexpr (kSums) {
            if (!header_ok(p)) return false;
            uint32_t crc;
            if (kChains && l4 + l4_len > held)
                crc = sctp_crc_held(m, p, held, l4, l4_len);  // the rest from the chain
            else
                crc = sctp_linear_crc(p + l4, l4_len);
            if (!crc_right(crc, p + l4, l4_len)) return false;
        }
        sum += len;
        verdict.write(m);
        return true;
    };
    unsigned took;
    if constexpr (!kChains && kSums) {
        // Two at a time where the next packet CRCs the same length in the
        // paired lanes' range: one loop runs both CRCs (crc32c_pair), whose
        // serial chains a packet at a time leave the crc32 units idle
        // (docs/notebook/issue-15.md, crc32c_pair). Else as take().
        const long voff = verdict.offset();
        rte_mbuf** q = pkts + i;
        rte_mbuf** const end = pkts + n;
        auto prefetch = [voff](rte_mbuf* a) [[gnu::always_inline]] {
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + voff);
        };
        // A packet kRunAhead on is prefetched per packet taken, as take_while.
        constexpr long kAhead = run_parts::kRunAhead;
        while (q != end) {
            if (end - q > kAhead) prefetch(q[kAhead]);
            const uint8_t* p = rte_pktmbuf_mtod(*q, const uint8_t*);
            uint32_t l4_len, l4_len1;
            if (!linear_shape(*q, p, &l4_len) || !header_ok(p)) break;
            const uint8_t* h = p + l4;
            const uint32_t data = l4_len - 12;
            if (data - (kSctpInlineMax + 1) <= detail::kPairMax - (kSctpInlineMax + 1) &&
                end - q > 1) {
                const uint8_t* p1 = rte_pktmbuf_mtod(q[1], const uint8_t*);
                if (linear_shape(q[1], p1, &l4_len1) && l4_len1 == l4_len && header_ok(p1)) {
                    if (end - q > kAhead + 1) prefetch(q[kAhead + 1]);
                    const uint8_t* h1 = p1 + l4;
                    const uint64_t r =
                        crc32c_pair(h + 12, h1 + 12, data, sctp_head_crc(h), sctp_head_crc(h1));
                    if (!crc_right(static_cast<uint32_t>(r), h, l4_len)) break;
                    sum += (*q)->pkt_len, verdict.write(*q), ++q;
                    if (!crc_right(static_cast<uint32_t>(r >> 32), h1, l4_len)) break;
                    sum += (*q)->pkt_len, verdict.write(*q), ++q;
                    continue;
                }
            }
            if (!crc_right(sctp_linear_crc(h, l4_len), h, l4_len)) break;
            sum += (*q)->pkt_len, verdict.write(*q), ++q;
        }
        took = static_cast<unsigned>(q - (pkts + i));
    } else if constexpr (kChains && kSums) {
        // Each chain's front is gathered while the chain before it is
        // checked: the shape test's first loads span the gather's stores,
        // and loads from fresh stores they span wait for them to retire
        // (store forwarding fails); an iteration later they have. (By GOOD
        // flags a packet costs too little to cover the gather's walk.)
        //
        // Under a plan without kPlanStream (no register gather for chain
        // CRCs) chains of up to kSctpWhole bytes are gathered whole, so that
        // their CRC is a linear packet's, from a copy an iteration old: a
        // call per piece, each waiting on the one before, cost more. With
        // it, past kHeaderGather only the front (the register gather beats
        // the copy there). Figures: docs/notebook/issue-15.md.
        constexpr unsigned kAhead = run_parts::kRunAhead;
        constexpr uint32_t kSctpWhole = 256;
        const long voff = verdict.offset();
        alignas(16) uint8_t gather[2][kSctpWhole];
        // The loop, for chains gathered whole up to kWhole bytes.
        auto run = [&]<uint32_t kWhole>(
                       std::integral_constant<uint32_t, kWhole>) [[gnu::always_inline]] {
            auto front = [](rte_mbuf* m, uint8_t* g) [[gnu::always_inline]] {
                return shape_detail::gather_front(m, std::span<uint8_t, kWhole>(g, kWhole),
                                                  [] { return l4 + 16; });
            };
            // Pointers, not indices, and the gather buffers swapped by an xor:
            // fewer values live across the packet's checks.
            rte_mbuf** q = pkts + i;
            rte_mbuf** const end = pkts + n;
            const uintptr_t swap =
                reinterpret_cast<uintptr_t>(gather[0]) ^ reinterpret_cast<uintptr_t>(gather[1]);
            uint8_t* g = gather[1];
            shape_detail::Front f{};
            if (q != end) f = front(*q, gather[0]);
            for (; q != end; ++q) {
                if (end - q > kAhead) {
                    rte_mbuf* a = q[kAhead];
                    rte_prefetch0(rte_pktmbuf_mtod(a, void*));
                    rte_prefetch0(reinterpret_cast<char*>(a) + voff);
                }
                if (end - q > 3 && (*q)->pkt_len <= kWhole) {
                    // Short chains: later segments' descriptors, a hop a chain
                    // (as the TCP/UDP chain loop): the second of the chain three
                    // on, the third of the one two on (a link followed only where
                    // nb_segs says there is a segment behind it). Longer chains
                    // cover the misses with their CRC; there the hops cost more.
                    const rte_mbuf* s2 = q[3]->next;
                    if (s2 != nullptr)
                        rte_prefetch0(s2), rte_prefetch0(reinterpret_cast<const char*>(s2) + 64);
                    const rte_mbuf* t2 = q[2]->next;
                    const rte_mbuf* t3 = t2 != nullptr && q[2]->nb_segs > 2 ? t2->next : nullptr;
                    if (t3 != nullptr)
                        rte_prefetch0(t3), rte_prefetch0(reinterpret_cast<const char*>(t3) + 64);
                }
                const shape_detail::Front cur = f;
                if (q + 1 != end) {
                    f = front(q[1], g);
                    g = reinterpret_cast<uint8_t*>(reinterpret_cast<uintptr_t>(g) ^ swap);
                }
                if (!take(*q, cur)) break;
            }
            return static_cast<unsigned>(q - (pkts + i));
        };
        took = (detail::crc32c_plan() & detail::kPlanStream)
                   ? run(std::integral_constant<uint32_t, kHeaderGather>{})
                   : run(std::integral_constant<uint32_t, kSctpWhole>{});
    } else {
        alignas(16) uint8_t gather[kChains ? kHeaderGather : 1];
        rte_mbuf** const p = run_parts::take_while(
            pkts + i, pkts + n, verdict.offset(), [&](rte_mbuf* m) [[gnu::always_inline]] {
                shape_detail::Front f{};
                if constexpr (kChains)
                    f = shape_detail::gather_front(m, std::span<uint8_t, kHeaderGather>(gather),
                                                   [] { return l4 + 16; });
                return take(m, f);
            });
        took = static_cast<unsigned>(p - (pkts + i));
    }
    *bytes += sum;
    if constexpr (kSums) {
        // The IPv4 header's 20 bytes summed per packet, as sctp_good counts them.
        ss->summed += kV6 ? 0 : 20ull * took;
        ss->crced += crced, ss->known = stop_known, ss->bad = stop_bad;
    }
    return i + took;
}

#define CSUM_SAME_SCTP(v6, sums, chains)                             \
    template unsigned Engine::Impl::same_sctp_run<v6, sums, chains>( \
        rte_mbuf**, unsigned, unsigned, const PacketVerdict*, uint64_t*, SameSums*);
CSUM_SAME_SCTP(false, false, false)
CSUM_SAME_SCTP(false, false, true)
CSUM_SAME_SCTP(false, true, false)
CSUM_SAME_SCTP(false, true, true)
CSUM_SAME_SCTP(true, false, false)
CSUM_SAME_SCTP(true, false, true)
CSUM_SAME_SCTP(true, true, false)
CSUM_SAME_SCTP(true, true, true)
#undef CSUM_SAME_SCTP

}  // namespace csum
