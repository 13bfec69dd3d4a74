// A byte-driven frame builder for the engine fuzzers. The fuzzer's input is
// read front to back as a description: layer stacks (Ethernet, VLAN tags,
// IPv4 with options, IPv6 with extension headers of every kind, TCP with
// options, UDP, SCTP chunks, ICMP/ICMPv6, VXLAN, GENEVE, GRE, IP-in-IP,
// SCTP over UDP), lengths that lie, truncation and bit flips, then how the
// frame is cut into an mbuf chain. Past the end every read is 0, which
// always means "the plain choice", so short inputs describe whole frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace csum::fuzz {

class Cursor {
  public:
    Cursor(const uint8_t* p, size_t n) : p_(p), n_(n) {}
    uint8_t u8() { return pos_ < n_ ? p_[pos_++] : 0; }
    uint16_t u16() { return static_cast<uint16_t>(u8() | u8() << 8); }
    uint32_t u32() { return u16() | uint32_t(u16()) << 16; }
    bool empty() const { return pos_ >= n_; }
    // Up to n bytes as they are.
    std::vector<uint8_t> take(size_t n) {
        n = n < n_ - pos_ ? n : n_ - pos_;
        std::vector<uint8_t> v(p_ + pos_, p_ + pos_ + n);
        pos_ += n;
        return v;
    }
    size_t used() const { return pos_; }

  private:
    const uint8_t* p_;
    size_t n_;
    size_t pos_ = 0;
};

inline constexpr size_t kMaxFrame = 9216;  // jumbo

struct Frame {
    std::vector<uint8_t> bytes;
    uint32_t l3_off = 0;          // the outermost IP header, 0 if none
    uint32_t outer_udp_csum = 0;  // gen_tunnel_frame: the outer UDP checksum field, 0 if none
};

// The frame the cursor describes (at most kMaxFrame bytes): [0xFF][len u16
// little-endian][bytes] is a raw frame (seeds); anything else a structure.
Frame gen_frame(Cursor& c);

// A VXLAN or GENEVE frame of a shape the lean tunnel path takes (outer
// IPv4 or IPv6 / UDP / VXLAN, or GENEVE with options or carrying IP / inner
// Ethernet / IPv4 or IPv6 / TCP or UDP), unless the cursor has a length lie,
// an IPv4 option or fragment, an extension header, a VLAN tag, a nested
// tunnel, an NVMe/TCP port or another protocol at some layer.
Frame gen_tunnel_frame(Cursor& c);

// Truncation, trailing bytes and bit flips, as the cursor says (often none).
void damage(Cursor& c, std::vector<uint8_t>& f);

// How a frame of len bytes is cut into segments of at most room bytes:
// segment lengths (zero-length ones included) summing to len, and the
// headroom every segment starts at.
struct Split {
    std::vector<uint32_t> seg;
    uint16_t headroom = 128;
};
Split gen_split(Cursor& c, size_t len, uint32_t room);

}  // namespace csum::fuzz
