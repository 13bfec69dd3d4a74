// Fill mode's chain loop on AVX-512 (chain_walk::fill_avx512). A chain of
// at most kHeaderGather bytes is walked into two registers and tested and
// summed as the verify loop's short_check does; a longer one is walked once
// and summed whole on vector state carried from segment to segment, as
// chain_walk_body.h's run verifies it, its front put together in registers
// as the walk reaches it. The fields are then written into the segments
// that hold them. A chain neither walk takes (a padded frame) is handed to
// fill_chain.cpp's fill (a gathered copy, a kernel call per piece). Every header but the parts is
// included before the target region opens, as in chain_walk_body.h.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/chain_walk.h"
#include "engine/lean_path.h"
#include "engine/run_parts.h"
#include "inet/inet_kernels.h"
#include "mbuf/inet_mbuf_chain.h"
#include "parse/classify_same.h"
#include "simd/target_region.h"

CSUM_TARGET_BEGIN(CSUM_ISA_AVX512)
CSUM_AVX512_INTRINSIC_WARNINGS_OFF

// Inside the target region: their inline helpers need AVX-512 here.
#include "engine/chain_walk_parts.h"
#include "engine/chain_walk_shape.h"
#include "simd/masked_load.h"

namespace csum::chain_walk {
namespace {

// The front fill tests and writes: through the L4 checksum field, in whole
// 8-byte words.
template <bool kV6, bool kUdp>
inline constexpr uint32_t kFillFront = kV6 ? (kUdp ? 64 : 72) : 56;

// The IPv4 header's checksum over bytes [14, 34) of the front in z0, its
// field (24, 25) as zero, as fill_chain computes it.
[[gnu::always_inline]] inline uint16_t ipv4_header_sum(__m512i z0, __m512i z1) {
    const uint64_t q1 = lane_word<1>(z0, z1), q2 = lane_word<2>(z0, z1);
    const uint64_t q3 = lane_word<3>(z0, z1), q4 = lane_word<4>(z0, z1);
    const uint64_t h = (q1 >> 48) + (q2 & 0xFFFFFFFF) + (q2 >> 32) + ((q3 >> 16) & 0xFFFF) +
                       (q3 >> 32) + (q4 & 0xFFFF);
    return static_cast<uint16_t>(~word_sum::fold64(h));
}

// The L4 checksum from l, the L4 region's sum with the addresses, the
// length and protocol, its field taken as zero (positive: the constant).
template <bool kUdp>
[[gnu::always_inline]] inline uint16_t l4_field(uint64_t l) {
    const uint16_t w = static_cast<uint16_t>(~word_sum::fold64(l));
    return kUdp && w == 0 ? 0xFFFF : w;
}

// A long chain (more than kHeaderGather bytes) filled; false, with nothing
// written, if the loop does not take it.
template <bool kV6, bool kUdp, bool kPorts>
[[gnu::always_inline]] inline bool fill_long(const ShapeConfig& sc, rte_mbuf* m, uint32_t len,
                                             uint32_t nb, __m512i bias, __m512i ones, __m512i sh,
                                             uint32_t* l4_out) {
    constexpr uint32_t kF = kFillFront<kV6, kUdp>;
    constexpr uint32_t kL4 = kV6 ? 54 : 34, kField = kL4 + (kUdp ? 6 : 16);
    static_assert(kField + 2 <= kF && kF < kHeaderGather && kField % 2 == 0);
    if (len > 65535) return false;
    __m512i z0, z1, t;
    uint32_t vectors, l4_len;
    if (!walk_and_sum<kF, false>(m, len, nb, bias, ones, sh, &z0, &z1, &t, &vectors) ||
        !front_shape<kV6, kUdp, kPorts>(sc, z0, z1, len, &l4_len))
        return false;
    const uint64_t field = (lane_word<kField / 8>(z0, z1) >> (8 * (kField % 8))) & 0xFFFF;
    const uint64_t l = addressed_l4_sum<kV6>(z0, t, vectors, bias, ones) +
                       ((uint64_t{kUdp ? kShapeUdp : kShapeTcp} + l4_len) << 8) + (0xFFFF - field);
    if constexpr (!kV6) run_parts::put_chain_field(m, 24, ipv4_header_sum(z0, z1));
    run_parts::put_chain_field(m, kField, l4_field<kUdp>(l));
    *l4_out = l4_len;
    return true;
}

// A chain of at most kHeaderGather bytes filled: walked into registers
// (short_walk), tested and summed as the verify loop's short_check does
// (a copy's unaligned loads would wait on its stores). False, with nothing
// written, if the loop does not take it (a padded frame, say).
template <bool kV6, bool kUdp, bool kPorts>
[[gnu::always_inline]] inline bool fill_short(const ShapeConfig& sc, rte_mbuf* m, uint32_t len,
                                              uint32_t nb, uint32_t* l4_out) {
    constexpr uint32_t kField = (kV6 ? 54 : 34) + (kUdp ? 6 : 16);
    __m512i z[2];
    uint64_t l4_len = 0;
    uint16_t fields[2];
    if (len > 64) {
        if (!(nb == 2 ? short_walk2<true>(m, len, &z[0], &z[1]) : short_walk<2>(m, len, nb, z)) ||
            !short_check<kV6, kUdp, kPorts, true, true, true>(sc, z[0], z[1], len, &l4_len, fields))
            return false;
    } else {
        if (!(nb == 2 ? short_walk2<false>(m, len, &z[0], &z[1]) : short_walk<1>(m, len, nb, z)) ||
            !short_check<kV6, kUdp, kPorts, false, true, true>(sc, z[0], z[1], len, &l4_len,
                                                               fields))
            return false;
    }
    if constexpr (!kV6) run_parts::put_chain_field(m, 24, fields[0]);
    run_parts::put_chain_field(m, kField, fields[1]);
    *l4_out = static_cast<uint32_t>(l4_len);
    return true;
}

template <bool kV6, bool kUdp, bool kPorts>
unsigned fill(const ShapeConfig& sc, uint32_t plan, rte_mbuf** pkts, unsigned j, unsigned n,
              const run_parts::RunVerdict& verdict, Out* out) noexcept {
    const long voff = verdict.offset();
    const __m512i bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    const __m512i ones = _mm512_set1_epi16(1);
    const __m512i sh = word_swap();
    uint64_t bytes = 0, l4_bytes = 0;
    for (; j < n; ++j) {
        prefetch_ahead<false>(pkts, j, n, voff);
        rte_mbuf* m = pkts[j];
        const uint32_t len = m->pkt_len, nb = m->nb_segs;
        if (m->next == nullptr || nb > detail::kInetMaxPieces) break;
        uint32_t l4_len;
        const bool filled =
            len <= kHeaderGather
                ? fill_short<kV6, kUdp, kPorts>(sc, m, len, nb, &l4_len)
                : fill_long<kV6, kUdp, kPorts>(sc, m, len, nb, bias, ones, sh, &l4_len);
        // Nothing written yet: a chain the walks refuse (padded, say) is
        // filled by the general fill, or ends the run.
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

[[gnu::aligned(64)]] unsigned fill_avx512(int shape, bool ports, const ShapeConfig& sc,
                                          uint32_t plan, rte_mbuf** pkts, unsigned j, unsigned n,
                                          const run_parts::RunVerdict& verdict, Out* out) noexcept {
    return by_shape(
        shape, ports,
        [&]<bool kV6, bool kUdp, bool kPorts>() [[gnu::always_inline]] {
            return fill<kV6, kUdp, kPorts>(sc, plan, pkts, j, n, verdict, out);
        },
        [&] { return j; });
}

}  // namespace csum::chain_walk

CSUM_TARGET_END
