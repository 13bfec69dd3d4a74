// The all-good run of chained packets of one plain shape: as same_good_run
// (good_run.cpp) for linear ones, with the chain's front gathered first.
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/engine_impl.h"
#include "engine/run_parts.h"

namespace csum {

// Returns the first packet it did not take; the packets before it are all
// kept (at kept.., in order), their bytes added to *bytes.
template <bool kV6, bool kUdp, bool kPorts, bool kSums>
unsigned Engine::Impl::same_chain_run(rte_mbuf** pkts, unsigned i, unsigned n, unsigned kept,
                                      const PacketVerdict* v, uint64_t* bytes, SameSums* ss) {
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
    alignas(64) uint8_t gather[kHeaderGather];
    unsigned j = i;
    for (; j < n; ++j) {
        if (j + kAhead < n) {
            rte_mbuf* a = pkts[j + kAhead];
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + voff);
        }
        rte_mbuf* m = pkts[j];
        if (m->next == nullptr || !run_parts::RunMbufTest<kV6, kSums>::flags(m)) break;
        const shape_detail::Front f = shape_detail::gather_front(
            m, std::span<uint8_t, kHeaderGather>(gather), [] { return kNeed; });
        const uint32_t len = m->pkt_len;
        uint32_t l4_len;
        if (f.bytes == nullptr || !same_plain_shape<kV6, kUdp, kPorts>(sc, f.bytes, len, &l4_len))
            break;
        if constexpr (kSums) {
            const PacketShape s =
                lean_detail::run_shape<kV6, kUdp>(f.bytes, f.in_place, f.held, len, l4_len);
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

#define CSUM_SAME_CHAIN(v6, udp, ports, sums)                             \
    template unsigned Engine::Impl::same_chain_run<v6, udp, ports, sums>( \
        rte_mbuf**, unsigned, unsigned, unsigned, const PacketVerdict*, uint64_t*, SameSums*);
CSUM_SAME_CHAIN(false, false, false, false)
CSUM_SAME_CHAIN(false, false, true, false)
CSUM_SAME_CHAIN(false, true, false, false)
CSUM_SAME_CHAIN(true, false, false, false)
CSUM_SAME_CHAIN(true, false, true, false)
CSUM_SAME_CHAIN(true, true, false, false)
CSUM_SAME_CHAIN(false, false, false, true)
CSUM_SAME_CHAIN(false, false, true, true)
CSUM_SAME_CHAIN(false, true, false, true)
CSUM_SAME_CHAIN(true, false, false, true)
CSUM_SAME_CHAIN(true, false, true, true)
CSUM_SAME_CHAIN(true, true, false, true)
#undef CSUM_SAME_CHAIN

}  // namespace csum
