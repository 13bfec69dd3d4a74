// The Internet checksum over a segment chain: one kernel call per segment,
// each segment's sum swapped into place when it starts at an odd offset.
// Unlike DPDK 22.11's rte_raw_cksum_mbuf, the swap folds the whole 32-bit
// sum first, so no carry is lost.
#include <rte_mbuf.h>

#include "csum/inet.h"
#include "inet/inet_kernels.h"
#include "mbuf/segment_read.h"

namespace csum {

int partial_sum_mbuf(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t* sum) noexcept {
    if (static_cast<uint64_t>(off) + len > m->pkt_len) return -1;
    uint32_t seg_off = off;
    const rte_mbuf* s = m;
    if (off >= m->data_len) s = seek_segment(m, off, &seg_off);
    // One segment: the common case, with no placement to work out.
    if (s != nullptr && seg_off + len <= s->data_len) {
        *sum = detail::inet_sum_any(rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off), len, *sum);
        return 0;
    }
    uint32_t total = *sum;
    size_t pos = 0;  // bytes summed so far: a segment starting at an odd pos swaps
    while (len > 0) {
        if (s == nullptr) return -1;  // chain shorter than pkt_len says
        uint32_t n = s->data_len - seg_off;
        if (n > len) n = len;
        const uint32_t seg_sum =
            detail::inet_sum_any(rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off), n, 0);
        total = sum_add(total, sum_block_at(seg_sum, pos));
        pos += n;
        len -= n;
        seg_off = 0;
        s = s->next;
    }
    *sum = total;
    return 0;
}

int raw_cksum_mbuf(const rte_mbuf* m, uint32_t off, uint32_t len, uint16_t* sum) noexcept {
    uint32_t s = 0;
    if (partial_sum_mbuf(m, off, len, &s) != 0) return -1;
    *sum = sum_fold(s);
    return 0;
}

}  // namespace csum
