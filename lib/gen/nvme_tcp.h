// NVMe/TCP C2HData traffic: PDUs with header and data digests, carried in
// TCP segments over IPv4 (controller port 4420 to the host).
#pragma once

#include <cstdint>
#include <vector>

namespace csum::gen {

struct NvmeStreamSpec {
    uint32_t pdu_data = 128 * 1024;  // data bytes per C2HData PDU
    uint32_t pdus = 1;               // PDUs in the stream
    uint32_t mss = 1448;             // TCP payload bytes per segment (the last may be shorter)
    uint32_t flow = 0;               // varies the host address/port and the data pattern
    uint16_t port = 4420;            // controller (source) port
    bool end_with_rst = false;       // close the connection after the last PDU, so a
                                     // looped replay is a new connection each pass
};

inline constexpr uint32_t kNvmeC2hHeader = 24;  // common header 8 + C2HData fields 16
inline constexpr uint32_t kNvmeDigest = 4;

// One PDU's bytes: header, HDGST, data, DDGST. Digests are CRC32C, stored
// little-endian as Linux and SPDK do. `cid` and `offset` go in CCCID/DATAO.
std::vector<uint8_t> build_c2h_pdu(uint32_t data_len, uint16_t cid, uint32_t offset, uint32_t flow,
                                   bool last);

// The stream cut into Ethernet/IPv4/TCP frames, checksums zero. Each frame's
// share of PDU data bytes (excluding headers and digests) is added to
// *data_bytes when it isn't null.
std::vector<std::vector<uint8_t>> build_nvme_c2h_frames(
    const NvmeStreamSpec& spec, std::vector<uint32_t>* data_bytes = nullptr);

}  // namespace csum::gen
