#include "stats.h"

#include <cinttypes>
#include <cstdio>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "capture.h"
#include "csum/kernels.h"

namespace csumd {

using csum::LayerProto;
using csum::LayerStatus;

void EngineTotals::add(const csum::EngineStats& s) {
    packets += s.packets.get();
    bytes += s.bytes.get();
    for (int p = 0; p < csum::kLayerProtoCount; ++p)
        for (int k = 0; k < csum::kLayerStatusCount; ++k) layer[p][k] += s.layer[p][k].get();
    for (int i = 0; i < 4; ++i) ip_summed[i] += s.ip_summed[i].get();
    for (int i = 0; i < 8; ++i) csum_level[i] += s.csum_level[i].get();
    for (int i = 0; i < csum::kParseErrorCount; ++i) parse_error[i] += s.parse_error[i].get();
    sw_filled += s.sw_filled.get();
    hw_offloaded += s.hw_offloaded.get();
    skipped_trusted += s.skipped_trusted.get();
    work_tsc += s.work_tsc.get();
    sum_bytes += s.sum_bytes.get();
    crc_bytes += s.crc_bytes.get();
}

void NvmeTotals::add(const csum::NvmeTrackerStats& t) {
    enabled = true;
    s.pdus += t.pdus, s.bytes += t.bytes;
    s.hdgst_good += t.hdgst_good, s.hdgst_bad += t.hdgst_bad,
        s.hdgst_unverifiable += t.hdgst_unverifiable;
    s.ddgst_good += t.ddgst_good, s.ddgst_bad += t.ddgst_bad,
        s.ddgst_unverifiable += t.ddgst_unverifiable;
    s.filled += t.filled, s.unfillable += t.unfillable;
    s.desyncs += t.desyncs, s.resyncs += t.resyncs;
    for (size_t i = 0; i < csum::kNvmeDesyncReasonCount; ++i)
        s.desync_by_reason[i] += t.desync_by_reason[i];
    s.retransmitted_bytes += t.retransmitted_bytes, s.gaps += t.gaps;
    s.refused_segments += t.refused_segments;
    s.flows_created += t.flows_created, s.flows_active += t.flows_active;
    s.evictions += t.evictions, s.idle_expired += t.idle_expired, s.fin_closed += t.fin_closed,
        s.rst_closed += t.rst_closed;
}

uint64_t total_rx(const std::vector<Stream>& streams) {
    uint64_t n = 0;
    for (const auto& s : streams) n += s.stats.rx_packets.get();
    return n;
}

Report collect_report(const StatsView& v, double duration_s) {
    Report r;
    r.duration_s = duration_s;
    r.engine.mode = v.opt->engine.mode;
    for (const auto& p : v.plan->ports) {
        PortTotals t;
        t.port = p->id;
        t.driver = p->driver;
        t.link_changes = p->link_changes.get();
        for (const Stream& s : *v.streams) {
            if (s.rx_port == p->id) {
                t.rx_packets += s.stats.rx_packets.get();
                t.rx_bytes += s.stats.rx_bytes.get();
                t.drop_tx_full += s.stats.drop_tx_full.get();
                t.drop_bad_checksum += s.stats.drop_bad_checksum.get();
                t.drop_malformed += s.stats.drop_malformed.get();
                t.drop_tx_prepare += s.stats.drop_tx_prepare.get();
            }
            if (s.tx_port == p->id) {
                t.tx_packets += s.stats.tx_packets.get();
                t.tx_bytes += s.stats.tx_bytes.get();
            }
        }
        t.drops = t.drop_tx_full + t.drop_bad_checksum + t.drop_malformed + t.drop_tx_prepare;
        rte_eth_stats es{};
        if (rte_eth_stats_get(p->id, &es) == 0) t.rx_missed = es.imissed;
        r.ports.push_back(t);
    }
    for (const Stream& s : *v.streams) {
        const auto& c = s.stats;
        r.queues.push_back({s.rx_port, s.rx_queue, s.lcore, c.rx_packets.get(), c.tx_packets.get(),
                            c.drop_tx_full.get() + c.drop_bad_checksum.get() +
                                c.drop_malformed.get() + c.drop_tx_prepare.get(),
                            c.rx_bursts.get()});
    }
    for (const Worker& w : *v.workers) {
        LcoreTotals l;
        l.lcore = w.lcore;
        l.engine.mode = r.engine.mode;
        for (const Stream* s : w.streams)
            l.rx_packets += s->stats.rx_packets.get(), l.tx_packets += s->stats.tx_packets.get();
        if (w.engine) {
            l.engine.add(w.engine->stats()), r.engine.add(w.engine->stats());
            if (csum::NvmeTrackerStats n; w.engine->nvme_stats(&n)) r.nvme.add(n);
        }
        r.lcores.push_back(l);
    }
    if (v.capture) r.captured = v.capture->written(), r.capture_failed = v.capture->failed();
    return r;
}

void print_banner(const StatsView& v) {
    std::printf("csumd: kernels: %s\n", csum::kernel_choice_summary().c_str());
    std::printf("csumd: mode %s, %zu port(s) x %u RX queue(s), %zu worker lcore(s)\n",
                csum::to_string(v.opt->engine.mode).data(), v.plan->ports.size(), v.plan->rx_queues,
                v.workers->size());
    if (v.opt->burst_bytes != 0)
        std::printf("csumd: bursts of long packets cut to ~%u bytes (--burst-bytes)\n",
                    v.opt->burst_bytes);
    for (const auto& p : v.plan->ports) {
        const uint64_t o = p->tx_policy.offloads;
        const csum::Mode mode = v.opt->engine.mode;
        const bool fills = mode == csum::Mode::fill || mode == csum::Mode::csum;
        std::printf("csumd: port %u (%s)%s -> port %u; bad: %s", p->id, p->driver.c_str(),
                    p->rx_policy.trusted ? " trusted" : "", p->peer,
                    p->bad == BadAction::forward ? "forward"
                    : p->bad == BadAction::drop  ? "drop"
                                                 : "capture");
        if (fills)
            std::printf("; fills checksums in %s%s%s%s%s", o ? "hardware for" : "software",
                        o & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM ? " ipv4" : "",
                        o & RTE_ETH_TX_OFFLOAD_TCP_CKSUM ? " tcp" : "",
                        o & RTE_ETH_TX_OFFLOAD_UDP_CKSUM ? " udp" : "",
                        o & RTE_ETH_TX_OFFLOAD_SCTP_CKSUM ? " sctp" : "");
        std::printf("\n");
    }
    std::fflush(stdout);
}

void print_progress(const StatsView& v, double elapsed, Progress* prev) {
    uint64_t rx = 0, tx = 0, drops = 0, bad = 0, work = 0, pkts = 0;
    for (const Stream& s : *v.streams) {
        rx += s.stats.rx_packets.get();
        tx += s.stats.tx_packets.get();
        drops += s.stats.drop_tx_full.get() + s.stats.drop_bad_checksum.get() +
                 s.stats.drop_malformed.get() + s.stats.drop_tx_prepare.get();
    }
    for (const Worker& w : *v.workers) {
        if (!w.engine) continue;
        const auto& es = w.engine->stats();
        for (int p = 0; p < csum::kLayerProtoCount; ++p)
            bad += es.layer[p][int(LayerStatus::bad)].get();
        work += es.work_tsc.get();
        pkts += es.packets.get();
    }
    const double dt = elapsed - prev->t;
    std::printf("csumd: %7.1f s  rx %8.3f Mpps  tx %8.3f Mpps  rx %" PRIu64 "  tx %" PRIu64
                "  drops %" PRIu64 "  bad %" PRIu64 "  ticks/pkt %.1f\n",
                elapsed, dt > 0 ? double(rx - prev->rx) / dt / 1e6 : 0.0,
                dt > 0 ? double(tx - prev->tx) / dt / 1e6 : 0.0, rx, tx, drops, bad,
                pkts ? double(work) / double(pkts) : 0.0);
    std::fflush(stdout);
    *prev = {elapsed, rx, tx};
}

static void print_engine(const EngineTotals& e) {
    if (e.mode == csum::Mode::io) return;
    std::printf("\n  ---------------- Checksum engine (mode %s) ----------------\n",
                csum::to_string(e.mode).data());
    std::printf("  %-11s", "layer");
    for (int k = 0; k < csum::kLayerStatusCount; ++k)
        std::printf(" %9.9s", csum::to_string(static_cast<LayerStatus>(k)).data());
    std::printf("\n");
    for (int p = 0; p < csum::kLayerProtoCount; ++p) {
        uint64_t any = 0;
        for (int k = 0; k < csum::kLayerStatusCount; ++k) any += e.layer[p][k];
        if (any == 0) continue;
        std::printf("  %-11s", csum::to_string(static_cast<LayerProto>(p)).data());
        for (int k = 0; k < csum::kLayerStatusCount; ++k) std::printf(" %9" PRIu64, e.layer[p][k]);
        std::printf("\n");
    }
    std::printf("  ip_summed: NONE %" PRIu64 "  UNNECESSARY %" PRIu64 "  COMPLETE %" PRIu64
                "  PARTIAL %" PRIu64 "\n",
                e.ip_summed[0], e.ip_summed[1], e.ip_summed[2], e.ip_summed[3]);
    std::printf("  csum_level:");
    for (int i = 0; i < 8; ++i)
        if (e.csum_level[i]) std::printf(" %d:%" PRIu64, i, e.csum_level[i]);
    std::printf("\n");
    bool any_err = false;
    for (int i = 1; i < csum::kParseErrorCount; ++i) {
        if (!e.parse_error[i]) continue;
        std::printf("%s %s %" PRIu64, any_err ? "" : "  errors:",
                    csum::to_string(static_cast<csum::ParseError>(i)).data(), e.parse_error[i]);
        any_err = true;
    }
    if (any_err) std::printf("\n");
    std::printf("  filled in software %" PRIu64 "  offloaded %" PRIu64
                "  skipped (trusted) %" PRIu64 "\n",
                e.sw_filled, e.hw_offloaded, e.skipped_trusted);
    // A short run is mostly its first bursts, whose data and code come
    // cold from memory: say so beside the figure.
    constexpr uint64_t kWarm = 4096;
    if (e.packets)
        std::printf("  checksum work: %.1f TSC ticks/packet over %" PRIu64 " packets%s\n",
                    double(e.work_tsc) / double(e.packets), e.packets,
                    e.packets < kWarm ? " (a short run: mostly cold caches)" : "");
    std::printf("  -----------------------------------------------------------\n");
}

void print_report(const Report& r) {
    uint64_t rx = 0, tx = 0, drops = 0;
    for (const PortTotals& t : r.ports) {
        std::printf(
            "\n  ---------------------- Forward statistics for port %-2u ----------------------\n",
            t.port);
        std::printf("  RX-packets: %-14" PRIu64 " RX-dropped: %-14" PRIu64 " RX-total: %" PRIu64
                    "\n",
                    t.rx_packets, t.rx_missed, t.rx_packets + t.rx_missed);
        std::printf("  TX-packets: %-14" PRIu64 " TX-dropped: %-14" PRIu64 " TX-total: %" PRIu64
                    "\n",
                    t.tx_packets, t.drop_tx_full, t.tx_packets + t.drop_tx_full);
        std::printf("  RX-bytes:   %-14" PRIu64 " TX-bytes:   %" PRIu64 "\n", t.rx_bytes,
                    t.tx_bytes);
        if (t.drop_bad_checksum + t.drop_malformed + t.drop_tx_prepare)
            std::printf("  Dropped: bad-checksum %" PRIu64 "  malformed %" PRIu64
                        "  tx-prepare %" PRIu64 "\n",
                        t.drop_bad_checksum, t.drop_malformed, t.drop_tx_prepare);
        if (t.link_changes) std::printf("  Link changes: %" PRIu64 "\n", t.link_changes);
        std::printf(
            "  ----------------------------------------------------------------------------\n");
        rx += t.rx_packets, tx += t.tx_packets, drops += t.drops;
    }
    std::printf(
        "\n  +++++++++++++++ Accumulated forward statistics for all ports +++++++++++++++\n");
    std::printf("  RX-packets: %-14" PRIu64 " TX-packets: %-14" PRIu64 " drops: %" PRIu64 "\n", rx,
                tx, drops);
    std::printf("  forwarding time: %.3f s\n", r.duration_s);
    std::printf("  ++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++\n");
    print_engine(r.engine);
    if (r.nvme.enabled && r.nvme.s.flows_created) {
        const auto& n = r.nvme.s;
        std::printf("  NVMe/TCP: %" PRIu64 " PDUs, hdgst good %" PRIu64 " bad %" PRIu64
                    ", ddgst good %" PRIu64 " bad %" PRIu64 ", unverifiable %" PRIu64
                    ", filled %" PRIu64 ", desyncs %" PRIu64 ", resyncs %" PRIu64 ", flows %" PRIu64
                    " (evicted %" PRIu64 ")\n",
                    n.pdus, n.hdgst_good, n.hdgst_bad, n.ddgst_good, n.ddgst_bad,
                    n.hdgst_unverifiable + n.ddgst_unverifiable, n.filled, n.desyncs, n.resyncs,
                    n.flows_created, n.evictions);
    }
    if (r.captured + r.capture_failed)
        std::printf("  captured bad packets: %" PRIu64 " (failed %" PRIu64 ")\n", r.captured,
                    r.capture_failed);
    std::fflush(stdout);
}

}  // namespace csumd
