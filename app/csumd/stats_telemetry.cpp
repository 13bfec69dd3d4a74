// Telemetry views of the live counters.
#include <string>

#include "stats.h"

namespace csumd {
namespace {

using csum::LayerProto;
using csum::LayerStatus;

void add_u64(rte_tel_data* d, const std::string& k, uint64_t v) {
    rte_tel_data_add_dict_u64(d, k.c_str(), v);
}

void stats(const StatsView* v, rte_tel_data* d) {
    const Report r = collect_report(
        *v, std::chrono::duration<double>(std::chrono::steady_clock::now() - v->start).count());
    uint64_t rx = 0, tx = 0, drops = 0;
    for (const auto& p : r.ports) rx += p.rx_packets, tx += p.tx_packets, drops += p.drops;
    add_u64(d, "rx_packets", rx);
    add_u64(d, "tx_packets", tx);
    add_u64(d, "drops", drops);
    add_u64(d, "engine_packets", r.engine.packets);
    add_u64(d, "sw_filled", r.engine.sw_filled);
    add_u64(d, "hw_offloaded", r.engine.hw_offloaded);
    add_u64(d, "skipped_trusted", r.engine.skipped_trusted);
    add_u64(d, "work_tsc", r.engine.work_tsc);
    add_u64(d, "captured", r.captured);
    if (r.nvme.enabled) {
        add_u64(d, "nvme_pdus", r.nvme.s.pdus);
        add_u64(d, "nvme_hdgst_bad", r.nvme.s.hdgst_bad);
        add_u64(d, "nvme_ddgst_bad", r.nvme.s.ddgst_bad);
        add_u64(d, "nvme_desyncs", r.nvme.s.desyncs);
    }
    for (int p = 0; p < csum::kLayerProtoCount; ++p)
        for (int k = 0; k < csum::kLayerStatusCount; ++k)
            if (r.engine.layer[p][k])
                add_u64(d,
                        std::string(csum::to_string(LayerProto(p))) + "_" +
                            std::string(csum::to_string(LayerStatus(k))),
                        r.engine.layer[p][k]);
}

void ports(const StatsView* v, rte_tel_data* d) {
    const Report r = collect_report(*v, 0);
    for (const auto& p : r.ports) {
        rte_tel_data* c = rte_tel_data_alloc();
        rte_tel_data_start_dict(c);
        add_u64(c, "rx_packets", p.rx_packets);
        add_u64(c, "tx_packets", p.tx_packets);
        add_u64(c, "rx_bytes", p.rx_bytes);
        add_u64(c, "tx_bytes", p.tx_bytes);
        add_u64(c, "drops", p.drops);
        add_u64(c, "drop_bad_checksum", p.drop_bad_checksum);
        add_u64(c, "drop_malformed", p.drop_malformed);
        add_u64(c, "drop_tx_full", p.drop_tx_full);
        add_u64(c, "link_changes", p.link_changes);
        rte_tel_data_add_dict_container(d, std::to_string(p.port).c_str(), c, 0);
    }
}

void config(const StatsView* v, rte_tel_data* d) {
    rte_tel_data_add_dict_string(d, "mode",
                                 std::string(csum::to_string(v->opt->engine.mode)).c_str());
    add_u64(d, "rx_queues", v->plan->rx_queues);
    add_u64(d, "workers", v->workers->size());
    for (const auto& p : v->plan->ports) {
        rte_tel_data* c = rte_tel_data_alloc();
        rte_tel_data_start_dict(c);
        add_u64(c, "peer", p->peer);
        add_u64(c, "trusted", p->rx_policy.trusted);
        add_u64(c, "verify_mask", p->rx_policy.verify_mask);
        add_u64(c, "tx_offloads", p->tx_policy.offloads);
        rte_tel_data_add_dict_string(c, "driver", p->driver.c_str());
        rte_tel_data_add_dict_string(c, "bad",
                                     p->bad == BadAction::forward ? "forward"
                                     : p->bad == BadAction::drop  ? "drop"
                                                                  : "capture");
        rte_tel_data_add_dict_container(d, std::to_string(p->id).c_str(), c, 0);
    }
}

}  // namespace

TelemetryHandlers make_telemetry_handlers(const StatsView* v) {
    TelemetryHandlers h;
    h.stats = [v](rte_tel_data* d) { stats(v, d); };
    h.ports = [v](rte_tel_data* d) { ports(v, d); };
    h.config = [v](rte_tel_data* d) { config(v, d); };
    return h;
}

}  // namespace csumd
