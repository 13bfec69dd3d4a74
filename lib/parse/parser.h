// The layer walker: L2 .. tunnels .. L4, with every offset and length
// checked against the frame. It reads headers only, never payload, and
// knows nothing of policy.
#pragma once

#include <array>
#include <cstdint>

#include <rte_mbuf.h>

#include "csum/parser_config.h"
#include "csum/verdict.h"

namespace csum {

inline constexpr int kMaxParsedLayers = 24;

// One checksum found in the packet.
struct ParsedLayer {
    LayerProto proto;
    bool preset = false;  // status already known from parsing
    LayerStatus status = LayerStatus::good;
    uint8_t depth = 0;                  // encapsulation depth, 0 outermost
    bool outer_ip_v6 = false;           // the IP header this L4 sits on is IPv6
    uint32_t off = 0;                   // first byte the checksum covers
    uint32_t len = 0;                   // bytes it covers
    uint32_t field_off = 0;             // packet offset of the checksum field
    uint8_t pseudo_proto = 0;           // nonzero: a pseudo-header with this protocol is summed
    uint32_t src_off = 0, dst_off = 0;  // pseudo-header addresses (dst: the final one)
};

// Whether an L4 layer's pseudo-header takes its addresses where the IP
// header holds them (what a device's offload and its RX check assume): not
// where an IPv4 source route or an IPv6 routing header names another final
// destination. True for a layer with no pseudo-header.
inline bool pseudo_addresses_in_header(const ParsedLayer& l) noexcept {
    return l.pseudo_proto == 0 || l.dst_off == l.src_off + (l.outer_ip_v6 ? 16u : 4u);
}

// The pseudo-header sum of an L4 layer, read from the packet when needed.
uint32_t layer_pseudo_sum(const rte_mbuf* m, const ParsedLayer& l) noexcept;

// The TCP segment a packet carries, for the NVMe/TCP tracker.
struct TcpSegmentInfo {
    bool present = false;
    bool v6 = false;
    uint8_t flags = 0;
    uint16_t sport = 0, dport = 0;
    uint32_t seq = 0;
    uint32_t payload_off = 0, payload_len = 0;
    uint8_t layer = 0;  // index of its TCP checksum layer
    std::array<uint8_t, 16> src{}, dst{};
};

// Where the outermost IP/L4 headers lie, for TX offload.
struct TxGeometry {
    bool tunneled = false;
    bool ipv4 = false, ipv6 = false;
    uint8_t l4_proto = 0;  // of the outermost L4 (when not tunneled)
    uint16_t l2_len = 0, l3_len = 0, l4_len = 0;
};

struct ParseResult {
    std::array<ParsedLayer, kMaxParsedLayers> layer;
    uint8_t n = 0;
    ParseError error = ParseError::none;
    uint32_t l3_off = 0;  // first byte of the outermost IP header (0 if none)
    TxGeometry tx;
    TcpSegmentInfo tcp;  // innermost TCP segment
};

// The classifier's description when the packet has a common shape, else the walker's.
void parse_packet(const rte_mbuf* m, const ParserConfig& cfg, ParseResult* out) noexcept;
// The walker alone, for every packet: the reference the classifier is tested against.
void parse_packet_walker(const rte_mbuf* m, const ParserConfig& cfg, ParseResult* out) noexcept;

}  // namespace csum
