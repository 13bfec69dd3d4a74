// csumd's own command line (the part after "--").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "csum/engine.h"

namespace csumd {

struct Options {
    double duration_s = 0;      // 0: run until a signal
    double idle_exit_s = 0;     // 0: never exit for lack of packets
    uint64_t max_packets = 0;   // 0: no limit; else stop once this many were received
    double stats_period_s = 0;  // 0: stats at exit only
    std::string stats_json;     // empty: none
    static constexpr uint16_t kMaxBurst = 512;  // --burst's bound; the forwarder's arrays hold it
    uint16_t burst = 32;
    uint32_t burst_bytes = 0;      // bursts of long packets cut to about this (0: off)
    bool burst_bytes_auto = true;  // burst_bytes from the L1 data cache (main, at start)
    uint16_t rx_desc = 1024;
    uint16_t tx_desc = 1024;
    uint32_t nb_mbufs = 16383;
    uint16_t mbuf_size = 2048;  // data room, excluding headroom

    csum::EngineConfig engine;  // mode, tunnel ports, nesting cap
    std::vector<uint16_t> trusted_ports;
    bool drop_bad = false;
    bool hw_offload = true;   // use the ports' TX checksum offloads when they have them
    std::string verdict_log;  // empty: none
    std::string capture_bad;  // pcapng of every bad or malformed packet; empty: none
    uint16_t rx_queues = 1;   // per port, spread over the workers with a symmetric RSS key
    uint16_t mtu = 0;         // 0: the port's default; larger enables jumbo frames
    double nvme_idle_s = 0;   // NVMe/TCP idle timeout; converted to TSC ticks at start
    bool help = false;        // --help was given
};

// Parses argv[0..argc); returns an error message on bad input.
std::optional<std::string> parse_options(int argc, char** argv, Options* out);

void print_usage(const char* prog);

}  // namespace csumd
