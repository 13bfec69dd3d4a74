// Every public chain call over a real mbuf chain whose descriptors lie.
// Input: [n_seg][per segment: data_len u16, data_off u16][n_lie][lies:
// kind, a, b][n_call][calls of 16 bytes: kind, arg, off u16, len u16, 10 for
// feed and tx_emulate][payload kind][payload: raw, or a gen_frame
// description]; segment bytes are the payload, then a pattern past its end.
// Lies: nb_segs off by 1..3 or 0, pkt_len moved, a buf_len shrunk below
// data_off + data_len, a link to the head, an earlier segment or itself.
// Each call runs on the lying chain, then again with the lies taken back.
// Oracles: ASan (the bytes around each segment's data are poisoned, since
// a pool is one allocation), the -timeout, and for every call that
// succeeds: the range ends within pkt_len, within the bytes the links give
// in the head's nb_segs segments (at least the head), over no shrunk
// segment, and the value is the one of a reference over our copy of those
// bytes. On the honest chain every range within pkt_len succeeds. No call
// but a successful write_bytes or tx_emulate changes a byte; a refused
// tx_emulate leaves ol_flags too.
#include <sanitizer/asan_interface.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "csum/crc32c.h"
#include "csum/csum.h"
#include "csum/inet.h"
#include "csum/nvme_tcp.h"
#include "frame_gen.h"
#include "fuzz_support.h"
#include "mbuf/segment_read.h"
#include "offload/tx_emul.h"

using namespace csum;

namespace {

struct Seg {
    rte_mbuf* m;
    uint8_t* data;  // at the honest data_off
    uint32_t start, len;
    uint16_t buf_len;
};

[[noreturn]] void fail(const char* call, uint32_t off, uint32_t len, const char* what) {
    std::fprintf(stderr, "fuzz_chain_calls: %s(off %u, len %u): %s\n", call, off, len, what);
    std::abort();
}

uint32_t ref_crc(const uint8_t* p, size_t n, uint32_t crc) {
    static const auto table = [] {
        std::array<uint32_t, 256> t{};
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (c & 1 ? 0x82F63B78u : 0);
            t[i] = c;
        }
        return t;
    }();
    crc = ~crc;
    for (size_t i = 0; i < n; ++i) crc = (crc >> 8) ^ table[(crc ^ p[i]) & 0xFF];
    return ~crc;
}

// Words loaded little-endian from an even start; 0 only for all-zero words.
uint64_t ref_sum(const uint8_t* p, size_t n) {
    uint64_t s = 0;
    for (size_t i = 0; i < n; ++i) s += i & 1 ? uint64_t{p[i]} << 8 : p[i];
    return s;
}
uint16_t canon(uint64_t s) {
    return s == 0 ? 0 : uint16_t((s - 1) % 0xFFFF + 1);
}

// The chain as the descriptors tell it: model indices of the bytes in the
// head's nb_segs segments (at least the head) along the links, and which
// of them sit in a segment whose buf_len is shrunk.
struct View {
    std::vector<uint32_t> at;
    std::vector<uint8_t> shrunk;
};
View view_of(const std::vector<Seg>& segs) {
    View v;
    const rte_mbuf* s = segs[0].m;
    for (uint32_t k = std::max<uint32_t>(segs[0].m->nb_segs, 1); k != 0 && s; --k, s = s->next) {
        const Seg& g =
            *std::find_if(segs.begin(), segs.end(), [&](const Seg& x) { return x.m == s; });
        for (uint32_t i = 0; i < g.len; ++i) v.at.push_back(g.start + i);
        v.shrunk.insert(v.shrunk.end(), g.len, !segment_in_buffer(s));
    }
    return v;
}

// A sender's honest request for the frame's own headers (Ethernet, one VLAN
// tag, IPv4 or IPv6, TCP/UDP/SCTP), so that tx_emulate gets as far as
// writing on frames from gen_frame.
uint64_t request_from_frame(const std::vector<uint8_t>& f, rte_mbuf* m) {
    auto at = [&f](size_t i) -> uint32_t { return i < f.size() ? f[i] : 0; };
    uint32_t l2 = 14, type = at(12) << 8 | at(13);
    if (type == 0x8100) l2 = 18, type = at(16) << 8 | at(17);
    uint32_t l3 = 40, proto = at(l2 + 6);
    uint64_t flags = RTE_MBUF_F_TX_IPV6;
    if (type == 0x0800)
        l3 = (at(l2) & 15) * 4, proto = at(l2 + 9),
        flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
    m->l4_len = 0;
    switch (proto) {
        case 6:
            flags |= RTE_MBUF_F_TX_TCP_CKSUM, m->l4_len = (at(l2 + l3 + 12) >> 4) * 4;
            break;
        case 17:
            flags |= RTE_MBUF_F_TX_UDP_CKSUM, m->l4_len = 8;
            break;
        case 132:
            flags |= RTE_MBUF_F_TX_SCTP_CKSUM, m->l4_len = 12;
            break;
    }
    m->l2_len = l2, m->l3_len = l3;
    return flags;
}

// What tx_emulate served for request_from_frame's request, checked on the
// frame's bytes: IPv4's header sum; the L4 sum over the pseudo-header or
// SCTP's CRC32C over the IP length's L4 bytes (IPv4, and IPv6 without
// extension headers, whose final destination a routing header may move).
bool served_right(const std::vector<uint8_t>& f, const rte_mbuf* m, const TxServed& served) {
    const uint32_t l2 = m->l2_len, l3 = m->l3_len;
    if (f.size() < l2 + 40u) return true;
    const uint8_t* ip = f.data() + l2;
    const bool v4 = ip[0] >> 4 == 4;
    if (!v4 && (ip[0] >> 4 != 6 || l3 != 40)) return true;
    // What it served lies in the frame (each range checked before it is read).
    if (served.ip && (!v4 || l2 + l3 > f.size() || canon(ref_sum(ip, l3)) != 0xFFFF)) return false;
    const uint32_t tot = v4 ? uint32_t(ip[2] << 8 | ip[3]) : 40u + uint32_t(ip[4] << 8 | ip[5]);
    if ((served.tcp || served.udp || served.sctp) &&
        (tot < l3 + (served.sctp ? 12 : 8) || l2 + tot > f.size()))
        return false;
    const uint32_t l4_len = tot - l3;
    const uint8_t* l4 = ip + l3;
    if (served.tcp || served.udp) {
        // The addresses, then zero, protocol and length as big-endian words.
        const uint64_t addrs = v4 ? ref_sum(ip + 12, 8) : ref_sum(ip + 8, 32);
        const uint8_t tail[4] = {0, v4 ? ip[9] : ip[6], uint8_t(l4_len >> 8), uint8_t(l4_len)};
        if (canon(addrs + ref_sum(tail, 4) + ref_sum(l4, l4_len)) != 0xFFFF) return false;
    }
    if (served.sctp) {
        std::vector<uint8_t> c(l4, l4 + l4_len);
        std::fill(c.begin() + 8, c.begin() + 12, 0);
        const uint32_t crc = ref_crc(c.data(), c.size(), 0);
        if (crc != uint32_t(l4[8] | l4[9] << 8 | l4[10] << 16 | uint32_t(l4[11]) << 24))
            return false;
    }
    return true;
}

uint16_t len_of(uint16_t v) {  // mostly short segments, sometimes up to a full buffer
    return v & 0x8000 ? (v & 0x7FFF) % 2177 : (v & 0x7FFF) % 80;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::Cursor c(data, size);
    fuzz::pool();
    static NvmeTracker* tracker = new NvmeTracker(NvmeTrackerConfig{.capacity = 16});
    const uint32_t n_seg = 1 + c.u8() % 10;
    std::array<std::pair<uint16_t, uint16_t>, 10> shape;
    for (uint32_t i = 0; i < n_seg; ++i) shape[i] = {c.u16(), c.u16()};
    const uint32_t n_lie = c.u8() % 5;
    std::array<std::array<uint8_t, 3>, 4> lies;
    for (uint32_t i = 0; i < n_lie; ++i) lies[i] = {c.u8(), c.u8(), c.u8()};
    const uint32_t n_call = c.u8() % 9;
    std::vector<uint8_t> calls = c.take(n_call * 16);
    // Raw bytes, or (odd byte) a frame from the structured generator.
    const std::vector<uint8_t> payload = c.u8() & 1 ? fuzz::gen_frame(c).bytes : c.take(size);

    // The honest chain, and our copy of its bytes.
    std::vector<Seg> segs;
    std::vector<uint8_t> model;
    for (uint32_t i = 0; i < n_seg; ++i) {
        rte_mbuf* m = rte_pktmbuf_alloc(fuzz::pool());
        if (m == nullptr) std::abort();
        const uint16_t len = len_of(shape[i].first);
        m->data_off = shape[i].second % (m->buf_len - len + 1);
        m->data_len = len, m->pkt_len = len;
        auto* p = rte_pktmbuf_mtod(m, uint8_t*);
        for (uint32_t k = 0; k < len; ++k) {
            const size_t at = model.size();
            p[k] = at < payload.size() ? payload[at] : uint8_t(at * 131 + 7);
            model.push_back(p[k]);
        }
        segs.push_back({m, p, uint32_t(model.size() - len), len, m->buf_len});
        if (i > 0) segs[i - 1].m->next = m;
        // Only the data is addressable: a read past it is an ASan report.
        ASAN_POISON_MEMORY_REGION(m->buf_addr, m->data_off);
        ASAN_POISON_MEMORY_REGION(p + len, m->buf_len - m->data_off - len);
    }
    rte_mbuf* const head = segs[0].m;
    head->nb_segs = uint16_t(n_seg), head->pkt_len = uint32_t(model.size());
    const auto honest_bytes = [&] {
        for (const Seg& g : segs)
            if (g.len != 0 && std::memcmp(g.data, model.data() + g.start, g.len) != 0) return false;
        return true;
    };

    for (int lying = 1; lying >= 0; --lying) {
        if (lying) {
            for (uint32_t i = 0; i < n_lie; ++i) {
                const auto [kind, a, b] = lies[i];
                Seg& g = segs[a % n_seg];
                switch (kind % 4) {
                    case 0: {  // nb_segs off by 1..3, or 0
                        const int d = b % 7 - 3;
                        head->nb_segs = d == 0 ? 0 : uint16_t(std::max(0, int(n_seg) + d));
                        break;
                    }
                    case 1:  // pkt_len larger or smaller
                        head->pkt_len = uint32_t(
                            std::max<int64_t>(0, int64_t(model.size()) + int16_t(a | b << 8)));
                        break;
                    case 2:  // buf_len below data_off + data_len (when there is room)
                        g.m->buf_len =
                            uint16_t(std::max(0, g.m->data_off + g.m->data_len - 1 - b % 64));
                        break;
                    default:  // a link back to the head, an earlier segment or itself
                        g.m->next = segs[b % (a % n_seg + 1)].m;
                        break;
                }
            }
        } else {  // the lies taken back
            for (uint32_t i = 0; i < n_seg; ++i) {
                segs[i].m->buf_len = segs[i].buf_len;
                segs[i].m->next = i + 1 < n_seg ? segs[i + 1].m : nullptr;
            }
            head->nb_segs = uint16_t(n_seg), head->pkt_len = uint32_t(model.size());
        }
        const View v = view_of(segs);
        fuzz::Cursor k(calls.data(), calls.size());
        for (uint32_t i = 0; i < n_call; ++i) {
            const uint8_t kind = k.u8() % 9, arg = k.u8();
            const uint32_t off = k.u16() % (model.size() + 16), len = k.u16() % (model.size() + 16);
            const uint64_t end = uint64_t{off} + len;
            const std::array<uint8_t, 10> tx = {k.u8(), k.u8(), k.u8(), k.u8(), k.u8(),
                                                k.u8(), k.u8(), k.u8(), k.u8(), k.u8()};
            std::vector<uint8_t> want;  // the bytes the descriptors give, if they hold the range
            if (end <= v.at.size())
                for (uint32_t j = off; j < end; ++j) want.push_back(model[v.at[j]]);
            static std::array<uint8_t, 1 << 16> buf;
            const uint32_t init = arg * 0x01010101u;
            bool ok = false, same = true;
            const char* name = "";
            switch (kind) {
                case 0:
                case 1: {  // crc32c_mbuf_checked, csum_crc32c_mbuf
                    uint32_t crc = init;
                    ok = kind == 0 ? crc32c_mbuf_checked(head, off, len, &crc) == 0
                                   : csum_crc32c_mbuf(head, off, len, &crc) == 0;
                    name = kind == 0 ? "crc32c_mbuf_checked" : "csum_crc32c_mbuf";
                    same = !ok || want.size() != len || crc == ref_crc(want.data(), len, init);
                    break;
                }
                case 2:
                case 3: {  // raw_cksum_mbuf, csum_inet_mbuf
                    uint16_t sum = 0;
                    ok = kind == 2 ? raw_cksum_mbuf(head, off, len, &sum) == 0
                                   : csum_inet_mbuf(head, off, len, &sum) == 0;
                    name = kind == 2 ? "raw_cksum_mbuf" : "csum_inet_mbuf";
                    same = !ok || want.size() != len || sum == canon(ref_sum(want.data(), len));
                    break;
                }
                case 4: {
                    uint32_t sum = init;
                    ok = partial_sum_mbuf(head, off, len, &sum) == 0, name = "partial_sum_mbuf";
                    same = !ok || want.size() != len ||
                           canon(sum) == canon(ref_sum(want.data(), len) + init);
                    break;
                }
                case 5: {
                    const auto* p = static_cast<const uint8_t*>(read_bytes(head, off, len, buf));
                    ok = p != nullptr, name = "read_bytes";
                    same = !ok || want.size() != len || len == 0 ||
                           std::memcmp(p, want.data(), len) == 0;
                    break;
                }
                case 6: {
                    for (uint32_t j = 0; j < len; ++j) buf[j] = uint8_t(arg ^ j);
                    ok = write_bytes(head, off, {buf.data(), len}), name = "write_bytes";
                    for (uint32_t j = 0; ok && j < len && end <= v.at.size(); ++j)
                        model[v.at[off + j]] = buf[j];
                    break;
                }
                case 7: {  // verify mode: reads only
                    const uint8_t a4[4] = {10, 0, 0, 1}, b4[4] = {10, 0, 0, 2};
                    const NvmeFlowKey key = arg & 0x80 ? nvme_flow_key_v4(b4, a4, 4420, 40000)
                                                       : nvme_flow_key_v4(a4, b4, 40000, 4420);
                    tracker->feed(key, uint32_t(tx[0] | tx[1] << 8) * 977u, arg & 0x17, head, off,
                                  len, tx[2]);
                    name = "NvmeTracker::feed";
                    break;
                }
                default: {
                    const uint64_t req[] = {RTE_MBUF_F_TX_IP_CKSUM,
                                            RTE_MBUF_F_TX_IPV4,
                                            RTE_MBUF_F_TX_IPV6,
                                            RTE_MBUF_F_TX_OUTER_IP_CKSUM,
                                            RTE_MBUF_F_TX_OUTER_UDP_CKSUM,
                                            RTE_MBUF_F_TX_OUTER_IPV4,
                                            RTE_MBUF_F_TX_OUTER_IPV6};
                    uint64_t f = uint64_t(tx[0] & 3) << 52;  // TX_L4_MASK: none, TCP, SCTP, UDP
                    for (int j = 0; j < 7; ++j) f |= tx[1] >> j & 1 ? req[j] : 0;
                    head->l2_len = off & 0x7F;
                    head->l3_len = tx[3] | (tx[4] & 1) << 8;
                    head->l4_len = tx[5];
                    head->outer_l2_len = tx[6] & 0x7F;
                    head->outer_l3_len = tx[7] | (tx[8] & 1) << 8;
                    uint64_t emulate = (tx[2] | uint64_t{tx[9]} << 16) & kTxEmulatable;
                    if (tx[4] & 0x80)  // the request the frame's headers make
                        f = request_from_frame(model, head), emulate = kTxEmulatable;
                    head->ol_flags = f;
                    TxServed served;
                    csum_tx_error err;
                    name = "tx_emulate";
                    ok = tx_emulate(head, emulate, &served, &err) == 0;
                    if (!ok && head->ol_flags != f)
                        fail(name, off, len, "refused, but ol_flags changed");
                    if (ok)  // checksums written: take the bytes as they are now
                        for (const Seg& g : segs)
                            if (g.len != 0) std::memcpy(model.data() + g.start, g.data, g.len);
                    if (ok && !lying && (tx[4] & 0x80) && !served_right(model, head, served))
                        fail(name, off, len, "a checksum it wrote is wrong");
                    break;
                }
            }
            if (!honest_bytes()) fail(name, off, len, "bytes changed that the call may not change");
            if (kind >= 7) continue;
            if (ok && end > head->pkt_len) fail(name, off, len, "succeeded past pkt_len");
            if (ok && len != 0 && want.size() != len)
                fail(name, off, len, "succeeded past the chain");
            if (ok && len != 0 &&
                std::find(v.shrunk.begin() + off, v.shrunk.begin() + end, 1) !=
                    v.shrunk.begin() + end)
                fail(name, off, len, "succeeded over a segment past its buffer");
            if (!same) fail(name, off, len, "value differs from the reference");
            if (!lying && !ok && end <= model.size())
                fail(name, off, len, "refused on the honest chain");
        }
    }
    for (const Seg& g : segs) ASAN_UNPOISON_MEMORY_REGION(g.m->buf_addr, g.buf_len);
    rte_pktmbuf_free(head);
    fuzz::check_no_leak();
    return 0;
}
