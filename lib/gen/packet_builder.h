// Builds test and benchmark traffic: Ethernet frames of a given protocol mix
// and size, checksums left zero (run the engine in fill mode to set them).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace csum::gen {

// vxlan6_tcp4: VXLAN over an IPv6 underlay (outer IPv6 and UDP), inner TCP/IPv4.
enum class Proto : uint8_t {
    tcp4,
    udp4,
    tcp6,
    udp6,
    sctp4,
    vxlan_tcp4,
    geneve_tcp4,
    icmp4,
    vxlan6_tcp4
};
// The last Proto plus one: a proto appended must come last.
inline constexpr size_t kNumProtos = static_cast<size_t>(Proto::vxlan6_tcp4) + 1;

// A tunnel proto, and the bytes its outer headers add to the inner frame
// (Ethernet, IP, UDP, VXLAN or GENEVE; 0 for the others).
inline constexpr bool is_tunnel(Proto p) {
    return p == Proto::vxlan_tcp4 || p == Proto::geneve_tcp4 || p == Proto::vxlan6_tcp4;
}
inline constexpr uint32_t outer_len(Proto p) {
    return p == Proto::vxlan6_tcp4 ? 14 + 40 + 8 + 8 : is_tunnel(p) ? 14 + 20 + 8 + 8 : 0;
}

struct PacketSpec {
    Proto proto = Proto::tcp4;
    uint32_t frame_len = 64;   // bytes on the wire, without FCS; raised to the headers' minimum
    uint16_t sctp_chunks = 1;  // DATA chunks sharing the payload
    uint32_t flow = 0;         // varies addresses and ports
};

// Frame bytes with every checksum zero. Payload bytes are a pattern of flow.
std::vector<uint8_t> build_frame(const PacketSpec& spec);

// Smallest frame_len the protocol's headers need.
uint32_t min_frame_len(const PacketSpec& spec);

std::string_view to_string(Proto p);
bool proto_from_name(std::string_view name, Proto* out);

}  // namespace csum::gen
