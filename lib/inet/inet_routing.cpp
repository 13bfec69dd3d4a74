// The final destination named by an IPv6 Routing header (policy in inet.h).
#include "csum/inet.h"

#include <algorithm>

namespace csum {
namespace {

constexpr uint8_t kTypeHome = 2;  // RFC 6275, Mobile IPv6
constexpr uint8_t kTypeSrh = 4;   // RFC 8754, Segment Routing

}  // namespace

Ipv6FinalDst ipv6_routing_final_dst(const void* rh, size_t avail, const uint8_t** addr) noexcept {
    const auto* p = static_cast<const uint8_t*>(rh);
    if (avail < 8) return Ipv6FinalDst::malformed;
    const size_t hdr_len = (size_t{p[1]} + 1) * 8;
    if (hdr_len > avail) return Ipv6FinalDst::malformed;
    return ipv6_routing_final_dst_prefix(p, std::min(avail, kIpv6RoutingPrefixLen), hdr_len, addr);
}

Ipv6FinalDst ipv6_routing_final_dst_prefix(const void* rh, size_t prefix_len, size_t hdr_len,
                                           const uint8_t** addr) noexcept {
    const auto* p = static_cast<const uint8_t*>(rh);
    if (prefix_len < 8 || hdr_len != (size_t{p[1]} + 1) * 8) return Ipv6FinalDst::malformed;
    // Only the first address is ever read; it lies inside the prefix.
    if (prefix_len < std::min(hdr_len, kIpv6RoutingPrefixLen)) return Ipv6FinalDst::malformed;
    const uint8_t type = p[2];
    const uint8_t segments_left = p[3];
    switch (type) {
        case kTypeHome:
            // Exactly one address; Segments Left is 0 or 1.
            if (p[1] != 2 || segments_left > 1) return Ipv6FinalDst::malformed;
            if (segments_left == 0) return Ipv6FinalDst::ipv6_dst;
            *addr = p + 8;
            return Ipv6FinalDst::routing_header;
        case kTypeSrh: {
            // Last Entry is the index of the last element of the segment list.
            const size_t n_segments = size_t{p[4]} + 1;
            if (8 + n_segments * 16 > hdr_len || segments_left > n_segments)
                return Ipv6FinalDst::malformed;
            if (segments_left == 0) return Ipv6FinalDst::ipv6_dst;
            *addr = p + 8;  // Segment List[0], the last segment
            return Ipv6FinalDst::routing_header;
        }
        default:
            // Type 0 and unknown types (RFC 8200 4.4, RFC 5095).
            return segments_left == 0 ? Ipv6FinalDst::ipv6_dst : Ipv6FinalDst::unverifiable;
    }
}

}  // namespace csum
