#include <rte_mbuf.h>

#include "crc32c/crc32c_kernels.h"
#include "csum/crc32c.h"
#include "mbuf/segment_read.h"

namespace csum {

// Walks the chain once, feeding each segment's state into the next.
static uint32_t walk(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) {
    uint32_t seg_off;
    const rte_mbuf* s = seek_segment(m, off, &seg_off);
    while (s != nullptr && len > 0) {
        uint32_t n = s->data_len - seg_off;
        if (n > len) n = len;
        state = detail::crc32c_portable(state, rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off), n);
        len -= n;
        seg_off = 0;
        s = s->next;
    }
    return state;
}

uint32_t crc32c_mbuf(const rte_mbuf* m, uint32_t offset, uint32_t len, uint32_t crc) noexcept {
    if (offset >= m->pkt_len) return crc;
    if (len > m->pkt_len - offset) len = m->pkt_len - offset;
    return ~walk(m, offset, len, ~crc);
}

int crc32c_mbuf_checked(const rte_mbuf* m, uint32_t offset, uint32_t len, uint32_t* crc) noexcept {
    if (static_cast<uint64_t>(offset) + len > m->pkt_len) return -1;
    *crc = ~walk(m, offset, len, ~*crc);
    return 0;
}

}  // namespace csum
