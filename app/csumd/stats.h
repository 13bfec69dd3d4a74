// Per-port totals from the per-stream counters, printed testpmd-style and
// written as JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "forwarder.h"

namespace csumd {

struct PortTotals {
    uint16_t port = 0;
    uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0, tx_bytes = 0;
    uint64_t drops = 0;          // packets csumd received and did not send
    uint64_t drop_tx_full = 0;   // ... of which the TX ring refused
    uint64_t rx_missed = 0;      // dropped by the port before csumd saw them (imissed)
};

std::vector<PortTotals> collect_totals(const std::vector<uint16_t>& ports,
                                       const std::vector<Stream>& streams);

void print_port_stats(const std::vector<PortTotals>& totals, double duration_s);

// Returns false with a message in *err if the file can't be written.
bool write_stats_json(const std::string& path, const std::vector<PortTotals>& totals,
                      double duration_s, std::string* err);

}  // namespace csumd
