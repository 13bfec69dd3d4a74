#include "csum/verdict.h"

#include <rte_mbuf_dyn.h>

namespace csum {
namespace {
int g_offset = -1;
}

int verdict_register() noexcept {
    if (g_offset >= 0) return g_offset;
    static const rte_mbuf_dynfield desc = {"csum_dynfield_verdict", sizeof(PacketVerdict),
                                           alignof(PacketVerdict), 0};
    g_offset = rte_mbuf_dynfield_register(&desc);
    return g_offset;
}

int verdict_offset() noexcept {
    return g_offset;
}

std::string_view to_string(IpSummed v) noexcept {
    switch (v) {
        case IpSummed::none:
            return "CHECKSUM_NONE";
        case IpSummed::unnecessary:
            return "CHECKSUM_UNNECESSARY";
        case IpSummed::complete:
            return "CHECKSUM_COMPLETE";
        case IpSummed::partial:
            return "CHECKSUM_PARTIAL";
    }
    return "?";
}

std::string_view to_string(LayerProto v) noexcept {
    static constexpr std::string_view names[] = {"ipv4",   "tcp", "udp",        "sctp",      "icmp",
                                                 "icmpv6", "gre", "nvme-hdgst", "nvme-ddgst"};
    auto i = static_cast<unsigned>(v);
    return i < std::size(names) ? names[i] : "?";
}

std::string_view to_string(LayerStatus v) noexcept {
    static constexpr std::string_view names[] = {"good",         "bad",       "zero",    "illegal",
                                                 "unverifiable", "malformed", "skipped", "filled",
                                                 "offloaded",    "partial"};
    auto i = static_cast<unsigned>(v);
    return i < std::size(names) ? names[i] : "?";
}

std::string_view to_string(ParseError v) noexcept {
    static constexpr std::string_view names[] = {
        "none",
        "l2_truncated",
        "ipv4_truncated",
        "ipv4_bad_version",
        "ipv4_bad_ihl",
        "ipv4_len_exceeds_frame",
        "ipv4_len_below_header",
        "ipv6_truncated",
        "ipv6_len_exceeds_frame",
        "ipv6_jumbogram",
        "ipv6_ext_truncated",
        "ipv6_ext_chain_too_long",
        "tcp_truncated",
        "tcp_bad_data_offset",
        "udp_truncated",
        "udp_len_mismatch",
        "sctp_truncated",
        "sctp_bad_chunk_len",
        "icmp_truncated",
        "gre_truncated",
        "gre_bad_version",
        "vxlan_truncated",
        "geneve_truncated",
        "geneve_bad_opt_len",
        "tunnel_too_deep",
        "too_many_layers",
        "chain_shorter_than_pkt_len",
        "nb_segs_mismatch",
        "segment_past_buffer",
    };
    static_assert(std::size(names) == kParseErrorCount);
    auto i = static_cast<unsigned>(v);
    return i < std::size(names) ? names[i] : "?";
}

}  // namespace csum
