// The all-good run of chained packets of one plain shape: as same_good_run
// (good_run.cpp) for linear ones, with the chain's front gathered first.
#include <emmintrin.h>

#include <cstring>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/engine_impl.h"

namespace csum {

// Returns the first packet it did not take; the packets before it are all
// kept (at kept.., in order), their bytes added to *bytes.
template <bool kV6, bool kUdp, bool kPorts, bool kSums>
unsigned Engine::Impl::same_chain_run(rte_mbuf** pkts, unsigned i, unsigned n, unsigned kept,
                                      const PacketVerdict* v, uint64_t* bytes, SameSums* ss) {
    constexpr uint64_t kMask =
        kSums ? RTE_MBUF_F_RX_L4_CKSUM_MASK | RTE_MBUF_F_RX_IP_CKSUM_MASK
              : RTE_MBUF_F_RX_L4_CKSUM_MASK | (kV6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_MASK);
    constexpr uint64_t kGood =
        kSums ? 0 : RTE_MBUF_F_RX_L4_CKSUM_GOOD | (kV6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD);
    // The front the shape's headers need: to the TCP header's end, or the UDP header's.
    constexpr uint32_t kNeed = (kV6 ? 54 : 34) + (kUdp ? 8 : 20);
    constexpr unsigned kAhead = 3;
    const ShapeConfig& sc = *shapes;
    const long voff = verdict_off;
    if (kept != i) return i;  // as same_good_run: drops before the run are left to good_run_as
    const __m128i v16 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v));
    uint32_t v4;
    std::memcpy(&v4, reinterpret_cast<const char*>(v) + 16, 4);
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
        if (m->next == nullptr || (m->ol_flags & kMask) != kGood) break;
        const shape_detail::Front f = shape_detail::gather_front(
            m, std::span<uint8_t, kHeaderGather>(gather), [] { return kNeed; });
        const uint32_t len = m->pkt_len;
        uint32_t l4_len;
        if (f.bytes == nullptr || !same_plain_shape<kV6, kUdp, kPorts>(sc, f.bytes, len, &l4_len))
            break;
        if constexpr (kSums) {
            // The shape classify_headers would describe, for the one sums_good.
            PacketShape s;
            s.bytes = f.bytes, s.in_place = f.in_place, s.held = f.held, s.pkt_len = len;
            s.whole = f.held == len;
            s.v6 = kV6, s.proto = kUdp ? kShapeUdp : kShapeTcp, s.l4i = kUdp ? 1 : 0;
            s.l4_hdr = 0, s.field = kUdp ? 6 : 16, s.nvme = false;
            s.l3_off = 14, s.l4_off = kV6 ? 54 : 34;
            s.l4_len = l4_len;
            KnownSum k;
            if (!lean_detail::sums_good(m, s, &summed, &k)) {
                stop_known = k, stop_bad = true;
                break;
            }
        }
        sum += len;
        char* d = reinterpret_cast<char*>(m) + voff;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d), v16);
        std::memcpy(d + 16, &v4, 4);
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
