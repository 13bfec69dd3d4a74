// Bounded reads of packet bytes across a segment chain.
#pragma once

#include <cstdint>

#include <rte_mbuf.h>

namespace csum {

// Returns a pointer to len contiguous bytes at packet offset off: into the
// segment if they lie in one, else copied into buf. nullptr if off + len
// passes pkt_len or the chain ends early (a lying pkt_len or nb_segs).
const void* read_bytes_slow(const rte_mbuf* m, uint32_t off, uint32_t len, void* buf) noexcept;

inline const void* read_bytes(const rte_mbuf* m, uint32_t off, uint32_t len, void* buf) noexcept {
    // Headers almost always sit in the first segment.
    const uint64_t end = static_cast<uint64_t>(off) + len;
    if (likely(end <= m->data_len && end <= m->pkt_len))
        return rte_pktmbuf_mtod_offset(m, const uint8_t*, off);
    return read_bytes_slow(m, off, len, buf);
}

// Writes len bytes at packet offset off, across segments if needed. false if
// off + len passes pkt_len or the chain ends early.
bool write_bytes(rte_mbuf* m, uint32_t off, uint32_t len, const void* src) noexcept;

// Finds the segment holding packet offset off; *seg_off gets the offset in it.
// nullptr if the chain has fewer bytes than that.
const rte_mbuf* seek_segment(const rte_mbuf* m, uint32_t off, uint32_t* seg_off) noexcept;

}  // namespace csum
