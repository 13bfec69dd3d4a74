// Internals of the frame builder (frame_gen.h), shared by its three files:
// frame_gen.cpp (the frame, Ethernet, the public entry points),
// frame_gen_ip.cpp (IPv4 with options, IPv6 with extension headers) and
// frame_gen_l4.cpp (TCP, UDP, SCTP, ICMP and the tunnels). Not for fuzzers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "frame_gen.h"

namespace csum::fuzz::detail {

using Buf = std::vector<uint8_t>;

// Big-endian writers; inline, as every layer calls them per byte.
inline void put8(Buf& b, uint8_t v) {
    b.push_back(v);
}
inline void put16(Buf& b, uint16_t v) {
    b.push_back(uint8_t(v >> 8));
    b.push_back(uint8_t(v));
}
inline void put32(Buf& b, uint32_t v) {
    put16(b, uint16_t(v >> 16));
    put16(b, uint16_t(v));
}
inline void set16(Buf& b, size_t at, uint16_t v) {
    b[at] = uint8_t(v >> 8);
    b[at + 1] = uint8_t(v);
}
inline void pattern(Buf& b, size_t n, uint8_t seed) {
    for (size_t i = 0; i < n; ++i) b.push_back(uint8_t(seed + i * 7));
}
inline void append(Buf& b, const Buf& x) {
    b.insert(b.end(), x.begin(), x.end());
}

// Destination and source MAC: the 12 bytes base, base + 1, ...
void put_macs(Buf& b, uint8_t base);
// Cuts a frame to kMaxFrame bytes.
void clip(Buf& b);

constexpr uint8_t kHopByHop = 0, kIpip = 4, kTcp = 6, kUdp = 17, kIpv6 = 41, kRouting = 43,
                  kFragment = 44, kGre = 47, kAuth = 51, kIcmpv6 = 58, kNoNext = 59, kDestOpts = 60,
                  kIcmp = 1, kSctp = 132;
// 2001:db8::/32, the documentation prefix every IPv6 address starts with.
inline constexpr uint8_t kDocPrefix[] = {0x20, 0x01, 0x0d, 0xb8};
constexpr int kMaxDepth = 6;

// Reads the cursor front to back, layer by layer. The order of the reads is
// the input format: the fuzz corpora and seeds depend on it.
class Gen {
  public:
    explicit Gen(Cursor& c) : c_(c) {}

    Frame frame();   // frame_gen.cpp
    Frame tunnel();  // frame_gen_l4.cpp

  private:
    Cursor& c_;
    int depth_ = 0;
    size_t used_ = 0;  // header bytes emitted so far: payloads keep within kMaxFrame

    size_t room() const { return used_ < kMaxFrame ? kMaxFrame - used_ : 0; }

    // frame_gen.cpp: lies, choices, payloads, Ethernet.
    uint16_t lie16(uint32_t truth);
    uint8_t lie8(uint8_t truth);
    uint8_t pick(uint8_t a, uint8_t b, uint8_t c);
    uint16_t pick16(const uint16_t (&t)[8]);
    Buf options(int most, uint8_t pad, void (Gen::*one)(Buf&, uint8_t kind));
    Buf payload();
    Buf eth(uint32_t* l3_off);

    // frame_gen_ip.cpp: IPv4 and IPv6.
    uint8_t l4_proto(bool v6);
    uint32_t addr4(uint32_t base, int shift);
    void sum_edge(Buf& h);
    void addr6(Buf& h, int a);
    void ipv4_option(Buf& o, uint8_t kind);
    Buf ip4_header(uint8_t proto, const Buf& body);
    Buf ip6_header(uint8_t proto, const Buf& body, bool ext);
    Buf ipv4();
    uint8_t ext_len();
    Buf ext_header(uint8_t type);
    Buf ipv6();

    // frame_gen_l4.cpp: L4 headers and tunnels.
    void tcp_option(Buf& o, uint8_t kind);
    Buf tcp();
    Buf sctp();
    Buf udp();
    uint16_t inner_type();
    Buf inner(uint16_t type);
    Buf geneve();
    Buf gre();
    Buf icmp(bool v6);
    Buf l4(uint8_t proto);
};

}  // namespace csum::fuzz::detail
