// Fill mode's chain loop for CPUs with AVX2 and no AVX-512
// (chain_walk::fill_avx2): a chain of more than kHeaderGather bytes is
// walked once and summed whole on ymm state carried along the chain
// (chain_walk_avx2_parts.h), as run_avx2 verifies it; its fields are then
// written into the segments that hold them. Any other chain (a short or a
// padded one) is handed to fill_chain.cpp's fill (a gathered copy, a
// kernel call per piece). Every header is included before the target region
// opens, as in good_run_chain_avx2.cpp.
#include <immintrin.h>

#include <cstdint>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/chain_walk.h"
#include "engine/lean_path.h"
#include "engine/run_parts.h"
#include "inet/inet_kernels.h"
#include "inet/word_sum.h"
#include "mbuf/inet_mbuf_chain.h"
#include "mbuf/segment_read.h"
#include "parse/classify.h"
#include "parse/classify_same.h"
#include "simd/target_region.h"

CSUM_TARGET_BEGIN(CSUM_ISA_AVX2)

// Inside the target region: its helpers are built for AVX2 here.
#include "engine/chain_walk_avx2_parts.h"
#include "engine/chain_walk_shape.h"

namespace csum::chain_walk {
namespace {

// A chain of more than kHeaderGather bytes filled; false, with nothing
// written, if the walk does not take it. *l4_out: its L4 bytes.
template <bool kV6, bool kUdp, bool kPorts>
[[gnu::always_inline]] inline bool fill_long(const Consts& c, const ShapeConfig& sc, rte_mbuf* m,
                                             uint32_t len, uint32_t nb, uint32_t* l4_out) {
    constexpr uint32_t kL4 = kV6 ? 54 : 34, kField = kL4 + (kUdp ? 6 : 16);
    // The bytes same_plain_shape reads, the L4 field among them.
    constexpr uint32_t kNeed = kL4 + (kUdp ? 8 : 20);
    static_assert(kField + 2 <= kNeed && kNeed < kHeaderGather);
    if (len > 65535) return false;
    alignas(32) uint8_t gathered[kNeed];
    bool in_place;
    Sums s;
    if (!walk_and_sum<kNeed>(c, m, len, nb, gathered, &in_place, &s)) return false;
    const uint8_t* p = in_place ? rte_pktmbuf_mtod(m, const uint8_t*) : gathered;
    uint32_t l4_len;
    // Nothing may follow the L4 region: the walk summed every byte.
    if (!same_plain_shape<kV6, kUdp, kPorts, true>(sc, p, len, &l4_len) || l4_len != len - kL4)
        return false;
    using word_sum::load16;
    // Both sums before either field is written (p may be the segment's data).
    const uint64_t l =
        detail::add64c(pseudo_l4_sum<kV6, kUdp>(s, p, l4_len), 0xFFFFu - load16(p + kField));
    const uint16_t w = static_cast<uint16_t>(~word_sum::fold64(l));
    if constexpr (!kV6) run_parts::put_chain_field(m, 24, word_sum::ipv4_header_field(p + 14));
    run_parts::put_chain_field(m, kField, kUdp && w == 0 ? 0xFFFF : w);
    *l4_out = l4_len;
    return true;
}

template <bool kV6, bool kUdp, bool kPorts>
unsigned fill(const ShapeConfig& sc, uint32_t plan, rte_mbuf** pkts, unsigned j, unsigned n,
              const run_parts::RunVerdict& verdict, Out* out) noexcept {
    const long voff = verdict.offset();
    const Consts c;
    uint64_t bytes = 0, l4_bytes = 0;
    for (; j < n; ++j) {
        prefetch_ahead<false>(pkts, j, n, voff);
        rte_mbuf* m = pkts[j];
        const uint32_t len = m->pkt_len, nb = m->nb_segs;
        if (m->next == nullptr || nb > detail::kInetMaxPieces) break;
        uint32_t l4_len;
        const bool filled =
            len > kHeaderGather && fill_long<kV6, kUdp, kPorts>(c, sc, m, len, nb, &l4_len);
        // Nothing written yet: a chain the walk refuses (short or padded,
        // say) is filled by the general fill, or ends the run.
        if (!filled && !fill_general<kV6, kUdp, kPorts>(sc, plan, m, &l4_len)) break;
        bytes += len;
        l4_bytes += l4_len;
        verdict.write(m);
    }
    out->bytes += bytes;
    out->summed += l4_bytes;
    return j;
}

}  // namespace

unsigned fill_avx2(int shape, bool ports, const ShapeConfig& sc, uint32_t plan, rte_mbuf** pkts,
                   unsigned j, unsigned n, const run_parts::RunVerdict& verdict,
                   Out* out) noexcept {
    return by_shape(
        shape, ports,
        [&]<bool kV6, bool kUdp, bool kPorts>() [[gnu::always_inline]] {
            return fill<kV6, kUdp, kPorts>(sc, plan, pkts, j, n, verdict, out);
        },
        [&] { return j; });
}

}  // namespace csum::chain_walk

CSUM_TARGET_END
