// tunnel_chain_run.h's run on AVX2 (every CPU with AVX-512 has it too):
// each chain walked once on ymm state (chain_walk_avx2_parts.h), the
// linear run's header tests on its front, the inner L4 sum from the
// chain's total. Every header is included first, then the target region
// opens, so that only this file's own functions are built for AVX2.
#include <immintrin.h>

#include <cstdint>
#include <span>

#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>

#include "dispatch/cpu_features.h"
#include "engine/run_parts.h"
#include "engine/tunnel_chain_run.h"
#include "engine/tunnel_fill_parts.h"
#include "engine/tunnel_run.h"
#include "inet/inet_kernels.h"
#include "inet/word_sum.h"
#include "mbuf/inet_mbuf_chain.h"
#include "parse/classify.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#include "engine/chain_walk_avx2_parts.h"
#include "engine/chain_walk_shape.h"

namespace csum::tunnel_chain {
namespace {

using namespace tunnel_run_detail;

// Chains are walked kBatch at a time, then tested: a front the walk
// copied is read an iteration of walks later, when the copy's stores have
// retired (a load that spans two fresh stores waits for both: ~20 ticks,
// each of the header tests' loads).
inline constexpr unsigned kBatch = 4;
// A chain of at most kShort bytes is copied whole and tested as a linear
// packet (take_rest): fewer instructions than walking its short segments
// on vectors.
inline constexpr uint32_t kShort = 128;

template <bool kSums, bool kIv6, bool kUdp, bool kOcsum, bool kPorts>
unsigned run(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts, unsigned i, unsigned n,
             long voff, TunnelRunTook* took) noexcept {
    using C = RunConsts<kIv6, kUdp>;
    using word_sum::load32;
    // The front the header tests read: to the end of the inner L4 header
    // (the template's 78 bytes lie within it).
    constexpr uint32_t kNeed = C::il4 + (kUdp ? 8 : 20);
    static_assert(kNeed >= 78);
    // The bytes before the inner pseudo-header's addresses.
    constexpr uint32_t kHead = C::il4 - (kIv6 ? 32 : 8);
    static_assert(kHead == 72 || kHead == 76);
    constexpr uint64_t kFlags = kSums ? 0
                                      : RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD |
                                            RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
    constexpr uint64_t kIproto = kUdp ? kShapeUdp : kShapeTcp;
    if (r.trailer != 0) return i;
    const uint32_t ptype = r.ptype & RTE_PTYPE_TUNNEL_MASK;
    const chain_walk::Consts c;
    const NarrowMatch<kIv6, kUdp> match(r);
    const run_parts::RunVerdict verdict(&r.v, voff);
    static_assert(kShort >= kNeed);
    alignas(32) uint8_t gathered[kBatch][kShort];
    const uint8_t* front[kBatch];
    uint64_t total[kBatch];
    bool whole[kBatch];
    uint64_t l4_sum = 0;
    unsigned j = i;
    // Walks chain j + b: its front in front[b], its sum in total[b]. False
    // if it is no chain of the run's (the run ends there).
    auto walk = [&](unsigned b) [[gnu::always_inline]] {
        const unsigned at = j + b;
        chain_walk::prefetch_ahead<false>(pkts, at, n, voff);
        const rte_mbuf* m = pkts[at];
        if (m->next == nullptr || (m->ol_flags & lean_detail::kTunnelRxFlags) != kFlags)
            return false;
        if (!kSums && (m->packet_type & RTE_PTYPE_TUNNEL_MASK) != ptype) return false;
        const uint32_t len = m->pkt_len, nb = m->nb_segs;
        if (len > 65535 || nb > detail::kInetMaxPieces || len < C::il4 + C::kLeastL4) return false;
        whole[b] = kSums && len <= kShort;
        if (kSums && len <= kShort) {
            const shape_detail::Front f = shape_detail::gather_front(
                const_cast<rte_mbuf*>(m), std::span<uint8_t, kShort>(gathered[b], kShort),
                []() -> uint32_t { return kShort; });
            if (f.bytes == nullptr) return false;
            front[b] = f.bytes;
        } else if constexpr (kSums) {
            bool in_place;
            chain_walk::Sums s;
            if (!chain_walk::walk_and_sum<kNeed>(c, m, len, nb,
                                                 *reinterpret_cast<uint8_t(*)[kNeed]>(gathered[b]),
                                                 &in_place, &s))
                return false;
            front[b] = in_place ? rte_pktmbuf_mtod(m, const uint8_t*) : gathered[b];
            total[b] = chain_walk::total(s);
        } else {
            // No sums: the front, and the chain checked against its descriptor.
            const shape_detail::Front f = shape_detail::gather_front(
                const_cast<rte_mbuf*>(m), std::span<uint8_t, kShort>(gathered[b], kShort),
                []() -> uint32_t { return C::il4 + (kUdp ? 8 : 20); });
            if (f.bytes == nullptr) return false;
            front[b] = f.bytes;
        }
        return true;
    };
    // Chain j's tests on its walked front and sum (batch slot b).
    auto test = [&](unsigned b) [[gnu::always_inline]] {
        const uint8_t* const p = front[b];
        const uint32_t len = pkts[j]->pkt_len, l4 = len - C::il4;
        if (whole[b]) {
            KnownSum known;  // unused: the per-packet path sums a refused one
            if (!match(p, len, l4) || !take_rest<kSums, kIv6, kUdp, kOcsum, kPorts>(
                                          sc, const_cast<uint8_t*>(p), l4, &known))
                return false;
            l4_sum += l4;
            return true;
        }
        if (!match(p, len, l4) || !take_headers<kSums, kIv6, kUdp, kOcsum, kPorts>(sc, p, l4))
            return false;
        if constexpr (kSums) {
            if (!kIv6 &&
                !word_sum::mod_ffff_zero_mem(word_sum::adc_words<2, 64>(load32(p + 80), p)))
                return false;
            // The inner L4 region and its pseudo-header: every byte of the
            // chain less those before the inner addresses, plus 256 x
            // (protocol + length) (the words as loaded).
            uint64_t head = word_sum::adc_words<8>(kIv6 ? 0 : load32(p + 72), p);
            head = word_sum::adc_words<1, 64>(head, p);
            const uint64_t pk = (kIproto + l4) << 8;
            if (!word_sum::mod_ffff_zero(
                    detail::add64c(total[b], pk + (0xFFFFu - word_sum::fold64(head)))))
                return false;
        }
        l4_sum += l4;
        return true;
    };
    for (;;) {
        unsigned walked = 0;
        while (walked < kBatch && j + walked < n && walk(walked)) ++walked;
        for (unsigned b = 0; b < walked; ++b, ++j) {
            if (!test(b)) goto done;
            verdict.write(pkts[j]);
        }
        if (walked < kBatch) break;  // j: the chain the walk refused, or n
    }
done:
    add_took(r, l4_sum, j - i, took);
    return j;
}

// Fill mode's loop: chains walked kBatch at a time as run's, then each
// one's fields made on its front (the copy, or the first segment) and, for
// a copy, put into the chain.
template <bool kIv6, bool kUdp, bool kPorts>
unsigned fill(const ShapeConfig& sc, const TunnelRun& r, uint32_t plan, rte_mbuf** pkts, unsigned i,
              unsigned n, long voff, uint64_t* l4_out) noexcept {
    using C = RunConsts<kIv6, kUdp>;
    using word_sum::load16;
    using word_sum::load32;
    constexpr uint32_t kNeed = C::il4 + (kUdp ? 8 : 20);
    constexpr uint32_t kField = C::il4 + (kUdp ? 6 : 16);  // the inner L4 checksum
    constexpr uint64_t kIproto = kUdp ? kShapeUdp : kShapeTcp;
    if (r.trailer != 0) return i;
    const chain_walk::Consts c;
    const NarrowMatch<kIv6, kUdp> match(r);
    const run_parts::RunVerdict verdict(&r.v, voff);
    alignas(32) uint8_t gathered[kBatch][kShort];
    uint8_t* front[kBatch];
    uint64_t total[kBatch];
    bool whole[kBatch], copied[kBatch];
    uint64_t l4_sum = 0;
    unsigned j = i;
    auto walk = [&](unsigned b) [[gnu::always_inline]] {
        const unsigned at = j + b;
        chain_walk::prefetch_ahead<false>(pkts, at, n, voff);
        rte_mbuf* m = pkts[at];
        if (m->next == nullptr) return false;
        const uint32_t len = m->pkt_len, nb = m->nb_segs;
        if (len > 65535 || nb > detail::kInetMaxPieces || len < C::il4 + C::kLeastL4) return false;
        whole[b] = len <= kShort;
        if (len <= kShort) {
            const shape_detail::Front f =
                shape_detail::gather_front(m, std::span<uint8_t, kShort>(gathered[b], kShort),
                                           []() -> uint32_t { return kShort; });
            if (f.bytes == nullptr) return false;
            front[b] = f.bytes, copied[b] = f.in_place == nullptr;
            return true;
        }
        bool in_place;
        chain_walk::Sums s;
        if (!chain_walk::walk_and_sum<kNeed>(
                c, m, len, nb, *reinterpret_cast<uint8_t(*)[kNeed]>(gathered[b]), &in_place, &s))
            return false;
        front[b] = in_place ? rte_pktmbuf_mtod(m, uint8_t*) : gathered[b];
        copied[b] = !in_place;
        total[b] = chain_walk::total(s);
        return true;
    };
    auto fill_chain = [&](unsigned b) [[gnu::always_inline]] {
        uint8_t* const p = front[b];
        rte_mbuf* m = pkts[j];
        const uint32_t len = m->pkt_len, l4 = len - C::il4;
        if (!match(p, len, l4) ||
            !tunnel_fill_detail::inner_l4_ok<kUdp, kPorts>(sc, p + C::il4, l4))
            return false;
        if (whole[b]) {
            tunnel_fill_detail::fill_one<kIv6, kUdp>(plan, p, l4);
        } else {
            // The inner L4 region with its pseudo-header, its field taken as
            // zero (0xFFFF less it): the chain's total less the bytes before
            // the inner addresses, as run's test.
            uint64_t head = word_sum::adc_words<8>(kIv6 ? 0 : load32(p + 72), p);
            head = word_sum::adc_words<1, 64>(head, p);
            const uint64_t a =
                detail::add64c(detail::add64c(total[b], ((kIproto + l4) << 8) +
                                                            (0xFFFFu - word_sum::fold64(head))),
                               0xFFFFu - load16(p + kField));
            lean_detail::run_fill_store<kIv6, kUdp>(p + 50, a);  // and the inner IPv4 header
            tunnel_fill_detail::fill_outer<kIv6, kUdp>(p);
        }
        if (copied[b]) {
            run_parts::put_chain_field(m, kField, load16(p + kField));
            if (!kIv6) run_parts::put_chain_field(m, 74, load16(p + 74));
            run_parts::put_chain_field(m, 40, load16(p + 40));
            run_parts::put_chain_field(m, 24, load16(p + 24));
        }
        l4_sum += l4;
        return true;
    };
    for (;;) {
        unsigned walked = 0;
        while (walked < kBatch && j + walked < n && walk(walked)) ++walked;
        for (unsigned b = 0; b < walked; ++b, ++j) {
            if (!fill_chain(b)) goto done;
            verdict.write(pkts[j]);
        }
        if (walked < kBatch) break;
    }
done:
    *l4_out += l4_sum;
    return j;
}

template <bool kSums, bool kIv6, bool kUdp, bool kOcsum>
unsigned run_ports(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts, unsigned i,
                   unsigned n, long voff, TunnelRunTook* took) noexcept {
    // Special TCP ports per config: tested only where there are some.
    if (!kUdp && sc.tcp_ports)
        return run<kSums, kIv6, kUdp, kOcsum, true>(sc, r, pkts, i, n, voff, took);
    return run<kSums, kIv6, kUdp, kOcsum, false>(sc, r, pkts, i, n, voff, took);
}

}  // namespace

unsigned run_avx2(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts, unsigned i,
                  unsigned n, long voff, TunnelRunTook* took) noexcept {
    constexpr int S = TunnelRun::kSums, V6 = TunnelRun::kIv6, U = TunnelRun::kUdp,
                  O = TunnelRun::kOcsum;
    switch (r.kind) {
        case S | O:
            return run_ports<true, false, false, true>(sc, r, pkts, i, n, voff, took);
        case S:
            return run_ports<true, false, false, false>(sc, r, pkts, i, n, voff, took);
        case S | U | O:
            return run_ports<true, false, true, true>(sc, r, pkts, i, n, voff, took);
        case S | U:
            return run_ports<true, false, true, false>(sc, r, pkts, i, n, voff, took);
        case S | V6 | O:
            return run_ports<true, true, false, true>(sc, r, pkts, i, n, voff, took);
        case S | V6:
            return run_ports<true, true, false, false>(sc, r, pkts, i, n, voff, took);
        case S | V6 | U | O:
            return run_ports<true, true, true, true>(sc, r, pkts, i, n, voff, took);
        case S | V6 | U:
            return run_ports<true, true, true, false>(sc, r, pkts, i, n, voff, took);
        case O:
            return run_ports<false, false, false, true>(sc, r, pkts, i, n, voff, took);
        case 0:
            return run_ports<false, false, false, false>(sc, r, pkts, i, n, voff, took);
        case U | O:
            return run_ports<false, false, true, true>(sc, r, pkts, i, n, voff, took);
        case U:
            return run_ports<false, false, true, false>(sc, r, pkts, i, n, voff, took);
        case V6 | O:
            return run_ports<false, true, false, true>(sc, r, pkts, i, n, voff, took);
        case V6:
            return run_ports<false, true, false, false>(sc, r, pkts, i, n, voff, took);
        case V6 | U | O:
            return run_ports<false, true, true, true>(sc, r, pkts, i, n, voff, took);
        case V6 | U:
            return run_ports<false, true, true, false>(sc, r, pkts, i, n, voff, took);
        default:
            return i;
    }
}

unsigned fill_avx2(const ShapeConfig& sc, const TunnelRun& r, uint32_t plan, rte_mbuf** pkts,
                   unsigned i, unsigned n, long voff, uint64_t* l4_sum) noexcept {
    const bool ports = sc.tcp_ports;
    switch (r.kind) {
        case 0:
            return ports ? fill<false, false, true>(sc, r, plan, pkts, i, n, voff, l4_sum)
                         : fill<false, false, false>(sc, r, plan, pkts, i, n, voff, l4_sum);
        case TunnelRun::kUdp:
            return fill<false, true, false>(sc, r, plan, pkts, i, n, voff, l4_sum);
        case TunnelRun::kIv6:
            return ports ? fill<true, false, true>(sc, r, plan, pkts, i, n, voff, l4_sum)
                         : fill<true, false, false>(sc, r, plan, pkts, i, n, voff, l4_sum);
        case TunnelRun::kIv6 | TunnelRun::kUdp:
            return fill<true, true, false>(sc, r, plan, pkts, i, n, voff, l4_sum);
        default:
            return i;
    }
}

}  // namespace csum::tunnel_chain

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace csum::tunnel_chain {
bool cpu_has_avx2() noexcept {
    static const bool has = detail::cpu().can_inet_avx2();
    return has;
}
}  // namespace csum::tunnel_chain
