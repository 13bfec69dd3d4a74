#include "csum/engine.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "dispatch/select.h"
#include "engine/engine_impl.h"

namespace csum {

namespace {

// The PMD flagged a checksum of the packet BAD: no all-good run takes it.
[[gnu::always_inline]] inline bool rx_flags_bad(const rte_mbuf* m) {
    const uint64_t f = m->ol_flags;
    return (f & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_BAD ||
           (f & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_BAD ||
           (f & RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK) == RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD ||
           (f & RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD) != 0;
}

}  // namespace

Engine::Engine(const EngineConfig& cfg) : impl_(std::make_unique<Impl>()) {
    impl_->cfg = cfg;
    detail::choose_kernel_plans();  // not by the first packet that needs one
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
// A packet the plain classifier did not take: the lean tunnel path if it
// has a tunnel shape (lean), else the walker. Returns the tunnel path's
// answer (kTunnelNone: the walker's), *keep whether m stays, *key the
// tunnel's outcome key.
template <Mode kMode>
[[gnu::always_inline]] inline int Engine::Impl::tunnel_or_walker(const RxPortPolicy& rx,
                                                                 const TxPortPolicy& tx,
                                                                 const LeanBurst& b, rte_mbuf* m,
                                                                 bool lean, uint32_t* key,
                                                                 bool* keep) {
    const int r =
        lean ? lean_tunnel_packet<kMode>(b, m, *shapes, verdict_off, tally, tunnel_outcomes, key)
             : kTunnelNone;
    if (r == kTunnelNone) {
        *keep = process_one(rx, tx, m, lean);
    } else {
        ++burst_tunnels;
        *keep = r == kTunnelKeep;
    }
    return r;
}
// tunnel_or_walker out of the burst loop, which keeps its registers for
// plain packets. Returns false if m is to be dropped.
template <Mode kMode>
[[gnu::noinline]] bool Engine::Impl::not_plain(const RxPortPolicy& rx, const TxPortPolicy& tx,
                                               const LeanBurst& b, rte_mbuf* m, bool lean) {
    uint32_t key;
    bool keep;
    tunnel_or_walker<kMode>(rx, tx, b, m, lean, &key, &keep);
    return keep;
}
// Fill mode's not_plain for pkts[i], kept or not as the per-packet loop
// keeps it; a tunnel it fills starts its kind's fill template, and the
// packets after it go to the fill runs (tunnel_fill_start; a plain packet
// they stop at leads to the mixed fill run, which takes both). Returns the
// next packet.
[[gnu::noinline]] unsigned Engine::Impl::fill_not_plain(const RxPortPolicy& rx,
                                                        const TxPortPolicy& tx, const LeanBurst& b,
                                                        rte_mbuf** pkts, unsigned i, unsigned n,
                                                        uint16_t* kept) {
    rte_mbuf* m = pkts[i];
    uint32_t key = 0;
    bool keep;
    const int r = tunnel_or_walker<Mode::fill>(rx, tx, b, m, true, &key, &keep);
    if (keep) pkts[i] = pkts[*kept], pkts[(*kept)++] = m;
    if (r == kTunnelKeep && i + 1 < n && tunnel_fill_key(key))
        return tunnel_fill_start(m, key, pkts, i + 1, n, kept);
    return i + 1;
}
// A burst after one of mostly tunnels: the tunnel classifier first for
// every packet (its shapes and the plain ones are disjoint, so the order
// changes no outcome, only which classifier fails); any other packet goes
// through run_burst alone, so that the plain loop's code stays as it is.
template <Mode kMode>
[[gnu::noinline]] uint16_t Engine::Impl::tunnel_burst_rest(const RxPortPolicy& rx,
                                                           const TxPortPolicy& tx, rte_mbuf** pkts,
                                                           uint16_t n) {
    const bool lean = cfg.plain_fast_path && !rx.complete_in_verdict;
    const LeanBurst b = make_lean_burst(rx, tx);
    const bool fast = (kMode == Mode::verify || kMode == Mode::csum) && lean && !b.trusted &&
                      b.verify_ip && b.verify_l4[0] && b.verify_l4[1];
    // The plain runs verify SCTP too: only where the port asks for it.
    const bool plain_too = fast && b.verify_l4[2];
    // Fill mode: the plain shapes whose fields this TX port leaves to software.
    const uint32_t fill_keys = kMode == Mode::fill && lean ? fill_sw_keys(b.tx_offloads) : 0;
    constexpr uint16_t kAhead = 3;
    for (uint16_t i = 0; i < n && i < kAhead; ++i) rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    uint16_t kept = 0;
    run_parts::BadStreak streak;
    for (uint16_t i = 0; i < n; ++i) {
        KnownSum known;  // of a plain packet the mixed run stopped at
        if (fast && streak.run_next() && !rx_flags_bad(pkts[i])) {
            const uint16_t from = i;
            i = tunnel_good_run(pkts, i, n, &kept);
            if (i == n) break;
            // Plain packets among the tunnels: the plain mixed run.
            if (plain_too) i = plain_among_tunnels(pkts, i, n, &kept, &known);
            if (i == n) break;
            streak.run_took(from, i);
        }
        if (i + kAhead < n) {
            rte_prefetch0(rte_pktmbuf_mtod(pkts[i + kAhead], void*));
            rte_prefetch0(reinterpret_cast<char*>(pkts[i + kAhead]) + verdict_off);
        }
        if (kMode == Mode::fill && lean) {
            // Its kind's last fill template first (inner shapes that
            // alternate); a plain packet: the mixed fill run (tunnels too).
            unsigned e = tunnel_fill_cached(pkts, i, n, &kept, b.trusted);
            if (e == i && run_parts::mixed_may_take(pkts[i], fill_keys, shapes->udp_hit))
                e = mixed_fill(fill_keys, pkts, i, n, &kept, b.trusted);
            if (e != i) {
                i = static_cast<uint16_t>(e - 1);
                continue;
            }
        }
        rte_mbuf* m = pkts[i];
        uint32_t key = 0;
        const int r = lean ? lean_tunnel_packet<kMode>(b, m, *shapes, verdict_off, tally,
                                                       tunnel_outcomes, &key)
                           : kTunnelNone;
        bool keep;
        if (r != kTunnelNone) {
            keep = r == kTunnelKeep;
            ++burst_tunnels;
            streak.after(TunnelOutcomes::key_all_good(key));
        } else {
            // Plain, or the walker's: straight to the lean path (an all-good
            // run of one packet costs more), a malformed one bad in a row.
            keep = run_burst<kMode>(rx, tx, pkts + i, 1, &known) == 1;
            streak.after(verdict_of(m, verdict_off)->error == 0);
        }
        if (keep) {
            pkts[i] = pkts[kept];
            pkts[kept++] = m;
        }
        // A tunnel the lean path filled: the packets after it of its shape
        // go to the tunnel fill run.
        if (kMode == Mode::fill && r == kTunnelKeep && i + 1 < n && tunnel_fill_key(key))
            i = static_cast<uint16_t>(tunnel_fill_start(m, key, pkts, i + 1u, n, &kept) - 1);
    }
    return kept;
}

template <Mode kMode>
[[gnu::noinline, gnu::noclone]] uint16_t Engine::Impl::run_burst(const RxPortPolicy& rx,
                                                                 const TxPortPolicy& tx,
                                                                 rte_mbuf** pkts, uint16_t n,
                                                                 const KnownSum* first_bad) {
    // Per burst, not per packet: whether the lean path may run, and the
    // port pair's policy in the form it wants.
    const bool lean = cfg.plain_fast_path && !rx.complete_in_verdict;
    const LeanBurst b = make_lean_burst(rx, tx);
    const bool full =
        !b.trusted && b.verify_ip && b.verify_l4[0] && b.verify_l4[1] && b.verify_l4[2];
    // Verify and csum modes alike leave an all-good packet as it is.
    const bool fast = (kMode == Mode::verify || kMode == Mode::csum) && full && lean;
    // Fill mode: the shapes whose fields this TX port leaves to software.
    const uint32_t fill_keys = kMode == Mode::fill && lean ? fill_sw_keys(b.tx_offloads) : 0;
    uint64_t sum_bytes = 0;  // the fast tests', added to the tally once
    const int voff = verdict_off;
    const ShapeConfig& sc = *shapes;
    constexpr uint16_t kAhead = 3;
    for (uint16_t i = 0; i < n && i < kAhead; ++i) rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    // In-place partition, stable for the kept packets: any burst size, no
    // scratch array. Dropped packets end up behind them, for the caller.
    uint16_t kept = 0;
    // A first packet known bad goes to the lean path (run_parts::BadStreak).
    run_parts::BadStreak streak(first_bad == nullptr);
    for (uint16_t i = 0; i < n; ++i) {
        alignas(16) uint8_t gather[kHeaderGather];
        PacketShape s;
        bool shaped;
        KnownSum known;  // the L4 sum good_run took of the packet it stopped at
        if (fast && streak.run_next() && !rx_flags_bad(pkts[i])) {
            const uint16_t from = i;
            i = good_run(rx, pkts, i, n, &kept, &sum_bytes, &shaped, &known);
            if (i == n) break;
            streak.run_took(from, i);
            // Classified again, the same way: copying the shape out of
            // good_run would cost every packet, this only the stopped ones.
            if (shaped) {
                shaped = classify(pkts[i], sc, gather, &s);
            } else if (const int t = tunnel_among_plain<kMode>(b, pkts[i]); t != kTunnelNone) {
                // The mixed run takes the next ones of its shape.
                rte_mbuf* m = pkts[i];
                if (t == kTunnelKeep) {
                    pkts[i] = pkts[kept];
                    pkts[kept++] = m;
                }
                streak.after(verdict_of(m, voff)->error == 0);
                continue;
            }
        } else {
            shaped = lean && classify(pkts[i], sc, gather, &s);
            if (i == 0 && first_bad != nullptr) known = *first_bad;  // never summed twice
        }
        if (i + kAhead < n) {
            rte_prefetch0(rte_pktmbuf_mtod(pkts[i + kAhead], void*));
            rte_prefetch0(reinterpret_cast<char*>(pkts[i + kAhead]) + voff);
        }
        rte_mbuf* m = pkts[i];
        // NVMe/TCP shapes arise only in verify mode; a trusted port's go
        // to the walker (trust is counted there).
        bool keep;
        if (kMode == Mode::fill && !shaped && lean) {
            i = static_cast<uint16_t>(fill_not_plain(rx, tx, b, pkts, i, n, &kept) - 1);
            continue;
        }
        if (!shaped) {
            keep = not_plain<kMode>(rx, tx, b, m, lean);  // a tunnel, or the walker's
            // A malformed one counts as bad in a row (a flood of them).
            streak.after(verdict_of(m, voff)->error == 0);
        } else if (!s.nvme || !b.trusted) {
            bool good;
            keep = lean_one<kMode>(rx, b, m, s, known, &good);
            streak.after(good);
        } else {
            keep = process_one(rx, tx, m, lean);
            streak.reset();
        }
        if (keep) {
            pkts[i] = pkts[kept];
            pkts[kept++] = m;
        }
        // A linear packet or chain the lean path filled in software (fill
        // never drops one): the packets after it of its shape go to the fill runs.
        if (kMode == Mode::fill && shaped && ((s.whole && s.in_place != nullptr) || m->next) &&
            ((fill_keys >> LeanOutcomes::good_key(s)) & 1))
            i = static_cast<uint16_t>(
                fill_runs(LeanOutcomes::good_key(s), fill_keys, pkts, i + 1u, n, &kept, b.trusted) -
                1);
    }
    tally.sum_bytes += sum_bytes;
    return kept;
}
// For same_then_rest (good_run.cpp).
template uint16_t Engine::Impl::run_burst<Mode::verify>(const RxPortPolicy&, const TxPortPolicy&,
                                                        rte_mbuf**, uint16_t, const KnownSum*);
template uint16_t Engine::Impl::run_burst<Mode::csum>(const RxPortPolicy&, const TxPortPolicy&,
                                                      rte_mbuf**, uint16_t, const KnownSum*);

void Engine::Impl::flush_nvme_good() {
    for (uint32_t used = nvme_good_used; used != 0; used &= used - 1) {
        NvmeGood& g = (&nvme_good[0][0][0])[__builtin_ctz(used)];
        count_stored_verdict(stats, g.v, g.n, g.bytes, -1);
        g.n = 0, g.bytes = 0;
    }
    nvme_good_used = 0;
}

[[gnu::noinline]] uint16_t Engine::Impl::fill_mode_burst(const RxPortPolicy& rx,
                                                         const TxPortPolicy& tx, rte_mbuf** pkts,
                                                         uint16_t n) {
    return tunnel_first ? tunnel_burst<Mode::fill>(rx, tx, pkts, n)
                        : plain_burst<Mode::fill>(rx, tx, pkts, n);
}

uint16_t Engine::process(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf** pkts,
                         uint16_t n) noexcept {
    Impl& d = *impl_;
    const bool timed = d.untimed_pkts >= Impl::kWorkSamplePackets || d.bursts_all_timed != 0;
    const uint64_t t0 = timed ? rte_rdtsc() : 0;
    d.burst_tsc.start(t0);  // the tracker's clock: t0, or read on its first use
    d.tally.clear();
    d.burst_n = n;
    uint16_t kept;
    switch (d.cfg.mode) {
        case Mode::verify:
            kept = d.tunnel_first ? d.tunnel_burst<Mode::verify>(rx, tx, pkts, n)
                                  : d.plain_burst<Mode::verify>(rx, tx, pkts, n);
            break;
        case Mode::csum:
            kept = d.tunnel_first ? d.tunnel_burst<Mode::csum>(rx, tx, pkts, n)
                                  : d.plain_burst<Mode::csum>(rx, tx, pkts, n);
            break;
        case Mode::fill:
            kept = d.fill_mode_burst(rx, tx, pkts, n);
            break;
        default:
            kept = d.tunnel_first ? d.tunnel_burst<Mode::io>(rx, tx, pkts, n)
                                  : d.plain_burst<Mode::io>(rx, tx, pkts, n);
            break;
    }
    d.tally.flush_into(d.stats);
    d.lean_outcomes.flush_into(d.stats);
    d.tunnel_outcomes.flush_into(d.stats);
    d.tunnel_first = 2u * d.burst_tunnels > n;
    d.burst_tunnels = 0;
    if (d.nvme_good_used != 0) d.flush_nvme_good();
    if (d.nvme_fed) d.nvme_published.publish(d.nvme->stats()), d.nvme_fed = false;
    if (timed) {
        uint64_t dt = rte_rdtsc() - t0;
        if (n != 0) dt += dt * d.untimed_pkts / n, d.untimed_pkts = 0;
        d.stats.work_tsc.add(dt);
    } else {
        d.untimed_pkts += n;
    }
    if (d.bursts_all_timed != 0) --d.bursts_all_timed;
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
