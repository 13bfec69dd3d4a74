#include "engine/region_sum.h"

#include "csum/inet.h"
#include "mbuf/inet_mbuf_chain.h"

namespace csum {

bool RegionSum::read_sum(uint32_t off, uint32_t len, uint32_t* out) {
    uint32_t s = 0;
    if (detail::partial_sum_mbuf_trusted(m_, off, len, &s) != 0) return false;
    bytes_read_ += len;
    *out = s;
    return true;
}

bool RegionSum::compute(uint32_t base, uint32_t end) {
    valid_ = read_sum(base, end - base, &sum_);
    base_ = base;
    end_ = end;
    return valid_;
}

bool RegionSum::from_complete(uint16_t whole, uint32_t whole_base, uint32_t base, uint32_t end) {
    uint32_t prefix, suffix;
    if (!read_sum(whole_base, base - whole_base, &prefix) ||
        !read_sum(end, m_->pkt_len - end, &suffix))
        return false;
    uint32_t s = sum_sub(sum_sub(whole, prefix), sum_block_at(suffix, end - whole_base));
    sum_ = sum_block_at(s, base - whole_base);
    base_ = base;
    end_ = end;
    valid_ = true;
    return true;
}

bool RegionSum::sum_of(uint32_t off, uint32_t len, uint32_t* out) {
    if (!valid_ || off < base_ || off + len > end_) return false;
    if (off == base_ && len == end_ - base_) return *out = sum_, true;
    uint32_t prefix, suffix;
    if (!read_sum(base_, off - base_, &prefix) || !read_sum(off + len, end_ - off - len, &suffix))
        return false;
    uint32_t s = sum_sub(sum_sub(sum_, prefix), sum_block_at(suffix, off + len - base_));
    *out = sum_block_at(s, off - base_);
    return true;
}

void RegionSum::replace_word(uint32_t off, uint16_t old_word, uint16_t new_word) {
    if (!valid_ || off < base_ || off + 2 > end_) return;
    sum_ = sum_add(sum_sub(sum_, sum_block_at(old_word, off - base_)),
                   sum_block_at(new_word, off - base_));
}

}  // namespace csum
