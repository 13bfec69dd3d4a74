#include "csum/engine.h"

#include <emmintrin.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/lean_outcomes.h"
#include "engine/lean_path.h"
#include "engine/lean_tunnel.h"
#include "engine/packet_work.h"
#include "engine/tally.h"
#include "parse/classify_same.h"
#include "parse/parser.h"

namespace csum {

// The tracker's plain counters, published once per burst as relaxed atomics
// so that a stats thread reads whole values while the worker runs.
class NvmeStatsMirror {
  public:
    static_assert(sizeof(NvmeTrackerStats) % sizeof(uint64_t) == 0);
    static constexpr size_t kWords = sizeof(NvmeTrackerStats) / sizeof(uint64_t);
    void publish(const NvmeTrackerStats& s) noexcept {
        uint64_t w[kWords];
        std::memcpy(w, &s, sizeof w);
        for (size_t i = 0; i < kWords; ++i) words_[i].store(w[i], std::memory_order_relaxed);
    }
    void read(NvmeTrackerStats* out) const noexcept {
        uint64_t w[kWords];
        for (size_t i = 0; i < kWords; ++i) w[i] = words_[i].load(std::memory_order_relaxed);
        std::memcpy(out, w, sizeof w);
    }

  private:
    std::atomic<uint64_t> words_[kWords] = {};
};

namespace {
// Any digest count nonzero: the two count blocks (20 bytes) in three loads.
bool has_digests(const NvmeSegmentResult& r) {
    static_assert(offsetof(NvmeSegmentResult, hdgst) == 0 &&
                  offsetof(NvmeSegmentResult, ddgst) == sizeof(NvmeDigestCounts) &&
                  sizeof(NvmeDigestCounts) == 10);
    uint64_t a, b;
    uint32_t c;
    std::memcpy(&a, &r, 8);
    std::memcpy(&b, reinterpret_cast<const char*>(&r) + 8, 8);
    std::memcpy(&c, reinterpret_cast<const char*>(&r) + 16, 4);
    return (a | b | c) != 0;
}
}  // namespace

struct CSUM_LOCAL Engine::Impl {
    EngineConfig cfg;
    std::unique_ptr<ShapeConfig> shapes;  // cfg.parser with its port filters
    EngineStats stats;
    int verdict_off;
    ParseResult pr;  // reused packet to packet: parsing never allocates
    Tally tally;     // this burst's counts (walker packets, and the lean path's byte counts)
    LeanOutcomes lean_outcomes;      // this burst's lean packets, by outcome
    TunnelOutcomes tunnel_outcomes;  // ... and its lean tunnel packets
    std::unique_ptr<NvmeTracker> nvme;
    NvmeStatsMirror nvme_published;
    bool nvme_fed = false;   // the tracker saw a segment this burst: publish its stats
    uint64_t burst_tsc = 0;  // the burst's start: the tracker's clock (idle timeouts)

    void feed_nvme(rte_mbuf* m, PacketWork& w);
    [[gnu::always_inline]] NvmeSegmentResult feed_nvme_shape(rte_mbuf* m, const PacketShape& s,
                                                             LayerStatus l4);
    // Lean NVMe/TCP segments whose checksums and digests are all good: the
    // verdict per (IPv6, good HDGSTs, good DDGSTs), written once, and this
    // burst's counts, flushed with the lean outcomes.
    struct NvmeGood {
        PacketVerdict v;
        bool ready = false;
        uint32_t n = 0;
        uint64_t bytes = 0;
    };
    NvmeGood nvme_good[2][4][4];
    uint32_t nvme_good_used = 0;  // bit v6 * 16 + HDGSTs * 4 + DDGSTs: flushed per burst
    void flush_nvme_good();
    bool lean_nvme_verdict(const RxPortPolicy& rx, rte_mbuf* m, const PacketShape& s,
                           const LeanOutcome& o, const NvmeSegmentResult& r);
    bool process_one(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf* m, bool classified);
    // The lean path's work and verdict for one classified packet; false: drop it.
    template <Mode kMode>
    [[gnu::always_inline]] bool lean_one(const RxPortPolicy& rx, const LeanBurst& b, rte_mbuf* m,
                                         PacketShape s, KnownSum known = {}) {
        const LeanOutcome o = lean_work<kMode>(b, m, s, tally, known);
        if (kMode == Mode::verify && s.nvme) {
            // Segments inside PDU data complete no digest: the plain verdict.
            const NvmeSegmentResult r = feed_nvme_shape(m, s, o.l4);
            if (has_digests(r)) return lean_nvme_verdict(rx, m, s, o, r);
        }
        const PacketVerdict& v = LeanOutcomes::all_good(s, o)
                                     ? lean_outcomes.good(s)
                                     : lean_outcomes.record(b, s, o, s.pkt_len);
        std::memcpy(verdict_of(m, verdict_off), &v, sizeof(PacketVerdict));
        return !o.drop;
    }
    uint16_t good_run(const RxPortPolicy& rx, rte_mbuf** pkts, uint16_t i, uint16_t n,
                      uint16_t* kept, uint64_t* sum_bytes, bool* shaped, KnownSum* known);
    // The shape key of the last GOOD-flags linear run (-1: none yet).
    int last_good_key = -1;
    // same_good_run for shape key k (-1 or SCTP: takes none).
    unsigned same_good_dispatch(int k, rte_mbuf** pkts, unsigned i, unsigned n, unsigned kept,
                                const PacketVerdict* v, uint64_t* bytes) {
        const bool ports = shapes->tcp_ports;
        switch (k) {
            case 0:
                return ports ? same_good_run<false, false, true>(pkts, i, n, kept, v, bytes)
                             : same_good_run<false, false, false>(pkts, i, n, kept, v, bytes);
            case 1:
                return same_good_run<false, true, false>(pkts, i, n, kept, v, bytes);
            case 3:
                return ports ? same_good_run<true, false, true>(pkts, i, n, kept, v, bytes)
                             : same_good_run<true, false, false>(pkts, i, n, kept, v, bytes);
            case 4:
                return same_good_run<true, true, false>(pkts, i, n, kept, v, bytes);
            default:
                return i;
        }
    }
    // The rest of a GOOD-flags run of linear packets of one plain shape
    // (kPorts: the config has special TCP ports to test).
    template <bool kV6, bool kUdp, bool kPorts>
    [[gnu::noinline]] unsigned same_good_run(rte_mbuf** pkts, unsigned i, unsigned n, unsigned kept,
                                             const PacketVerdict* v, uint64_t* bytes);
    template <bool kFlags, bool kChains>
    uint16_t good_run_as(const RxPortPolicy& rx, rte_mbuf** pkts, uint16_t first, uint16_t n,
                         uint16_t* kept, uint64_t* sum_bytes, bool* shaped, KnownSum* known);
    template <Mode kMode>
    bool not_plain(const RxPortPolicy& rx, const TxPortPolicy& tx, const LeanBurst& b, rte_mbuf* m,
                   bool lean);
    // Mostly tunnels in the last burst: this one tries the tunnel classifier
    // first (tunnel_burst). A per-burst choice: the plain loop has no test.
    bool tunnel_first = false;
    uint16_t burst_tunnels = 0;  // lean tunnel packets this burst
    template <Mode kMode>
    uint16_t run_burst(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf** pkts, uint16_t n);
    template <Mode kMode>
    uint16_t tunnel_burst(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf** pkts,
                          uint16_t n);
    uint16_t tunnel_good_run(rte_mbuf** pkts, uint16_t i, uint16_t n, uint16_t* kept);
};

Engine::Engine(const EngineConfig& cfg) : impl_(std::make_unique<Impl>()) {
    impl_->cfg = cfg;
    impl_->shapes = std::make_unique<ShapeConfig>(impl_->cfg.parser);
    impl_->lean_outcomes.bind(&impl_->stats);
    impl_->verdict_off = verdict_register();
    if (impl_->verdict_off < 0)
        throw std::runtime_error(std::string("verdict dynfield: ") + rte_strerror(rte_errno));
    if (cfg.parser.nvme_ports.n != 0 && cfg.mode != Mode::io) {
        NvmeTrackerConfig nc = cfg.nvme;
        nc.mode = cfg.mode == Mode::fill ? NvmeMode::fill : NvmeMode::verify;
        impl_->nvme = std::make_unique<NvmeTracker>(nc);
        // Verify mode feeds the tracker from the lean path's shape.
        impl_->shapes->nvme_shapes = cfg.mode == Mode::verify && cfg.plain_fast_path;
    }
}

bool Engine::nvme_stats(NvmeTrackerStats* out) const noexcept {
    if (!impl_->nvme) return false;
    impl_->nvme_published.read(out);
    return true;
}

namespace {

uint32_t be32_at(const uint8_t* p) {
    return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

}  // namespace

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

// The lean path's feed (verify mode, untrusted port): the key, sequence
// number and payload straight from the classified headers, no walker.
inline NvmeSegmentResult Engine::Impl::feed_nvme_shape(rte_mbuf* m, const PacketShape& s,
                                                       LayerStatus l4) {
    nvme_fed = true;
    if (l4 != LayerStatus::good && l4 != LayerStatus::partial) return {};  // as feed_nvme
    const uint8_t* ip = s.bytes + s.l3_off;
    const uint8_t* th = s.bytes + s.l4_off;
    const auto sport = static_cast<uint16_t>(th[0] << 8 | th[1]);
    const auto dport = static_cast<uint16_t>(th[2] << 8 | th[3]);
    // As nvme_flow_key_v4/v6 build it, without the call, in the 16/16/8-byte
    // stores the tracker's key compare loads: narrower stores under a wider
    // load stall it until they retire (store forwarding fails).
    NvmeFlowKey key;
    __m128i src, dst;
    if (s.v6) {
        src = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ip + 8));
        dst = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ip + 24));
    } else {
        uint32_t a, b;
        std::memcpy(&a, ip + 12, 4);
        std::memcpy(&b, ip + 16, 4);
        src = _mm_cvtsi32_si128(static_cast<int>(a));
        dst = _mm_cvtsi32_si128(static_cast<int>(b));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(key.src_addr), src);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(key.dst_addr), dst);
    const uint64_t tail = sport | uint64_t{dport} << 16 | uint64_t{s.v6 ? 6u : 4u} << 32;
    static_assert(offsetof(NvmeFlowKey, src_port) == 32 && sizeof(NvmeFlowKey) == 40);
    std::memcpy(&key.src_port, &tail, 8);
    return nvme->feed(key, be32_at(th + 4), th[13], m, uint32_t{s.l4_off} + s.l4_hdr,
                      s.l4_len - s.l4_hdr, burst_tsc);
}

void Engine::Impl::flush_nvme_good() {
    for (uint32_t used = nvme_good_used; used != 0; used &= used - 1) {
        NvmeGood& g = (&nvme_good[0][0][0])[__builtin_ctz(used)];
        count_stored_verdict(stats, g.v, g.n, g.bytes, -1);
        g.n = 0, g.bytes = 0;
    }
    nvme_good_used = 0;
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

Engine::~Engine() = default;

const EngineStats& Engine::stats() const noexcept {
    return impl_->stats;
}
const EngineConfig& Engine::config() const noexcept {
    return impl_->cfg;
}
int Engine::verdict_field() const noexcept {
    return impl_->verdict_off;
}

// The general path: the walker's parse, then per-layer work. Returns false if
// the packet is to be dropped. `classified`: classify() already said no.
bool Engine::Impl::process_one(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf* m,
                               bool classified) {
    if (cfg.plain_fast_path && !classified)
        parse_packet(m, cfg.parser, &pr);
    else
        parse_packet_walker(m, cfg.parser, &pr);
    PacketWork w(m, pr, tally);
    PacketVerdict* v = verdict_of(m, verdict_off);
    const Mode mode = cfg.mode;
    if (rx.trusted) {
        w.skip_all();  // trust stands in for verification: UNNECESSARY
        ++tally.skipped_trusted;
    } else if (mode == Mode::verify || mode == Mode::csum) {
        w.verify(rx, v);
    } else {
        for (int i = 0; i < pr.n; ++i)
            w.status[i] = pr.layer[i].preset ? pr.layer[i].status : LayerStatus::skipped;
    }
    if (nvme && pr.tcp.present) feed_nvme(m, w);
    bool bad = false, malformed = pr.error != ParseError::none;
    for (int i = 0; i < pr.n; ++i) {
        bad |= w.status[i] == LayerStatus::bad || w.status[i] == LayerStatus::illegal;
        malformed |= w.status[i] == LayerStatus::malformed;
    }
    const bool drop = rx.drop_bad && (bad || malformed);
    if (!drop && (mode == Mode::fill || mode == Mode::csum)) w.fill(tx, mode == Mode::fill);
    w.write_verdict(v);
    tally.count(
        *v, pr.n,
        [&](int i) {
            return VerdictLayer{pr.layer[i].proto, w.status[i], 0, 0};
        },
        m->pkt_len,
        drop ? static_cast<int>(bad ? DropReason::bad_checksum : DropReason::malformed) : -1);
    return !drop;
}

// The run of packets that are all good: of a common shape, every checksum
// right by GOOD flags, by the fused sums or by SCTP's CRC. Only the verdict
// copy and two counts per packet; returns at the first packet it cannot
// settle, for the general loop, with *shaped saying whether it has a common
// shape. One loop per source of the verdict (the PMD's flags, or our sums)
// and per layout (linear, or chains that may need a gather), chosen by the
// run's first packet: a port's packets mostly come one way, and each loop
// keeps its few values (the shape too) in registers.
uint16_t Engine::Impl::good_run(const RxPortPolicy& rx, rte_mbuf** pkts, uint16_t i, uint16_t n,
                                uint16_t* kept_io, uint64_t* sum_bytes, bool* shaped,
                                KnownSum* known) {
    constexpr uint64_t kRxFlags = RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK;
    const rte_mbuf* m = pkts[i];
    const bool flags = (m->ol_flags & kRxFlags) != 0, chains = m->next != nullptr;
    if (flags)
        return chains ? good_run_as<true, true>(rx, pkts, i, n, kept_io, sum_bytes, shaped, known)
                      : good_run_as<true, false>(rx, pkts, i, n, kept_io, sum_bytes, shaped, known);
    return chains ? good_run_as<false, true>(rx, pkts, i, n, kept_io, sum_bytes, shaped, known)
                  : good_run_as<false, false>(rx, pkts, i, n, kept_io, sum_bytes, shaped, known);
}

template <bool kFlags, bool kChains>
[[gnu::noinline]] uint16_t Engine::Impl::good_run_as(const RxPortPolicy& rx, rte_mbuf** pkts,
                                                     uint16_t first, uint16_t n, uint16_t* kept_io,
                                                     uint64_t* sum_bytes, bool* shaped,
                                                     KnownSum* known) {
    constexpr uint64_t kRxFlags = RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK;
    constexpr unsigned kAhead = 3;
    const ShapeConfig& sc = *shapes;
    const int voff = verdict_off;
    unsigned kept = *kept_io, i = first;
    uint64_t summed = 0, crc_bytes = 0;
    // This run's counts of its current shape; added to the outcomes when
    // the shape changes and at the end.
    int key = -1;
    uint32_t key_n = 0;
    uint64_t key_bytes = 0;
    const PacketVerdict* verdict = nullptr;
    *shaped = false;
    if constexpr (kFlags && !kChains) {
        // Most bursts go on with the last run's shape: no classify for their first packet.
        if (last_good_key >= 0) {
            const int k = last_good_key;
            const PacketVerdict* v = &lean_outcomes.good_verdict(k);
            const unsigned e = same_good_dispatch(k, pkts, i, n, kept, v, &key_bytes);
            if (e != i) key = k, verdict = v, key_n = e - i, kept += e - i, i = e;
        }
    }
    for (; i < n; ++i) {
        if (i + kAhead < n) {
            rte_mbuf* a = pkts[i + kAhead];
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + voff);
        }
        rte_mbuf* m = pkts[i];
        alignas(16) uint8_t gather[kHeaderGather];
        PacketShape s;
        if (kChains) {
            if (!classify(m, sc, gather, &s)) break;
        } else if (uint8_t* p = linear_bytes(m)) {
            // No gather in this loop: it would take the registers of the whole loop.
            const uint32_t len = m->pkt_len;
            s.bytes = s.in_place = p, s.held = s.pkt_len = len, s.whole = true;
            if (!classify_headers(m, sc, p, len, len, &s)) break;
        } else {
            *shaped = true;  // a chain: the general loop classifies it
            break;
        }
        const uint64_t f = m->ol_flags;
        KnownSum k;  // this packet's only
        bool good;
        if (kFlags) {
            // UNKNOWN is not GOOD; IPv6 has no header checksum.
            good = (f & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD &&
                   (s.v6 || (f & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD);
        } else if ((f & kRxFlags) != 0) {
            good = false;  // the PMD has a say: the general loop reads its flags
        } else if (s.proto == kShapeSctp) {
            good = lean_detail::sctp_good(m, s.bytes, s.held, s.v6, s.l4_off, s.l4_len, &summed,
                                          &crc_bytes);
        } else {
            good = lean_detail::sums_good(m, s, &summed, &k);
        }
        if (s.nvme && good) {
            // Fed here, not by the general loop: a second classify and a
            // restart of the run per segment cost more than the tracker.
            const NvmeSegmentResult r = feed_nvme_shape(m, s, LayerStatus::good);
            if (has_digests(r)) {
                const LeanOutcome o{LayerStatus::good, LayerStatus::good, false};
                if (lean_nvme_verdict(rx, m, s, o, r)) {
                    if (kept != i) pkts[i] = pkts[kept], pkts[kept] = m;
                    ++kept;
                }
                continue;
            }
        }
        if (!good) {
            *shaped = true;
            *known = k;
            break;
        }
        const int sk = LeanOutcomes::good_key(s);
        if (sk != key) {
            if (key_n != 0) lean_outcomes.add_good(key, key_n, key_bytes);
            key = sk, key_n = 0, key_bytes = 0;
            verdict = &lean_outcomes.good_verdict(sk);
        }
        ++key_n;
        key_bytes += s.pkt_len;
        std::memcpy(verdict_of(m, voff), verdict, sizeof(PacketVerdict));
        if (kept != i) pkts[i] = pkts[kept], pkts[kept] = m;
        ++kept;
        if constexpr (kFlags && !kChains) {
            // The run's shape is known: the next packets only need to match it.
            // It stops at the first that does not; the loop above takes that one.
            const unsigned j = i + 1;
            const unsigned e = same_good_dispatch(key, pkts, j, n, kept, verdict, &key_bytes);
            last_good_key = key;
            key_n += e - j, kept += e - j;  // every packet it took is kept
            i = e - 1;
        }
    }
    if (key_n != 0) lean_outcomes.add_good(key, key_n, key_bytes);
    *kept_io = static_cast<uint16_t>(kept);
    *sum_bytes += summed;
    tally.crc_bytes += crc_bytes;
    return static_cast<uint16_t>(i);
}

// Returns the first packet it did not take; the packets before it are all
// kept (at kept.., in order), their bytes added to *bytes.
template <bool kV6, bool kUdp, bool kPorts>
unsigned Engine::Impl::same_good_run(rte_mbuf** pkts, unsigned i, unsigned n, unsigned kept,
                                     const PacketVerdict* v, uint64_t* bytes) {
    // UNKNOWN is not GOOD; IPv6 has no header checksum.
    constexpr uint64_t kMask =
        RTE_MBUF_F_RX_L4_CKSUM_MASK | (kV6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_MASK);
    constexpr uint64_t kGood =
        RTE_MBUF_F_RX_L4_CKSUM_GOOD | (kV6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD);
    constexpr unsigned kAhead = 3;
    const ShapeConfig& sc = *shapes;
    const long voff = verdict_off;
    // Packets dropped before this run would need moving up: rare, left to good_run_as.
    if (kept != i) return i;
    // The verdict in registers: a 16- and a 4-byte store per packet.
    const __m128i v16 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v));
    uint32_t v4;
    std::memcpy(&v4, reinterpret_cast<const char*>(v) + 16, 4);
    // nb_segs == 1 and the flags in one masked compare of the mbuf's bytes 16..31.
    static_assert(offsetof(rte_mbuf, nb_segs) == 20 && offsetof(rte_mbuf, ol_flags) == 24);
    const __m128i seg_mask = _mm_set_epi64x(int64_t(kMask), int64_t(0xFFFFull << 32));
    const __m128i seg_good = _mm_set_epi64x(int64_t(kGood), int64_t(1ull << 32));
    uint64_t sum = 0;
    auto take = [&sum, &sc, voff, v16, v4, seg_mask, seg_good](rte_mbuf* m) [[gnu::always_inline]] {
        const __m128i w =
            _mm_load_si128(reinterpret_cast<const __m128i*>(reinterpret_cast<const char*>(m) + 16));
        const __m128i d = _mm_xor_si128(_mm_and_si128(w, seg_mask), seg_good);
        const uint32_t len = m->pkt_len;
        if (m->next != nullptr || !_mm_testz_si128(d, d) || m->data_len < len ||
            !same_plain_shape<kV6, kUdp, kPorts>(sc, rte_pktmbuf_mtod(m, const uint8_t*), len))
            return false;
        sum += len;
        char* v = reinterpret_cast<char*>(m) + voff;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(v), v16);
        std::memcpy(v + 16, &v4, 4);
        return true;
    };
    rte_mbuf** p = pkts + i;
    rte_mbuf** const end = pkts + n;
    // Two loops: the first prefetches without a bound test per packet.
    if (n - i > kAhead)
        for (rte_mbuf** const last = end - kAhead; p != last; ++p) {
            rte_mbuf* a = p[kAhead];
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + voff);
            if (!take(*p)) goto out;
        }
    for (; p != end; ++p)
        if (!take(*p)) break;
out:
    *bytes += sum;
    return static_cast<unsigned>(p - pkts);
}

// A packet the plain classifier did not take: the lean tunnel path if it
// has a tunnel shape, else the walker. Out of the burst loop, which keeps
// its registers for plain packets. Returns false if it is to be dropped.
template <Mode kMode>
[[gnu::noinline]] bool Engine::Impl::not_plain(const RxPortPolicy& rx, const TxPortPolicy& tx,
                                               const LeanBurst& b, rte_mbuf* m, bool lean) {
    const int r =
        lean ? lean_tunnel_packet<kMode>(b, m, *shapes, verdict_off, tally, tunnel_outcomes)
             : kTunnelNone;
    if (r == kTunnelNone) return process_one(rx, tx, m, lean);
    ++burst_tunnels;
    return r == kTunnelKeep;
}

// good_run for tunnels: the run of tunnel shapes whose checksums are all
// good (tunnel_all_good), each with the verdict copy and its group's counts.
// Returns at the first packet it cannot settle, for tunnel_burst's loop.
[[gnu::noinline]] uint16_t Engine::Impl::tunnel_good_run(rte_mbuf** pkts, uint16_t i, uint16_t n,
                                                         uint16_t* kept_io) {
    constexpr uint16_t kAhead = 3;
    const ShapeConfig& sc = *shapes;
    const int voff = verdict_off;
    uint16_t kept = *kept_io, tunnels = 0;
    uint64_t summed = 0;
    for (; i < n; ++i) {
        const uint16_t ahead = i + kAhead < n ? i + kAhead : n - 1;
        rte_prefetch0(rte_pktmbuf_mtod(pkts[ahead], void*));
        rte_prefetch0(reinterpret_cast<char*>(pkts[ahead]) + voff);
        rte_mbuf* m = pkts[i];
        // The common shape at its fixed offsets, inline; any other out of line.
        TunnelShape s;
        uint32_t key;
        const bool good = classify_common_tunnel(m, sc, &s)
                              ? tunnel_all_good(m, s, &summed, &key)
                              : any_tunnel_all_good(m, sc, &summed, &key);
        if (!good) break;
        tunnel_outcomes.record(key, m->pkt_len, verdict_of(m, voff), tally);
        ++tunnels;
        if (kept != i) pkts[i] = pkts[kept], pkts[kept] = m;
        ++kept;
    }
    *kept_io = kept;
    burst_tunnels += tunnels;
    tally.sum_bytes += summed;
    return i;
}

// A burst after one of mostly tunnels: the tunnel classifier first for
// every packet (its shapes and the plain ones are disjoint, so the order
// changes no outcome, only which classifier fails); any other packet goes
// through run_burst alone, so that the plain loop's code stays as it is.
template <Mode kMode>
[[gnu::noinline]] uint16_t Engine::Impl::tunnel_burst(const RxPortPolicy& rx,
                                                      const TxPortPolicy& tx, rte_mbuf** pkts,
                                                      uint16_t n) {
    const bool lean = cfg.plain_fast_path && !rx.complete_in_verdict;
    const LeanBurst b = make_lean_burst(rx, tx);
    const bool fast = (kMode == Mode::verify || kMode == Mode::csum) && lean && !b.trusted &&
                      b.verify_ip && b.verify_l4[0] && b.verify_l4[1];
    constexpr uint16_t kAhead = 3;
    for (uint16_t i = 0; i < n && i < kAhead; ++i) rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    uint16_t kept = 0;
    for (uint16_t i = 0; i < n; ++i) {
        if (fast) {
            i = tunnel_good_run(pkts, i, n, &kept);
            if (i == n) break;
        }
        if (i + kAhead < n) {
            rte_prefetch0(rte_pktmbuf_mtod(pkts[i + kAhead], void*));
            rte_prefetch0(reinterpret_cast<char*>(pkts[i + kAhead]) + verdict_off);
        }
        rte_mbuf* m = pkts[i];
        const int r =
            lean ? lean_tunnel_packet<kMode>(b, m, *shapes, verdict_off, tally, tunnel_outcomes)
                 : kTunnelNone;
        bool keep;
        if (r != kTunnelNone) {
            keep = r == kTunnelKeep;
            ++burst_tunnels;
        } else {
            keep = run_burst<kMode>(rx, tx, pkts + i, 1) == 1;  // plain, or the walker's
        }
        if (keep) {
            pkts[i] = pkts[kept];
            pkts[kept++] = m;
        }
    }
    return kept;
}

template <Mode kMode>
[[gnu::noinline, gnu::noclone]] uint16_t Engine::Impl::run_burst(const RxPortPolicy& rx,
                                                                 const TxPortPolicy& tx,
                                                                 rte_mbuf** pkts, uint16_t n) {
    // Per burst, not per packet: whether the lean path may run, and the
    // port pair's policy in the form it wants.
    const bool lean = cfg.plain_fast_path && !rx.complete_in_verdict;
    const LeanBurst b = make_lean_burst(rx, tx);
    const bool full =
        !b.trusted && b.verify_ip && b.verify_l4[0] && b.verify_l4[1] && b.verify_l4[2];
    // Verify and csum modes alike leave an all-good packet as it is.
    const bool fast = (kMode == Mode::verify || kMode == Mode::csum) && full && lean;
    uint64_t sum_bytes = 0;  // the fast tests', added to the tally once
    const int voff = verdict_off;
    const ShapeConfig& sc = *shapes;
    constexpr uint16_t kAhead = 3;
    for (uint16_t i = 0; i < n && i < kAhead; ++i) rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    // In-place partition, stable for the kept packets: any burst size, no
    // scratch array. Dropped packets end up behind them, for the caller.
    uint16_t kept = 0;
    for (uint16_t i = 0; i < n; ++i) {
        alignas(16) uint8_t gather[kHeaderGather];
        PacketShape s;
        bool shaped;
        KnownSum known;  // the L4 sum good_run took of the packet it stopped at
        if (fast) {
            i = good_run(rx, pkts, i, n, &kept, &sum_bytes, &shaped, &known);
            if (i == n) break;
            // Classified again, the same way: copying the shape out of
            // good_run would cost every packet, this only the stopped ones.
            if (shaped) shaped = classify(pkts[i], sc, gather, &s);
        } else {
            shaped = lean && classify(pkts[i], sc, gather, &s);
        }
        if (i + kAhead < n) {
            rte_prefetch0(rte_pktmbuf_mtod(pkts[i + kAhead], void*));
            rte_prefetch0(reinterpret_cast<char*>(pkts[i + kAhead]) + voff);
        }
        rte_mbuf* m = pkts[i];
        // NVMe/TCP shapes arise only in verify mode; a trusted port's go
        // to the walker (trust is counted there).
        bool keep;
        if (!shaped)
            keep = not_plain<kMode>(rx, tx, b, m, lean);  // a tunnel, or the walker's
        else if (!s.nvme || !b.trusted)
            keep = lean_one<kMode>(rx, b, m, s, known);
        else
            keep = process_one(rx, tx, m, lean);
        if (keep) {
            pkts[i] = pkts[kept];
            pkts[kept++] = m;
        }
    }
    tally.sum_bytes += sum_bytes;
    return kept;
}

uint16_t Engine::process(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf** pkts,
                         uint16_t n) noexcept {
    const uint64_t t0 = rte_rdtsc();
    Impl& d = *impl_;
    d.burst_tsc = t0;
    d.tally.clear();
    uint16_t kept;
    switch (d.cfg.mode) {
        case Mode::verify:
            kept = d.tunnel_first ? d.tunnel_burst<Mode::verify>(rx, tx, pkts, n)
                                  : d.run_burst<Mode::verify>(rx, tx, pkts, n);
            break;
        case Mode::csum:
            kept = d.tunnel_first ? d.tunnel_burst<Mode::csum>(rx, tx, pkts, n)
                                  : d.run_burst<Mode::csum>(rx, tx, pkts, n);
            break;
        case Mode::fill:
            kept = d.tunnel_first ? d.tunnel_burst<Mode::fill>(rx, tx, pkts, n)
                                  : d.run_burst<Mode::fill>(rx, tx, pkts, n);
            break;
        default:
            kept = d.tunnel_first ? d.tunnel_burst<Mode::io>(rx, tx, pkts, n)
                                  : d.run_burst<Mode::io>(rx, tx, pkts, n);
            break;
    }
    d.tally.flush_into(d.stats);
    d.lean_outcomes.flush_into(d.stats);
    d.tunnel_outcomes.flush_into(d.stats);
    d.tunnel_first = 2u * d.burst_tunnels > n;
    d.burst_tunnels = 0;
    if (d.nvme_good_used != 0) d.flush_nvme_good();
    if (d.nvme_fed) d.nvme_published.publish(d.nvme->stats()), d.nvme_fed = false;
    impl_->stats.work_tsc.add(rte_rdtsc() - t0);
    return kept;
}

std::string_view to_string(DropReason r) noexcept {
    switch (r) {
        case DropReason::bad_checksum:
            return "bad_checksum";
        case DropReason::malformed:
            return "malformed";
        case DropReason::count:
            break;
    }
    return "?";
}

std::string_view to_string(Mode m) noexcept {
    switch (m) {
        case Mode::io:
            return "io";
        case Mode::verify:
            return "verify";
        case Mode::fill:
            return "fill";
        case Mode::csum:
            return "csum";
    }
    return "?";
}

}  // namespace csum
