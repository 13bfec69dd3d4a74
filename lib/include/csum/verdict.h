// The per-packet checksum verdict, modelled on Linux's skb (ip_summed,
// csum_level, csum), kept in a registered mbuf dynamic field.
#pragma once

#include "csum/export.h"

#include <cstdint>
#include <string_view>

struct rte_mbuf;

namespace csum {

enum class IpSummed : uint8_t {
    none,         // nothing verified
    unnecessary,  // csum_level + 1 consecutive checksums verified from the outermost
                  // (or vouched for by a trusted port); layers skipped on policy don't count
    complete,     // csum holds the ones'-complement sum from the outer L3 header to the end
    partial,      // the L4 checksum at csum_start + csum_offset is left to be filled: TX
                  // offloaded to hardware, or RX with the PMD's L4 flag NONE (as virtio)
};

// Linux keeps csum_level in 2 bits (SKB_MAX_CSUM_LEVEL): deeper stacks are
// capped; the per-layer statuses still say which layers were verified.
inline constexpr int kMaxCsumLevel = 3;

// Checksums a packet can carry, outermost first in a verdict.
// Every counted enum ends in `count`; k<Enum>Count is derived from it.
enum class LayerProto : uint8_t {
    ipv4,
    tcp,
    udp,
    sctp,
    icmp,
    icmpv6,
    gre,
    nvme_hdgst,
    nvme_ddgst,
    count
};
inline constexpr int kLayerProtoCount = static_cast<int>(LayerProto::count);

enum class LayerStatus : uint8_t {
    good,          // present and right
    bad,           // present and wrong
    zero,          // a UDP checksum that is absent and legal
    illegal,       // a zero UDP checksum over IPv6 outside an allowed tunnel
    unverifiable,  // a fragment, a truncated capture, or under a bad IPv4 header
    malformed,     // the lengths don't add up
    skipped,       // came from a trusted port
    filled,        // written in software
    offloaded,     // handed to hardware
    partial,       // holds only the pseudo-header sum (CHECKSUM_PARTIAL, PMD flag NONE): intact,
                   // unfilled
    count
};
inline constexpr int kLayerStatusCount = static_cast<int>(LayerStatus::count);
static_assert(kLayerProtoCount <= 16 && kLayerStatusCount <= 16, "a verdict layer is 4 + 4 bits");

inline constexpr int kMaxVerdictLayers = 12;

// Why a packet could not be parsed to its end. Every one is counted by name.
enum class ParseError : uint8_t {
    none,
    l2_truncated,
    ipv4_truncated,
    ipv4_bad_version,
    ipv4_bad_ihl,
    ipv4_len_exceeds_frame,
    ipv4_len_below_header,
    ipv6_truncated,
    ipv6_len_exceeds_frame,
    ipv6_jumbogram,
    ipv6_ext_truncated,
    ipv6_ext_chain_too_long,
    tcp_truncated,
    tcp_bad_data_offset,
    udp_truncated,
    udp_len_mismatch,
    sctp_truncated,
    sctp_bad_chunk_len,
    icmp_truncated,
    gre_truncated,
    gre_bad_version,
    vxlan_truncated,
    geneve_truncated,
    geneve_bad_opt_len,
    tunnel_too_deep,
    too_many_layers,
    chain_shorter_than_pkt_len,
    nb_segs_mismatch,
    segment_past_buffer,
    count
};
inline constexpr int kParseErrorCount = static_cast<int>(ParseError::count);
CSUM_API std::string_view to_string(ParseError v) noexcept;

struct LayerVerdict {
    LayerProto proto;
    LayerStatus status;
};

// Compact enough for the mbuf's dynfield area (20 bytes).
struct PacketVerdict {
    IpSummed ip_summed;
    uint8_t csum_level;
    uint8_t n_layers;
    uint8_t error;                      // a ParseError code, 0 when none
    uint16_t csum;                      // COMPLETE: the sum; PARTIAL: csum_start
    uint16_t csum_offset;               // PARTIAL: offset of the field from csum_start
    uint8_t layers[kMaxVerdictLayers];  // proto << 4 | status

    LayerVerdict layer(int i) const {
        return {static_cast<LayerProto>(layers[i] >> 4), static_cast<LayerStatus>(layers[i] & 0xF)};
    }
    void set_layer(int i, LayerVerdict v) {
        layers[i] = static_cast<uint8_t>(static_cast<uint8_t>(v.proto) << 4 |
                                         static_cast<uint8_t>(v.status));
    }
};
static_assert(sizeof(PacketVerdict) == 20);

// Registers the dynfield (idempotent). Returns its offset, or -1 with rte_errno.
CSUM_API int verdict_register() noexcept;
// Offset from verdict_register(); -1 before it succeeded.
CSUM_API int verdict_offset() noexcept;

inline PacketVerdict* verdict_of(rte_mbuf* m, int offset) noexcept {
    return reinterpret_cast<PacketVerdict*>(reinterpret_cast<char*>(m) + offset);
}
inline const PacketVerdict* verdict_of(const rte_mbuf* m, int offset) noexcept {
    return reinterpret_cast<const PacketVerdict*>(reinterpret_cast<const char*>(m) + offset);
}

CSUM_API std::string_view to_string(IpSummed v) noexcept;     // "CHECKSUM_UNNECESSARY", ...
CSUM_API std::string_view to_string(LayerProto v) noexcept;   // "ipv4", "nvme-hdgst", ...
CSUM_API std::string_view to_string(LayerStatus v) noexcept;  // "good", ...

}  // namespace csum
