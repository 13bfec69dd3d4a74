// NvmeTracker: flow life (SYN, FIN, RST, idle, eviction) around the streams.
#include <cstring>

#include <smmintrin.h>

#include <rte_mbuf.h>

#include "mbuf/segment_read.h"

#include "csum/nvme_tcp.h"
#include "nvme_tcp/data_run.h"
#include "nvme_tcp/flow_table.h"
#include "nvme_tcp/stream.h"

namespace csum {

using nvme::Conn;
using nvme::Phase;

struct CSUM_LOCAL NvmeTracker::Impl {
    NvmeTrackerConfig cfg;
    nvme::FlowTable table;
    NvmeTrackerStats st;
    NvmePduLog* log = nullptr;
    // Segments come in bursts of one flow: remember the last lookup.
    Conn* last = nullptr;
    uint8_t last_dir = 0;
    NvmeFlowKey last_key{};

    explicit Impl(const NvmeTrackerConfig& c)
        : cfg(c), table(c.capacity, reinterpret_cast<uintptr_t>(this) * 0x9e3779b97f4a7c15ULL) {}

    bool idle(const Conn& c, uint64_t now) const {
        return cfg.idle_timeout_tsc != 0 && now - c.last_tsc > cfg.idle_timeout_tsc;
    }
    void drop(Conn* c) {
        if (c == last) last = nullptr;
        table.remove(c);
        --st.flows_active;
    }
    // The LRU tail is the least recently used: if it isn't idle, none is.
    size_t expire_some(uint64_t now, size_t max) {
        if (cfg.idle_timeout_tsc == 0) return 0;
        size_t n = 0;
        for (Conn* c = table.oldest(); c != nullptr && n < max && idle(*c, now);
             c = table.oldest()) {
            drop(c);
            ++st.idle_expired;
            ++n;
        }
        return n;
    }
    // Loads of 16, 16 and 8 bytes, no branch per word. The engine writes a
    // key in stores of these widths, so the loads forward from them.
    static bool same_key(const NvmeFlowKey& a, const NvmeFlowKey& b) {
        const auto* pa = reinterpret_cast<const __m128i*>(&a);
        const auto* pb = reinterpret_cast<const __m128i*>(&b);
        const __m128i d =
            _mm_or_si128(_mm_xor_si128(_mm_loadu_si128(pa), _mm_loadu_si128(pb)),
                         _mm_xor_si128(_mm_loadu_si128(pa + 1), _mm_loadu_si128(pb + 1)));
        uint64_t x, y;
        std::memcpy(&x, &a.src_port, 8);
        std::memcpy(&y, &b.src_port, 8);
        return _mm_testz_si128(d, d) && x == y;
    }
    Conn* lookup(const NvmeFlowKey& key, uint32_t* h, uint8_t* dir) {
        if (last != nullptr && same_key(key, last_key)) {
            *dir = last_dir;
            return last;
        }
        *h = table.hash(key);
        Conn* c = table.find(key, *h, dir);
        if (c != nullptr) remember(key, c, *dir);
        return c;
    }
    void remember(const NvmeFlowKey& key, Conn* c, uint8_t dir) {
        last = c;
        last_dir = dir;
        last_key = key;
    }
    // Payload of the last flow, no SYN/FIN/RST, beyond the data fast path:
    // straight to its stream, no lookup (c was just touched).
    __attribute__((noinline)) NvmeSegmentResult feed_stream(Conn& c, uint32_t seq, rte_mbuf* m,
                                                            uint32_t payload_off,
                                                            uint32_t payload_len, uint64_t now);
    // Everything but the common case (NvmeTracker::feed).
    __attribute__((noinline)) NvmeSegmentResult feed_general(const NvmeFlowKey& key, uint32_t seq,
                                                             uint8_t flags, rte_mbuf* m,
                                                             uint32_t payload_off,
                                                             uint32_t payload_len, uint64_t now);
};

namespace {
// Descriptors are untrusted: the payload's bytes lie in segments that keep
// their data in their buffers, within the head's nb_segs segments.
bool payload_sound(const rte_mbuf* m, uint32_t off, uint32_t len) {
    if (m->next == nullptr) return off + len <= m->data_len && segment_in_buffer(m);
    return range_in_buffers(m, off, len);
}
}  // namespace

NvmeTracker::NvmeTracker(const NvmeTrackerConfig& cfg) : impl_(std::make_unique<Impl>(cfg)) {}
NvmeTracker::~NvmeTracker() = default;

NvmeSegmentResult NvmeTracker::feed(const NvmeFlowKey& key, uint32_t seq, uint8_t flags,
                                    rte_mbuf* m, uint32_t payload_off, uint32_t payload_len,
                                    uint64_t now) noexcept {
    Impl& t = *impl_;
    if (m != nullptr && payload_len > 0 && payload_off < m->pkt_len &&
        !payload_sound(m, payload_off, std::min(payload_len, m->pkt_len - payload_off))) {
        ++t.st.refused_segments;
        NvmeSegmentResult r;
        r.refused = true;
        return r;
    }
    // The common case: in-order bytes of the last flow that lie wholly
    // inside a trusted PDU's data only extend its data digest.
    Conn* c = t.last;
    if (c != nullptr && (flags & (kTcpSyn | kTcpFin | kTcpRst)) == 0 && m != nullptr &&
        payload_len > 0 && payload_off < m->pkt_len && payload_len <= m->pkt_len - payload_off &&
        Impl::same_key(key, t.last_key) && !t.idle(*c, now)) {
        t.table.touch(c, now);
        if (!nvme::stream_feed_data_fast(c->dir[t.last_dir], m, payload_off, payload_len, seq))
            return t.feed_stream(*c, seq, m, payload_off, payload_len, now);
        t.st.bytes += payload_len;
        c->stats.bytes += payload_len;
        if (t.cfg.idle_timeout_tsc != 0) t.expire_some(now, 2);  // never c: just touched
        return {};
    }
    return t.feed_general(key, seq, flags, m, payload_off, payload_len, now);
}

NvmeSegmentResult NvmeTracker::Impl::feed_stream(Conn& c, uint32_t seq, rte_mbuf* m,
                                                 uint32_t payload_off, uint32_t payload_len,
                                                 uint64_t now) {
    expire_some(now, 2);  // never c: just touched, and not idle
    NvmeSegmentResult r;
    nvme::StreamCtx ctx{&c.neg, cfg.max_plen, cfg.mode, cfg.resync_confirm, last_dir, &r,
                        &st,    &c.stats,     log};
    nvme::stream_feed(c.dir[last_dir], ctx, m, payload_off, payload_len, seq);
    return r;
}

NvmeSegmentResult NvmeTracker::Impl::feed_general(const NvmeFlowKey& key, uint32_t seq,
                                                  uint8_t flags, rte_mbuf* m, uint32_t payload_off,
                                                  uint32_t payload_len, uint64_t now) {
    Impl& t = *this;
    NvmeSegmentResult r;
    t.expire_some(now, 2);

    // Never trust the caller's length past the packet.
    if (m == nullptr || payload_off >= m->pkt_len)
        payload_len = 0;
    else if (payload_len > m->pkt_len - payload_off)
        payload_len = m->pkt_len - payload_off;

    const bool syn = flags & kTcpSyn, fin = flags & kTcpFin, rst = flags & kTcpRst;
    uint32_t h = 0;
    uint8_t dir = 0;
    Conn* c = t.lookup(key, &h, &dir);
    if (c != nullptr && t.idle(*c, now)) {
        t.drop(c);
        ++t.st.idle_expired;
        c = nullptr;
    }
    if (c == nullptr) {
        // Only a SYN or payload starts tracking; FIN/RST of an unknown flow end nothing.
        if (rst || fin || (payload_len == 0 && !syn)) {
            r.untracked = true;
            return r;
        }
        if (t.table.full()) {
            t.drop(t.table.oldest());
            ++t.st.evictions;
        }
        h = t.table.hash(key);
        c = t.table.insert(key, h, now);
        dir = 0;
        t.remember(key, c, 0);
        ++t.st.flows_created;
        ++t.st.flows_active;
    } else {
        t.table.touch(c, now);
    }

    nvme::Stream& s = c->dir[dir];
    if (syn) {
        // A new SYN on a live connection is a new connection (port reuse);
        // a retransmitted SYN changes nothing.
        const bool dup = s.have_isn && s.isn == seq;
        if (!dup) {
            if (!(flags & kTcpAck)) {
                c->neg = nvme::Negotiation{};
                c->dir[1 - dir] = nvme::Stream{};
            }
            nvme::stream_start(s, seq + 1);
        }
        seq += 1;  // SYN occupies one sequence number
    }

    // Fill mode writes only digests, so the data fast path serves it too;
    // it changes no counter but the byte counts.
    if (payload_len > 0 && nvme::stream_feed_data_fast(s, m, payload_off, payload_len, seq)) {
        t.st.bytes += payload_len;
        c->stats.bytes += payload_len;
    } else {
        if (payload_len > 0) {
            nvme::StreamCtx ctx{&c->neg, t.cfg.max_plen, t.cfg.mode, t.cfg.resync_confirm, dir, &r,
                                &t.st,   &c->stats,      t.log};
            nvme::stream_feed(s, ctx, m, payload_off, payload_len, seq);
        }
    }

    if (rst) {
        ++t.st.rst_closed;
        t.drop(c);
        r.flow_ended = true;
    } else if (fin) {
        s.phase = Phase::closed;
        if (c->dir[1 - dir].phase == Phase::closed) {
            ++t.st.fin_closed;
            t.drop(c);
            r.flow_ended = true;
        }
    }
    return r;
}

nvme::DataRun nvme::TrackerAccess::open(NvmeTracker& tr, uint64_t now) noexcept {
    NvmeTracker::Impl& t = *tr.impl_;
    DataRun r;
    Conn* c = t.last;
    if (c == nullptr || t.idle(*c, now) || t.cfg.mode != NvmeMode::verify) return r;
    Stream& s = c->dir[t.last_dir];
    if (s.phase != Phase::sync || !s.trusted) return r;
    const NvmeFlowKey& k = t.last_key;
    r.v6 = k.family == 6;
    if (r.v6) {
        std::memcpy(r.addr, k.src_addr, 16);
        std::memcpy(r.addr + 16, k.dst_addr, 16);
    } else {
        std::memcpy(r.addr, k.src_addr, 4);
        std::memcpy(r.addr + 4, k.dst_addr, 4);
    }
    const uint8_t p[4] = {uint8_t(k.src_port >> 8), uint8_t(k.src_port), uint8_t(k.dst_port >> 8),
                          uint8_t(k.dst_port)};
    std::memcpy(&r.ports, p, 4);
    t.table.touch(c, now);
    r.s = &s;
    r.conn = c;
    r.fast = t.log == nullptr;
    r.neg = &c->neg;
    r.max_plen = t.cfg.max_plen;
    return r;
}

NvmeSegmentResult nvme::TrackerAccess::feed_boundary(NvmeTracker& tr, const DataRun& r, rte_mbuf* m,
                                                     uint32_t seq, uint32_t payload_off,
                                                     uint32_t payload_len, uint64_t now) noexcept {
    // feed_stream, one call shallower: the run's boundary segments take
    // stream_feed_boundary's straight line.
    NvmeTracker::Impl& t = *tr.impl_;
    Conn& c = *static_cast<Conn*>(r.conn);
    t.expire_some(now, 2);  // never c: touched, and not idle
    NvmeSegmentResult res;
    nvme::StreamCtx ctx{&c.neg, t.cfg.max_plen, t.cfg.mode, t.cfg.resync_confirm, t.last_dir, &res,
                        &t.st,  &c.stats,       t.log};
    nvme::Stream& s = c.dir[t.last_dir];
    if (!nvme::stream_feed_boundary(s, ctx, m, payload_off, payload_len, seq))
        nvme::stream_feed(s, ctx, m, payload_off, payload_len, seq);
    return res;
}

void nvme::TrackerAccess::close(NvmeTracker& tr, const DataRun& r, uint64_t now) noexcept {
    NvmeTracker::Impl& t = *tr.impl_;
    if (r.s == nullptr || r.segs == 0) return;
    NvmeConnStats& cs = static_cast<Conn*>(r.conn)->stats;
    t.st.bytes += r.bytes;
    cs.bytes += r.bytes;
    if (r.pdus != 0) {  // boundary(): each PDU with a good DDGST
        t.st.pdus += r.pdus, cs.pdus += r.pdus;
        t.st.ddgst_good += r.pdus, cs.ddgst_good += r.pdus;
        t.st.hdgst_good += r.hd_good, cs.hdgst_good += r.hd_good;
    }
    if (t.cfg.idle_timeout_tsc != 0) t.expire_some(now, 2 * size_t{r.segs});  // never c: touched
}

size_t NvmeTracker::expire(uint64_t now) noexcept {
    return impl_->expire_some(now, SIZE_MAX);
}

const NvmeTrackerStats& NvmeTracker::stats() const noexcept {
    return impl_->st;
}

const NvmeConnStats* NvmeTracker::conn_stats(const NvmeFlowKey& key) const noexcept {
    uint8_t dir;
    const Conn* c = impl_->table.find(key, &dir);
    return c == nullptr ? nullptr : &c->stats;
}

size_t NvmeTracker::snapshot(std::span<NvmeConnInfo> out) const noexcept {
    size_t n = 0;
    impl_->table.for_each([&](const Conn& c) {
        if (n == out.size()) return;
        out[n++] = NvmeConnInfo{c.key, c.stats, c.neg.hd == nvme::Tri::on,
                                c.neg.dd == nvme::Tri::on, c.neg.from_ic};
    });
    return n;
}

void NvmeTracker::set_pdu_log(NvmePduLog* log) noexcept {
    impl_->log = log;
}

NvmeFlowKey nvme_flow_key_v4(const void* src4, const void* dst4, uint16_t sport, uint16_t dport) {
    NvmeFlowKey k{};
    std::memcpy(k.src_addr, src4, 4);
    std::memcpy(k.dst_addr, dst4, 4);
    k.src_port = sport;
    k.dst_port = dport;
    k.family = 4;
    return k;
}

NvmeFlowKey nvme_flow_key_v6(const void* src16, const void* dst16, uint16_t sport, uint16_t dport) {
    NvmeFlowKey k{};
    std::memcpy(k.src_addr, src16, 16);
    std::memcpy(k.dst_addr, dst16, 16);
    k.src_port = sport;
    k.dst_port = dport;
    k.family = 6;
    return k;
}

std::string_view to_string(NvmeDesyncReason r) noexcept {
    switch (r) {
        case NvmeDesyncReason::none:
            return "none";
        case NvmeDesyncReason::unknown_type:
            return "unknown_type";
        case NvmeDesyncReason::hlen_mismatch:
            return "hlen_mismatch";
        case NvmeDesyncReason::plen_lt_hlen:
            return "plen_lt_hlen";
        case NvmeDesyncReason::plen_too_big:
            return "plen_too_big";
        case NvmeDesyncReason::plen_invalid:
            return "plen_invalid";
        case NvmeDesyncReason::pdo_invalid:
            return "pdo_invalid";
        case NvmeDesyncReason::digest_flags:
            return "digest_flags";
        case NvmeDesyncReason::gap:
            return "gap";
        case NvmeDesyncReason::count:
            break;
    }
    return "?";
}

}  // namespace csum
