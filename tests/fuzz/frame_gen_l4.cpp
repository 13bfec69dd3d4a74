// L4 headers (TCP with options and NVMe/TCP common headers, UDP, SCTP
// chunks, ICMP/ICMPv6 quoting a packet) and tunnels (VXLAN, GENEVE, GRE,
// IP-in-IP), and the lean-path tunnel frame.
#include <cstring>

#include "frame_gen_detail.h"

namespace csum::fuzz::detail {

Frame Gen::tunnel() {
    const uint8_t sel = c_.u8();
    const bool ov6 = sel & 1, iv6 = sel & 2, iudp = sel & 4, geneve = sel & 8;
    const bool direct = geneve && (sel & 0x30) == 0x30;  // GENEVE carrying IP
    // Inside out: the inner L4 segment, its IP header, Ethernet, tunnel.
    Buf l4;
    const uint8_t lie = c_.u8();  // mostly 0: the plain choice everywhere
    if (iudp) {
        put16(l4, uint16_t(1024 + c_.u8()));
        put16(l4, (lie & 7) == 7 ? (c_.u8() & 1 ? 4789 : 6081) : 53);  // 1 in 8 nested
        put16(l4, 0);
        put16(l4, 0);  // checksum: filled by prefill
        const Buf body = payload();
        set16(l4, 4, lie16(uint32_t(8 + body.size())));
        append(l4, body);
    } else {
        put16(l4, uint16_t(1024 + c_.u8()));
        put16(l4, (lie & 7) == 7 ? 4420 : 80);
        put32(l4, c_.u32());
        put32(l4, c_.u32());
        put8(l4, uint8_t(lie8(5) << 4));
        put8(l4, 0x18);
        put16(l4, 0xFFFF);
        put32(l4, 0);  // checksum, urgent pointer
        append(l4, payload());
    }
    const uint8_t proto = (lie & 0x38) == 0x38 ? c_.u8() : iudp ? kUdp : kTcp;
    const Buf ip = iv6 ? ip6_header(proto, l4, (lie & 0xC0) == 0xC0) : ip4_header(proto, l4);
    Buf inner;
    if (!direct) {
        put_macs(inner, 0x20);
        put16(inner, (lie & 0xC0) == 0x80 ? 0x8100 : iv6 ? 0x86DD : 0x0800);
    }
    append(inner, ip);
    Buf tun;
    if (geneve) {
        const uint8_t optw = (sel & 0x30) == 0x10 ? 1 + c_.u8() % 12 : 0;
        put8(tun, lie8(optw));
        put8(tun, 0);
        put16(tun, direct ? (iv6 ? 0x86DD : 0x0800) : 0x6558);
        put32(tun, 0x00002A00);
        pattern(tun, optw * 4u, optw);
    } else {
        put32(tun, 0x08000000);
        put32(tun, 0x00002A00);
    }
    append(tun, inner);
    Buf udp;
    put16(udp, uint16_t(49152 + c_.u8()));
    put16(udp, geneve ? 6081 : 4789);
    put16(udp, lie16(uint32_t(8 + tun.size())));
    put16(udp, 0);  // filled by prefill, or left absent
    append(udp, tun);
    Frame f;
    put_macs(f.bytes, 0x02);
    put16(f.bytes, ov6 ? 0x86DD : 0x0800);
    f.l3_off = 14;
    append(f.bytes, ov6 ? ip6_header(kUdp, udp, false) : ip4_header(kUdp, udp));
    f.outer_udp_csum = ov6 ? 14 + 40 + 6 : 14 + 20 + 6;
    clip(f.bytes);
    return f;
}

// TCP option kinds 0-6 (options() writes 7: anything).
void Gen::tcp_option(Buf& o, uint8_t kind) {
    switch (kind) {
        case 0:
            put32(o, 0x020405B4);  // MSS
            break;
        case 1:
            put8(o, 3), put8(o, 3), put8(o, 7);  // window scale
            break;
        case 2:
            put16(o, 0x0402);  // SACK permitted
            break;
        case 3:
            put8(o, 8), put8(o, 10), put32(o, c_.u32()), put32(o, 0);  // timestamps
            break;
        case 4: {
            const int k = 1 + c_.u8() % 4;
            put8(o, 5), put8(o, lie8(uint8_t(2 + 8 * k)));
            for (int b = 0; b < 2 * k; ++b) put32(o, c_.u32());
            break;
        }
        case 5:
            put8(o, 1);
            break;
        default:  // 6
            put8(o, 0);
            break;
    }
}

Buf Gen::tcp() {
    Buf h;
    static constexpr uint16_t kPorts[] = {80, 4420, 443, 4420, 5201, 0, 0, 0};
    const uint16_t sport = 1024 + c_.u8();
    const uint16_t dport = pick16(kPorts);
    const bool reverse = c_.u8() % 4 == 0;
    put16(h, reverse ? dport : sport);
    put16(h, reverse ? sport : dport);
    put32(h, c_.u32());
    put32(h, c_.u32());
    const Buf opts = options(6, 1, &Gen::tcp_option);  // padded with NOP
    uint8_t doff = uint8_t(5 + opts.size() / 4);
    if ((c_.u8() & 15) == 15) doff = c_.u8() % 16;
    put8(h, uint8_t(doff << 4));
    put8(h, c_.u8() % 2 ? 0x18 : c_.u8());  // PSH|ACK or anything
    put16(h, 0xFFFF);
    put16(h, 0);  // checksum
    put16(h, 0);
    append(h, opts);
    used_ += h.size();
    Buf body = payload();
    if (dport == 4420 && body.size() >= 8 && c_.u8() % 2) {  // an NVMe/TCP common header
        static constexpr uint8_t kPdu[] = {0, 1, 4, 5, 6, 7, 9, 0x0a};
        body[0] = kPdu[c_.u8() % 8];
        body[1] = c_.u8() & 3;  // HDGSTF, DDGSTF
        body[2] = uint8_t(8 + 16 * (c_.u8() % 8));
        body[3] = c_.u8() % 2 ? body[2] : c_.u8();
        const uint32_t plen = c_.u8() % 2 ? uint32_t(body.size()) : c_.u32();
        std::memcpy(body.data() + 4, &plen, 4);  // little-endian on the wire
    }
    append(h, body);
    return h;
}

Buf Gen::sctp() {
    Buf h;
    put16(h, 2905);
    put16(h, 2905);
    put32(h, c_.u32());  // verification tag
    put32(h, 0);         // CRC32C
    used_ += h.size();
    const int n = 1 + c_.u8() % 4;
    for (int i = 0; i < n; ++i) {
        static constexpr uint8_t kTypes[] = {0, 0, 1, 3, 4, 6, 14, 64};
        const uint8_t type = (c_.u8() & 15) == 15 ? c_.u8() : kTypes[c_.u8() % 8];
        Buf body = type == 0 ? Buf(12, 0) : Buf{};  // DATA: TSN, stream, SSN, PPID
        append(body, i + 1 == n ? payload() : Buf(c_.u8() % 64, 0xA5));
        put8(h, type);
        put8(h, type == 0 ? 3 : 0);
        put16(h, lie16(uint32_t(4 + body.size())));
        append(h, body);
        if (c_.u8() % 8 != 7)
            while (h.size() % 4) put8(h, 0);  // the last chunk's padding may be absent
    }
    return h;
}

Buf Gen::udp() {
    Buf h;
    static constexpr uint16_t kPorts[] = {53, 4789, 6081, 4754, 9899, 53, 0, 443};
    const uint16_t dport = pick16(kPorts);
    put16(h, uint16_t(1024 + c_.u8()));
    put16(h, dport);
    put16(h, 0);  // length
    switch (c_.u8() % 8) {
        case 6:
            put16(h, c_.u16());
            break;
        case 7:
            put16(h, 0xFFFF);
            break;
        default:
            put16(h, 0);  // absent: legal over IPv4, filled in fill mode
            break;
    }
    used_ += h.size();
    // The body follows the port, or (1 in 8) ignores it.
    const uint8_t what = c_.u8() % 8;
    Buf body;
    if (what == 7 || depth_ >= kMaxDepth) {
        body = payload();
    } else if (dport == 4789) {
        ++depth_;
        put32(body, 0x08000000);
        put32(body, c_.u32() & 0xFFFFFF00);
        used_ += 8;
        append(body, eth(nullptr));
        --depth_;
    } else if (dport == 6081) {
        body = geneve();
    } else if (dport == 4754) {
        body = gre();
    } else if (dport == 9899) {
        body = sctp();
    } else {
        body = payload();
    }
    set16(h, 4, lie16(uint32_t(8 + body.size())));
    append(h, body);
    return h;
}

uint16_t Gen::inner_type() {
    static constexpr uint16_t kTypes[] = {0x6558, 0x0800, 0x86DD, 0x6558,
                                          0x0800, 0x86DD, 0x88BE, 0};
    return pick16(kTypes);
}

Buf Gen::inner(uint16_t type) {
    ++depth_;
    Buf b = type == 0x6558   ? eth(nullptr)
            : type == 0x0800 ? ipv4()
            : type == 0x86DD ? ipv6()
                             : payload();
    --depth_;
    return b;
}

Buf Gen::geneve() {
    Buf h;
    const uint8_t optw = c_.u8() % 4 == 0 ? c_.u8() % 64 : 0;
    put8(h, (c_.u8() & 31) == 31 ? c_.u8() : optw);  // version 0, option length
    put8(h, 0);
    const uint16_t type = inner_type();
    put16(h, type);
    put32(h, c_.u32() & 0xFFFFFF00);
    pattern(h, optw * 4u, optw);
    used_ += h.size();
    append(h, inner(type));
    return h;
}

Buf Gen::gre() {
    Buf h;
    const uint8_t f = c_.u8();
    const bool ck = f & 1, key = f & 2, seq = f & 4;
    const uint8_t ver = (f & 0xF8) == 0xF8 ? c_.u8() % 8 : 0;
    put16(h, uint16_t((ck ? 0x8000 : 0) | (key ? 0x2000 : 0) | (seq ? 0x1000 : 0) | ver));
    const uint16_t type = inner_type();
    put16(h, type);
    if (ck) put32(h, 0);
    if (key) put32(h, c_.u32());
    if (seq) put32(h, c_.u32());
    used_ += h.size();
    append(h, inner(type));
    return h;
}

Buf Gen::icmp(bool v6) {
    Buf h;
    static constexpr uint8_t kV4[] = {8, 0, 3, 11, 8, 5, 13, 0};
    static constexpr uint8_t kV6[] = {128, 129, 1, 3, 135, 136, 2, 4};
    const uint8_t type = (v6 ? kV6 : kV4)[c_.u8() % 8];
    put8(h, type);
    put8(h, 0);
    put16(h, 0);  // checksum
    put32(h, c_.u32());
    used_ += h.size();
    const bool error = v6 ? type < 128 : (type == 3 || type == 11 || type == 5);
    if (error && depth_ < kMaxDepth && c_.u8() % 2 == 0) {  // the packet it quotes
        ++depth_;
        append(h, v6 ? ipv6() : ipv4());
        --depth_;
    } else {
        append(h, payload());
    }
    return h;
}

Buf Gen::l4(uint8_t proto) {
    if (depth_ >= kMaxDepth) return payload();
    switch (proto) {
        case kTcp:
            return tcp();
        case kUdp:
            return udp();
        case kSctp:
            return sctp();
        case kIcmp:
            return icmp(false);
        case kIcmpv6:
            return icmp(true);
        case kGre:
            return gre();
        case kIpip:
            return inner(0x0800);
        case kIpv6:
            return inner(0x86DD);
        default:
            return payload();
    }
}

}  // namespace csum::fuzz::detail
