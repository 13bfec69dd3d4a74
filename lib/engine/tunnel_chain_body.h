// tunnel_chain_run.h's loops, built once per ISA by tunnel_chain_run_avx2.cpp
// and tunnel_chain_run_avx512.cpp, each with its own chain walk (Walk).
// Included inside the file's target region, after every other header;
// internal linkage, so each file has its own copy built for its ISA.
//
// A Walk's walk<kNeed>(m, len, nb, buf, &front, &total, &whole, &copied)
// walks a chain (m->next set) once and checks it against its descriptor
// (exactly nb segments, each in its buffer, holding exactly len bytes). On
// true: *front holds its first kNeed bytes (every byte when *whole), in
// place or in buf (*copied); unless *whole, *total is the sum of all its
// bytes, congruent modulo 0xFFFF to their 16-bit words in memory order.
// Its front<kNeed>(m, len, nb, buf, &front) does the same with no sum (the
// PMD said GOOD): *front holds the chain's first kNeed bytes at least. Its
// Match<kIv6, kUdp, kOv6> is the template's header test (tunnel_run.h's).
// Every run layout's front fits in kFront (Layout's kNeed).
#pragma once

namespace csum::tunnel_chain {
namespace {

using namespace tunnel_run_detail;

// Chains are walked kBatch at a time, then tested: a front the walk
// stored is read a few walks later, when its stores have retired (a load
// that spans two fresh stores waits for both: ~20 ticks, each of the header
// tests' loads).
inline constexpr unsigned kBatch = 4;
// A short chain: put together whole in two registers on AVX-512 (at most
// this many bytes).
inline constexpr uint32_t kShort = 128;
// The front's room: a chain of at most this many bytes whole (each walk
// copies it, or puts it together in three registers past kShort), or any
// run layout's headers (IPv6 in IPv6 with inner TCP: 144), in 64-byte rows.
inline constexpr uint32_t kFront = 192;

template <bool kIv6, bool kUdp, bool kOv6 = false>
struct Layout {
    using C = RunConsts<kIv6, kUdp, kOv6>;
    // The front the header tests read: to the end of the inner L4 header
    // (the template's blocks lie within it).
    static constexpr uint32_t kNeed = C::il4 + (kUdp ? 8 : 20);
    static_assert(kNeed >= C::kBlock[2] + 16);
    static_assert(kNeed <= kFront);
    static constexpr uint32_t kField = C::il4 + (kUdp ? 6 : 16);  // the inner L4 checksum
    static constexpr uint64_t kIproto = kUdp ? kShapeUdp : kShapeTcp;
    // The inner L4 region with its pseudo-header, the field taken as
    // `field` (its own value, or 0xFFFF less it: as zero): every byte of
    // the chain less those before the inner addresses ([0, kIaddr): 76,
    // 72 with inner IPv6, 20 more with outer IPv6), plus 256 x (protocol +
    // length) (the words as loaded).
    [[gnu::always_inline]] static uint64_t l4_sum(const uint8_t* p, uint64_t total, uint32_t l4,
                                                  uint64_t field) {
        constexpr uint32_t kWords = C::kIaddr / 8, kRest = C::kIaddr % 8;
        static_assert(kRest == 0 || kRest == 4);
        static_assert(kWords > 8 && kWords <= 16);
        uint64_t head = word_sum::adc_words<8>(kRest ? word_sum::load32(p + 8 * kWords) : 0, p);
        head = word_sum::adc_words<kWords - 8, 64>(head, p);
        return detail::add64c(
            detail::add64c(total, ((kIproto + l4) << 8) + (0xFFFFu - word_sum::fold64(head))),
            field);
    }
};

// A walk's front<kNeed> where no vector form applies: the front copied
// when the first segment does not hold it, the chain checked against its
// descriptor (gather_front).
template <uint32_t kNeed>
[[gnu::always_inline]] inline bool gathered_front(rte_mbuf* m, uint8_t (&buf)[kFront],
                                                  uint8_t** out) {
    const shape_detail::Front f = shape_detail::gather_front(
        m, std::span<uint8_t, kFront>(buf, kFront), []() -> uint32_t { return kNeed; });
    *out = f.bytes;
    return f.bytes != nullptr;
}

// The loop both runs share: up to kBatch chains from j walked into slots
// (walk(at, slot), false at a chain the run does not take), then each one
// taken in turn (take(at, slot), false: the run stops there) and given the
// run's verdict. Returns the first chain not taken.
template <class WalkOne, class TakeOne>
[[gnu::always_inline]] inline unsigned batched(rte_mbuf** pkts, unsigned j, unsigned n,
                                               const run_parts::RunVerdict& verdict,
                                               const WalkOne& walk, const TakeOne& take) {
    for (;;) {
        unsigned walked = 0;
        while (walked < kBatch && j + walked < n && walk(j + walked, walked)) ++walked;
        for (unsigned b = 0; b < walked; ++b, ++j) {
            if (!take(j, b)) return j;
            verdict.write(pkts[j]);
        }
        if (walked < kBatch) return j;  // the chain the walk refused, or n
    }
}

template <class Walk, bool kSums, bool kIv6, bool kUdp, bool kOcsum, bool kPorts, bool kOv6>
unsigned run(const Walk& w, const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts, unsigned i,
             unsigned n, long voff, TunnelRunTook* took) noexcept {
    using L = Layout<kIv6, kUdp, kOv6>;
    using C = typename L::C;
    constexpr uint32_t kNeed = L::kNeed;
    constexpr uint64_t kFlags = kSums ? 0 : lean_detail::kTunnelAllGood;
    if (r.trailer != 0) return i;
    const uint32_t ptype = r.ptype & RTE_PTYPE_TUNNEL_MASK;
    const typename Walk::template Match<kIv6, kUdp, kOv6> match(r);
    const run_parts::RunVerdict verdict(&r.v, voff);
    alignas(64) uint8_t gathered[kBatch][kFront];
    uint8_t* front[kBatch];
    uint64_t total[kBatch];
    bool whole[kBatch];
    uint64_t l4_sum = 0;
    // Walks chain `at` into slot b; false if it is no chain of the run's
    // (the run ends there).
    auto walk = [&](unsigned at, unsigned b) __attribute__((always_inline)) {
        chain_walk::prefetch_ahead<false>(pkts, at, n, voff);
        rte_mbuf* m = pkts[at];
        if (m->next == nullptr || (m->ol_flags & lean_detail::kTunnelRxFlags) != kFlags)
            return false;
        if (!kSums && (m->packet_type & RTE_PTYPE_TUNNEL_MASK) != ptype) return false;
        const uint32_t len = m->pkt_len, nb = m->nb_segs;
        if (len > 65535 || nb > detail::kInetMaxPieces || len < C::il4 + C::kLeastL4) return false;
        if constexpr (kSums) {
            bool copied;
            return w.template walk<kNeed>(m, len, nb, gathered[b], &front[b], &total[b], &whole[b],
                                          &copied);
        }
        // No sums: the front, and the chain checked against its descriptor.
        return w.template front<kNeed>(m, len, nb, gathered[b], &front[b]);
    };
    // Chain j's tests on its walked front and sum (slot b).
    auto test = [&](unsigned j, unsigned b) __attribute__((always_inline)) {
        uint8_t* const p = front[b];
        const uint32_t len = pkts[j]->pkt_len, l4 = len - C::il4;
        if (!match(p, len, l4)) return false;
        if (kSums && whole[b]) {
            KnownSum known;  // unused: the per-packet path sums a refused one
            if (!take_rest<kSums, kIv6, kUdp, kOcsum, kPorts, kOv6>(sc, p, l4, &known))
                return false;
        } else {
            if (!take_headers<kSums, kIv6, kUdp, kOcsum, kPorts, kOv6>(sc, p, l4)) return false;
            if constexpr (kSums) {
                using word_sum::load32;
                constexpr uint32_t il3 = C::il3;
                if (!kIv6 && !word_sum::mod_ffff_zero_mem(
                                 word_sum::adc_words<2, il3>(load32(p + il3 + 16), p)))
                    return false;
                if (!word_sum::mod_ffff_zero(L::l4_sum(p, total[b], l4, 0))) return false;
            }
        }
        l4_sum += l4;
        return true;
    };
    const unsigned j = batched(pkts, i, n, verdict, walk, test);
    add_took(r, l4_sum, j - i, took);
    return j;
}

// Fill mode's loop: chains walked kBatch at a time as run's, then each
// one's fields made on its front (the copy, or the first segment) and, for
// a copy, put into the chain.
template <class Walk, bool kIv6, bool kUdp, bool kPorts, bool kOv6>
unsigned fill(const Walk& w, const ShapeConfig& sc, const TunnelRun& r, uint32_t plan,
              rte_mbuf** pkts, unsigned i, unsigned n, long voff, uint64_t* l4_out) noexcept {
    using L = Layout<kIv6, kUdp, kOv6>;
    using C = typename L::C;
    using word_sum::load16;
    constexpr uint32_t kNeed = L::kNeed, kField = L::kField;
    if (r.trailer != 0) return i;
    const typename Walk::template Match<kIv6, kUdp, kOv6> match(r);
    const run_parts::RunVerdict verdict(&r.v, voff);
    alignas(64) uint8_t gathered[kBatch][kFront];
    uint8_t* front[kBatch];
    uint64_t total[kBatch];
    bool whole[kBatch], copied[kBatch];
    uint64_t l4_sum = 0;
    auto walk = [&](unsigned at, unsigned b) __attribute__((always_inline)) {
        chain_walk::prefetch_ahead<false>(pkts, at, n, voff);
        rte_mbuf* m = pkts[at];
        if (m->next == nullptr) return false;
        const uint32_t len = m->pkt_len, nb = m->nb_segs;
        if (len > 65535 || nb > detail::kInetMaxPieces || len < C::il4 + C::kLeastL4) return false;
        return w.template walk<kNeed>(m, len, nb, gathered[b], &front[b], &total[b], &whole[b],
                                      &copied[b]);
    };
    auto fill_chain = [&](unsigned j, unsigned b) __attribute__((always_inline)) {
        uint8_t* const p = front[b];
        rte_mbuf* m = pkts[j];
        const uint32_t len = m->pkt_len, l4 = len - C::il4;
        if (!match(p, len, l4) ||
            !tunnel_fill_detail::fill_headers_ok<kIv6, kUdp, kPorts, kOv6>(sc, p, l4))
            return false;
        if (whole[b]) {
            tunnel_fill_detail::fill_one<kIv6, kUdp, kOv6>(plan, p, l4);
        } else {
            const uint64_t a = L::l4_sum(p, total[b], l4, 0xFFFFu - load16(p + kField));
            // And the inner IPv4 header: a plain packet's store on the inner frame.
            lean_detail::run_fill_store<kIv6, kUdp>(p + (C::il3 - 14), a);
            tunnel_fill_detail::fill_outer<kIv6, kUdp, kOv6>(p);
        }
        if (copied[b]) {
            run_parts::put_chain_field(m, kField, load16(p + kField));
            if (!kIv6) run_parts::put_chain_field(m, C::il3 + 10, load16(p + C::il3 + 10));
            run_parts::put_chain_field(m, C::ol4 + 6, load16(p + C::ol4 + 6));
            if (!kOv6) run_parts::put_chain_field(m, 24, load16(p + 24));
        }
        l4_sum += l4;
        return true;
    };
    const unsigned j = batched(pkts, i, n, verdict, walk, fill_chain);
    *l4_out += l4_sum;
    return j;
}

// run for r's kind, special TCP ports tested only where the config has some.
template <class Walk>
unsigned run_kind(const Walk& w, const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts,
                  unsigned i, unsigned n, long voff, TunnelRunTook* took) noexcept {
    auto go = [&]<int K>() __attribute__((always_inline))->unsigned {
        constexpr bool kSums = K & TunnelRun::kSums, kIv6 = K & TunnelRun::kIv6,
                       kUdp = K & TunnelRun::kUdp, kOcsum = K & TunnelRun::kOcsum,
                       kOv6 = K & TunnelRun::kOv6;
        if (!kUdp && sc.tcp_ports)
            return run<Walk, kSums, kIv6, kUdp, kOcsum, true, kOv6>(w, sc, r, pkts, i, n, voff,
                                                                    took);
        return run<Walk, kSums, kIv6, kUdp, kOcsum, false, kOv6>(w, sc, r, pkts, i, n, voff, took);
    };
#define CSUM_CHAIN_KIND_CASE(k) \
    case k:                     \
        return go.template operator()<k>();
    switch (r.kind) {
        CSUM_FOR_EACH_RUN_KIND(CSUM_CHAIN_KIND_CASE)
        default:
            return i;
    }
#undef CSUM_CHAIN_KIND_CASE
}

// fill for r's kind (fill templates: kIv6 | kUdp | kOv6), as run_kind.
template <class Walk>
unsigned fill_kind(const Walk& w, const ShapeConfig& sc, const TunnelRun& r, uint32_t plan,
                   rte_mbuf** pkts, unsigned i, unsigned n, long voff, uint64_t* l4_sum) noexcept {
    auto go = [&]<int K>() __attribute__((always_inline))->unsigned {
        constexpr bool kIv6 = K & TunnelRun::kIv6, kUdp = K & TunnelRun::kUdp,
                       kOv6 = K & TunnelRun::kOv6;
        if constexpr ((K & (TunnelRun::kSums | TunnelRun::kOcsum)) != 0) {
            return i;
        } else {
            if (!kUdp && sc.tcp_ports)
                return fill<Walk, kIv6, kUdp, true, kOv6>(w, sc, r, plan, pkts, i, n, voff, l4_sum);
            return fill<Walk, kIv6, kUdp, false, kOv6>(w, sc, r, plan, pkts, i, n, voff, l4_sum);
        }
    };
#define CSUM_CHAIN_KIND_CASE(k) \
    case k:                     \
        return go.template operator()<k>();
    switch (r.kind) {
        CSUM_FOR_EACH_RUN_KIND(CSUM_CHAIN_KIND_CASE)
        default:
            return i;
    }
#undef CSUM_CHAIN_KIND_CASE
}

}  // namespace
}  // namespace csum::tunnel_chain
