#include "frame_gen.h"

#include <algorithm>
#include <cstring>

#include "csum/inet.h"

namespace csum::fuzz {
namespace {

using Buf = std::vector<uint8_t>;

void put8(Buf& b, uint8_t v) {
    b.push_back(v);
}
void put16(Buf& b, uint16_t v) {
    b.push_back(uint8_t(v >> 8));
    b.push_back(uint8_t(v));
}
void put32(Buf& b, uint32_t v) {
    put16(b, uint16_t(v >> 16));
    put16(b, uint16_t(v));
}
void set16(Buf& b, size_t at, uint16_t v) {
    b[at] = uint8_t(v >> 8);
    b[at + 1] = uint8_t(v);
}
void pattern(Buf& b, size_t n, uint8_t seed) {
    for (size_t i = 0; i < n; ++i) b.push_back(uint8_t(seed + i * 7));
}
void append(Buf& b, const Buf& x) {
    b.insert(b.end(), x.begin(), x.end());
}

constexpr uint8_t kHopByHop = 0, kIpip = 4, kTcp = 6, kUdp = 17, kIpv6 = 41, kRouting = 43,
                  kFragment = 44, kGre = 47, kAuth = 51, kIcmpv6 = 58, kNoNext = 59, kDestOpts = 60,
                  kIcmp = 1, kSctp = 132;
constexpr int kMaxDepth = 6;

class Gen {
  public:
    explicit Gen(Cursor& c) : c_(c) {}

    Frame frame() {
        Frame f;
        f.bytes = eth(&f.l3_off);
        if (f.bytes.size() > kMaxFrame) f.bytes.resize(kMaxFrame);
        if (f.l3_off >= f.bytes.size()) f.l3_off = 0;
        return f;
    }

    Frame tunnel() {
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
            for (int i = 0; i < 12; ++i) put8(inner, uint8_t(0x20 + i));
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
        for (int i = 0; i < 12; ++i) put8(f.bytes, uint8_t(0x02 + i));
        put16(f.bytes, ov6 ? 0x86DD : 0x0800);
        f.l3_off = 14;
        append(f.bytes, ov6 ? ip6_header(kUdp, udp, false) : ip4_header(kUdp, udp));
        f.outer_udp_csum = ov6 ? 14 + 40 + 6 : 14 + 20 + 6;
        if (f.bytes.size() > kMaxFrame) f.bytes.resize(kMaxFrame);
        return f;
    }

  private:
    Cursor& c_;
    int depth_ = 0;
    size_t used_ = 0;  // header bytes emitted so far: payloads keep within kMaxFrame

    size_t room() const { return used_ < kMaxFrame ? kMaxFrame - used_ : 0; }

    // A length field: usually the truth, sometimes a lie.
    uint16_t lie16(uint32_t truth) {
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
    uint8_t lie8(uint8_t truth) {
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

    Buf payload() {
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

    Buf eth(uint32_t* l3_off) {
        Buf b;
        for (int i = 0; i < 12; ++i) put8(b, uint8_t(0x02 + i));
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

    uint8_t l4_proto(bool v6) {
        static constexpr uint8_t kV4[] = {kUdp, kTcp, kSctp, kIcmp, kGre, kIpip, kIpv6, kUdp};
        static constexpr uint8_t kV6[] = {kUdp, kTcp, kSctp, kIcmpv6, kGre, kIpip, kIpv6, kNoNext};
        const uint8_t i = c_.u8();
        if ((i & 15) == 15) return c_.u8();
        return (v6 ? kV6 : kV4)[i % 8];
    }

    Buf ipv4_options() {
        Buf o;
        const int n = c_.u8() % 5;
        for (int i = 0; i < n; ++i) {
            const uint8_t kind = c_.u8() % 8;
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
                case 6:  // router alert
                    put32(o, 0x94040000);
                    break;
                default: {  // anything, with any length byte
                    put8(o, c_.u8());
                    const uint8_t len = c_.u8();
                    put8(o, len);
                    pattern(o, len % 40, len);
                    break;
                }
            }
        }
        if (o.size() > 40) o.resize(40);
        while (o.size() % 4) put8(o, 0);
        return o;
    }

    // An IPv4 header over `body`: no options, DF, checksum left to prefill,
    // unless the cursor lies (total length, IHL, a fragment).
    Buf ip4_header(uint8_t proto, const Buf& body) {
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
        put32(h, 0x0A000001u + c_.u8());
        put32(h, 0x0A000002u);
        append(h, body);
        return h;
    }
    // An IPv6 header over `body`, with a destination options header if ext.
    Buf ip6_header(uint8_t proto, const Buf& body, bool ext) {
        Buf h;
        put32(h, 0x60000000u | c_.u8());
        put16(h, lie16(uint32_t(body.size() + (ext ? 8 : 0))));
        put8(h, ext ? kDestOpts : proto);
        put8(h, 64);
        for (int a = 0; a < 2; ++a) {
            put32(h, 0x20010db8), put32(h, 0), put32(h, 0);
            put32(h, uint32_t(a + 1 + c_.u8()));
        }
        if (ext) put8(h, proto), put8(h, 0), put16(h, 0x0104), put32(h, 0);  // PadN
        append(h, body);
        return h;
    }

    Buf ipv4() {
        Buf h;
        const Buf opts = ipv4_options();
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
        put32(h, 0x0A000001u + c_.u8());
        put32(h, 0x0A000002u + (uint32_t(c_.u8()) << 8));
        append(h, opts);
        used_ += h.size();
        const Buf body = l4(proto, false);
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
    uint8_t ext_len() {
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

    Buf ext_header(uint8_t type) {
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
            uint8_t pl;
            switch (c_.u8() % 4) {
                case 0:
                    pl = 4;  // 96-bit ICV
                    break;
                case 1:
                    pl = 0;
                    break;
                case 2:
                    pl = 255;
                    break;
                default:
                    pl = c_.u8();
                    break;
            }
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
            uint8_t left;
            switch (c_.u8() % 4) {
                case 0:
                    left = 0;
                    break;
                case 1:
                    left = 1;
                    break;
                case 2:
                    left = uint8_t(naddr);
                    break;
                default:
                    left = c_.u8();
                    break;
            }
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
                static constexpr uint8_t kPfx[] = {0x20, 0x01, 0x0d, 0xb8};
                put8(e, i < 4 ? kPfx[i] : i == 15 ? uint8_t(a / 16 + 1) : 0);
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

    Buf ipv6() {
        Buf h;
        put32(h, 0x60000000u | c_.u8());
        put16(h, 0);  // payload length, set below
        put8(h, 0);   // next header, set below
        put8(h, 64);
        static constexpr uint8_t kAddr[] = {0x20, 0x01, 0x0d, 0xb8};
        for (int a = 0; a < 2; ++a) {
            for (int i = 0; i < 4; ++i) put8(h, kAddr[i]);
            for (int i = 4; i < 15; ++i) put8(h, 0);
            put8(h, uint8_t(a + 1 + c_.u8()));
        }
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
        const Buf body = l4(proto, true);
        set16(h, 4, lie16(uint32_t(exts.size() + body.size())));
        append(h, exts);
        append(h, body);
        return h;
    }

    Buf tcp_options() {
        Buf o;
        const int n = c_.u8() % 6;
        for (int i = 0; i < n; ++i) {
            switch (c_.u8() % 8) {
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
                case 6:
                    put8(o, 0);
                    break;
                default: {
                    put8(o, c_.u8());
                    const uint8_t len = c_.u8();
                    put8(o, len);
                    pattern(o, len % 40, len);
                    break;
                }
            }
        }
        if (o.size() > 40) o.resize(40);
        while (o.size() % 4) put8(o, 1);
        return o;
    }

    Buf tcp() {
        Buf h;
        static constexpr uint16_t kPorts[] = {80, 4420, 443, 4420, 5201, 0, 0, 0};
        const uint16_t sport = 1024 + c_.u8();
        uint16_t dport = kPorts[c_.u8() % 8];
        if (dport == 0) dport = c_.u16();
        const bool reverse = c_.u8() % 4 == 0;
        put16(h, reverse ? dport : sport);
        put16(h, reverse ? sport : dport);
        put32(h, c_.u32());
        put32(h, c_.u32());
        const Buf opts = tcp_options();
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

    Buf sctp() {
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

    Buf udp(bool v6) {
        Buf h;
        static constexpr uint16_t kPorts[] = {53, 4789, 6081, 4754, 9899, 53, 0, 443};
        uint16_t dport = kPorts[c_.u8() % 8];
        if (dport == 0) dport = c_.u16();
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
        (void)v6;
        set16(h, 4, lie16(uint32_t(8 + body.size())));
        append(h, body);
        return h;
    }

    uint16_t inner_type() {
        static constexpr uint16_t kTypes[] = {0x6558, 0x0800, 0x86DD, 0x6558,
                                              0x0800, 0x86DD, 0x88BE, 0};
        uint16_t t = kTypes[c_.u8() % 8];
        return t ? t : c_.u16();
    }

    Buf inner(uint16_t type) {
        ++depth_;
        Buf b = type == 0x6558   ? eth(nullptr)
                : type == 0x0800 ? ipv4()
                : type == 0x86DD ? ipv6()
                                 : payload();
        --depth_;
        return b;
    }

    Buf geneve() {
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

    Buf gre() {
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

    Buf icmp(bool v6) {
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

    Buf l4(uint8_t proto, bool v6) {
        if (depth_ >= kMaxDepth) return payload();
        switch (proto) {
            case kTcp:
                return tcp();
            case kUdp:
                return udp(v6);
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
};

}  // namespace

Frame gen_frame(Cursor& c) {
    if (c.u8() != 0xFF) return Gen(c).frame();
    Frame f;
    f.bytes = c.take(c.u16());
    if (f.bytes.size() > kMaxFrame) f.bytes.resize(kMaxFrame);
    for (uint32_t off = 12; off + 2 <= f.bytes.size(); off += 4) {  // past the VLAN tags
        const uint16_t type = uint16_t(f.bytes[off] << 8 | f.bytes[off + 1]);
        if (type == 0x0800 || type == 0x86DD) f.l3_off = off + 2;
        if (type != 0x8100 && type != 0x88A8 && type != 0x9100) break;
    }
    return f;
}

Frame gen_tunnel_frame(Cursor& c) {
    return Gen(c).tunnel();
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
