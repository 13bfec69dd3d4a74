#include "support/frames.h"

#include <algorithm>

namespace csum::test {
namespace {

void put16(uint8_t* p, uint16_t v) {
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}
void put32(uint8_t* p, uint32_t v) {
    put16(p, static_cast<uint16_t>(v >> 16));
    put16(p + 2, static_cast<uint16_t>(v));
}
void put_le32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

Bytes prepend(const Bytes& hdr, std::span<const uint8_t> payload) {
    Bytes out(hdr.size() + payload.size());
    std::copy(hdr.begin(), hdr.end(), out.begin());
    std::copy(payload.begin(), payload.end(), out.begin() + static_cast<ptrdiff_t>(hdr.size()));
    return out;
}

// Ones'-complement sum of the pseudo-header (RFC 768/793, RFC 8200 8.1).
uint32_t pseudo(std::span<const uint8_t> src, std::span<const uint8_t> dst, uint8_t proto,
                uint32_t len) {
    Bytes p(src.begin(), src.end());
    p.insert(p.end(), dst.begin(), dst.end());
    if (src.size() == 4) {
        p.insert(p.end(), {0, proto, uint8_t(len >> 8), uint8_t(len)});
    } else {
        p.insert(p.end(), {uint8_t(len >> 24), uint8_t(len >> 16), uint8_t(len >> 8), uint8_t(len),
                           0, 0, 0, proto});
    }
    return ref_sum(p);
}

}  // namespace

uint32_t ref_sum(std::span<const uint8_t> b, uint32_t initial) {
    uint64_t s = initial;
    for (size_t i = 0; i + 1 < b.size(); i += 2) s += uint32_t(b[i]) << 8 | b[i + 1];
    if (b.size() & 1) s += uint32_t(b.back()) << 8;
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return static_cast<uint32_t>(s);
}

uint16_t ref_cksum(std::span<const uint8_t> b, uint32_t initial) {
    return static_cast<uint16_t>(~ref_sum(b, initial));
}

uint32_t ref_crc32c(std::span<const uint8_t> b) {
    uint32_t c = 0xFFFFFFFF;
    for (uint8_t x : b) {
        c ^= x;
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    }
    return ~c;
}

Bytes tcp(std::span<const uint8_t> src, std::span<const uint8_t> dst, uint16_t sport,
          uint16_t dport, uint32_t seq, uint8_t flags, std::span<const uint8_t> payload) {
    Bytes h(20, 0);
    put16(&h[0], sport);
    put16(&h[2], dport);
    put32(&h[4], seq);
    put32(&h[8], 1);  // ack
    h[12] = 5 << 4;
    h[13] = flags;
    put16(&h[14], 65535);
    Bytes seg = prepend(h, payload);
    put16(&seg[16], ref_cksum(seg, pseudo(src, dst, 6, uint32_t(seg.size()))));
    return seg;
}

Bytes udp(std::span<const uint8_t> src, std::span<const uint8_t> dst, uint16_t sport,
          uint16_t dport, std::span<const uint8_t> payload, bool with_csum) {
    Bytes h(8, 0);
    put16(&h[0], sport);
    put16(&h[2], dport);
    put16(&h[4], static_cast<uint16_t>(8 + payload.size()));
    Bytes d = prepend(h, payload);
    if (with_csum) {
        uint16_t c = ref_cksum(d, pseudo(src, dst, 17, uint32_t(d.size())));
        put16(&d[6], c == 0 ? 0xFFFF : c);
    }
    return d;
}

Bytes ipv4(V4 src, V4 dst, uint8_t proto, std::span<const uint8_t> payload) {
    Bytes h(20, 0);
    h[0] = 0x45;
    put16(&h[2], static_cast<uint16_t>(20 + payload.size()));
    put16(&h[4], 0x1234);
    h[8] = 64;
    h[9] = proto;
    std::copy(src.begin(), src.end(), &h[12]);
    std::copy(dst.begin(), dst.end(), &h[16]);
    put16(&h[10], ref_cksum(h));
    return prepend(h, payload);
}

Bytes ipv6(V6 src, V6 dst, uint8_t next, std::span<const uint8_t> payload) {
    Bytes h(40, 0);
    h[0] = 0x60;
    put16(&h[4], static_cast<uint16_t>(payload.size()));
    h[6] = next;
    h[7] = 64;
    std::copy(src.begin(), src.end(), &h[8]);
    std::copy(dst.begin(), dst.end(), &h[24]);
    return prepend(h, payload);
}

Bytes gre(uint16_t ethertype, std::span<const uint8_t> payload, bool with_csum) {
    Bytes h(with_csum ? 8 : 4, 0);
    h[0] = with_csum ? 0x80 : 0;
    put16(&h[2], ethertype);
    Bytes d = prepend(h, payload);
    if (with_csum) put16(&d[4], ref_cksum(d));
    return d;
}

Bytes vxlan(std::span<const uint8_t> inner_frame) {
    Bytes h{0x08, 0, 0, 0, 0, 0, 1, 0};
    return prepend(h, inner_frame);
}

Bytes geneve(uint16_t protocol, std::span<const uint8_t> options, std::span<const uint8_t> inner) {
    Bytes h{static_cast<uint8_t>(options.size() / 4), 0, 0, 0, 0, 0, 1, 0};
    put16(&h[2], protocol);
    h.insert(h.end(), options.begin(), options.end());
    return prepend(h, inner);
}

Bytes eth(uint16_t ethertype, std::span<const uint8_t> payload) {
    Bytes h{0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0, 0};
    put16(&h[12], ethertype);
    return prepend(h, payload);
}

void flip(Bytes& b, size_t off) {
    b.at(off) ^= 0x01;
}

Bytes nvme_icresp(uint8_t dgst) {
    Bytes p(128, 0);
    p[0] = 0x01;  // ICResp
    p[2] = 128;   // HLEN
    put_le32(&p[4], 128);
    p[11] = dgst;
    put_le32(&p[12], 131072);  // MAXH2CDATA
    return p;
}

Bytes nvme_capsule_resp(bool hd) {
    Bytes p(24 + (hd ? 4 : 0), 0);
    p[0] = 0x05;  // CapsuleResp
    p[1] = hd ? 0x01 : 0;
    p[2] = 24;
    put_le32(&p[4], static_cast<uint32_t>(p.size()));
    for (int i = 8; i < 24; ++i) p[i] = static_cast<uint8_t>(i);
    if (hd) put_le32(&p[24], ref_crc32c(std::span(p).first(24)));
    return p;
}

}  // namespace csum::test
