// The all-good run of chained packets of one plain shape: as same_good_run
// (good_run.cpp) for linear ones, with the chain's front gathered first.
// With software sums on AVX-512, a stretch of chains of at most
// kInetMaxPieces segments goes to chain_walk.h's loop: each chain walked
// once, inline (good_run_chain_avx512[_vnni].cpp); a short one (at most
// kHeaderGather bytes) assembled in two registers by masked loads, a longer
// one summed segment by segment as the walk reaches it, on one vector state.
// On AVX2 the longer ones go to its loop (good_run_chain_avx2.cpp); the
// short ones are gathered here.
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "dispatch/cpu_features.h"
#include "engine/chain_walk.h"
#include "engine/engine_impl.h"
#include "engine/run_parts.h"
#include "inet/inet_kernels.h"
#include "mbuf/inet_mbuf_chain.h"

namespace csum {

// Returns the first packet it did not take; the packets before it are all
// kept (the dispatch moves them to kept..), their bytes added to *bytes.
template <bool kV6, bool kUdp, bool kPorts, bool kSums, int kWalk>
unsigned Engine::Impl::same_chain_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                      const PacketVerdict* v, uint64_t* bytes, SameSums* ss) {
    if constexpr (kSums && kWalk == 0) {
        // Software sums on AVX-512 or AVX2: chain_walk.h's loops for the
        // chains they take (other kernels: sums_good's walk).
        const InetKernel k = inet_active_kernel();
        if (k == InetKernel::avx512_vnni)
            return same_chain_run<kV6, kUdp, kPorts, true, 2>(pkts, i, n, v, bytes, ss);
        if (k == InetKernel::avx512)
            return same_chain_run<kV6, kUdp, kPorts, true, 1>(pkts, i, n, v, bytes, ss);
        if (k == InetKernel::avx2)
            return same_chain_run<kV6, kUdp, kPorts, true, 3>(pkts, i, n, v, bytes, ss);
    }
    // The front the shape's headers need: to the TCP header's end, or the UDP header's.
    constexpr uint32_t kNeed = (kV6 ? 54 : 34) + (kUdp ? 8 : 20);
    constexpr unsigned kAhead = run_parts::kRunAhead;
    const ShapeConfig& sc = *shapes;
    const long voff = verdict_off;
    const run_parts::RunVerdict verdict(v, voff);
    uint64_t sum = 0, summed = 0;
    KnownSum stop_known;
    bool stop_bad = false;
    // A chain of at most kHeaderGather bytes has its front gathered while
    // the chain before it is checked, into gather[0] or [1] by turns: the
    // shape test's and the sums' loads span the gather's stores, and loads
    // from fresh stores they span wait for them to retire (store forwarding
    // fails); an iteration later they have. Up to 4 segments with software
    // sums, 2 for GOOD chains (no sum loads; 4 segments ahead measured
    // slower). Other chains gather in their own iteration, into gather[2].
    // Figures: docs/notebook/issue-15.md, "Twenty-fourth session".
    alignas(64) uint8_t gather[3][kHeaderGather];
    auto ahead = [](const rte_mbuf* m) [[gnu::always_inline]] {
        return m->nb_segs <= (kSums ? 4 : 2) && m->pkt_len <= kHeaderGather;
    };
    auto front = [](rte_mbuf* m, uint8_t* g) [[gnu::always_inline]] {
        return shape_detail::gather_front(m, std::span<uint8_t, kHeaderGather>(g, kHeaderGather),
                                          [] { return kNeed; });
    };
    unsigned j = i;
    unsigned no_walk = n;  // a GOOD chain the short loop refused: gathered below
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
        if constexpr (kWalk != 0 && !kSums) {
            if (len <= kHeaderGather && m->nb_segs <= detail::kInetMaxPieces && j != no_walk) {
                constexpr int kShape = kV6 ? (kUdp ? 4 : 3) : (kUdp ? 1 : 0);
                chain_walk::Out o;
                bool failed;
                const unsigned e = chain_walk::run_short_good_avx512(kShape, kPorts, sc, pkts, j, n,
                                                                     verdict, &o, &failed);
                sum += o.bytes;
                // Where it stopped, from the top: a chain it refused (padded,
                // say) is gathered there; anything else ends the run there.
                if (failed) no_walk = e;
                if (e == n) {
                    j = e;
                    break;
                }
                if (e != j || failed) {
                    j = e - 1;
                    continue;
                }
            }
        }
        if constexpr (kWalk != 0 && kSums) {
            // AVX2 (kWalk 3) has a loop for chains over kHeaderGather only.
            if (len <= 65535 && m->nb_segs <= detail::kInetMaxPieces &&
                (kWalk != 3 || len > kHeaderGather)) {
                // The stretch of such chains from here: chain_walk.h's loop.
                constexpr int kShape = kV6 ? (kUdp ? 4 : 3) : (kUdp ? 1 : 0);
                chain_walk::Out o;
                bool failed;
                // Short chains (assembled in registers) and longer ones
                // (summed segment by segment): a loop each.
                const bool shrt = len <= kHeaderGather;
                const unsigned e = (kWalk == 3   ? chain_walk::run_avx2
                                    : shrt       ? chain_walk::run_short_avx512
                                    : kWalk == 2 ? chain_walk::run_avx512_vnni
                                                 : chain_walk::run_avx512)(
                    kShape, kPorts, sc, pkts, j, n, verdict, &o, &failed);
                sum += o.bytes, summed += o.summed;
                if (failed || e == j) {
                    j = e;
                    break;
                }
                j = e - 1;  // the packet it stopped at: this loop's, from the top
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

namespace chain_walk {
bool cpu_has_avx512() noexcept {
    static const bool has = detail::cpu().can_engine_avx512();
    return has;
}
}  // namespace chain_walk

#define CSUM_SAME_CHAIN(v6, udp, ports, sums, walk)                             \
    template unsigned Engine::Impl::same_chain_run<v6, udp, ports, sums, walk>( \
        rte_mbuf**, unsigned, unsigned, const PacketVerdict*, uint64_t*, SameSums*);
#define CSUM_SAME_CHAIN_SHAPES(sums, walk)           \
    CSUM_SAME_CHAIN(false, false, false, sums, walk) \
    CSUM_SAME_CHAIN(false, false, true, sums, walk)  \
    CSUM_SAME_CHAIN(false, true, false, sums, walk)  \
    CSUM_SAME_CHAIN(true, false, false, sums, walk)  \
    CSUM_SAME_CHAIN(true, false, true, sums, walk)   \
    CSUM_SAME_CHAIN(true, true, false, sums, walk)
CSUM_SAME_CHAIN_SHAPES(false, 0)
CSUM_SAME_CHAIN_SHAPES(false, 1)
CSUM_SAME_CHAIN_SHAPES(true, 0)
CSUM_SAME_CHAIN_SHAPES(true, 1)
CSUM_SAME_CHAIN_SHAPES(true, 2)
CSUM_SAME_CHAIN_SHAPES(true, 3)
#undef CSUM_SAME_CHAIN_SHAPES
#undef CSUM_SAME_CHAIN

}  // namespace csum
