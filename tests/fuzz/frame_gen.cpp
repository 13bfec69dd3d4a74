// The frame, its Ethernet header, the choices every layer makes (lies,
// payload sizes) and the public entry points: damage and splits.
#include "frame_gen.h"

#include <algorithm>

#include "frame_gen_detail.h"

namespace csum::fuzz {
namespace detail {

void put_macs(Buf& b, uint8_t base) {
    for (int i = 0; i < 12; ++i) put8(b, uint8_t(base + i));
}

void clip(Buf& b) {
    if (b.size() > kMaxFrame) b.resize(kMaxFrame);
}

Frame Gen::frame() {
    Frame f;
    f.bytes = eth(&f.l3_off);
    clip(f.bytes);
    if (f.l3_off >= f.bytes.size()) f.l3_off = 0;
    return f;
}

// A length field: usually the truth, sometimes a lie.
uint16_t Gen::lie16(uint32_t truth) {
    switch (c_.u8() & 15) {
        case 15:
            return c_.u16();
        case 14:
            return uint16_t(truth + 1 + c_.u8() % 64);
        case 13:
            return uint16_t(truth - 1 - c_.u8() % 64);
        default:
            return uint16_t(truth);
    }
}
uint8_t Gen::lie8(uint8_t truth) {
    switch (c_.u8() & 15) {
        case 15:
            return c_.u8();
        case 14:
            return uint8_t(truth + 1);
        case 13:
            return uint8_t(truth - 1);
        default:
            return truth;
    }
}

// a, b or c, or (1 in 4) any byte.
uint8_t Gen::pick(uint8_t a, uint8_t b, uint8_t c) {
    switch (c_.u8() % 4) {
        case 0:
            return a;
        case 1:
            return b;
        case 2:
            return c;
        default:
            return c_.u8();
    }
}

// An entry of t, or any 16-bit value where it holds 0.
uint16_t Gen::pick16(const uint16_t (&t)[8]) {
    const uint16_t v = t[c_.u8() % 8];
    return v ? v : c_.u16();
}

// IPv4 and TCP options alike: fewer than `most`, each of a kind `one`
// writes or (kind 7) any kind with any length byte; at most 40 bytes,
// padded to a multiple of 4 with `pad`.
Buf Gen::options(int most, uint8_t pad, void (Gen::*one)(Buf&, uint8_t kind)) {
    Buf o;
    const int n = c_.u8() % most;
    for (int i = 0; i < n; ++i) {
        const uint8_t kind = c_.u8() % 8;
        if (kind != 7) {
            (this->*one)(o, kind);
            continue;
        }
        put8(o, c_.u8());
        const uint8_t len = c_.u8();
        put8(o, len);
        pattern(o, len % 40, len);
    }
    if (o.size() > 40) o.resize(40);
    while (o.size() % 4) put8(o, pad);
    return o;
}

Buf Gen::payload() {
    size_t n;
    switch (c_.u8() % 8) {
        case 0:
            n = c_.u8() % 32;
            break;
        case 1:
            n = c_.u8();
            break;
        case 2:
            n = c_.u16() % 1500;
            break;
        case 3:
            n = 1400 + c_.u8();
            break;
        case 4:
            n = 1990 + c_.u8();  // around one 2 KiB mbuf
            break;
        case 5:
            n = 2048 - 64 + c_.u8() % 128;
            break;
        case 6:
            n = c_.u16() % 9000;
            break;
        default:
            n = 4000 + c_.u16() % 5000;
            break;
    }
    n = std::min(n, room());
    Buf b;
    pattern(b, n, c_.u8());
    used_ += n;
    return b;
}

Buf Gen::eth(uint32_t* l3_off) {
    Buf b;
    put_macs(b, 0x02);
    static constexpr uint16_t kTpid[] = {0x8100, 0x88A8, 0x9100, 0x8100};
    static constexpr uint8_t kTags[] = {0, 0, 0, 0, 0, 1, 2, 3};
    const int tags = kTags[c_.u8() % 8];
    for (int i = 0; i < tags; ++i) {
        put16(b, kTpid[c_.u8() % 4]);
        put16(b, uint16_t(0x0100 + i));  // TCI
    }
    uint16_t type;
    switch (c_.u8() % 8) {
        case 0:
        case 1:
        case 2:
            type = 0x0800;
            break;
        case 3:
        case 4:
        case 5:
            type = 0x86DD;
            break;
        case 6:
            type = 0x0806;
            break;
        default:
            type = c_.u16();
            break;
    }
    put16(b, type);
    if (l3_off) *l3_off = uint32_t(b.size());
    used_ += b.size();
    if (type == 0x0800)
        append(b, ipv4());
    else if (type == 0x86DD)
        append(b, ipv6());
    else
        append(b, payload());
    return b;
}

}  // namespace detail

Frame gen_frame(Cursor& c) {
    if (c.u8() != 0xFF) return detail::Gen(c).frame();
    Frame f;
    f.bytes = c.take(c.u16());
    detail::clip(f.bytes);
    for (uint32_t off = 12; off + 2 <= f.bytes.size(); off += 4) {  // past the VLAN tags
        const uint16_t type = uint16_t(f.bytes[off] << 8 | f.bytes[off + 1]);
        if (type == 0x0800 || type == 0x86DD) f.l3_off = off + 2;
        if (type != 0x8100 && type != 0x88A8 && type != 0x9100) break;
    }
    return f;
}

Frame gen_tunnel_frame(Cursor& c) {
    return detail::Gen(c).tunnel();
}

void damage(Cursor& c, std::vector<uint8_t>& f) {
    switch (c.u8() % 16) {
        case 12:
            f.resize(f.empty() ? 0 : c.u16() % f.size());
            break;
        case 13:
            f.resize(f.size() - std::min<size_t>(f.size(), 1 + c.u8()));
            break;
        case 14:
            f.resize(std::min(kMaxFrame, f.size() + 1 + c.u8()), 0xEE);
            break;
        case 15:
            f.resize(std::min<size_t>(f.size(), 14 + c.u8()));
            break;
        default:
            break;
    }
    int flips = 0;
    switch (c.u8() % 8) {
        case 6:
            flips = 1;
            break;
        case 7:
            flips = 1 + c.u8() % 8;
            break;
        default:
            break;
    }
    for (int i = 0; i < flips && !f.empty(); ++i) {
        const size_t at = c.u16() % f.size();
        f[at] ^= uint8_t(1u << (c.u8() % 8));
    }
}

Split gen_split(Cursor& c, size_t len, uint32_t room) {
    constexpr size_t kMaxSegs = 240;
    Split s;
    const uint8_t kind = c.u8() % 8;
    s.headroom = uint16_t(c.u8() % 129);
    size_t pos = 0;
    auto cut = [&](size_t n) {
        n = std::min({n, len - pos, size_t(room)});
        s.seg.push_back(uint32_t(n));
        pos += n;
    };
    switch (kind) {
        case 2:  // one split anywhere
            if (len) cut(c.u16() % (len + 1));
            break;
        case 3: {  // two splits anywhere
            size_t a = len ? c.u16() % (len + 1) : 0, b = len ? c.u16() % (len + 1) : 0;
            if (a > b) std::swap(a, b);
            cut(a);
            cut(b - a);
            break;
        }
        case 4:  // segment by segment from the input
            while (pos < len && s.seg.size() < kMaxSegs / 2 && !c.empty()) {
                const uint8_t b = c.u8();
                switch (b % 4) {
                    case 0:
                        cut(0);
                        break;
                    case 1:
                        cut(1 + (b >> 2) % 8);
                        break;
                    case 2:
                        cut(b);
                        break;
                    default:
                        cut(1 + c.u16() % room);
                        break;
                }
            }
            break;
        case 5: {  // small equal segments
            size_t n = 1 + c.u8() % 64;
            n = std::max(n, len / (kMaxSegs / 2) + 1);
            while (pos < len) cut(n);
            break;
        }
        case 6:  // full segments with empty ones between
            while (pos < len) {
                cut(room);
                if (pos < len) cut(0);
            }
            break;
        case 7: {  // nearly full segments, odd sizes
            const size_t n = room - c.u8() % 64;
            while (pos < len) cut(n);
            break;
        }
        default:  // as net_pcap does: each segment as full as it goes
            break;
    }
    while (pos < len) cut(room);
    if (s.seg.empty()) s.seg.push_back(0);
    return s;
}

}  // namespace csum::fuzz
