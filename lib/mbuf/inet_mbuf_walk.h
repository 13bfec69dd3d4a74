// The chain walk of inet_chain_sum_avx2 (the AVX-512 walks are
// inet_mbuf_avx512_body.h): included only by files built with their ISA's
// flags, hence the internal linkage.
// Isa supplies the vector type V, zero/add/hsum, kReduceAfter, counted(n)
// (bytes the bias hit in a piece), kTailMask (tail bytes its piece leaves to
// sum_tiny64, 0 if none) and piece<kSwap>(a0..a3, p, n), which adds a
// piece's vectors to four accumulators (swapped within words at an odd
// packet position) and returns where the tail starts.
#pragma once

#include <cstdint>

#include <rte_mbuf.h>

#include "inet/inet_kernels.h"

namespace csum::detail {
namespace {

// Pieces from this length on go to the calibrated kernel, whose set-up they
// amortise (select.h's class 1).
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
    while (len > 0) {
        if (s == nullptr) return false;  // chain shorter than pkt_len says
        uint32_t n = s->data_len - seg_off;
        if (n > len) n = len;
        const uint8_t* p = rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off);
        if (n <= kInetShortMax || n >= kOwnKernelFrom) {
            // Short pieces inline (scalar: no vector latency for a
            // reduction), long ones on the calibrated kernel.
            const uint64_t seg = n <= kInetShortMax ? sum_small64(p, n) : inet_sum_active(p, n, 0);
            if (pos & 1)
                odd = add64c(odd, seg);
            else
                even = add64c(even, seg);
        } else {
            const uint32_t counted = Isa::counted(n);
            if (pending + counted > Isa::kReduceAfter) reduce();
            pending += counted;
            p = (pos & 1) ? isa.template piece<true>(a0, a1, a2, a3, p, n)
                          : isa.template piece<false>(a0, a1, a2, a3, p, n);
            if (n & Isa::kTailMask) {  // the tail keeps the piece's parity
                const uint64_t t = sum_tiny64(p, n & Isa::kTailMask);
                if (pos & 1)
                    odd = add64c(odd, t);
                else
                    even = add64c(even, t);
            }
        }
        pos += n;
        len -= n;
        seg_off = 0;
        s = s->next;
    }
    if (pending != 0) reduce();
    *even_io = add64c(even, vec);
    *odd_io = odd;
    return true;
}

}  // namespace
}  // namespace csum::detail
