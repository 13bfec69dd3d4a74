// IPv4 with options, fragments and lying header fields; IPv6 with extension
// headers of every kind (hop-by-hop, routing types 0-4, fragment, AH,
// destination options) in any order and number.
#include <algorithm>
#include <cstring>

#include "csum/inet.h"
#include "frame_gen_detail.h"

namespace csum::fuzz::detail {

uint8_t Gen::l4_proto(bool v6) {
    static constexpr uint8_t kV4[] = {kUdp, kTcp, kSctp, kIcmp, kGre, kIpip, kIpv6, kUdp};
    static constexpr uint8_t kV6[] = {kUdp, kTcp, kSctp, kIcmpv6, kGre, kIpip, kIpv6, kNoNext};
    const uint8_t i = c_.u8();
    if ((i & 15) == 15) return c_.u8();
    return (v6 ? kV6 : kV4)[i % 8];
}

// IPv4 option kinds 0-6 (options() writes 7: anything).
void Gen::ipv4_option(Buf& o, uint8_t kind) {
    switch (kind) {
        case 0:
            put8(o, 1);  // NOP
            break;
        case 1:
            put8(o, 0);  // EOL
            break;
        case 2:
        case 3:
        case 4: {  // LSRR, SSRR, RR: pointer + addresses
            const uint8_t type = kind == 2 ? 0x83 : kind == 3 ? 0x89 : 0x07;
            const int k = 1 + c_.u8() % 9;
            put8(o, type);
            put8(o, lie8(uint8_t(3 + 4 * k)));
            put8(o, uint8_t(4 + 4 * (c_.u8() % (k + 1))));  // k+1: route used up
            for (int a = 0; a < k; ++a) put32(o, 0xC0000200u + uint32_t(a) + 1);
            break;
        }
        case 5: {  // timestamp
            const int k = 1 + c_.u8() % 9;
            put8(o, 0x44);
            put8(o, lie8(uint8_t(4 + 4 * k)));
            put8(o, 5);
            put8(o, 0);
            for (int a = 0; a < k; ++a) put32(o, uint32_t(a));
            break;
        }
        default:  // 6: router alert
            put32(o, 0x94040000);
            break;
    }
}

// An IPv4 header over `body`: no options, DF, checksum left to prefill,
// unless the cursor lies (total length, IHL, a fragment).
Buf Gen::ip4_header(uint8_t proto, const Buf& body) {
    Buf h;
    const uint8_t how = c_.u8();
    put8(h, (how & 15) == 15 ? uint8_t(0x40 | c_.u8() % 16) : 0x45);
    put8(h, 0);
    put16(h, lie16(uint32_t(20 + body.size())));
    put16(h, c_.u16());
    put16(h, (how & 0x70) == 0x70 ? uint16_t(0x2000 | c_.u8()) : 0x4000);
    put8(h, 64);
    put8(h, proto);
    put16(h, 0);
    put32(h, addr4(0x0A000001u, 0));
    put32(h, addr4(0x0A000002u, 32));
    sum_edge(h);
    append(h, body);
    return h;
}

// An IPv6 header over `body`, with a destination options header if ext.
Buf Gen::ip6_header(uint8_t proto, const Buf& body, bool ext) {
    Buf h;
    put32(h, 0x60000000u | c_.u8());
    put16(h, lie16(uint32_t(body.size() + (ext ? 8 : 0))));
    put8(h, ext ? kDestOpts : proto);
    put8(h, 64);
    for (int a = 0; a < 2; ++a) addr6(h, a);
    if (ext) put8(h, proto), put8(h, 0), put16(h, 0x0104), put32(h, 0);  // PadN
    append(h, body);
    return h;
}

// An IPv4 address: base plus a byte shifted left by shift (32: none), or,
// 1 in 16, all ones (a broadcast) or any (1 in 32 each): words whose sums
// pass 2^32.
uint32_t Gen::addr4(uint32_t base, int shift) {
    const uint8_t b = c_.u8();
    if (b >= 0xF0) return b & 1 ? 0xFFFFFFFFu : c_.u32();
    return shift < 32 ? base + (uint32_t(b) << shift) : base;
}

// 1 in 16: the source chosen so that the header's 64-bit little-endian
// words (bytes 0-7, 8-15) have high halves summing to 0xFFFFFFFF, the
// header's end-around sum then lying just under 2^64 or just past it: where
// a sum added without its carry is one off.
void Gen::sum_edge(Buf& h) {
    if ((c_.u8() & 15) != 15 || h.size() < 20) return;
    uint32_t w4, src;
    std::memcpy(&w4, h.data() + 4, 4);
    src = 0xFFFFFFFFu - w4 - (c_.u8() & 1);  // or one under: the low halves' carry fills it
    std::memcpy(h.data() + 12, &src, 4);
}

// An IPv6 address: 2001:db8::(a + 1 + a byte), or, 1 in 16, all ones or
// any 128 bits (1 in 32 each).
void Gen::addr6(Buf& h, int a) {
    const uint8_t b = c_.u8();
    if (b >= 0xF0) {
        for (int i = 0; i < 4; ++i) put32(h, b & 1 ? 0xFFFFFFFFu : c_.u32());
        return;
    }
    put32(h, 0x20010db8), put32(h, 0), put32(h, 0), put32(h, uint32_t(a + 1 + b));
}

Buf Gen::ipv4() {
    Buf h;
    const Buf opts = options(5, 0, &Gen::ipv4_option);  // padded with EOL
    const uint32_t hl = 20 + uint32_t(opts.size());
    uint8_t ihl = uint8_t(hl / 4);
    if ((c_.u8() & 15) == 15) ihl = c_.u8() % 16;
    const uint8_t ver = (c_.u8() & 31) == 31 ? c_.u8() % 16 : 4;
    put8(h, uint8_t(ver << 4 | ihl));
    put8(h, 0);          // TOS
    put16(h, 0);         // total length, set below
    put16(h, c_.u16());  // id
    uint16_t frag;
    switch (c_.u8() % 8) {
        case 5:
            frag = 0x2000;  // first fragment
            break;
        case 6:
            frag = uint16_t(1 + c_.u8());  // a later fragment
            break;
        case 7:
            frag = c_.u16();
            break;
        default:
            frag = 0x4000;  // DF
            break;
    }
    put16(h, frag);
    put8(h, 64);
    const uint8_t proto = l4_proto(false);
    put8(h, proto);
    put16(h, 0);  // checksum
    put32(h, addr4(0x0A000001u, 0));
    put32(h, addr4(0x0A000002u, 8));
    sum_edge(h);
    append(h, opts);
    used_ += h.size();
    const Buf body = l4(proto);
    set16(h, 2, lie16(uint32_t(h.size() + body.size())));
    switch (c_.u8() % 8) {
        case 6:
            break;  // checksum left zero
        case 7:
            set16(h, 10, c_.u16());
            break;
        default: {
            const uint16_t ck = ipv4_hdr_cksum(h.data(), hl);
            std::memcpy(h.data() + 10, &ck, 2);
            break;
        }
    }
    append(h, body);
    return h;
}

// Hdr Ext Len values worth trying: 0, small, 255, just past 256 bytes, any.
uint8_t Gen::ext_len() {
    switch (c_.u8() % 8) {
        case 0:
            return 0;
        case 1:
            return 1;
        case 2:
            return 2;
        case 3:
            return 255;
        case 4:
            return uint8_t(31 + c_.u8() % 4);
        case 5:
            return 254;
        case 6:
            return uint8_t(100 + c_.u8() % 100);
        default:
            return c_.u8();
    }
}

Buf Gen::ext_header(uint8_t type) {
    Buf e;
    put8(e, 0);  // next header, set by the caller
    if (type == kFragment) {
        put8(e, 0);
        uint16_t fo;
        switch (c_.u8() % 4) {
            case 0:
                fo = 0;  // atomic
                break;
            case 1:
                fo = 1;  // first, M set
                break;
            case 2:
                fo = uint16_t((1 + c_.u8()) << 3);
                break;
            default:
                fo = c_.u16();
                break;
        }
        put16(e, fo);
        put32(e, c_.u32());
        return e;
    }
    if (type == kAuth) {
        const uint8_t pl = pick(4, 0, 255);  // 4: a 96-bit ICV
        put8(e, pl);
        put16(e, 0);
        put32(e, 0x100);       // SPI
        put32(e, c_.u32());    // sequence
        pattern(e, 1024, pl);  // ICV
        e.resize((pl + 2u) * 4);
        return e;
    }
    if (type == kRouting) {
        static constexpr uint8_t kTypes[] = {0, 2, 3, 4, 0, 2, 4, 1};
        const uint8_t rtype = (c_.u8() & 15) == 15 ? c_.u8() : kTypes[c_.u8() % 8];
        uint8_t hel;
        const uint8_t sel = c_.u8();
        if (sel % 4 == 0 && rtype == 2)
            hel = 2;
        else if (sel % 4 == 1 && (rtype == 0 || rtype == 4))
            hel = uint8_t(2 * (1 + c_.u8() % 127));  // whole addresses
        else
            hel = ext_len();
        const uint32_t size = (hel + 1u) * 8;
        const uint32_t naddr = (size - 8) / 16;
        put8(e, hel);
        put8(e, rtype);
        const uint8_t left = pick(0, 1, uint8_t(naddr));  // segments left
        put8(e, left);
        if (rtype == 4) {  // SRH: Last Entry, Flags, Tag
            put8(e, uint8_t(naddr ? naddr - 1 : 0));
            put8(e, 0);
            put16(e, 0);
        } else if (rtype == 3) {  // RPL: CmprI/CmprE, Pad, reserved
            put8(e, c_.u8());
            put8(e, c_.u8() & 0xF0);
            put16(e, 0);
        } else {
            put32(e, 0);
        }
        for (uint32_t a = 0; e.size() < size; ++a) {  // 2001:db8::a:N addresses
            const size_t i = (e.size() - 8) % 16;
            put8(e, i < 4 ? kDocPrefix[i] : i == 15 ? uint8_t(a / 16 + 1) : 0);
        }
        return e;
    }
    // Hop-by-hop and destination options: PadN or option-shaped noise.
    const uint8_t hel = ext_len();
    const uint32_t size = (hel + 1u) * 8;
    put8(e, hel);
    if (c_.u8() % 2 == 0) {
        uint32_t left = size - 2;
        while (left > 0) {
            if (left == 1) {
                put8(e, 0);  // Pad1
                break;
            }
            const uint32_t n = std::min<uint32_t>(left - 2, 255);
            put8(e, 1);  // PadN
            put8(e, uint8_t(n));
            e.insert(e.end(), n, 0);
            left -= n + 2;
        }
    } else {
        put8(e, 0xC2);  // jumbo payload option: the kind a parser may look at
        put8(e, lie8(4));
        pattern(e, size - 4, hel);
    }
    return e;
}

Buf Gen::ipv6() {
    Buf h;
    put32(h, 0x60000000u | c_.u8());
    put16(h, 0);  // payload length, set below
    put8(h, 0);   // next header, set below
    put8(h, 64);
    for (int a = 0; a < 2; ++a) addr6(h, a);
    static constexpr uint8_t kCount[] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 4, 6, 8, 9, 12};
    const int n = kCount[c_.u8() % 16];
    static constexpr uint8_t kKinds[] = {kRouting, kHopByHop, kDestOpts, kFragment,
                                         kAuth,    kRouting,  kDestOpts, kRouting};
    Buf exts;
    size_t next_at = 6;  // where the previous header's next-header byte is
    Buf* prev = &h;
    std::vector<Buf> list;
    list.reserve(n);
    std::vector<uint8_t> types;
    for (int i = 0; i < n && room() > 64; ++i) {
        const uint8_t t = (i == 0 && c_.u8() % 4 == 0) ? kHopByHop : kKinds[c_.u8() % 8];
        list.push_back(ext_header(t));
        types.push_back(t);
        used_ += list.back().size();
    }
    used_ += h.size();
    const uint8_t proto = l4_proto(true);
    for (size_t i = 0; i < list.size(); ++i) {
        (*prev)[next_at] = types[i];
        prev = &list[i];
        next_at = 0;
    }
    (*prev)[next_at] = proto;
    for (const Buf& e : list) append(exts, e);
    const Buf body = l4(proto);
    set16(h, 4, lie16(uint32_t(exts.size() + body.size())));
    append(h, exts);
    append(h, body);
    return h;
}

}  // namespace csum::fuzz::detail
