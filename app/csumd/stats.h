// What csumd counted, gathered from the per-stream and per-worker counters:
// printed testpmd-style, as a progress line, as JSON, and over telemetry.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "csum/engine.h"
#include "forwarder.h"
#include "options.h"
#include "ports.h"
#include "telemetry.h"

namespace csumd {

class BadCapture;

// Everything the reports read; owned by main.
struct StatsView {
    const PortPlan* plan;
    const std::vector<Stream>* streams;
    const std::vector<Worker>* workers;
    const Options* opt;
    const BadCapture* capture = nullptr;
    std::chrono::steady_clock::time_point start{};
};

struct PortTotals {
    uint16_t port = 0;
    std::string driver;
    uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0, tx_bytes = 0;
    uint64_t drops = 0;  // packets csumd received and did not send, all reasons
    uint64_t drop_tx_full = 0, drop_bad_checksum = 0, drop_malformed = 0, drop_tx_prepare = 0;
    uint64_t rx_missed = 0;  // dropped by the port before csumd saw them (imissed)
    uint64_t link_changes = 0;
};

struct QueueTotals {
    uint16_t port = 0, queue = 0;
    unsigned lcore = 0;
    uint64_t rx_packets = 0, tx_packets = 0, drops = 0;
    uint64_t rx_bursts = 0;  // RX calls that returned packets
};

// Sums of every worker's engine counters (plain numbers, a snapshot).
struct EngineTotals {
    csum::Mode mode = csum::Mode::io;
    uint64_t packets = 0, bytes = 0;
    uint64_t layer[csum::kLayerProtoCount][csum::kLayerStatusCount] = {};
    uint64_t ip_summed[4] = {};
    uint64_t csum_level[8] = {};
    uint64_t parse_error[csum::kParseErrorCount] = {};
    uint64_t sw_filled = 0, hw_offloaded = 0, skipped_trusted = 0;
    uint64_t work_tsc = 0, sum_bytes = 0, crc_bytes = 0;
    void add(const csum::EngineStats& s);
};

// NVMe/TCP tracker totals over every worker.
struct NvmeTotals {
    bool enabled = false;
    csum::NvmeTrackerStats s;
    void add(const csum::NvmeTrackerStats& t);
};

struct LcoreTotals {
    unsigned lcore = 0;
    uint64_t rx_packets = 0, tx_packets = 0;
    EngineTotals engine;
};

struct Report {
    double duration_s = 0;
    std::vector<PortTotals> ports;
    std::vector<QueueTotals> queues;
    std::vector<LcoreTotals> lcores;
    EngineTotals engine;
    NvmeTotals nvme;
    uint64_t captured = 0, capture_failed = 0;
    unsigned mbufs_in_use = 0;
};

uint64_t total_rx(const std::vector<Stream>& streams);
Report collect_report(const StatsView& v, double duration_s);

void print_banner(const StatsView& v);
void print_report(const Report& r);

// Rates since the previous line.
struct Progress {
    double t = 0;
    uint64_t rx = 0, tx = 0;
};
void print_progress(const StatsView& v, double elapsed, Progress* prev);

// Returns false with a message in *err if the file can't be written.
bool write_stats_json(const std::string& path, const Report& r, std::string* err);

TelemetryHandlers make_telemetry_handlers(const StatsView* v);

}  // namespace csumd
