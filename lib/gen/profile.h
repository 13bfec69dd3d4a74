// Benchmark traffic profiles: protocol, size (or IMIX), segmentation,
// checksum state and flow count, built into frames once for replay.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gen/checksum_fill.h"
#include "gen/packet_builder.h"

namespace csum::gen {

enum class Traffic : uint8_t {
    tcp4,
    udp4,
    tcp6,
    udp6,
    sctp4,
    nvme_c2h,
    vxlan_tcp4,
    geneve_tcp4,
    vxlan6_tcp4  // VXLAN over an IPv6 underlay
};
enum class Segmentation : uint8_t { linear, two, many };
enum class CsumState : uint8_t { correct, zeroed, corrupt, partial };

// IMIX used here: 7 x 64 B, 4 x 570 B, 1 x 1518 B, interleaved (mean 353.8 B).
inline constexpr uint32_t kImixSizes[] = {64, 570, 64, 64, 570, 64, 1518, 64, 570, 64, 570, 64};

struct Profile {
    Traffic traffic = Traffic::tcp4;
    std::vector<uint32_t> sizes{64};  // frame lengths (no FCS), cycled through
    std::string size_name = "64";     // "64", "imix", ...
    uint16_t sctp_chunks = 1;
    Segmentation seg = Segmentation::linear;
    uint32_t seg_bytes = 256;  // segment size for Segmentation::many
    CsumState csum = CsumState::correct;
    double corrupt_fraction = 0;  // of frames, for CsumState::corrupt
    uint32_t flows = 1;
    uint32_t nvme_pdu_data = 128 * 1024;  // NVMe/TCP: data bytes per PDU ...
    uint32_t nvme_mss = 1448;             // ... and TCP payload per segment
};

struct Frame {
    std::vector<uint8_t> bytes;
    std::vector<CsumField> fields;  // every checksum in the frame, outermost first
    bool corrupt = false;           // innermost L4 checksum deliberately wrong
    uint32_t nvme_data = 0;         // NVMe PDU data bytes carried (digest-protected)
};

// At least `count` frames (NVMe/TCP: whole PDUs, so possibly more). Frame i
// has flow i % flows and size sizes[i % sizes.size()]; checksums as the
// profile's state says. Corrupt frames are spread evenly (frame i is corrupt
// when floor((i+1)*f) > floor(i*f)).
std::vector<Frame> build_frames(const Profile& p, size_t count);

// Segment lengths for one frame under the profile's segmentation.
std::vector<uint32_t> segment_lengths(const Profile& p, uint32_t frame_len);

// Parsers for command lines; false on bad input.
bool traffic_from_name(std::string_view s, Traffic* out);
bool parse_size(std::string_view s, Profile* p);          // "64" | "imix"
bool parse_segmentation(std::string_view s, Profile* p);  // linear | 2seg | many[=BYTES]
bool parse_csum_state(std::string_view s, Profile* p);    // correct | zeroed | corrupt=F | partial

std::string_view to_string(Traffic t);
std::string_view to_string(Segmentation s);
std::string csum_state_name(const Profile& p);  // "correct", "corrupt=0.1", ...
// A compact label: proto/size/seg/csum/flows.
std::string describe(const Profile& p);

}  // namespace csum::gen
