#include "mbuf/segment_read.h"

#include <cstring>

namespace csum {

const rte_mbuf* seek_segment(const rte_mbuf* m, uint32_t off, uint32_t* seg_off) noexcept {
    // Zero-length segments are stepped over; a segment is entered only if
    // off lies strictly inside it.
    while (m != nullptr && off >= m->data_len) {
        off -= m->data_len;
        m = m->next;
    }
    *seg_off = off;
    return m;
}

const void* read_bytes_slow(const rte_mbuf* m, uint32_t off, uint32_t len, void* buf) noexcept {
    if (static_cast<uint64_t>(off) + len > m->pkt_len) return nullptr;
    if (len == 0) return buf;
    uint32_t seg_off;
    const rte_mbuf* seg = seek_segment(m, off, &seg_off);
    if (seg == nullptr) return nullptr;
    if (seg_off + len <= seg->data_len)
        return rte_pktmbuf_mtod_offset(seg, const uint8_t*, seg_off);
    auto* out = static_cast<uint8_t*>(buf);
    while (len > 0) {
        if (seg == nullptr) return nullptr;
        uint32_t n = seg->data_len - seg_off;
        if (n > len) n = len;
        std::memcpy(out, rte_pktmbuf_mtod_offset(seg, const uint8_t*, seg_off), n);
        out += n;
        len -= n;
        seg = seg->next;
        seg_off = 0;
    }
    return buf;
}

bool write_bytes(rte_mbuf* m, uint32_t off, uint32_t len, const void* src) noexcept {
    if (static_cast<uint64_t>(off) + len > m->pkt_len) return false;
    uint32_t seg_off;
    auto* seg = const_cast<rte_mbuf*>(seek_segment(m, off, &seg_off));
    const auto* in = static_cast<const uint8_t*>(src);
    while (len > 0) {
        if (seg == nullptr) return false;
        uint32_t n = seg->data_len - seg_off;
        if (n > len) n = len;
        std::memcpy(rte_pktmbuf_mtod_offset(seg, uint8_t*, seg_off), in, n);
        in += n;
        len -= n;
        seg = seg->next;
        seg_off = 0;
    }
    return true;
}

}  // namespace csum
