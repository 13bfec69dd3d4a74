#include "nvme_tcp/pdu_builder.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "csum/crc32c.h"
#include "support/mbuf_helpers.h"

namespace csum::test {
namespace {

void put_le32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

Pdu make_pdu(uint8_t type, uint8_t hlen, bool hd, bool dd, std::span<const uint8_t> specific,
             std::span<const uint8_t> data, uint8_t pad, uint8_t extra_flags) {
    Pdu p;
    p.type = type;
    p.hd = hd;
    p.dd = dd && !data.empty();
    const uint32_t hdr_end = hlen + (hd ? 4 : 0);
    const uint32_t pdo = data.empty() ? 0 : hdr_end + pad;
    const uint32_t plen = data.empty() ? hdr_end : pdo + uint32_t(data.size()) + (p.dd ? 4 : 0);
    p.bytes.assign(plen, 0);
    uint8_t* b = p.bytes.data();
    b[0] = type;
    b[1] = uint8_t((hd ? 0x01 : 0) | (p.dd ? 0x02 : 0) | extra_flags);
    b[2] = hlen;
    b[3] = uint8_t(pdo);
    put_le32(b + 4, plen);
    std::copy_n(specific.begin(), std::min<size_t>(specific.size(), hlen - 8), b + 8);
    if (hd) put_le32(b + hlen, crc32c(b, hlen));
    for (uint32_t i = hdr_end; i < pdo; ++i) b[i] = 0xEE;  // padding is not digested
    if (!data.empty()) {
        std::copy(data.begin(), data.end(), b + pdo);
        if (p.dd) put_le32(b + pdo + data.size(), crc32c(data.data(), data.size()));
    }
    return p;
}

Pdu icreq(uint8_t dgst) {
    uint8_t s[120] = {};
    s[3] = dgst;         // byte 11 of the PDU
    put_le32(s + 4, 4);  // MAXR2T
    return make_pdu(0x00, 128, false, false, s, {});
}

Pdu icresp(uint8_t dgst) {
    uint8_t s[120] = {};
    s[3] = dgst;
    put_le32(s + 4, 131072);  // MAXH2CDATA
    return make_pdu(0x01, 128, false, false, s, {});
}

Pdu capsule_cmd(bool hd, bool dd, std::span<const uint8_t> data, uint8_t pad) {
    uint8_t sqe[64];
    for (int i = 0; i < 64; ++i) sqe[i] = uint8_t(i * 7 + 1);
    sqe[0] = 0x01;  // write
    return make_pdu(0x04, 72, hd, dd, sqe, data, pad);
}

Pdu capsule_resp(bool hd) {
    uint8_t cqe[16] = {1, 2, 3, 4, 0, 0, 0, 0, 5, 0, 1, 0, 0x34, 0x12, 0, 0};
    return make_pdu(0x05, 24, hd, false, cqe, {});
}

static Pdu data_pdu(uint8_t type, bool hd, bool dd, std::span<const uint8_t> data, uint8_t pad) {
    uint8_t s[16] = {0x34, 0x12, 0x01, 0x00};
    put_le32(s + 4, 0);                      // DATAO
    put_le32(s + 8, uint32_t(data.size()));  // DATAL
    return make_pdu(type, 24, hd, dd, s, data, pad, 0x04 /* LAST_PDU */);
}

Pdu h2c_data(bool hd, bool dd, std::span<const uint8_t> data, uint8_t pad) {
    return data_pdu(0x06, hd, dd, data, pad);
}
Pdu c2h_data(bool hd, bool dd, std::span<const uint8_t> data, uint8_t pad) {
    return data_pdu(0x07, hd, dd, data, pad);
}

Pdu r2t(bool hd) {
    uint8_t s[16] = {0x34, 0x12, 0x01, 0x00};
    put_le32(s + 8, 8192);  // R2TL
    return make_pdu(0x09, 24, hd, false, s, {});
}

Pdu term_req(bool c2h, std::span<const uint8_t> err) {
    Pdu p;
    p.type = c2h ? 0x03 : 0x02;
    p.bytes.assign(24 + err.size(), 0);
    p.bytes[0] = p.type;
    p.bytes[2] = 24;
    put_le32(p.bytes.data() + 4, uint32_t(p.bytes.size()));
    p.bytes[8] = 0x01;  // FES: invalid PDU header field
    std::copy(err.begin(), err.end(), p.bytes.begin() + 24);
    return p;
}

void corrupt_hdgst(Pdu& p) {
    if (!p.hd) throw std::logic_error("no HDGST");
    p.bytes[p.bytes[2]] ^= 0x10;
    p.hd_ok = false;
}

void corrupt_ddgst(Pdu& p) {
    if (!p.dd) throw std::logic_error("no DDGST");
    p.bytes[p.bytes.size() - 1] ^= 0x01;
    p.dd_ok = false;
}

void zero_digests(Pdu& p) {
    if (p.hd) std::fill_n(p.bytes.begin() + p.bytes[2], 4, 0);
    if (p.dd) std::fill_n(p.bytes.end() - 4, 4, 0);
}

Bytes concat(std::span<const Pdu> pdus) {
    Bytes out;
    for (const Pdu& p : pdus) out.insert(out.end(), p.bytes.begin(), p.bytes.end());
    return out;
}

namespace {
void sum(NvmeDigestCounts& a, const NvmeDigestCounts& b) {
    a.good += b.good;
    a.bad += b.bad;
    a.unverifiable += b.unverifiable;
    a.filled += b.filled;
    a.unfillable += b.unfillable;
}
}  // namespace

void Totals::add(const NvmeSegmentResult& r) {
    add(Totals{r.pdus, r.desyncs, r.resyncs, r.hdgst, r.ddgst});
}

void Totals::add(const Totals& o) {
    pdus += o.pdus;
    desyncs += o.desyncs;
    resyncs += o.resyncs;
    sum(hd, o.hd);
    sum(dd, o.dd);
}

Wire::Wire(NvmeTracker& t, rte_mempool* pool, NvmeFlowKey key, uint32_t isn)
    : t_(t), pool_(pool), key_(key), isn_(isn) {}

NvmeSegmentResult Wire::syn(uint8_t flags, uint64_t now) {
    return t_.feed(key_, isn_, flags, nullptr, 0, 0, now);
}

NvmeSegmentResult Wire::ctl(uint8_t flags, uint64_t now) {
    return t_.feed(key_, isn_ + 1 + base, flags, nullptr, 0, 0, now);
}

rte_mbuf* Wire::build(std::span<const uint8_t> stream, uint32_t from, uint32_t n,
                      unsigned mbuf_segs) {
    Bytes pkt(kHdrRoom, 0xAB);  // stands in for Ethernet/IP/TCP headers
    pkt.insert(pkt.end(), stream.begin() + from, stream.begin() + from + n);
    std::vector<uint32_t> lens;
    if (mbuf_segs <= 1) {
        lens.push_back(uint32_t(pkt.size()));
    } else {
        lens = random_split(uint32_t(pkt.size()), mbuf_segs, rng);
    }
    rte_mbuf* m = make_chain(pool_, pkt, lens);
    if (m == nullptr) throw std::runtime_error("pool dry");
    return m;
}

NvmeSegmentResult Wire::feed_mbuf(rte_mbuf* m, uint32_t from, uint32_t n, uint64_t now) {
    // Stream byte 0 follows the SYN, so its sequence number is isn + 1.
    return t_.feed(key_, isn_ + 1 + base + from, kTcpAck, m, kHdrRoom, n, now);
}

NvmeSegmentResult Wire::send(std::span<const uint8_t> stream, uint32_t from, uint32_t n,
                             unsigned mbuf_segs, uint64_t now) {
    rte_mbuf* m = build(stream, from, n, mbuf_segs);
    NvmeSegmentResult r = feed_mbuf(m, from, n, now);
    rte_pktmbuf_free(m);
    return r;
}

Totals Wire::send_range(std::span<const uint8_t> stream, uint32_t from, uint32_t to, uint32_t seg,
                        unsigned mbuf_segs) {
    Totals tot;
    for (uint32_t off = from; off < to; off += seg)
        tot.add(send(stream, off, std::min<uint32_t>(seg, to - off), mbuf_segs));
    return tot;
}

NvmeFlowKey test_key(uint16_t sport, uint16_t dport) {
    const uint8_t a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};
    return nvme_flow_key_v4(a, b, sport, dport);
}

NvmeFlowKey reverse(const NvmeFlowKey& k) {
    NvmeFlowKey r{};
    std::memcpy(r.src_addr, k.dst_addr, 16);
    std::memcpy(r.dst_addr, k.src_addr, 16);
    r.src_port = k.dst_port;
    r.dst_port = k.src_port;
    r.family = k.family;
    return r;
}

}  // namespace csum::test
