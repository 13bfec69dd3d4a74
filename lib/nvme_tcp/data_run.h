// A run of segments of the tracker's last flow that only extend the current
// PDU's data digest (the data fast path), taken by a caller that checks each
// segment's TCP sum itself: the engine's NVMe run after a segment it fed.
// The caller tests each segment with in_order() and in_data(), feeds its
// payload to s->dcarry and calls took(); close() adds the run's counts where
// feed() would have. A segment that is not in_data() goes to boundary(), and
// if that does not take it, to TrackerAccess::feed_boundary().
#pragma once

#include <cstdint>

#include "csum/nvme_tcp.h"
#include "nvme_tcp/stream.h"

namespace csum::nvme {

struct DataRun {
    Stream* s = nullptr;  // null: the last flow is not in a trusted PDU (no run)
    void* conn = nullptr;
    // The flow's addresses and ports as they lie in the packet (IPv4: the
    // first 8 bytes of addr, source then destination).
    alignas(16) uint8_t addr[32] = {};
    uint32_t ports = 0;  // source and destination port bytes, as on the wire
    bool v6 = false;
    bool fast = false;  // boundary() may take segments (no PDU log to write)
    Negotiation* neg = nullptr;
    uint32_t max_plen = 0;
    uint32_t segs = 0;
    uint64_t bytes = 0;
    uint32_t pdus = 0;     // completed by boundary(), each with a good DDGST
    uint32_t hd_good = 0;  // good HDGSTs boundary() gave

    // The next bytes in order, len > 0, while the stream is in sync on a
    // trusted PDU (a boundary segment fed through the tracker may change that).
    bool in_order(uint32_t seq, uint32_t len) const {
        return seq == s->next_seq && len != 0 && s->phase == Phase::sync && s->trusted;
    }
    // ... and lying strictly inside the data (not its first or last byte):
    // what stream_feed_data_fast takes.
    bool in_data(uint32_t len) const {
        const uint32_t pos = s->pos;
        return pos > s->cur.data_start && pos < s->cur.data_end && len < s->cur.data_end - pos;
    }
    // The segment's payload was fed to s->dcarry (if s->dd_on).
    void took(uint32_t len) {
        s->pos += len;
        s->next_seq += len;
        ++segs;
        bytes += len;
    }
    // An in-order segment (in_order()) that is not in_data(), its len bytes
    // at p in one piece. The common PDU boundary with every digest good: the
    // rest of the current data, a right DDGST, then a data PDU header that
    // passes every rule with a right HDGST (if any), and data that starts
    // in this segment and goes on past it. Then it does what the tracker's feed
    // would (counts added by close()) and returns the HDGSTs it verified
    // (0 or 1). Anything else (a bad or missing digest, another header,
    // a split one, fill mode's PDU log...) returns -1 with nothing changed:
    // the tracker's own path then takes the segment and names what it finds.
    int boundary(const uint8_t* p, uint32_t len, uint32_t seq);
};

[[gnu::always_inline]] inline int DataRun::boundary(const uint8_t* p, uint32_t len, uint32_t seq) {
    Stream& st = *s;
    detail::Crc32cCarry& c = st.dcarry;
    const PduLayout& l = st.cur;
    // The PDU ends here with its data digest carried whole, and its header
    // digest (if any) already judged.
    if (!fast || !st.dd_on || !c.vec || c.short_chain || st.dd_lost || (l.hd != 0 && !st.hd_done))
        return -1;
    const uint32_t rest = c.left;  // dd_on: the data's bytes still to come
    const uint32_t at = rest + kDigestLen;
    if (rest == 0 || rest != l.data_end - st.pos || len <= at || len - at < kCommonHdrLen)
        return -1;
    const uint8_t* h = p + at;
    PduLayout n;
    // A known negotiation (the current PDU's header set it): the header
    // changes nothing in it.
    if (neg->hd == Tri::unknown || neg->dd == Tri::unknown ||
        !check_data_pdu(h, *neg, max_plen, &n))
        return -1;
    // The header, its HDGST, any padding and the data's first bytes lie in
    // this segment; the data goes on past it.
    const uint32_t body = len - at;
    if (n.dd == 0 || body <= n.data_start || body - n.data_start >= n.data_end - n.data_start)
        return -1;
    const uint32_t hcrc = n.hd != 0 ? header_crc(h, n.hlen) : 0;
    if (n.hd != 0 && hcrc != load_le32(h + n.hlen)) return -1;
    if (~detail::crc32c_carry_feed_end_vec(c, p, rest) != load_le32(p + rest)) return -1;
    // Taken: the PDU completes with a good DDGST and the next one begins
    // (begin_pdu), its header checked in place as header_in_place leaves it.
    begin_pdu(st, seq + at);
    std::memcpy(st.dig, n.hd != 0 ? h + n.hlen : p + rest, kDigestLen);
    st.next_seq = seq + len;
    st.pos = body;
    st.cur = n;
    st.hd_done = n.hd != 0;
    st.dd_on = true;
    if (n.hd != 0) st.hd_status = NvmeDigestStatus::good;
    st.hcrc = hcrc;
    detail::crc32c_carry_begin_feed(c, n.data_end - n.data_start, h + n.data_start,
                                    body - n.data_start);
    ++segs;
    bytes += len;
    ++pdus;
    hd_good += n.hd != 0;
    return n.hd != 0;
}

struct TrackerAccess {
    // The last flow's run, if a segment of it could take the data fast path
    // now (trusted, in sync, not idle at `now`); else r.s == nullptr.
    static DataRun open(NvmeTracker& t, uint64_t now) noexcept;
    // A segment of the run that is not in_data() (a PDU boundary), of
    // payload_len > 0 bytes at payload_off in m: what feed() does with it
    // once it knows the flow (the last one, touched, not idle) and that the
    // data fast path does not take it.
    static NvmeSegmentResult feed_boundary(NvmeTracker& t, const DataRun& r, rte_mbuf* m,
                                           uint32_t seq, uint32_t payload_off, uint32_t payload_len,
                                           uint64_t now) noexcept;
    // Adds the run's bytes to the counts and expires idle flows as the
    // segments' feeds would have (two per segment).
    static void close(NvmeTracker& t, const DataRun& r, uint64_t now) noexcept;
};

}  // namespace csum::nvme
