// Opening the ports the EAL found: pairing, queues, offloads and policy,
// each decided once per port.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <rte_mempool.h>

#include "config_file.h"
#include "csum/counter.h"
#include "csum/engine.h"
#include "options.h"

namespace csumd {

struct PortState {
    uint16_t id = 0;
    uint16_t peer = 0;  // where its packets leave
    std::string driver;
    csum::RxPortPolicy rx_policy;
    csum::TxPortPolicy tx_policy;  // TX checksum offloads enabled
    BadAction bad = BadAction::forward;
    uint64_t tx_capa = 0, rx_capa = 0;  // what the port offers
    bool lsc_events = false;            // the driver reports link changes
    bool started = false;
    csum::Counter link_changes;
};

struct PortPlan {
    std::vector<std::unique_ptr<PortState>> ports;  // EAL order
    uint16_t rx_queues = 1;                         // per port
    uint16_t tx_queues = 1;  // one per worker lcore, so workers never share a queue
    rte_mempool* pool = nullptr;

    PortState* find(uint16_t id) const {
        for (auto& p : ports)
            if (p->id == id) return p.get();
        return nullptr;
    }
};

// Pairs 0<->1, 2<->3, ...; an odd last port sends back out of itself.
std::vector<uint16_t> pair_ports(const std::vector<uint16_t>& ports);

// Configures and starts every port; returns an error message on failure.
std::optional<std::string> open_ports(const Options& opt, const ConfigFile& cfg, unsigned workers,
                                      PortPlan* plan);

void close_ports(const PortPlan& plan);

}  // namespace csumd
