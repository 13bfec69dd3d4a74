#include "telemetry.h"

#include <atomic>
#include <mutex>

namespace csumd {
namespace {

std::mutex g_mu;  // held while a handler runs, so clearing waits for it
TelemetryHandlers* g_handlers = nullptr;

int dispatch(std::function<void(rte_tel_data*)> TelemetryHandlers::*which, rte_tel_data* d) {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_handlers == nullptr || !(g_handlers->*which)) return -1;
    rte_tel_data_start_dict(d);
    (g_handlers->*which)(d);
    return 0;
}

int on_stats(const char*, const char*, rte_tel_data* d) {
    return dispatch(&TelemetryHandlers::stats, d);
}
int on_ports(const char*, const char*, rte_tel_data* d) {
    return dispatch(&TelemetryHandlers::ports, d);
}
int on_config(const char*, const char*, rte_tel_data* d) {
    return dispatch(&TelemetryHandlers::config, d);
}

}  // namespace

void register_telemetry(TelemetryHandlers* handlers) {
    {
        std::lock_guard<std::mutex> lock(g_mu);
        g_handlers = handlers;
    }
    static std::once_flag once;
    std::call_once(once, [] {
        rte_telemetry_register_cmd("/csumd/stats", on_stats,
                                   "csumd totals: packets, drops by reason, checksum verdicts");
        rte_telemetry_register_cmd("/csumd/ports", on_ports,
                                   "csumd per-port counters. Parameters: none");
        rte_telemetry_register_cmd("/csumd/config", on_config, "csumd mode and per-port policy");
    });
}

void clear_telemetry() {
    std::lock_guard<std::mutex> lock(g_mu);
    g_handlers = nullptr;
}

}  // namespace csumd
