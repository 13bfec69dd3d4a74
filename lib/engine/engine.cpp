#include "csum/engine.h"

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "engine/packet_work.h"
#include "engine/plain_path.h"
#include "engine/tally.h"
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

struct CSUM_LOCAL Engine::Impl {
    EngineConfig cfg;
    EngineStats stats;
    int verdict_off;
    ParseResult pr;  // reused packet to packet: parsing never allocates
    Tally tally;     // this burst's counts
    std::unique_ptr<NvmeTracker> nvme;
    NvmeStatsMirror nvme_published;

    void feed_nvme(rte_mbuf* m, PacketWork& w);
    bool process_one(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf* m);
};

Engine::Engine(const EngineConfig& cfg) : impl_(std::make_unique<Impl>()) {
    impl_->cfg = cfg;
    impl_->verdict_off = verdict_register();
    if (impl_->verdict_off < 0)
        throw std::runtime_error(std::string("verdict dynfield: ") + rte_strerror(rte_errno));
    if (cfg.parser.nvme_ports.n != 0 && cfg.mode != Mode::io) {
        NvmeTrackerConfig nc = cfg.nvme;
        nc.mode = cfg.mode == Mode::fill ? NvmeMode::fill : NvmeMode::verify;
        impl_->nvme = std::make_unique<NvmeTracker>(nc);
    }
}

bool Engine::nvme_stats(NvmeTrackerStats* out) const noexcept {
    if (!impl_->nvme) return false;
    impl_->nvme_published.read(out);
    return true;
}

// Feeds the packet's TCP segment to the NVMe/TCP tracker, if its TCP
// checksum can be trusted, and adds one layer per digest it completed.
void Engine::Impl::feed_nvme(rte_mbuf* m, PacketWork& w) {
    const TcpSegmentInfo& t = pr.tcp;
    const LayerStatus tcp = w.status[t.layer];
    if (tcp != LayerStatus::good && tcp != LayerStatus::skipped && tcp != LayerStatus::partial &&
        tcp != LayerStatus::filled)
        return;  // a corrupted segment must not be judged as NVMe/TCP data
    const NvmeFlowKey key = t.v6 ? nvme_flow_key_v6(t.src.data(), t.dst.data(), t.sport, t.dport)
                                 : nvme_flow_key_v4(t.src.data(), t.dst.data(), t.sport, t.dport);
    const NvmeSegmentResult r =
        nvme->feed(key, t.seq, t.flags, m, t.payload_off, t.payload_len, rte_rdtsc());
    auto add = [&](LayerProto proto, uint16_t n, LayerStatus s) {
        for (uint16_t i = 0; i < n && pr.n < kMaxParsedLayers; ++i) {
            ParsedLayer& l = pr.layer[pr.n];
            l = ParsedLayer{};
            l.proto = proto;
            l.preset = true;
            l.status = s;
            w.status[pr.n++] = s;
        }
    };
    for (auto [proto, c] :
         {std::pair{LayerProto::nvme_hdgst, r.hdgst}, std::pair{LayerProto::nvme_ddgst, r.ddgst}}) {
        add(proto, c.good, LayerStatus::good);
        add(proto, c.bad, LayerStatus::bad);
        add(proto, c.unverifiable, LayerStatus::unverifiable);
        add(proto, c.filled, LayerStatus::filled);
        add(proto, c.unfillable, LayerStatus::unverifiable);
    }
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

// Returns false if the packet is to be dropped.
bool Engine::Impl::process_one(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf* m) {
    if (cfg.plain_fast_path) {
        const PlainOutcome o = process_plain(cfg, rx, tx, m, verdict_of(m, verdict_off), tally);
        if (o != PlainOutcome::not_plain) return o == PlainOutcome::forward;
    }
    parse_packet(m, cfg.parser, &pr);
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

    Tally& t = tally;
    ++t.packets;
    t.bytes += m->pkt_len;
    if (pr.error != ParseError::none) ++t.parse_error[static_cast<int>(pr.error)];
    for (int i = 0; i < pr.n; ++i)
        ++t.layer[static_cast<int>(pr.layer[i].proto)][static_cast<int>(w.status[i])];
    ++t.ip_summed[static_cast<int>(v->ip_summed)];
    if (v->ip_summed == IpSummed::unnecessary) ++t.csum_level[v->csum_level];
    if (drop) ++t.drop[static_cast<int>(bad ? DropReason::bad_checksum : DropReason::malformed)];
    return !drop;
}

uint16_t Engine::process(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf** pkts,
                         uint16_t n) noexcept {
    const uint64_t t0 = rte_rdtsc();
    impl_->tally.clear();
    // In-place partition, stable for the kept packets: any burst size, no
    // scratch array. Dropped packets end up behind them, for the caller.
    uint16_t kept = 0;
    for (uint16_t i = 0; i < n; ++i) {
        rte_mbuf* m = pkts[i];
        if (impl_->process_one(rx, tx, m)) {
            pkts[i] = pkts[kept];
            pkts[kept++] = m;
        }
    }
    impl_->tally.flush_into(impl_->stats);
    if (impl_->nvme) impl_->nvme_published.publish(impl_->nvme->stats());
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
