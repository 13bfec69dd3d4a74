// Run-to-completion forwarding on worker lcores: RX burst, then TX burst.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace csumd {

// Written by one lcore, read by the main lcore: relaxed load + store, no RMW.
struct Counter {
    std::atomic<uint64_t> v{0};
    void add(uint64_t n) { v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
    uint64_t get() const { return v.load(std::memory_order_relaxed); }
};

struct alignas(64) StreamStats {
    Counter rx_packets, rx_bytes, tx_packets, tx_bytes;
    Counter drop_tx_full;  // TX ring stayed full after retries
};

struct Stream {
    uint16_t rx_port, rx_queue, tx_port, tx_queue;
    StreamStats stats;
};

struct Worker {
    unsigned lcore = 0;
    uint16_t burst = 32;
    std::vector<Stream*> streams;
    const std::atomic<bool>* stop = nullptr;
};

// rte_eal_remote_launch entry point; arg is a Worker*.
int worker_main(void* arg);

}  // namespace csumd
