// Bounded reads of packet bytes across a segment chain. Every copy of packet
// bytes in the library goes through read_bytes: the destination is a span,
// so a read longer than its buffer is refused (nullptr), never performed.
#pragma once

#include <cstdint>
#include <span>

#include <rte_mbuf.h>

namespace csum {

// A segment's descriptor keeps its bytes inside its buffer (data_off +
// data_len <= buf_len). Descriptor fields are untrusted: every path checks
// this for each segment before reading its data.
[[gnu::always_inline]] inline bool segment_in_buffer(const rte_mbuf* s) noexcept {
    return uint32_t{s->data_off} + s->data_len <= s->buf_len;
}

// Returns a pointer to len contiguous bytes at packet offset off: into the
// segment if they lie in one, else copied into buf. nullptr if off + len
// passes pkt_len, the chain ends early (a lying pkt_len or nb_segs), or the
// bytes straddle segments and len exceeds buf.size().
const void* read_bytes_slow(const rte_mbuf* m, uint32_t off, uint32_t len,
                            std::span<uint8_t> buf) noexcept;

inline const void* read_bytes(const rte_mbuf* m, uint32_t off, uint32_t len,
                              std::span<uint8_t> buf) noexcept {
    // Headers almost always sit in the first segment. The size check is here
    // too, so that whether a read succeeds never depends on segmentation.
    const uint64_t end = static_cast<uint64_t>(off) + len;
    if (likely(end <= m->data_len && end <= m->pkt_len && len <= buf.size() &&
               segment_in_buffer(m)))
        return rte_pktmbuf_mtod_offset(m, const uint8_t*, off);
    return read_bytes_slow(m, off, len, buf);
}

// Writes len bytes at packet offset off, across segments if needed. false,
// with nothing written, if off + len passes pkt_len or the range is not
// readable (range_in_buffers).
bool write_bytes(rte_mbuf* m, uint32_t off, std::span<const uint8_t> src) noexcept;

// Writes the bytes of one value (a checksum field) at packet offset off.
template <typename T>
bool write_value(rte_mbuf* m, uint32_t off, const T& v) noexcept {
    return write_bytes(m, off, {reinterpret_cast<const uint8_t*>(&v), sizeof v});
}

// Finds the segment holding packet offset off; *seg_off gets the offset in it.
// nullptr if the chain has fewer bytes than that. Follows the links as they
// are: for chains already checked (range_in_buffers, or the engine's classify).
const rte_mbuf* seek_segment(const rte_mbuf* m, uint32_t off, uint32_t* seg_off) noexcept;

// The same within the head's nb_segs segments (a chain whose links loop ends
// there: nullptr), and how many more the walk may visit after the one
// returned (*left). m is the packet's head.
const rte_mbuf* seek_segment_bounded(const rte_mbuf* m, uint32_t off, uint32_t* seg_off,
                                     uint32_t* left) noexcept;

// Calls fn(ptr, n) for each piece of packet bytes [off, off+len) in chain
// order, zero-length segments skipped. false if the chain ends before len
// bytes within the head's nb_segs segments (a looped chain ends there), or
// reaches a segment claiming data past its buffer (fn has then seen a
// prefix). The one segment walk of the library.
template <typename Fn>
bool for_each_piece(const rte_mbuf* m, uint32_t off, uint32_t len, Fn&& fn) {
    if (len == 0) return true;
    uint32_t seg_off, left;
    const rte_mbuf* seg = seek_segment_bounded(m, off, &seg_off, &left);
    for (;;) {
        if (seg == nullptr || !segment_in_buffer(seg)) return false;
        uint32_t n = seg->data_len - seg_off;
        if (n > len) n = len;
        if (n != 0) fn(rte_pktmbuf_mtod_offset(seg, uint8_t*, seg_off), n);
        len -= n;
        if (len == 0) return true;
        if (left-- == 0) return false;  // more segments than nb_segs
        seg = seg->next;
        seg_off = 0;
    }
}

// Every segment holding a byte of [off, off + len) keeps its data in its
// buffer, and the chain holds them all.
inline bool range_in_buffers(const rte_mbuf* m, uint32_t off, uint32_t len) {
    return for_each_piece(m, off, len, [](const uint8_t*, uint32_t) {});
}

}  // namespace csum
