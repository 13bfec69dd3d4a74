// Live stats over DPDK's telemetry socket: /csumd/stats, /csumd/ports and
// /csumd/config, readable with dpdk-telemetry.py.
#pragma once

#include <functional>

#include <rte_telemetry.h>

namespace csumd {

struct TelemetryHandlers {
    std::function<void(rte_tel_data*)> stats, ports, config;
};

// Registers the commands; the handlers run on the telemetry thread and must
// only read relaxed counters. Call clear_telemetry() before they go away.
void register_telemetry(TelemetryHandlers* handlers);
void clear_telemetry();

}  // namespace csumd
