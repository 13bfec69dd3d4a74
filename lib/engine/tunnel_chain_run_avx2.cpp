// tunnel_chain_run.h's loops on AVX2 (tunnel_chain_body.h), each chain
// walked once on ymm state (chain_walk_avx2_parts.h). Every header is
// included first, then the target region opens, so that only this file's
// own functions are built for AVX2.
#include <immintrin.h>

#include <cstdint>
#include <span>

#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>

#include "dispatch/cpu_features.h"
#include "engine/run_parts.h"
#include "engine/tunnel_chain_run.h"
#include "engine/tunnel_fill_parts.h"
#include "engine/tunnel_match.h"
#include "engine/tunnel_run.h"
#include "inet/inet_kernels.h"
#include "inet/word_sum.h"
#include "mbuf/inet_mbuf_chain.h"
#include "parse/classify.h"
#include "simd/target_region.h"

CSUM_TARGET_BEGIN(CSUM_ISA_AVX2)

#include "engine/chain_walk_avx2_parts.h"
#include "engine/chain_walk_shape.h"

#include "engine/tunnel_chain_body.h"

namespace csum::tunnel_chain {
namespace {

// A chain of at most kFront bytes is copied whole (gather_front) and
// tested as a linear packet: fewer instructions than walking its short
// segments on ymm state (docs/benchmarks.md, the thirty-seventh session).
// A longer one is walked and summed on it (walk_and_sum), its front copied
// only where the first segment does not hold it.
struct Walk2 {
    template <bool kIv6, bool kUdp, bool kOv6>
    using Match = NarrowMatch<kIv6, kUdp, kOv6>;
    const chain_walk::Consts c;
    template <uint32_t kNeed>
    [[gnu::always_inline]] bool walk(rte_mbuf* m, uint32_t len, uint32_t nb, uint8_t (&buf)[kFront],
                                     uint8_t** front, uint64_t* total, bool* whole,
                                     bool* copied) const {
        *whole = len <= kFront;
        if (len <= kFront) {
            const shape_detail::Front f = shape_detail::gather_front(
                m, std::span<uint8_t, kFront>(buf, kFront), []() -> uint32_t { return kFront; });
            *front = f.bytes, *copied = f.in_place == nullptr;
            return f.bytes != nullptr;
        }
        bool in_place;
        chain_walk::Sums s;
        if (!chain_walk::walk_and_sum<kNeed>(
                c, m, len, nb, *reinterpret_cast<uint8_t(*)[kNeed]>(buf), &in_place, &s))
            return false;
        *front = in_place ? rte_pktmbuf_mtod(m, uint8_t*) : buf;
        *copied = !in_place;
        *total = chain_walk::total(s);
        return true;
    }
    template <uint32_t kNeed>
    [[gnu::always_inline]] bool front(rte_mbuf* m, uint32_t, uint32_t, uint8_t (&buf)[kFront],
                                      uint8_t** out) const {
        return gathered_front<kNeed>(m, buf, out);
    }
};

}  // namespace

unsigned run_avx2(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts, unsigned i,
                  unsigned n, long voff, TunnelRunTook* took) noexcept {
    const Walk2 w;
    return run_kind(w, sc, r, pkts, i, n, voff, took);
}

unsigned fill_avx2(const ShapeConfig& sc, const TunnelRun& r, uint32_t plan, rte_mbuf** pkts,
                   unsigned i, unsigned n, long voff, uint64_t* l4_sum) noexcept {
    const Walk2 w;
    return fill_kind(w, sc, r, plan, pkts, i, n, voff, l4_sum);
}

}  // namespace csum::tunnel_chain

CSUM_TARGET_END

namespace csum::tunnel_chain {
int cpu_level() noexcept {
    static const int level = detail::cpu().can_engine_avx512() ? 2
                             : detail::cpu().can_inet_avx2()   ? 1
                                                               : 0;
    return level;
}
}  // namespace csum::tunnel_chain
