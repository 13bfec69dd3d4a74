// NVMe/TCP: the tracker's feeds and the lean path's digest verdicts.
#include <cstring>
#include <utility>

#include "engine/engine_impl.h"

namespace csum {

// Calls add(proto, n, status) for each kind of digest verdict in r, in the
// order the verdict lists them.
template <class Add>
void for_each_digest(const NvmeSegmentResult& r, Add&& add) {
    for (auto [proto, c] :
         {std::pair{LayerProto::nvme_hdgst, r.hdgst}, std::pair{LayerProto::nvme_ddgst, r.ddgst}}) {
        add(proto, c.good, LayerStatus::good);
        add(proto, c.bad, LayerStatus::bad);
        add(proto, c.unverifiable, LayerStatus::unverifiable);
        add(proto, c.filled, LayerStatus::filled);
        add(proto, c.unfillable, LayerStatus::unverifiable);
    }
}

// Feeds the packet's TCP segment to the NVMe/TCP tracker, if its TCP
// checksum can be trusted, and adds one layer per digest it completed.
void Engine::Impl::feed_nvme(rte_mbuf* m, PacketWork& w) {
    nvme_fed = true;
    const TcpSegmentInfo& t = pr.tcp;
    const LayerStatus tcp = w.status[t.layer];
    // A corrupted segment must not be judged as NVMe/TCP data. A TCP sum
    // skipped on a port's verify list vouches for nothing; one skipped on a
    // trusted port, or in fill mode (which verifies nothing), does.
    const bool vouched = w.trusted || cfg.mode == Mode::fill;
    if (tcp != LayerStatus::good && tcp != LayerStatus::partial && tcp != LayerStatus::filled &&
        !(tcp == LayerStatus::skipped && vouched))
        return;
    const NvmeFlowKey key = t.v6 ? nvme_flow_key_v6(t.src.data(), t.dst.data(), t.sport, t.dport)
                                 : nvme_flow_key_v4(t.src.data(), t.dst.data(), t.sport, t.dport);
    const NvmeSegmentResult r =
        nvme->feed(key, t.seq, t.flags, m, t.payload_off, t.payload_len, burst_tsc);
    // Most segments lie inside PDU data and complete no digest.
    if (!has_digests(r)) return;
    for_each_digest(r, [&](LayerProto proto, uint16_t n, LayerStatus s) {
        for (uint16_t i = 0; i < n && pr.n < kMaxParsedLayers; ++i) {
            ParsedLayer& l = pr.layer[pr.n];
            l = ParsedLayer{};
            l.proto = proto;
            l.preset = true;
            l.status = s;
            w.status[pr.n++] = s;
        }
    });
}
// A lean NVMe/TCP segment that completed digests: the walker's verdict and
// counts for [IPv4,] TCP and one layer per digest, from the statuses at
// hand. Returns false if the packet is to be dropped.
bool Engine::Impl::lean_nvme_verdict(const RxPortPolicy& rx, rte_mbuf* m, const PacketShape& s,
                                     const LeanOutcome& o, const NvmeSegmentResult& r) {
    const NvmeDigestCounts &h = r.hdgst, &d = r.ddgst;
    const bool all_good = o.l4 == LayerStatus::good && (s.v6 || o.ip == LayerStatus::good) &&
                          (h.bad | h.unverifiable | h.filled | h.unfillable | d.bad |
                           d.unverifiable | d.filled | d.unfillable) == 0 &&
                          h.good < 4 && d.good < 4;
    NvmeGood* g = all_good ? &nvme_good[s.v6][h.good][d.good] : nullptr;
    if (g != nullptr && g->ready) {  // the common case: written before
        std::memcpy(verdict_of(m, verdict_off), &g->v, sizeof g->v);
        ++g->n;
        g->bytes += m->pkt_len;
        nvme_good_used |= 1u << (g - &nvme_good[0][0][0]);
        return true;
    }
    VerdictLayer layers[kMaxParsedLayers];
    int n = 0;
    if (!s.v6) layers[n++] = {LayerProto::ipv4, o.ip, s.l3_off, s.l3_off + 10u};
    layers[n++] = {LayerProto::tcp, o.l4, s.l4_off, s.l4_off + 16u};
    bool bad = o.ip == LayerStatus::bad || o.l4 == LayerStatus::bad;
    for_each_digest(r, [&](LayerProto proto, uint16_t k, LayerStatus st) {
        for (uint16_t i = 0; i < k && n < kMaxParsedLayers; ++i) {
            layers[n++] = {proto, st, 0, 0};
            bad |= st == LayerStatus::bad;
        }
    });
    PacketVerdict* v = verdict_of(m, verdict_off);
    const auto at = [&](int i) { return layers[i]; };
    write_verdict(v, n, ParseError::none, false, at);
    if (g != nullptr) {  // keep it for the next ones
        std::memset(&g->v, 0, sizeof g->v);
        write_verdict(&g->v, n, ParseError::none, false, at);
        g->ready = true;
    }
    const bool drop = rx.drop_bad && bad;
    tally.count(*v, n, at, m->pkt_len, drop ? static_cast<int>(DropReason::bad_checksum) : -1);
    return !drop;
}

}  // namespace csum
