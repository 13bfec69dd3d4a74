#include "gen/nvme_tcp.h"

#include <algorithm>
#include <cstring>

#include "csum/crc32c.h"
#include "gen/packet_builder.h"

namespace csum::gen {
namespace {

constexpr uint8_t kPduC2hData = 0x07;
constexpr uint8_t kFlagHdgst = 0x01, kFlagDdgst = 0x02, kFlagLastPdu = 0x04;
constexpr uint32_t kHdrs = 14 + 20 + 20;  // Ethernet + IPv4 + TCP

void le16(uint8_t* p, uint16_t v) {
    p[0] = uint8_t(v), p[1] = uint8_t(v >> 8);
}
void le32(uint8_t* p, uint32_t v) {
    le16(p, uint16_t(v)), le16(p + 2, uint16_t(v >> 16));
}
void be16(uint8_t* p, uint16_t v) {
    p[0] = uint8_t(v >> 8), p[1] = uint8_t(v);
}
void be32(uint8_t* p, uint32_t v) {
    be16(p, uint16_t(v >> 16)), be16(p + 2, uint16_t(v));
}

}  // namespace

std::vector<uint8_t> build_c2h_pdu(uint32_t data_len, uint16_t cid, uint32_t offset, uint32_t flow,
                                   bool last) {
    const uint32_t hdr = kNvmeC2hHeader, pdo = hdr + kNvmeDigest;
    std::vector<uint8_t> p(pdo + data_len + kNvmeDigest, 0);
    p[0] = kPduC2hData;
    p[1] = kFlagHdgst | kFlagDdgst | (last ? kFlagLastPdu : 0);
    p[2] = uint8_t(hdr);
    p[3] = uint8_t(pdo);  // data follows the header digest directly (no CPDA padding)
    le32(&p[4], uint32_t(p.size()));
    le16(&p[8], cid);
    le32(&p[12], offset);
    le32(&p[16], data_len);
    le32(&p[hdr], crc32c(p.data(), hdr));
    for (uint32_t i = 0; i < data_len; ++i) p[pdo + i] = uint8_t(flow * 31 + i * 13 + (i >> 8));
    le32(&p[pdo + data_len], crc32c(&p[pdo], data_len));
    return p;
}

std::vector<std::vector<uint8_t>> build_nvme_c2h_frames(const NvmeStreamSpec& s,
                                                        std::vector<uint32_t>* data_bytes) {
    // The TCP byte stream, and for each stream byte whether it is PDU data.
    std::vector<uint8_t> stream;
    std::vector<uint8_t> is_data;
    for (uint32_t i = 0; i < s.pdus; ++i) {
        auto pdu =
            build_c2h_pdu(s.pdu_data, uint16_t(s.flow), i * s.pdu_data, s.flow, i + 1 == s.pdus);
        stream.insert(stream.end(), pdu.begin(), pdu.end());
        is_data.insert(is_data.end(), kNvmeC2hHeader + kNvmeDigest, 0);
        is_data.insert(is_data.end(), s.pdu_data, 1);
        is_data.insert(is_data.end(), kNvmeDigest, 0);
    }
    std::vector<std::vector<uint8_t>> frames;
    const uint32_t mss = std::max<uint32_t>(s.mss, 1);
    for (size_t pos = 0; pos < stream.size(); pos += mss) {
        const uint32_t n = uint32_t(std::min<size_t>(mss, stream.size() - pos));
        // Reuse the plain TCP/IPv4 builder for the headers, then set ports and seq.
        auto f = build_frame({Proto::tcp4, kHdrs + n, 1, s.flow});
        f.resize(kHdrs + n);
        uint8_t* tcp = &f[34];
        be16(tcp, s.port);
        be16(tcp + 2, uint16_t(40000 + (s.flow & 0x3FFF)));
        be32(tcp + 4, 1000u + uint32_t(pos));  // seq: the stream offset
        tcp[13] = 0x18;                        // PSH|ACK
        std::memcpy(&f[kHdrs], &stream[pos], n);
        frames.push_back(std::move(f));
        if (data_bytes)
            data_bytes->push_back(
                uint32_t(std::count(is_data.begin() + pos, is_data.begin() + pos + n, 1)));
    }
    if (s.end_with_rst) {
        auto f = build_frame({Proto::tcp4, kHdrs, 1, s.flow});
        f.resize(kHdrs);
        uint8_t* tcp = &f[34];
        be16(tcp, s.port);
        be16(tcp + 2, uint16_t(40000 + (s.flow & 0x3FFF)));
        be32(tcp + 4, 1000u + uint32_t(stream.size()));
        tcp[13] = 0x14;  // RST|ACK
        frames.push_back(std::move(f));
        if (data_bytes) data_bytes->push_back(0);
    }
    return frames;
}

}  // namespace csum::gen
