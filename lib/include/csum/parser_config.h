// What the parser is told about a network: which ports carry tunnels and
// NVMe/TCP, how deep to follow encapsulations. Shared by the parser and the
// engine; depends on nothing else.
#pragma once

#include <array>
#include <cstdint>

namespace csum {

// A small fixed set of UDP/TCP ports.
struct PortSet {
    std::array<uint16_t, 8> port{};
    uint8_t n = 0;
    bool contains(uint16_t p) const noexcept {
        for (uint8_t i = 0; i < n; ++i)
            if (port[i] == p) return true;
        return false;
    }
    bool add(uint16_t p) noexcept { return n < port.size() ? (port[n++] = p, true) : false; }
};

struct ParserConfig {
    PortSet vxlan_ports{{4789}, 1};
    PortSet geneve_ports{{6081}, 1};
    PortSet gre_udp_ports{{4754}, 1};
    PortSet sctp_udp_ports{{9899}, 1};
    PortSet udp6_zero_csum_ok;  // UDP dst ports where a zero IPv6 checksum is legal (RFC 6935)
    PortSet nvme_ports{{4420}, 1};
    uint8_t max_depth = 8;  // encapsulations before tunnel_too_deep
};

}  // namespace csum
