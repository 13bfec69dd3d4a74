// Per-port totals from the per-stream counters and engine totals from the
// per-worker engines, printed testpmd-style and written as JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "csum/engine.h"
#include "forwarder.h"

namespace csumd {

struct PortTotals {
    uint16_t port = 0;
    uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0, tx_bytes = 0;
    uint64_t drops = 0;  // packets csumd received and did not send, all reasons
    uint64_t drop_tx_full = 0, drop_bad_checksum = 0, drop_malformed = 0, drop_tx_prepare = 0;
    uint64_t rx_missed = 0;  // dropped by the port before csumd saw them (imissed)
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
};

std::vector<PortTotals> collect_totals(const std::vector<uint16_t>& ports,
                                       const std::vector<Stream>& streams);
EngineTotals collect_engine(const std::vector<Worker>& workers, csum::Mode mode);

void print_port_stats(const std::vector<PortTotals>& totals, double duration_s);
void print_engine_stats(const EngineTotals& e);

// Returns false with a message in *err if the file can't be written.
bool write_stats_json(const std::string& path, const std::vector<PortTotals>& totals,
                      const EngineTotals& engine, double duration_s, std::string* err);

}  // namespace csumd
