// tunnel_chain_run.h's loops on AVX-512 (tunnel_chain_body.h): each chain
// walked once (chain_walk_parts.h's walk_and_sum), every segment summed on
// zmm state and the front's 128 bytes put together in two registers by
// masked loads wherever the segments cut it, then stored for the header
// tests (read a batch of walks later, when the stores have retired); a
// longer front (IPv6 in IPv6) is read where it lies or gathered. A chain
// of at most kFront bytes is put together whole (two or three registers)
// and tested as a linear packet. Every header is included first, then the
// target region opens, so that only this file's own functions are built
// for AVX-512.
#include <immintrin.h>

#include <cstdint>
#include <span>
#include <type_traits>

#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>

#include "engine/lean_path.h"
#include "engine/run_parts.h"
#include "engine/tunnel_chain_run.h"
#include "engine/tunnel_fill_parts.h"
#include "engine/tunnel_match.h"
#include "engine/tunnel_run.h"
#include "inet/inet_kernels.h"
#include "inet/word_sum.h"
#include "mbuf/inet_mbuf_chain.h"
#include "parse/classify.h"
#include "parse/classify_same.h"
#include "simd/target_region.h"

CSUM_TARGET_BEGIN(CSUM_ISA_AVX512)
CSUM_AVX512_INTRINSIC_WARNINGS_OFF

#include "engine/chain_walk_parts.h"
#include "engine/chain_walk_shape.h"
#include "simd/masked_load.h"

#include "engine/tunnel_chain_body.h"

namespace csum::tunnel_chain {
namespace {

// A chain of at most kShort bytes put together in two registers (two
// segments, the common cut, unrolled), stored to buf's first 128 bytes.
[[gnu::always_inline]] inline bool short_front(const rte_mbuf* m, uint32_t len, uint32_t nb,
                                               uint8_t (&buf)[kFront]) {
    static_assert(kFront >= 128);
    __m512i z[2];
    if (!(nb == 2 ? chain_walk::short_walk2<true>(m, len, &z[0], &z[1])
                  : chain_walk::short_walk<2>(m, len, nb, z)))
        return false;
    _mm512_store_si512(buf, z[0]);
    _mm512_store_si512(buf + 64, z[1]);
    return true;
}

struct Walk512 {
    // The one 64-byte compare where the template has its wide form (outer
    // IPv4); outer IPv6's headers reach past its 64 bytes: the narrow one.
    template <bool kIv6, bool kUdp, bool kOv6>
    using Match = std::conditional_t<kOv6, NarrowMatch<kIv6, kUdp, kOv6>, WideMatch<kIv6, kUdp>>;
    // A constructor of its own: an implicit one is not built for the target.
    Walk512()
        : bias(_mm512_set1_epi16(static_cast<int16_t>(0x8000))),
          ones(_mm512_set1_epi16(1)),
          sh(chain_walk::word_swap()) {}
    const __m512i bias, ones, sh;
    template <uint32_t kNeed>
    [[gnu::always_inline]] bool walk(rte_mbuf* m, uint32_t len, uint32_t nb, uint8_t (&buf)[kFront],
                                     uint8_t** front, uint64_t* total, bool* whole,
                                     bool* copied) const {
        if (len <= kShort) {
            // Put together whole, tested as a linear packet (as Walk2's copy):
            // fewer instructions than summing its short segments.
            if (!short_front(m, len, nb, buf)) return false;
            *front = buf, *whole = true, *copied = true;
            return true;
        }
        if (len <= kFront) {
            // The same, in three registers: walking a small tunnel frame
            // over IPv6 cost it ~1.3x (docs/benchmarks.md).
            static_assert(kFront == 192);
            __m512i z[3];
            if (!chain_walk::short_walk<3>(m, len, nb, z)) return false;
            _mm512_store_si512(buf, z[0]);
            _mm512_store_si512(buf + 64, z[1]);
            _mm512_store_si512(buf + 128, z[2]);
            *front = buf, *whole = true, *copied = true;
            return true;
        }
        __m512i z0, z1, t;
        uint32_t vectors;
        if (!chain_walk::walk_and_sum<kShort, false>(m, len, nb, bias, ones, sh, &z0, &z1, &t,
                                                     &vectors))
            return false;
        if constexpr (kNeed <= kShort) {
            _mm512_store_si512(buf, z0);
            _mm512_store_si512(buf + 64, z1);
            *front = buf, *copied = true;
        } else {
            // Headers past z0, z1 (IPv6 in IPv6: 144 bytes): the front taken
            // where it lies, copied only where the first segment cuts it.
            if (!gathered_front<kNeed>(m, buf, front)) return false;
            *copied = *front == buf;
        }
        *whole = false;
        // Each vector's 32 words lost 0x8000 each to the bias.
        *total = static_cast<uint64_t>(int64_t{_mm512_reduce_add_epi32(t)} +
                                       int64_t{0x100000} * int64_t{vectors});
        return true;
    }
    template <uint32_t kNeed>
    [[gnu::always_inline]] bool front(rte_mbuf* m, uint32_t len, uint32_t nb,
                                      uint8_t (&buf)[kFront], uint8_t** out) const {
        if (len <= kShort) {
            if (!short_front(m, len, nb, buf)) return false;
            *out = buf;
            return true;
        }
        return gathered_front<kNeed>(m, buf, out);
    }
};

}  // namespace

unsigned run_avx512(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts, unsigned i,
                    unsigned n, long voff, TunnelRunTook* took) noexcept {
    const Walk512 w;
    return run_kind(w, sc, r, pkts, i, n, voff, took);
}

unsigned fill_avx512(const ShapeConfig& sc, const TunnelRun& r, uint32_t plan, rte_mbuf** pkts,
                     unsigned i, unsigned n, long voff, uint64_t* l4_sum) noexcept {
    const Walk512 w;
    return fill_kind(w, sc, r, plan, pkts, i, n, voff, l4_sum);
}

}  // namespace csum::tunnel_chain

CSUM_TARGET_END
