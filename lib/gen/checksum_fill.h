// Computes the checksums of a frame from bytes alone, without DPDK or the
// engine, so generated traffic is judged by code independent of the thing
// under test.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace csum::gen {

// Where a checksum lives in a frame: `len` bytes (2, or 4 for SCTP) at `off`.
struct CsumField {
    uint32_t off;
    uint8_t len;
};

struct TunnelPorts {
    uint16_t vxlan = 4789;
    uint16_t geneve = 6081;
};

// Fills IPv4 header, TCP, UDP, ICMP and SCTP checksums of an Ethernet frame
// (IPv4/IPv6 without extension headers; VXLAN and GENEVE inner frames first,
// then the outer UDP). Returns the fields written, outermost first. Bytes it
// does not understand are left alone.
std::vector<CsumField> fill_checksums(std::span<uint8_t> frame, TunnelPorts tunnels = {});

// As fill_checksums, but the innermost TCP or UDP checksum is left holding
// the folded pseudo-header sum, as a local stack's CHECKSUM_PARTIAL leaves
// it for offload; the outer sums cover that value.
std::vector<CsumField> fill_checksums_partial(std::span<uint8_t> frame, TunnelPorts tunnels = {});

// Checksum fields of the frame (as fill_checksums would write), untouched.
std::vector<CsumField> checksum_fields(std::span<const uint8_t> frame, TunnelPorts tunnels = {});

}  // namespace csum::gen
