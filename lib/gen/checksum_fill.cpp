#include "gen/checksum_fill.h"

#include <cstring>

#include "csum/crc32c.h"
#include "csum/inet.h"

namespace csum::gen {
namespace {

uint16_t be16(const uint8_t* p) {
    return uint16_t(p[0] << 8 | p[1]);
}

// One walk serves both listing and filling: `fill` decides whether it writes.
struct Walk {
    std::span<uint8_t> f;
    TunnelPorts tun;
    bool fill;
    bool partial = false;  // leave the innermost TCP/UDP field as CHECKSUM_PARTIAL
    std::vector<CsumField> fields;

    void put16(uint32_t off, uint16_t v) {
        if (fill) std::memcpy(&f[off], &v, 2);  // sums are in memory order already
    }

    void ether(uint32_t off, uint32_t end, int depth) {
        if (off + 14 > end || depth > 4) return;
        const uint16_t type = be16(&f[off + 12]);
        if (type == 0x0800)
            ipv4(off + 14, end, depth);
        else if (type == 0x86DD)
            ipv6(off + 14, end, depth);
    }

    void ipv4(uint32_t off, uint32_t end, int depth) {
        if (off + 20 > end || (f[off] >> 4) != 4) return;
        const uint32_t ihl = (f[off] & 0xF) * 4u, total = be16(&f[off + 2]);
        if (ihl < 20 || off + total > end || total < ihl) return;
        fields.push_back({off + 10, 2});
        const uint32_t src = off + 12, dst = off + 16, l4 = off + ihl, l4_len = total - ihl;
        l4_layer(f[off + 9], l4, l4_len, depth,
                 [&](uint8_t proto) { return ipv4_pseudo_sum(&f[src], &f[dst], proto, l4_len); });
        if (fill) put16(off + 10, ipv4_hdr_cksum(&f[off], ihl));  // covers the header alone
    }

    void ipv6(uint32_t off, uint32_t end, int depth) {
        if (off + 40 > end || (f[off] >> 4) != 6) return;
        const uint32_t plen = be16(&f[off + 4]);
        if (off + 40 + plen > end) return;
        const uint32_t src = off + 8, dst = off + 24;
        l4_layer(f[off + 6], off + 40, plen, depth,
                 [&](uint8_t proto) { return ipv6_pseudo_sum(&f[src], &f[dst], proto, plen); });
    }

    template <typename Pseudo>
    void l4_layer(uint8_t proto, uint32_t off, uint32_t len, int depth, Pseudo pseudo) {
        uint32_t field;
        if (proto == 6 && len >= 20)
            field = off + 16;
        else if (proto == 17 && len >= 8)
            field = off + 6;
        else if (proto == 1 && len >= 8)
            field = off + 2;
        else if (proto == 132 && len >= 12)
            return sctp(off, len);
        else
            return;
        fields.push_back({field, 2});
        if (proto == 17) {
            // Inner checksums first: the outer UDP sum covers them.
            const uint16_t dport = be16(&f[off + 2]);
            if (dport == tun.vxlan && len >= 16)
                ether(off + 16, off + len, depth + 1);
            else if (dport == tun.geneve && len >= 16) {
                const uint32_t hlen = 8 + (f[off + 8] & 0x3F) * 4u;
                if (be16(&f[off + 10]) == 0x6558 && 8 + hlen <= len)
                    ether(off + 8 + hlen, off + len, depth + 1);
            }
        }
        if (!fill) return;
        put16(field, 0);
        uint32_t s = partial_sum(&f[off], len, proto == 1 ? 0 : pseudo(proto));
        uint16_t c = uint16_t(~sum_fold(s));
        if (proto == 17 && c == 0) c = 0xFFFF;  // zero means "no checksum" in UDP
        if (partial && proto != 1) {
            // Inner layers are summed first, so the first TCP/UDP here is the innermost.
            c = sum_fold(pseudo(proto)), partial = false;
        }
        put16(field, c);
    }

    void sctp(uint32_t off, uint32_t len) {
        fields.push_back({off + 8, 4});
        if (!fill) return;
        std::memset(&f[off + 8], 0, 4);
        const uint32_t crc = crc32c(&f[off], len);
        const uint8_t le[4] = {uint8_t(crc), uint8_t(crc >> 8), uint8_t(crc >> 16),
                               uint8_t(crc >> 24)};
        std::memcpy(&f[off + 8], le, 4);
    }
};

}  // namespace

std::vector<CsumField> fill_checksums(std::span<uint8_t> frame, TunnelPorts tunnels) {
    Walk w{frame, tunnels, true, false, {}};
    w.ether(0, uint32_t(frame.size()), 0);
    return w.fields;
}

std::vector<CsumField> fill_checksums_partial(std::span<uint8_t> frame, TunnelPorts tunnels) {
    Walk w{frame, tunnels, true, true, {}};
    w.ether(0, uint32_t(frame.size()), 0);
    return w.fields;
}

std::vector<CsumField> checksum_fields(std::span<const uint8_t> frame, TunnelPorts tunnels) {
    // The walk never writes when fill is false.
    Walk w{{const_cast<uint8_t*>(frame.data()), frame.size()}, tunnels, false, false, {}};
    w.ether(0, uint32_t(frame.size()), 0);
    return w.fields;
}

}  // namespace csum::gen
