// One ones'-complement pass over the outermost summed region, from which
// every nested layer's sum is derived by subtracting the bytes in front of
// (and behind) it: payload is read once however deep the tunnels go.
#pragma once

#include <cstdint>

#include <rte_mbuf.h>

namespace csum {

class RegionSum {
  public:
    RegionSum(rte_mbuf* m, uint64_t& bytes_read) : m_(m), bytes_read_(bytes_read) {}

    bool valid() const { return valid_; }
    uint32_t base() const { return base_; }
    uint32_t end() const { return end_; }

    // Sums [base, end) by reading it. false if past the chain.
    bool compute(uint32_t base, uint32_t end);
    // Derives the region from a sum over [whole_base, pkt_len) (CHECKSUM_COMPLETE).
    bool from_complete(uint16_t whole, uint32_t whole_base, uint32_t base, uint32_t end);
    // Sum of [off, off+len), aligned at off; requires a valid, enclosing region.
    bool sum_of(uint32_t off, uint32_t len, uint32_t* out);
    // A 16-bit word at packet offset off changed from old to new (memory order).
    void replace_word(uint32_t off, uint16_t old_word, uint16_t new_word);
    // Sums bytes outside the region: [off, off+len), aligned at off.
    bool read_sum(uint32_t off, uint32_t len, uint32_t* out);

  private:
    rte_mbuf* m_;
    uint64_t& bytes_read_;
    bool valid_ = false;
    uint32_t base_ = 0, end_ = 0;
    uint32_t sum_ = 0;
};

}  // namespace csum
