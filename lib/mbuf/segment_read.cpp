#include "mbuf/segment_read.h"

#include <cstring>

namespace csum {

const rte_mbuf* seek_segment_bounded(const rte_mbuf* m, uint32_t off, uint32_t* seg_off,
                                     uint32_t* left) noexcept {
    // Zero-length segments are stepped over; a segment is entered only if
    // off lies strictly inside it. At most nb_segs segments are visited.
    uint32_t segs = m->nb_segs;
    while (m != nullptr && off >= m->data_len) {
        if (segs <= 1) return nullptr;
        --segs;
        off -= m->data_len;
        m = m->next;
    }
    *seg_off = off;
    *left = segs == 0 ? 0 : segs - 1;
    return segs == 0 ? nullptr : m;
}

const rte_mbuf* seek_segment(const rte_mbuf* m, uint32_t off, uint32_t* seg_off) noexcept {
    while (m != nullptr && off >= m->data_len) {
        off -= m->data_len;
        m = m->next;
    }
    *seg_off = off;
    return m;
}

const void* read_bytes_slow(const rte_mbuf* m, uint32_t off, uint32_t len,
                            std::span<uint8_t> buf) noexcept {
    if (static_cast<uint64_t>(off) + len > m->pkt_len) return nullptr;
    if (len > buf.size()) return nullptr;  // the destination bounds every copy
    if (len == 0) return buf.data();
    uint8_t* out = buf.data();
    const bool whole = for_each_piece(m, off, len, [&](const uint8_t* p, uint32_t n) {
        std::memcpy(out, p, n);
        out += n;
    });
    return whole ? buf.data() : nullptr;
}

bool write_bytes(rte_mbuf* m, uint32_t off, std::span<const uint8_t> src) noexcept {
    const auto len = static_cast<uint32_t>(src.size());
    const uint64_t end = static_cast<uint64_t>(off) + len;
    if (end > m->pkt_len) return false;
    if (end <= m->data_len && segment_in_buffer(m)) {
        std::memcpy(rte_pktmbuf_mtod_offset(m, uint8_t*, off), src.data(), len);
        return true;
    }
    // All or nothing: the whole range is checked before a byte is written.
    if (!range_in_buffers(m, off, len)) return false;
    const uint8_t* in = src.data();
    return for_each_piece(m, off, len, [&](uint8_t* p, uint32_t n) {
        std::memcpy(p, in, n);
        in += n;
    });
}

}  // namespace csum
