#include "nvme_tcp/byte_run.h"

#include <cstring>

#include <rte_mbuf.h>

#include "csum/crc32c.h"
#include "mbuf/crc32c_carry.h"
#include "mbuf/segment_read.h"

namespace csum::nvme {

bool ByteRun::copy_chain(uint32_t at, uint32_t n, std::span<uint8_t> dst) const {
    if (n == 0) return true;
    const void* p = read_bytes(m, off + at, n, dst);
    if (p == nullptr) {
        // The caller's payload bounds were checked against pkt_len; a chain
        // shorter than pkt_len reads as zeros rather than out of bounds.
        std::memset(dst.data(), 0, n);
    } else if (p != dst.data()) {
        std::memcpy(dst.data(), p, n);
    }
    return true;
}

void ByteRun::write(uint32_t at, std::span<const uint8_t> src) const {
    write_bytes(m, off + at, src);
}

const uint8_t* ByteRun::peek_any(uint32_t at, uint32_t* n) const {
    if (at >= len) return nullptr;
    if (buf != nullptr) {
        *n = len - at;
        return buf + off + at;
    }
    uint32_t seg_off;
    const rte_mbuf* s =
        m->next == nullptr ? (seg_off = off + at, m) : seek_segment(m, off + at, &seg_off);
    if (s == nullptr || seg_off >= s->data_len) return nullptr;
    *n = s->data_len - seg_off;
    if (*n > len - at) *n = len - at;
    return rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off);
}

ChunkCursor::ChunkCursor(const ByteRun& r, uint32_t at) : left_(r.len - at) {
    if (r.buf != nullptr) {
        buf_ = r.buf + r.off + at;
    } else if (left_ > 0) {
        seg_ = seek_segment(r.m, r.off + at, &seg_off_);
        if (seg_ == nullptr) left_ = 0;
    }
}

bool ChunkCursor::next(const uint8_t** p, uint32_t* n) {
    if (left_ == 0) return false;
    if (buf_ != nullptr) {
        *p = buf_;
        *n = left_;
        left_ = 0;
        return true;
    }
    while (seg_ != nullptr && seg_off_ >= seg_->data_len) {
        seg_ = seg_->next;
        seg_off_ = 0;
    }
    if (seg_ == nullptr) return left_ = 0, false;
    uint32_t k = seg_->data_len - seg_off_;
    if (k > left_) k = left_;
    *p = rte_pktmbuf_mtod_offset(seg_, const uint8_t*, seg_off_);
    *n = k;
    left_ -= k;
    seg_off_ += k;
    return true;
}

}  // namespace csum::nvme
