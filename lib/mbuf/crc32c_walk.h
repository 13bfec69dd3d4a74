// The per-segment CRC32C chain walk, included by crc32c_mbuf.cpp (SSE4.2
// encoding) and crc32c_mbuf_vex.cpp (the same code VEX-encoded): each
// segment runs the planned path (inline short path or the class's kernel),
// its state fed into the next.
#pragma once

#include <rte_mbuf.h>

#include "dispatch/crc32c_entry.h"
#include "mbuf/segment_read.h"

namespace csum::detail {

struct CrcWalk {
    uint32_t state;
    bool complete;  // false if the chain ended before len bytes (lying pkt_len)
};

CrcWalk crc32c_walk_vex(uint32_t plan, const rte_mbuf* m, uint32_t off, uint32_t len,
                        uint32_t state) noexcept;
// Ranges up to kSerialChainMax bytes (VEX; only where AVX exists): the crc32
// instruction through every piece, no vector state to set up or reduce.
inline constexpr uint32_t kSerialChainMax = 64;
CrcWalk crc32c_walk_serial(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept;
CrcWalk crc32c_walk_stream(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept;
// Chains under a kPlanStream plan (crc32c_mbuf_gather.cpp): up to kGatherMax
// bytes held in one zmm (pieces masked in at their stream place up to 64
// bytes; beyond, each piece's chunks folded straight to the end) and reduced
// once; longer ranges masked into 64-byte units and folded as they go.
inline constexpr uint32_t kGatherMax = 256;
CrcWalk crc32c_walk_gather(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept;
// The same with crc32c_mbuf's contract (final CRC in and out, len already
// within pkt_len - off): a tail call from crc32c_mbuf, no state to unpack.
uint32_t crc32c_mbuf_gather(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t crc) noexcept;

namespace {

// Zero-length segments cost one compare; the walk stops at the end of the
// chain whatever pkt_len claims.
inline CrcWalk walk_segments(uint32_t plan, const rte_mbuf* m, uint32_t off, uint32_t len,
                             uint32_t state) {
    uint32_t seg_off = off;
    const rte_mbuf* s = off < m->data_len ? m : seek_segment(m, off, &seg_off);
    while (len > 0 && s != nullptr) {
        uint32_t n = s->data_len - seg_off;
        if (n > len) n = len;
        if (n != 0)
            state =
                run_planned(plan, state, rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off), n);
        len -= n;
        seg_off = 0;
        s = s->next;
    }
    return {state, len == 0};
}

}  // namespace
}  // namespace csum::detail
