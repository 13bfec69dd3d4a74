// The Internet checksum over a segment chain: with vector kernels, one
// vector state carried along the chain (inet_mbuf_avx2.cpp,
// inet_mbuf_avx512_body.h); else one kernel call per segment. Sums of
// segments at odd offsets are swapped into place. Unlike DPDK 22.11's
// rte_raw_cksum_mbuf, the swap folds the whole sum first, so no carry is lost.
#include <rte_mbuf.h>

#include "csum/inet.h"
#include "inet/inet_kernels.h"
#include "mbuf/inet_mbuf_chain.h"
#include "mbuf/inet_mbuf_walk.h"
#include "mbuf/segment_read.h"

namespace csum {
namespace {

// The sums of odd-position pieces, swapped into place, added to the others.
inline uint64_t combine(uint64_t even, uint64_t odd) noexcept {
    using namespace detail;
    return odd == 0 ? even : add64c(even, sum_block_at(fold64(odd), 1));
}

// The rest of a walk on the carried vector state (AVX-512: eight zmm, every
// piece placed at its parity; AVX2: odd-position pieces apart). Out of line
// and taking the parity sums by value, so that the walk keeps them in
// registers.
[[gnu::noinline]] bool vector_rest(InetKernel k, const rte_mbuf* s, uint32_t seg_off, uint32_t len,
                                   uint32_t pos, uint64_t even, uint64_t odd,
                                   uint64_t* acc) noexcept {
    using namespace detail;
    const bool ok =
        k == InetKernel::avx512_vnni ? inet_mbuf_sum_avx512_vnni(s, seg_off, len, pos, &even)
        : k == InetKernel::avx512    ? inet_mbuf_sum_avx512(s, seg_off, len, pos, &even)
                                     : inet_chain_sum_avx2(s, seg_off, len, pos, &even, &odd);
    if (ok) *acc = combine(even, odd);
    return ok;
}

// Sum of [off, off+len) as a 64-bit ones'-complement accumulator, or false.
// Each segment sums from 0, so segments do not wait on one another.
[[gnu::always_inline]] inline bool walk(const rte_mbuf* m, uint32_t off, uint32_t len,
                                        uint64_t* acc) noexcept {
    using namespace detail;
    const uint64_t end = static_cast<uint64_t>(off) + len;
    if (end > m->pkt_len) return false;
    if (len == 0) return true;  // nothing to sum: no walk (its seek trusts the links)
    if (end <= m->data_len) {   // in the first segment: the linear sum
        if (len != 0 && !segment_in_buffer(m)) return false;
        const uint8_t* p = rte_pktmbuf_mtod_offset(m, const uint8_t*, off);
        *acc =
            add64c(*acc, len <= kInetShortMax ? sum_small64(p, len) : inet_sum_active(p, len, 0));
        return true;
    }
    uint32_t seg_off = off;
    const rte_mbuf* s = m;
    if (off >= m->data_len) {
        uint32_t o;  // kept apart so seg_off can live in a register
        s = seek_segment(m, off, &o);
        seg_off = o;
    }
    uint64_t even = *acc, odd = 0;
    uint32_t pos = 0;
    SegPieces at{s, seg_off};
    InetKernel k = InetKernel::scalar;
    if (!walk_pieces(at, len, pos, even, odd, [&](const uint8_t* p, uint32_t n, uint64_t* sum) {
            if (n <= kInetShortMax) {
                *sum = sum_small64(p, n);
                return Step::add;
            }
            // From the first long piece on, one vector state carried along
            // the chain when vector kernels are in use: one set-up and one
            // reduction, not one per segment.
            k = inet_active_kernel();
            if (k != InetKernel::scalar) return Step::stop;
            *sum = inet_sum_active(p, n, 0);
            return Step::add;
        }))
        return false;
    if (len > 0) return vector_rest(k, at.s, at.off, len, pos, even, odd, acc);
    *acc = combine(even, odd);
    return true;
}

}  // namespace

namespace detail {

bool inet_pieces_sum(const InetPieces& pc, uint32_t skip, uint32_t len, uint64_t* acc) noexcept {
    const InetKernel k = inet_active_kernel();
    if (k == InetKernel::avx512_vnni) return inet_pieces_sum_avx512_vnni(pc, skip, len, acc);
    if (k == InetKernel::avx512) return inet_pieces_sum_avx512(pc, skip, len, acc);
    // One kernel call per piece (as walk's pieces without vector state).
    uint64_t even = *acc, odd = 0;
    uint32_t pos = 0, i = 0;
    for (; i < pc.count && skip >= pc.n[i]; ++i) skip -= pc.n[i];
    ArrayPieces at{pc, i, skip};
    if (!walk_pieces(at, len, pos, even, odd, [](const uint8_t* p, uint32_t n, uint64_t* sum) {
            *sum = n <= kInetShortMax ? sum_small64(p, n) : inet_sum_active(p, n, 0);
            return Step::add;
        }))
        return false;
    *acc = combine(even, odd);
    return true;
}

}  // namespace detail

namespace detail {
int partial_sum_mbuf_trusted(const rte_mbuf* m, uint32_t off, uint32_t len,
                             uint32_t* sum) noexcept {
    uint64_t acc = *sum;
    if (!walk(m, off, len, &acc)) return -1;
    *sum = fold64(acc);
    return 0;
}
}  // namespace detail

namespace {
// A range that leaves the first segment is walked once first, within the
// head's nb_segs segments, so that a chain whose links loop is refused.
bool range_ok(const rte_mbuf* m, uint32_t off, uint32_t len) noexcept {
    return static_cast<uint64_t>(off) + len <= m->data_len || range_in_buffers(m, off, len);
}
}  // namespace

int partial_sum_mbuf(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t* sum) noexcept {
    if (!range_ok(m, off, len)) return -1;
    return detail::partial_sum_mbuf_trusted(m, off, len, sum);
}

int raw_cksum_mbuf(const rte_mbuf* m, uint32_t off, uint32_t len, uint16_t* sum) noexcept {
    uint64_t acc = 0;
    if (!range_ok(m, off, len) || !walk(m, off, len, &acc)) return -1;
    *sum = sum_fold(detail::fold64(acc));
    return 0;
}

}  // namespace csum
