// Run-to-completion forwarding on worker lcores: RX burst, the checksum
// engine, then TX burst.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "csum/counter.h"
#include "csum/engine.h"

namespace csumd {

class VerdictLog;
class BadCapture;
using csum::Counter;

struct alignas(64) StreamStats {
    Counter rx_packets, rx_bytes, tx_packets, tx_bytes;
    Counter rx_bursts;          // RX calls that returned packets
    Counter drop_tx_full;       // TX ring stayed full after retries
    Counter drop_bad_checksum;  // --bad drop
    Counter drop_malformed;     // --bad drop
    Counter drop_tx_prepare;    // the PMD's tx_prepare refused the offload request
};

struct Stream {
    uint16_t rx_port, rx_queue, tx_port, tx_queue;
    unsigned lcore = 0;
    const csum::RxPortPolicy* rx_policy = nullptr;
    const csum::TxPortPolicy* tx_policy = nullptr;
    StreamStats stats;
    uint32_t mean_packet_bytes = 0;  // of the last burst received: sizes the next
};

struct Worker {
    unsigned lcore = 0;
    uint16_t burst = 32;
    uint32_t burst_bytes = 0;  // 0: every burst takes `burst`; else about this many bytes
    std::vector<Stream*> streams;
    const std::atomic<bool>* stop = nullptr;
    std::unique_ptr<csum::Engine> engine;  // nullptr in io mode
    VerdictLog* verdict_log = nullptr;
    BadCapture* capture = nullptr;  // --capture-bad
};

// --burst-bytes auto: a third of this CPU's L1 data cache (measured on a
// 48-KiB L1d: 12 and 16 KiB alike, 24 KiB slower; docs/benchmarks.md).
uint32_t auto_burst_bytes();

// rte_eal_remote_launch entry point; arg is a Worker*.
int worker_main(void* arg);

}  // namespace csumd
