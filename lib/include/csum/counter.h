// A statistics counter written by one lcore and read live by another.
#pragma once

#include <atomic>
#include <cstdint>

namespace csum {

// Relaxed load + store, no read-modify-write: as cheap as a plain add on
// x86, and a concurrent reader sees whole values.
struct Counter {
    std::atomic<uint64_t> v{0};
    void add(uint64_t n = 1) noexcept {
        v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    uint64_t get() const noexcept { return v.load(std::memory_order_relaxed); }
};

}  // namespace csum
