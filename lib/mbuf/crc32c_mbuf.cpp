// CRC32C over mbuf chains. With an AVX-512 plan the pieces are gathered into
// zmm registers at their place in the stream and reduced once per chain
// (crc32c_mbuf_gather.cpp); otherwise each segment runs the planned path
// (crc32c_walk.h), VEX-encoded where AVX exists. Built with CSUM_ISA_SSE42_FLAGS.
#include <rte_mbuf.h>

#include "csum/crc32c.h"
#include "mbuf/crc32c_walk.h"
#include "mbuf/segment_read.h"

namespace csum {
namespace {

__attribute__((noinline)) detail::CrcWalk walk_with(uint32_t plan, const rte_mbuf* m, uint32_t off,
                                                    uint32_t len, uint32_t state) {
    if (plan & detail::kPlanStream) return detail::crc32c_walk_gather(m, off, len, state);
    // Short chains: a serial crc32 is done before folding state is set up.
    if (len <= detail::kSerialChainMax && (plan & detail::kPlanVex) &&
        (plan & detail::kPlanShortInline))
        return detail::crc32c_walk_serial(m, off, len, state);
    if (plan & detail::kPlanVex) return detail::crc32c_walk_vex(plan, m, off, len, state);
    return detail::walk_segments(plan, m, off, len, state);
}

// Chains under a plan without kPlanStream (or no plan yet: plan == 0). Out
// of line so that crc32c_mbuf itself needs no stack frame: its paths are all
// tail calls.
__attribute__((noinline)) uint32_t mbuf_walk(uint32_t plan, const rte_mbuf* m, uint32_t off,
                                             uint32_t len, uint32_t crc) {
    if (__builtin_expect(plan == 0, 0)) {
        plan = detail::crc32c_plan();
        if (plan & detail::kPlanStream) return detail::crc32c_mbuf_gather(m, off, len, crc);
    }
    // A chain shorter than pkt_len yields the CRC of the bytes that exist.
    return ~walk_with(plan, m, off, len, ~crc).state;
}

}  // namespace

uint32_t crc32c_mbuf(const rte_mbuf* m, uint32_t offset, uint32_t len, uint32_t crc) noexcept {
    if (offset >= m->pkt_len) return crc;
    if (len > m->pkt_len - offset) len = m->pkt_len - offset;
    // Range inside the first segment (most packets): no walk at all.
    if (offset + len <= m->data_len)
        return crc32c(rte_pktmbuf_mtod_offset(m, const uint8_t*, offset), len, crc);
    const uint32_t plan = detail::g_crc_plan.load(std::memory_order_relaxed);
    if (plan & detail::kPlanStream) return detail::crc32c_mbuf_gather(m, offset, len, crc);
    return mbuf_walk(plan, m, offset, len, crc);
}

int crc32c_mbuf_checked(const rte_mbuf* m, uint32_t offset, uint32_t len, uint32_t* crc) noexcept {
    if (static_cast<uint64_t>(offset) + len > m->pkt_len) return -1;
    if (len == 0) return 0;  // the CRC unchanged, no walk (its seek trusts the links)
    if (!range_in_buffers(m, offset, len)) return -1;
    const detail::CrcWalk r = walk_with(detail::crc32c_plan(), m, offset, len, ~*crc);
    if (!r.complete) return -1;  // the chain holds fewer bytes than pkt_len says
    *crc = ~r.state;
    return 0;
}

}  // namespace csum
