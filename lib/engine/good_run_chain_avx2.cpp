// chain_walk.h's long loop for CPUs with AVX2 and no AVX-512 (run_avx2):
// each chain walked once, every segment summed whole as it is reached on
// ymm state carried along the chain and reduced once (chain_walk_avx2_parts.h),
// as chain_walk_body.h does with AVX-512; then the shape test on the front
// and the sums. Every header is included first, then the target region
// opens, so that only this file's own functions (internal linkage) are
// built for AVX2.
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

template <bool kV6, bool kUdp, bool kPorts>
unsigned run(const ShapeConfig& sc, rte_mbuf** pkts, unsigned j, unsigned n,
             const run_parts::RunVerdict& verdict, Out* out, bool* failed) noexcept {
    constexpr uint32_t kL4 = kV6 ? 54 : 34;
    // The bytes same_plain_shape reads: to the end of the UDP or TCP header.
    constexpr uint32_t kNeed = kL4 + (kUdp ? 8 : 20);
    static_assert(kNeed < kHeaderGather);  // the chains here hold more
    const long voff = verdict.offset();
    const Consts c;
    uint64_t bytes = 0, summed = 0;
    *failed = false;
    for (; j < n; ++j) {
        prefetch_ahead<true>(pkts, j, n, voff);
        rte_mbuf* m = pkts[j];
        if (m->next == nullptr || !run_parts::RunMbufTest<kV6, true>::flags(m)) break;
        const uint32_t len = m->pkt_len, nb = m->nb_segs;
        if (len <= kHeaderGather || len > 65535 || nb > detail::kInetMaxPieces) break;
        alignas(32) uint8_t gathered[kNeed];
        bool in_place;
        Sums s;
        if (!walk_and_sum<kNeed>(c, m, len, nb, gathered, &in_place, &s)) {
            *failed = true;
            break;
        }
        const uint8_t* p = in_place ? rte_pktmbuf_mtod(m, const uint8_t*) : gathered;
        uint32_t l4_len;
        // Nothing may follow the L4 region: the walk summed every byte.
        if (!same_plain_shape<kV6, kUdp, kPorts, true>(sc, p, len, &l4_len) ||
            l4_len != len - kL4) {
            *failed = true;
            break;
        }
        if constexpr (!kV6) {
            if (!word_sum::mod_ffff_zero(word_sum::ipv4_header_words(p + 14))) {
                *failed = true;
                break;
            }
        }
        if (!word_sum::mod_ffff_zero(pseudo_l4_sum<kV6, kUdp>(s, p, l4_len))) {
            *failed = true;
            break;
        }
        summed += (kV6 ? 0 : 20) + l4_len;
        bytes += len;
        verdict.write(m);
    }
    out->bytes += bytes;
    out->summed += summed;
    return j;
}

}  // namespace

unsigned run_avx2(int shape, bool ports, const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                  unsigned n, const run_parts::RunVerdict& verdict, Out* out,
                  bool* failed) noexcept {
    return by_shape(
        shape, ports,
        [&]<bool kV6, bool kUdp, bool kPorts>() [[gnu::always_inline]] {
            return run<kV6, kUdp, kPorts>(sc, pkts, j, n, verdict, out, failed);
        },
        [&] {
            *failed = false;
            return j;
        });
}

}  // namespace csum::chain_walk

CSUM_TARGET_END
