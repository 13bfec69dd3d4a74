#include "tunnel_frames.h"

#include <algorithm>
#include <span>

namespace csum::test {

namespace {
constexpr V4 kIn4a{172, 16, 0, 1}, kIn4b{172, 16, 9, 2};
constexpr V6 kIn6a{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xa, 1};
constexpr V6 kIn6b{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xb, 2};
}  // namespace

void put16(Bytes& b, size_t off, uint16_t v) {
    b.at(off) = uint8_t(v >> 8);
    b.at(off + 1) = uint8_t(v);
}
uint16_t get16(const Bytes& b, size_t off) {
    return uint16_t(b.at(off) << 8 | b.at(off + 1));
}
void fix_ipv4(Bytes& b, size_t off) {
    put16(b, off + 10, 0);
    put16(b, off + 10, ref_cksum(std::span(b).subspan(off, 20)));
}
uint16_t pseudo_fold(const Bytes& b, size_t ip, bool v6, uint8_t proto, uint32_t len) {
    Bytes p;
    if (v6) {
        p.assign(b.begin() + ptrdiff_t(ip + 8), b.begin() + ptrdiff_t(ip + 40));
        p.insert(p.end(), {uint8_t(len >> 24), uint8_t(len >> 16), uint8_t(len >> 8), uint8_t(len),
                           0, 0, 0, proto});
    } else {
        p.assign(b.begin() + ptrdiff_t(ip + 12), b.begin() + ptrdiff_t(ip + 20));
        p.insert(p.end(), {0, proto, uint8_t(len >> 8), uint8_t(len)});
    }
    return uint16_t(ref_sum(p));
}

Built build(const Spec& s) {
    Bytes pl(s.payload);
    for (size_t i = 0; i < pl.size(); ++i) pl[i] = uint8_t(i * 31 + 7);
    const uint8_t proto = s.iudp ? 17 : 6;
    Bytes l4 = s.iudp ? (s.iv6 ? udp(kIn6a, kIn6b, 1234, 53, pl) : udp(kIn4a, kIn4b, 1234, 53, pl))
                      : (s.iv6 ? tcp(kIn6a, kIn6b, 40000, 80, 7, 0x18, pl)
                               : tcp(kIn4a, kIn4b, 40000, 80, 7, 0x18, pl));
    const Bytes ip = s.iv6 ? ipv6(kIn6a, kIn6b, proto, l4) : ipv4(kIn4a, kIn4b, proto, l4);
    const uint16_t itype = s.iv6 ? 0x86DD : 0x0800;
    Bytes opts(s.kind == 2 ? 24 : 0);
    for (size_t i = 0; i < opts.size(); ++i) opts[i] = uint8_t(0x40 + i);
    Bytes tun;
    uint32_t thl = 8 + uint32_t(opts.size()), inner_eth = 14;
    if (s.kind == 0) {
        tun = vxlan(eth(itype, ip));
    } else if (s.kind == 3) {
        tun = geneve(itype, opts, ip);
        inner_eth = 0;
    } else {
        tun = geneve(0x6558, opts, eth(itype, ip));
    }
    const uint16_t dport = s.kind == 0 ? 4789 : 6081;
    const Bytes ou = s.ov6 ? udp(kSrc6, kDst6, 5555, dport, tun, s.ocsum)
                           : udp(kSrc4, kDst4, 5555, dport, tun, s.ocsum);
    const Bytes oip = s.ov6 ? ipv6(kSrc6, kDst6, 17, ou) : ipv4(kSrc4, kDst4, 17, ou);
    Built b;
    b.f = eth(s.ov6 ? 0x86DD : 0x0800, oip);
    b.ol4 = s.ov6 ? 54 : 34;
    b.il3 = b.ol4 + 8 + thl + inner_eth;
    b.il4 = b.il3 + (s.iv6 ? 40 : 20);
    b.ifield = b.il4 + (s.iudp ? 6 : 16);
    static const char* kKinds[] = {"vxlan", "geneve", "geneve+opts", "geneve-ip"};
    b.name = std::string(s.ov6 ? "ip6/" : "ip4/") + kKinds[s.kind] + (s.iv6 ? "/ip6" : "/ip4") +
             (s.iudp ? "/udp" : "/tcp") + " " + std::to_string(s.payload) +
             (s.ocsum ? "" : " outer-zero");
    return b;
}

void fix_sums(Bytes& f, const Built& b, const Spec& s) {
    const uint32_t olen = get16(f, b.ol4 + 4), end = b.ol4 + olen;
    const uint32_t il4_len = end - b.il4;
    const uint8_t iproto = s.iudp ? 17 : 6;
    put16(f, b.ifield, 0);
    uint16_t c = ref_cksum(std::span(f).subspan(b.il4, il4_len),
                           pseudo_fold(f, b.il3, s.iv6, iproto, il4_len));
    if (s.iudp && c == 0) c = 0xFFFF;
    put16(f, b.ifield, c);
    if (!s.ocsum) return;
    put16(f, b.ol4 + 6, 0);
    c = ref_cksum(std::span(f).subspan(b.ol4, olen), pseudo_fold(f, 14, s.ov6, 17, olen));
    put16(f, b.ol4 + 6, c == 0 ? 0xFFFF : c);
}

std::vector<std::pair<std::string, Bytes>> run_members(const Built& b, const Spec& s) {
    std::vector<std::pair<std::string, Bytes>> out;
    auto add = [&](const std::string& what, auto&& change) {
        Bytes f = b.f;
        change(f);
        out.emplace_back(b.name + " " + what, std::move(f));
    };
    const uint32_t t = b.ol4 + 8;  // the tunnel header
    add("vni changed", [&](Bytes& f) {
        f[t + 4] ^= 0x5A, f[t + 6] ^= 0x01;
        fix_sums(f, b, s);
    });
    add("payload changed", [&](Bytes& f) {
        f.back() ^= 0x77;
        fix_sums(f, b, s);
    });
    add("inner addresses changed", [&](Bytes& f) {
        f[b.il4 - 1] ^= 0x11;  // the last byte of the destination address
        if (!s.iv6) fix_ipv4(f, b.il3);
        fix_sums(f, b, s);
    });
    add("frame trailer", [&](Bytes& f) { f.insert(f.end(), 5, 0xEE); });
    if (!s.ov6) {
        add("outer df", [&](Bytes& f) { f[20] |= 0x40, fix_ipv4(f, 14); });
        add("outer ttl", [&](Bytes& f) { f[22] -= 1, fix_ipv4(f, 14); });
    } else {  // neither is under the outer UDP sum
        add("outer hop limit", [&](Bytes& f) { f[21] -= 1; });
        add("outer flow label", [&](Bytes& f) { f[15] ^= 0x0A, f[17] ^= 0x5C; });
    }
    add("other tunnel port", [&](Bytes& f) {
        put16(f, b.ol4 + 2, s.kind == 0 ? 6081 : 4789);
        fix_sums(f, b, s);
    });
    if (s.ocsum && b.il3 >= b.ol4 + 8 + 8 + 14) {
        // The inner source MAC's last word set so that the outer UDP region
        // and pseudo-header sum to 0 modulo 0xFFFF with the field at zero:
        // the right checksum is 0 (sent as 0xFFFF), and a zero field sums
        // right too but means "absent".
        add("outer zero, sums right", [&](Bytes& f) {
            const uint32_t olen = get16(f, b.ol4 + 4), w = b.il3 - 4;
            put16(f, b.ol4 + 6, 0);
            put16(f, w, 0);
            const uint32_t x =
                ref_sum(std::span(f).subspan(b.ol4, olen), pseudo_fold(f, 14, s.ov6, 17, olen));
            put16(f, w, uint16_t(0xFFFF - x));  // the sum becomes x + ~x: 0xFFFF
        });
    }
    return out;
}

std::vector<Spec> every_spec(std::initializer_list<size_t> payloads) {
    std::vector<Spec> v;
    for (bool ov6 : {false, true})
        for (int kind = 0; kind < 4; ++kind)
            for (bool iv6 : {false, true})
                for (bool iudp : {false, true})
                    for (size_t pl : payloads)
                        for (bool ocsum : {true, false})
                            v.push_back({ov6, kind, iv6, iudp, pl, ocsum});
    return v;
}

std::vector<std::pair<std::string, Bytes>> variants(const Built& b, const Spec& s,
                                                    std::mt19937& rng) {
    std::vector<std::pair<std::string, Bytes>> out;
    auto add = [&](const std::string& what, auto&& change) {
        Bytes f = b.f;
        change(f);
        out.emplace_back(b.name + " " + what, std::move(f));
    };
    const uint32_t ofield = b.ol4 + 6, olen = get16(b.f, b.ol4 + 4);
    const uint32_t il4_len = olen - (b.il4 - b.ol4);
    const uint8_t iproto = s.iudp ? 17 : 6;
    add("bad inner l4", [&](Bytes& f) { flip(f, b.ifield); });
    add("bad payload", [&](Bytes& f) { f.back() ^= 0x40; });
    if (s.ocsum) add("bad outer udp", [&](Bytes& f) { flip(f, ofield); });
    if (!s.iv6) add("bad inner ipv4", [&](Bytes& f) { flip(f, b.il3 + 10); });
    if (!s.ov6) add("bad outer ipv4", [&](Bytes& f) { flip(f, 14 + 10); });
    if (!s.ov6 && !s.iv6) add("bad both ipv4", [&](Bytes& f) { flip(f, 24), flip(f, b.il3 + 10); });
    auto inner_partial = [&](Bytes& f) {
        put16(f, b.ifield, pseudo_fold(f, b.il3, s.iv6, iproto, il4_len));
    };
    auto outer_partial = [&](Bytes& f) { put16(f, ofield, pseudo_fold(f, 14, s.ov6, 17, olen)); };
    add("inner partial", inner_partial);
    if (s.ocsum) {
        add("outer partial", outer_partial);
        add("both partial", [&](Bytes& f) { inner_partial(f), outer_partial(f); });
        add("inner partial, bad outer", [&](Bytes& f) { inner_partial(f), flip(f, ofield); });
    }
    add("inner l4 zero", [&](Bytes& f) { put16(f, b.ifield, 0); });
    if (!s.iv6) add("inner ipv4 zero", [&](Bytes& f) { put16(f, b.il3 + 10, 0); });
    // Lengths that lie, with IPv4 header sums made right again (and not).
    for (int d : {-1, 1, 20, -8}) {
        const std::string by = (d > 0 ? "+" : "") + std::to_string(d);
        add("outer ip len " + by, [&](Bytes& f) {
            if (s.ov6) {
                put16(f, 18, uint16_t(get16(f, 18) + d));
            } else {
                put16(f, 16, uint16_t(get16(f, 16) + d));
                fix_ipv4(f, 14);
            }
        });
        add("outer udp len " + by, [&](Bytes& f) { put16(f, b.ol4 + 4, uint16_t(olen + d)); });
        add("inner ip len " + by, [&](Bytes& f) {
            if (s.iv6) {
                put16(f, b.il3 + 4, uint16_t(get16(f, b.il3 + 4) + d));
            } else {
                put16(f, b.il3 + 2, uint16_t(get16(f, b.il3 + 2) + d));
                fix_ipv4(f, b.il3);
            }
        });
        if (s.iudp)
            add("inner udp len " + by,
                [&](Bytes& f) { put16(f, b.il4 + 4, uint16_t(get16(f, b.il4 + 4) + d)); });
    }
    if (!s.ov6)
        add("outer ip len unfixed", [&](Bytes& f) { put16(f, 16, uint16_t(get16(f, 16) - 1)); });
    if (s.kind != 0) {
        add("geneve opt len +1", [&](Bytes& f) { f[b.ol4 + 8] += 1; });
        add("geneve opt len 63", [&](Bytes& f) { f[b.ol4 + 8] = 63; });
        add("geneve version 1", [&](Bytes& f) { f[b.ol4 + 8] |= 0x40; });
        add("geneve protocol other", [&](Bytes& f) { put16(f, b.ol4 + 10, 0x88BE); });
    }
    if (!s.iudp) {
        add("tcp doff 4", [&](Bytes& f) { f[b.il4 + 12] = 4 << 4; });
        add("tcp doff 15", [&](Bytes& f) { f[b.il4 + 12] = 15 << 4; });
        add("inner nvme port", [&](Bytes& f) { put16(f, b.il4 + 2, 4420); });
    } else {
        add("nested vxlan", [&](Bytes& f) { put16(f, b.il4 + 2, 4789); });
        add("nested geneve", [&](Bytes& f) { put16(f, b.il4 + 2, 6081); });
    }
    add("frame trailer", [&](Bytes& f) { f.insert(f.end(), 7, 0xEE); });
    add("truncated", [&](Bytes& f) { f.resize(f.size() - 3); });
    add("cut at inner l4", [&](Bytes& f) { f.resize(b.il4 + 4); });
    if (!s.iv6) {
        add("inner fragment", [&](Bytes& f) { f[b.il3 + 6] |= 0x20, fix_ipv4(f, b.il3); });
        add("inner icmp", [&](Bytes& f) { f[b.il3 + 9] = 1, fix_ipv4(f, b.il3); });
        add("inner sctp", [&](Bytes& f) { f[b.il3 + 9] = 132, fix_ipv4(f, b.il3); });
        add("inner ipv4 options", [&](Bytes& f) { f[b.il3] = 0x46, fix_ipv4(f, b.il3); });
    } else {
        add("inner ipv6 ext header", [&](Bytes& f) { f[b.il3 + 6] = 60; });
    }
    if (!s.ov6) {
        add("outer fragment", [&](Bytes& f) { f[14 + 6] |= 0x20, fix_ipv4(f, 14); });
        add("outer ipv4 options", [&](Bytes& f) { f[14] = 0x46, fix_ipv4(f, 14); });
    } else {
        add("outer ipv6 ext header", [&](Bytes& f) { f[20] = 0; });  // hop-by-hop
        add("outer ipv6 version 4", [&](Bytes& f) { f[14] = uint8_t(0x40 | (f[14] & 0x0F)); });
        add("outer ipv4 ethertype", [&](Bytes& f) { put16(f, 12, 0x0800); });
    }
    if (s.kind != 3) add("inner vlan", [&](Bytes& f) { put16(f, b.il3 - 2, 0x8100); });
    for (int k = 0; k < 4; ++k) {  // bit flips anywhere in the headers
        add("flips " + std::to_string(k), [&](Bytes& f) {
            for (int i = 0, n = 1 + int(rng() % 3); i < n; ++i)
                f.at(rng() % std::min<size_t>(f.size(), b.il4 + 20)) ^= uint8_t(1u << (rng() % 8));
        });
    }
    return out;
}

}  // namespace csum::test
