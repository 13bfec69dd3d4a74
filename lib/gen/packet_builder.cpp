#include "gen/packet_builder.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace csum::gen {
namespace {

constexpr uint32_t kEth = 14, kIp4 = 20, kIp6 = 40, kTcp = 20, kUdp = 8, kSctp = 12, kChunk = 16,
                   kVxlan = 8, kGeneve = 8, kIcmp = 8;

struct Writer {
    std::vector<uint8_t>& b;
    size_t pos = 0;
    void u8(uint8_t v) { b[pos++] = v; }
    void u16(uint16_t v) { u8(uint8_t(v >> 8)), u8(uint8_t(v)); }
    void u32(uint32_t v) { u16(uint16_t(v >> 16)), u16(uint16_t(v)); }
    void bytes(const uint8_t* p, size_t n) { std::memcpy(&b[pos], p, n), pos += n; }
    void zeros(size_t n) { pos += n; }
};

void eth(Writer& w, uint16_t type, uint32_t flow) {
    const uint8_t dst[6] = {0x02, 0, 0, 0, 0, 0x02},
                  src[6] = {0x02, 0, 0, 0, uint8_t(flow >> 8), uint8_t(flow)};
    w.bytes(dst, 6), w.bytes(src, 6), w.u16(type);
}

void ipv4(Writer& w, uint8_t proto, uint32_t total, uint32_t flow) {
    w.u8(0x45), w.u8(0), w.u16(uint16_t(total)), w.u16(uint16_t(flow)), w.u16(0);
    w.u8(64), w.u8(proto), w.u16(0);
    w.u32(0xC0000201u + (flow << 8)), w.u32(0xC6336402u);
}

void ipv6(Writer& w, uint8_t next, uint32_t payload, uint32_t flow) {
    w.u32(0x60000000u | (flow & 0xFFFFF)), w.u16(uint16_t(payload)), w.u8(next), w.u8(64);
    const uint8_t base[14] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    w.bytes(base, 14), w.u16(uint16_t(flow + 1));
    w.bytes(base, 14), w.u16(0x0002);
}

void tcp(Writer& w, uint32_t flow) {
    w.u16(uint16_t(1024 + flow)), w.u16(80), w.u32(flow * 7919u), w.u32(1), w.u8(0x50), w.u8(0x18);
    w.u16(8192), w.u16(0), w.u16(0);
}

void udp(Writer& w, uint16_t sport, uint16_t dport, uint32_t len) {
    w.u16(sport), w.u16(dport), w.u16(uint16_t(len)), w.u16(0);
}

void payload(Writer& w, size_t n, uint32_t flow) {
    for (size_t i = 0; i < n; ++i) w.u8(uint8_t(flow * 13 + i * 7));
}

uint32_t header_len(const PacketSpec& s) {
    switch (s.proto) {
        case Proto::tcp4:
            return kEth + kIp4 + kTcp;
        case Proto::udp4:
            return kEth + kIp4 + kUdp;
        case Proto::tcp6:
            return kEth + kIp6 + kTcp;
        case Proto::udp6:
            return kEth + kIp6 + kUdp;
        case Proto::icmp4:
            return kEth + kIp4 + kIcmp;
        case Proto::sctp4:
            return kEth + kIp4 + kSctp + kChunk * std::max<uint16_t>(s.sctp_chunks, 1);
        case Proto::vxlan_tcp4:
            return kEth + kIp4 + kUdp + kVxlan + kEth + kIp4 + kTcp;
        case Proto::geneve_tcp4:
            return kEth + kIp4 + kUdp + kGeneve + kEth + kIp4 + kTcp;
        case Proto::vxlan6_tcp4:
            return kEth + kIp6 + kUdp + kVxlan + kEth + kIp4 + kTcp;
    }
    return 0;
}

}  // namespace

uint32_t min_frame_len(const PacketSpec& spec) {
    return header_len(spec);
}

std::vector<uint8_t> build_frame(const PacketSpec& s) {
    const uint32_t len = std::max(s.frame_len, header_len(s));
    std::vector<uint8_t> b(len, 0);
    Writer w{b};
    const uint32_t l3 = len - kEth;
    switch (s.proto) {
        case Proto::tcp4:
            eth(w, 0x0800, s.flow), ipv4(w, 6, l3, s.flow), tcp(w, s.flow);
            break;
        case Proto::udp4:
            eth(w, 0x0800, s.flow), ipv4(w, 17, l3, s.flow),
                udp(w, uint16_t(1024 + s.flow), 9, l3 - kIp4);
            break;
        case Proto::tcp6:
            eth(w, 0x86DD, s.flow), ipv6(w, 6, l3 - kIp6, s.flow), tcp(w, s.flow);
            break;
        case Proto::udp6:
            eth(w, 0x86DD, s.flow), ipv6(w, 17, l3 - kIp6, s.flow),
                udp(w, uint16_t(1024 + s.flow), 9, l3 - kIp6);
            break;
        case Proto::icmp4:
            eth(w, 0x0800, s.flow), ipv4(w, 1, l3, s.flow), w.u8(8), w.u8(0), w.u16(0),
                w.u32(s.flow);
            break;
        case Proto::sctp4: {
            eth(w, 0x0800, s.flow), ipv4(w, 132, l3, s.flow);
            w.u16(2905), w.u16(2905), w.u32(0x1234 + s.flow), w.u32(0);
            const uint32_t chunks = std::max<uint16_t>(s.sctp_chunks, 1);
            uint32_t data = l3 - kIp4 - kSctp - kChunk * chunks;
            for (uint32_t c = 0; c < chunks; ++c) {
                // Each chunk's data is padded to 4 bytes; the last takes the rest.
                uint32_t n = c + 1 == chunks ? data : (data / chunks) & ~3u;
                w.u8(0), w.u8(c + 1 == chunks ? 3 : 0), w.u16(uint16_t(kChunk + n)), w.u32(c + 1),
                    w.u16(0), w.u16(uint16_t(c)), w.u32(0);
                payload(w, n, s.flow + c);
                data -= n;
            }
            return b;
        }
        case Proto::vxlan_tcp4:
        case Proto::geneve_tcp4:
        case Proto::vxlan6_tcp4: {
            const bool vx = s.proto != Proto::geneve_tcp4;
            const bool ov6 = s.proto == Proto::vxlan6_tcp4;
            const uint32_t oip = ov6 ? kIp6 : kIp4;
            if (ov6)
                eth(w, 0x86DD, s.flow), ipv6(w, 17, l3 - kIp6, s.flow);
            else
                eth(w, 0x0800, s.flow), ipv4(w, 17, l3, s.flow);
            udp(w, uint16_t(49152 + (s.flow & 0x3FFF)), vx ? 4789 : 6081, l3 - oip);
            if (vx)
                w.u32(0x08000000u), w.u32(42u << 8);
            else
                w.u16(0x0000), w.u16(0x6558), w.u32(42u << 8);
            eth(w, 0x0800, s.flow + 1);
            const uint32_t inner = l3 - oip - kUdp - kVxlan - kEth;
            ipv4(w, 6, inner, s.flow + 1), tcp(w, s.flow);
            break;
        }
    }
    payload(w, len - w.pos, s.flow);
    return b;
}

std::string_view to_string(Proto p) {
    static constexpr std::array<std::string_view, kNumProtos> names = {
        "tcp4",       "udp4",        "tcp6",  "udp6",       "sctp4",
        "vxlan-tcp4", "geneve-tcp4", "icmp4", "vxlan6-tcp4"};
    return names[static_cast<size_t>(p)];
}

bool proto_from_name(std::string_view name, Proto* out) {
    for (size_t i = 0; i < kNumProtos; ++i)
        if (to_string(static_cast<Proto>(i)) == name) return *out = static_cast<Proto>(i), true;
    return false;
}

}  // namespace csum::gen
