// The piece walk every scalar and AVX2 chain sum shares (walk_pieces, over
// an mbuf chain or an InetPieces array), and the chain walk of
// inet_chain_sum_avx2 on it (the AVX-512 walks are inet_mbuf_avx512_body.h).
// Internal linkage: chain_walk is included only by files built with AVX2.
// Isa supplies the vector type V, zero/add/hsum, kReduceAfter, counted(n)
// (bytes the bias hit in a piece), kTailMask (tail bytes its piece leaves to
// sum_tiny64, 0 if none) and piece<kSwap>(a0..a3, p, n), which adds a
// piece's vectors to four accumulators (swapped within words at an odd
// packet position) and returns where the tail starts.
#pragma once

#include <cstdint>

#include <rte_mbuf.h>

#include "inet/inet_kernels.h"
#include "mbuf/inet_mbuf_chain.h"
#include "mbuf/segment_read.h"

namespace csum::detail {
namespace {

// The pieces of an mbuf chain from seg_off in s, and of an InetPieces array
// from off in piece i: the same walk over either.
struct SegPieces {
    const rte_mbuf* s;
    uint32_t off;
    // A segment claiming data past its buffer ends the walk, as a chain
    // shorter than pkt_len does.
    bool end() const noexcept { return s == nullptr || !segment_in_buffer(s); }
    uint32_t size() const noexcept { return s->data_len - off; }
    const uint8_t* data() const noexcept { return rte_pktmbuf_mtod_offset(s, const uint8_t*, off); }
    void next() noexcept { off = 0, s = s->next; }
};
struct ArrayPieces {
    const InetPieces& pc;
    uint32_t i, off;
    bool end() const noexcept { return i >= pc.count; }
    uint32_t size() const noexcept { return pc.n[i] - off; }
    const uint8_t* data() const noexcept { return pc.p[i] + off; }
    void next() noexcept { off = 0, ++i; }
};

// What a walk's step did with its piece: a sum to add at the piece's
// parity, nothing to add, or the rest of the walk taken over by the caller.
enum class Step { add, none, stop };

// len bytes from `at`, piece by piece: step(p, n, &sum) for each, its sum
// added to even or odd by the piece's packet position pos. Pieces at odd
// positions are summed apart and byte-swapped once at the end: a swap is
// multiplication by 256 mod 0xFFFF, so it distributes over the sum and need
// not be done per piece. On Step::stop, at, len and pos stay at that piece.
// False if the pieces end before len does (a chain shorter than pkt_len says).
template <class Pieces, class StepFn>
[[gnu::always_inline]] inline bool walk_pieces(Pieces& at, uint32_t& len, uint32_t& pos,
                                               uint64_t& even, uint64_t& odd,
                                               StepFn&& step) noexcept {
    while (len > 0) {
        if (at.end()) return false;
        uint32_t n = at.size();
        if (n > len) n = len;
        uint64_t sum;  // set by step where it says Step::add
        const Step st = step(at.data(), n, &sum);
        if (st == Step::stop) return true;
        if (st == Step::add) {
            if (pos & 1)
                odd = add64c(odd, sum);
            else
                even = add64c(even, sum);
        }
        pos += n;
        len -= n;
        at.next();
    }
    return true;
}

// Pieces from this length on go to the calibrated kernel, whose set-up they
// amortise (select.h's 768..4095 B class).
constexpr uint32_t kOwnKernelFrom = 768;

template <class Isa>
[[gnu::always_inline]] inline bool chain_walk(const rte_mbuf* s, uint32_t seg_off, uint32_t len,
                                              uint32_t pos, uint64_t* even_io,
                                              uint64_t* odd_io) noexcept {
    using V = typename Isa::V;
    const Isa isa;
    V a0 = Isa::zero(), a1 = a0, a2 = a0, a3 = a0;
    uint64_t even = *even_io, odd = *odd_io, vec = 0;
    uint32_t pending = 0;
    auto reduce = [&] {
        // Each lane add lost 2 * 0x8000 of bias: 0x4000 per byte summed.
        const int64_t block = int64_t{Isa::hsum(Isa::add(Isa::add(a0, a1), Isa::add(a2, a3)))} +
                              int64_t{0x4000} * pending;
        vec += static_cast<uint64_t>(block);  // 0 <= block < 2^32
        a0 = a1 = a2 = a3 = Isa::zero();
        pending = 0;
    };
    SegPieces at{s, seg_off};
    const bool whole =
        walk_pieces(at, len, pos, even, odd, [&](const uint8_t* p, uint32_t n, uint64_t* sum) {
            if (n <= kInetShortMax || n >= kOwnKernelFrom) {
                // Short pieces inline (scalar: no vector latency for a
                // reduction), long ones on the calibrated kernel.
                *sum = n <= kInetShortMax ? sum_small64(p, n) : inet_sum_active(p, n, 0);
                return Step::add;
            }
            const uint32_t counted = Isa::counted(n);
            if (pending + counted > Isa::kReduceAfter) reduce();
            pending += counted;
            p = (pos & 1) ? isa.template piece<true>(a0, a1, a2, a3, p, n)
                          : isa.template piece<false>(a0, a1, a2, a3, p, n);
            if (!(n & Isa::kTailMask)) return Step::none;
            *sum = sum_tiny64(p, n & Isa::kTailMask);  // the tail keeps the piece's parity
            return Step::add;
        });
    if (!whole) return false;
    if (pending != 0) reduce();
    *even_io = add64c(even, vec);
    *odd_io = odd;
    return true;
}

}  // namespace
}  // namespace csum::detail
