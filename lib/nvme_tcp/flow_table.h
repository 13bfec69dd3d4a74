// Fixed-capacity connection table: open addressing (linear probing with
// backward-shift deletion) over a preallocated pool, plus an LRU list whose
// tail is both the eviction victim and the first idle candidate.
#pragma once

#include <cstdint>
#include <vector>

#include "csum/nvme_tcp.h"
#include "nvme_tcp/stream.h"

namespace csum::nvme {

struct Conn {
    NvmeFlowKey key;  // direction 0, as first seen
    uint64_t last_tsc = 0;
    uint32_t hash = 0;
    uint32_t prev = 0, next = 0;  // LRU links (pool indices; sentinel = capacity)
    Negotiation neg;
    Stream dir[2];
    NvmeConnStats stats;
};

class FlowTable {
  public:
    explicit FlowTable(uint32_t capacity, uint64_t seed);

    // Hash of the connection (same for both directions).
    uint32_t hash(const NvmeFlowKey& k) const;
    // The connection holding k (either direction); *dir gets 0 or 1.
    Conn* find(const NvmeFlowKey& k, uint32_t h, uint8_t* dir);
    const Conn* find(const NvmeFlowKey& k, uint8_t* dir) const;
    // Inserts a fresh connection; the caller made room first (full() false).
    Conn* insert(const NvmeFlowKey& k, uint32_t h, uint64_t now);
    void remove(Conn* c);
    // Most recently used now. Inline: it runs for every segment.
    void touch(Conn* c, uint64_t now) {
        c->last_tsc = now;
        if (pool_.data() + sentinel_next_ == c) return;  // already first: no index to compute
        const uint32_t i = index(c);
        unlink(i);
        link_front(i);
    }
    // LRU tail, or null.
    Conn* oldest() { return sentinel_prev_ == capacity_ ? nullptr : &pool_[sentinel_prev_]; }
    bool full() const { return free_.empty(); }
    uint32_t size() const { return capacity_ - static_cast<uint32_t>(free_.size()); }

    template <class F>
    void for_each(F&& f) const {
        for (uint32_t i = head_next(); i != capacity_; i = pool_[i].next) f(pool_[i]);
    }

  private:
    uint32_t head_next() const { return sentinel_next_; }
    uint32_t index(const Conn* c) const { return static_cast<uint32_t>(c - pool_.data()); }
    void unlink(uint32_t i);
    void link_front(uint32_t i);
    uint32_t probe(uint32_t idx) const;  // slot holding pool index idx

    uint32_t capacity_;
    uint32_t mask_;
    uint64_t seed_;
    std::vector<Conn> pool_;
    std::vector<uint32_t> slots_;  // pool index + 1; 0 = empty
    std::vector<uint32_t> tags_;   // hash of the slot's connection
    std::vector<uint32_t> free_;
    uint32_t sentinel_next_, sentinel_prev_;
};

bool same_direction(const NvmeFlowKey& a, const NvmeFlowKey& b);
bool reversed(const NvmeFlowKey& a, const NvmeFlowKey& b);

}  // namespace csum::nvme
