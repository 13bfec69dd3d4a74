// The all-good run of chained packets of one plain shape: as same_good_run
// (good_run.cpp) for linear ones, with the chain's front gathered first.
// With software sums on AVX-512, a chain over kHeaderGather bytes of at most
// kInetMaxPieces segments is walked once: the walk checks it against its
// descriptor and lists its pieces, from which the front is read and the L4
// region summed in one call (lib/mbuf: on AVX-512, one vector state across
// the pieces, reduced once).
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/engine_impl.h"
#include "engine/run_parts.h"
#include "inet/inet_kernels.h"
#include "mbuf/inet_mbuf_chain.h"

namespace csum {

// Returns the first packet it did not take; the packets before it are all
// kept (at kept.., in order), their bytes added to *bytes.
template <bool kV6, bool kUdp, bool kPorts, bool kSums, int kWalk>
unsigned Engine::Impl::same_chain_run(rte_mbuf** pkts, unsigned i, unsigned n, unsigned kept,
                                      const PacketVerdict* v, uint64_t* bytes, SameSums* ss) {
    if constexpr (kSums && kWalk == 0) {
        // Software sums on AVX-512: the loop that walks each chain once and
        // sums its pieces on one vector state (other kernels: sums_good's
        // walk, which carries AVX2 state along the chain).
        const InetKernel k = inet_active_kernel();
        if (k == InetKernel::avx512_vnni)
            return same_chain_run<kV6, kUdp, kPorts, true, 2>(pkts, i, n, kept, v, bytes, ss);
        if (k == InetKernel::avx512)
            return same_chain_run<kV6, kUdp, kPorts, true, 1>(pkts, i, n, kept, v, bytes, ss);
    }
    // The front the shape's headers need: to the TCP header's end, or the UDP header's.
    constexpr uint32_t kNeed = (kV6 ? 54 : 34) + (kUdp ? 8 : 20);
    constexpr unsigned kAhead = run_parts::kRunAhead;
    const ShapeConfig& sc = *shapes;
    const long voff = verdict_off;
    if (kept != i) return i;  // as same_good_run: drops before the run are left to good_run_as
    const run_parts::RunVerdict verdict(v, voff);
    uint64_t sum = 0, summed = 0;
    KnownSum stop_known;
    bool stop_bad = false;
    // A chain of at most kHeaderGather bytes in 2 segments has its front
    // gathered while the chain before it is checked, into gather[0] or [1]
    // by turns: the shape test's first loads span the gather's stores, and
    // loads from fresh stores they span wait for them to retire (store
    // forwarding fails); an iteration later they have. Other chains gather
    // in their own iteration, into gather[2] (ahead, 4-segment and longer
    // ones measured slower: docs/benchmarks.md).
    alignas(64) uint8_t gather[3][kHeaderGather];
    auto ahead = [](const rte_mbuf* m) [[gnu::always_inline]] {
        return m->nb_segs <= 2 && m->pkt_len <= kHeaderGather;
    };
    auto front = [](rte_mbuf* m, uint8_t* g) [[gnu::always_inline]] {
        return shape_detail::gather_front(m, std::span<uint8_t, kHeaderGather>(g, kHeaderGather),
                                          [] { return kNeed; });
    };
    unsigned j = i;
    shape_detail::Front next{};
    unsigned next_j = n;  // whose front next is (n: none)
    for (; j < n; ++j) {
        if (j + kAhead < n) {
            rte_mbuf* a = pkts[j + kAhead];
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + voff);
        }
        rte_mbuf* m = pkts[j];
        if (m->next == nullptr || !run_parts::RunMbufTest<kV6, kSums>::flags(m)) break;
        const uint32_t len = m->pkt_len;
        if constexpr (kWalk != 0) {
            if (len > kHeaderGather && m->nb_segs <= detail::kInetMaxPieces) {
                // One walk: the chain against its descriptor (as gather_front
                // checks it) and its pieces, for the front and the sum.
                detail::InetPieces pc;
                const uint32_t nb = m->nb_segs;
                uint32_t c = 0, have = 0;
                for (const rte_mbuf* g = m; g != nullptr; g = g->next) {
                    if (c == nb) {  // more segments than nb_segs
                        c = nb + 1;
                        break;
                    }
                    pc.p[c] = rte_pktmbuf_mtod(g, const uint8_t*);
                    pc.n[c] = g->data_len;
                    have += g->data_len;
                    ++c;
                }
                if (c != nb || have < len) break;
                pc.count = c;
                // The front: in place if the first segment holds the
                // headers, else the first kNeed bytes gathered (they fit:
                // kNeed <= kHeaderGather < len <= have).
                const uint8_t* f = pc.p[0];
                if (pc.n[0] < kNeed) {
                    uint8_t* d = gather[2];
                    uint32_t left = kNeed;
                    for (uint32_t q = 0; left != 0; ++q) {
                        const uint32_t t = pc.n[q] < left ? pc.n[q] : left;
                        shape_detail::small_copy(d, pc.p[q], t);
                        d += t, left -= t;
                    }
                    f = gather[2];
                }
                uint32_t l4_len;
                if (!same_plain_shape<kV6, kUdp, kPorts>(sc, f, len, &l4_len)) break;
                // As sums_good for a chain not at hand whole: the IPv4
                // header's sum, then the L4 region's (its KnownSum) with the
                // pseudo-header.
                const uint64_t pk = (uint64_t{kUdp ? kShapeUdp : kShapeTcp} + l4_len) << 8;
                uint64_t acc = 0;
                const bool summed_ok =
                    kWalk == 2
                        ? detail::inet_pieces_sum_avx512_vnni(pc, kV6 ? 54 : 34, l4_len, &acc)
                        : detail::inet_pieces_sum_avx512(pc, kV6 ? 54 : 34, l4_len, &acc);
                if (!summed_ok) break;
                const uint32_t d = detail::fold64(acc);
                uint64_t l;
                if constexpr (!kV6) {
                    const uint64_t addrs =
                        uint64_t{lean_detail::load32(f + 26)} + lean_detail::load32(f + 30);
                    const uint64_t h = addrs + lean_detail::load32(f + 14) +
                                       uint64_t{lean_detail::load32(f + 18)} +
                                       uint64_t{lean_detail::load32(f + 22)};
                    if (h == 0 || !lean_detail::mod_ffff_zero(h)) {  // as sums_good
                        stop_bad = true;
                        break;
                    }
                    l = d + addrs + pk;
                } else {
                    l = uint64_t{partial_sum_fixed<32>(f + 22)} + d + pk;
                }
                if (!lean_detail::mod_ffff_zero(l)) {
                    stop_known = {d, true}, stop_bad = true;
                    break;
                }
                summed += (kV6 ? 0 : 20) + l4_len;
                sum += len;
                verdict.write(m);
                continue;
            }
        }
        // m's front: gathered an iteration ago (into gather[(j - i) & 1]) if
        // the chain before took this path, else now; the next chain's goes
        // to the other of gather[0] and [1], never over m's.
        const shape_detail::Front fr = next_j == j ? next : front(m, gather[2]);
        if (j + 1 < n && ahead(pkts[j + 1])) {
            next = front(pkts[j + 1], gather[(j + 1 - i) & 1]);
            next_j = j + 1;
        }
        uint32_t l4_len;
        if (fr.bytes == nullptr || !same_plain_shape<kV6, kUdp, kPorts>(sc, fr.bytes, len, &l4_len))
            break;
        if constexpr (kSums) {
            const PacketShape s =
                lean_detail::run_shape<kV6, kUdp>(fr.bytes, fr.in_place, fr.held, len, l4_len);
            KnownSum k;
            if (!lean_detail::sums_good(m, s, &summed, &k)) {
                stop_known = k, stop_bad = true;
                break;
            }
        }
        sum += len;
        verdict.write(m);
    }
    *bytes += sum;
    if constexpr (kSums) ss->summed += summed, ss->known = stop_known, ss->bad = stop_bad;
    return j;
}

#define CSUM_SAME_CHAIN(v6, udp, ports, sums, walk)                             \
    template unsigned Engine::Impl::same_chain_run<v6, udp, ports, sums, walk>( \
        rte_mbuf**, unsigned, unsigned, unsigned, const PacketVerdict*, uint64_t*, SameSums*);
#define CSUM_SAME_CHAIN_SHAPES(sums, walk)           \
    CSUM_SAME_CHAIN(false, false, false, sums, walk) \
    CSUM_SAME_CHAIN(false, false, true, sums, walk)  \
    CSUM_SAME_CHAIN(false, true, false, sums, walk)  \
    CSUM_SAME_CHAIN(true, false, false, sums, walk)  \
    CSUM_SAME_CHAIN(true, false, true, sums, walk)   \
    CSUM_SAME_CHAIN(true, true, false, sums, walk)
CSUM_SAME_CHAIN_SHAPES(false, 0)
CSUM_SAME_CHAIN_SHAPES(true, 0)
CSUM_SAME_CHAIN_SHAPES(true, 1)
CSUM_SAME_CHAIN_SHAPES(true, 2)
#undef CSUM_SAME_CHAIN_SHAPES
#undef CSUM_SAME_CHAIN

}  // namespace csum
