#include "nvme_tcp/flow_table.h"

#include <cstring>

#include <nmmintrin.h>

namespace csum::nvme {
namespace {

uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

uint64_t load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// Digest of one endpoint; the two endpoints' digests are added, so both
// directions hash alike. Hardware CRC32 (SSE4.2 is the baseline ISA) keeps
// it to a few cycles; the seeded final mix spreads it.
uint64_t endpoint_hash(const uint8_t* addr, uint16_t port, uint32_t seed) {
    uint64_t h = _mm_crc32_u64(seed, load64(addr));
    h = _mm_crc32_u64(h, load64(addr + 8));
    return _mm_crc32_u32(static_cast<uint32_t>(h), port) | h << 32;
}

uint32_t round_pow2(uint64_t n) {
    uint32_t p = 16;
    while (p < n) p <<= 1;
    return p;
}

}  // namespace

bool same_direction(const NvmeFlowKey& a, const NvmeFlowKey& b) {
    return a.family == b.family && a.src_port == b.src_port && a.dst_port == b.dst_port &&
           std::memcmp(a.src_addr, b.src_addr, 16) == 0 &&
           std::memcmp(a.dst_addr, b.dst_addr, 16) == 0;
}

bool reversed(const NvmeFlowKey& a, const NvmeFlowKey& b) {
    return a.family == b.family && a.src_port == b.dst_port && a.dst_port == b.src_port &&
           std::memcmp(a.src_addr, b.dst_addr, 16) == 0 &&
           std::memcmp(a.dst_addr, b.src_addr, 16) == 0;
}

FlowTable::FlowTable(uint32_t capacity, uint64_t seed)
    : capacity_(capacity == 0 ? 1 : capacity),
      mask_(round_pow2(uint64_t{capacity_} * 2) - 1),
      seed_(seed),
      pool_(capacity_),
      slots_(mask_ + 1, 0),
      tags_(mask_ + 1, 0),
      sentinel_next_(capacity_),
      sentinel_prev_(capacity_) {
    free_.reserve(capacity_);
    for (uint32_t i = capacity_; i > 0; --i) free_.push_back(i - 1);
}

uint32_t FlowTable::hash(const NvmeFlowKey& k) const {
    // Sum of both endpoints' hashes: symmetric in the direction.
    const uint32_t seed = static_cast<uint32_t>(seed_);
    const uint64_t h = endpoint_hash(k.src_addr, k.src_port, seed) +
                       endpoint_hash(k.dst_addr, k.dst_port, seed) + k.family;
    return static_cast<uint32_t>(mix(h ^ seed_));
}

Conn* FlowTable::find(const NvmeFlowKey& k, uint32_t h, uint8_t* dir) {
    for (uint32_t i = h & mask_;; i = (i + 1) & mask_) {
        const uint32_t s = slots_[i];
        if (s == 0) return nullptr;
        if (tags_[i] != h) continue;
        Conn& c = pool_[s - 1];
        if (same_direction(c.key, k)) return *dir = 0, &c;
        if (reversed(c.key, k)) return *dir = 1, &c;
    }
}

const Conn* FlowTable::find(const NvmeFlowKey& k, uint8_t* dir) const {
    return const_cast<FlowTable*>(this)->find(k, hash(k), dir);
}

Conn* FlowTable::insert(const NvmeFlowKey& k, uint32_t h, uint64_t now) {
    const uint32_t idx = free_.back();
    free_.pop_back();
    Conn& c = pool_[idx];
    c = Conn{};
    c.key = k;
    c.hash = h;
    c.last_tsc = now;
    uint32_t i = h & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = idx + 1;
    tags_[i] = h;
    link_front(idx);
    return &c;
}

uint32_t FlowTable::probe(uint32_t idx) const {
    uint32_t i = pool_[idx].hash & mask_;
    while (slots_[i] != idx + 1) i = (i + 1) & mask_;
    return i;
}

void FlowTable::remove(Conn* c) {
    const uint32_t idx = index(c);
    uint32_t i = probe(idx);
    // Backward shift: pull later entries of the cluster into the hole when
    // their home slot doesn't lie (cyclically) between the hole and them.
    for (uint32_t j = (i + 1) & mask_; slots_[j] != 0; j = (j + 1) & mask_) {
        const uint32_t home = tags_[j] & mask_;
        const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays) continue;
        slots_[i] = slots_[j];
        tags_[i] = tags_[j];
        i = j;
    }
    slots_[i] = 0;
    unlink(idx);
    free_.push_back(idx);
}

void FlowTable::unlink(uint32_t i) {
    const uint32_t p = pool_[i].prev, n = pool_[i].next;
    (p == capacity_ ? sentinel_next_ : pool_[p].next) = n;
    (n == capacity_ ? sentinel_prev_ : pool_[n].prev) = p;
}

void FlowTable::link_front(uint32_t i) {
    pool_[i].prev = capacity_;
    pool_[i].next = sentinel_next_;
    (sentinel_next_ == capacity_ ? sentinel_prev_ : pool_[sentinel_next_].prev) = i;
    sentinel_next_ = i;
}

}  // namespace csum::nvme
