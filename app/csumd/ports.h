// Opening the ports the EAL found, and pairing them like testpmd.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rte_mempool.h>

#include "csum/engine.h"

#include "options.h"

namespace csumd {

struct PortPlan {
    std::vector<uint16_t> ports;  // ethdev ids, in EAL order
    std::vector<uint16_t> peer;   // peer[i]: where packets from ports[i] leave
    uint16_t tx_queues = 1;       // one per worker lcore, so workers never share a queue
    rte_mempool* pool = nullptr;
    std::vector<csum::RxPortPolicy> rx_policy;  // by position in ports
    std::vector<csum::TxPortPolicy> tx_policy;  // TX checksum offloads enabled, by position
    std::vector<uint64_t> tx_capa;              // what each port offers, for the report
};

// Pairs 0<->1, 2<->3, ...; an odd last port sends back out of itself.
std::vector<uint16_t> pair_ports(const std::vector<uint16_t>& ports);

// Configures and starts every port; returns an error message on failure.
std::optional<std::string> open_ports(const Options& opt, unsigned workers, PortPlan* plan);

void close_ports(const PortPlan& plan);

}  // namespace csumd
