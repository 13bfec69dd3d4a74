// --stats-json: the final report as one JSON object (schema in docs/stats-json.md).
#include <cinttypes>
#include <cstdio>

#include <rte_cycles.h>

#include "csum/kernels.h"
#include "stats.h"

namespace csumd {
namespace {

using csum::LayerProto;
using csum::LayerStatus;

void json_engine(FILE* f, const EngineTotals& e) {
    std::fprintf(
        f, "{\"mode\": \"%s\", \"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"layers\": {",
        csum::to_string(e.mode).data(), e.packets, e.bytes);
    for (int p = 0; p < csum::kLayerProtoCount; ++p) {
        std::fprintf(f, "%s\"%s\": {", p ? ", " : "",
                     csum::to_string(static_cast<LayerProto>(p)).data());
        for (int k = 0; k < csum::kLayerStatusCount; ++k)
            std::fprintf(f, "%s\"%s\": %" PRIu64, k ? ", " : "",
                         csum::to_string(static_cast<LayerStatus>(k)).data(), e.layer[p][k]);
        std::fprintf(f, "}");
    }
    std::fprintf(f,
                 "}, \"ip_summed\": {\"CHECKSUM_NONE\": %" PRIu64
                 ", \"CHECKSUM_UNNECESSARY\": %" PRIu64 ", \"CHECKSUM_COMPLETE\": %" PRIu64
                 ", \"CHECKSUM_PARTIAL\": %" PRIu64 "}, \"csum_level\": [",
                 e.ip_summed[0], e.ip_summed[1], e.ip_summed[2], e.ip_summed[3]);
    for (int i = 0; i < 8; ++i) std::fprintf(f, "%s%" PRIu64, i ? ", " : "", e.csum_level[i]);
    std::fprintf(f, "], \"parse_errors\": {");
    for (int i = 1; i < csum::kParseErrorCount; ++i)
        std::fprintf(f, "%s\"%s\": %" PRIu64, i > 1 ? ", " : "",
                     csum::to_string(static_cast<csum::ParseError>(i)).data(), e.parse_error[i]);
    const double tpp = e.packets ? double(e.work_tsc) / double(e.packets) : 0.0;
    std::fprintf(f,
                 "}, \"sw_filled\": %" PRIu64 ", \"hw_offloaded\": %" PRIu64
                 ", \"skipped_trusted\": %" PRIu64 ", \"work_tsc\": %" PRIu64
                 ", \"tsc_hz\": %" PRIu64 ", \"ticks_per_packet\": %.2f, \"sum_bytes\": %" PRIu64
                 ", \"crc_bytes\": %" PRIu64 "}",
                 e.sw_filled, e.hw_offloaded, e.skipped_trusted, e.work_tsc, rte_get_tsc_hz(), tpp,
                 e.sum_bytes, e.crc_bytes);
}

}  // namespace

bool write_stats_json(const std::string& path, const Report& r, std::string* err) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        *err = "--stats-json " + path + ": cannot open for writing";
        return false;
    }
    std::fprintf(f, "{\"duration_s\": %.6f, \"kernels\": [", r.duration_s);
    const auto kc = csum::kernel_choices();  // names are plain identifiers: no escaping
    for (size_t i = 0; i < kc.size(); ++i)
        std::fprintf(f,
                     "%s{\"family\": \"%.*s\", \"min_bytes\": %u, \"probe_bytes\": %u, "
                     "\"kernel\": \"%.*s\", \"bytes_per_tick\": %.2f, \"measured\": %s}",
                     i ? ", " : "", int(kc[i].family.size()), kc[i].family.data(), kc[i].min_bytes,
                     kc[i].probe_bytes, int(kc[i].kernel.size()), kc[i].kernel.data(),
                     kc[i].bytes_per_tick, kc[i].measured ? "true" : "false");
    std::fprintf(f, "], \"ports\": [");
    for (size_t i = 0; i < r.ports.size(); ++i) {
        const PortTotals& t = r.ports[i];
        std::fprintf(f,
                     "%s{\"id\": %u, \"driver\": \"%s\", \"rx_packets\": %" PRIu64
                     ", \"tx_packets\": %" PRIu64 ", \"rx_bytes\": %" PRIu64
                     ", \"tx_bytes\": %" PRIu64 ", \"drops\": %" PRIu64
                     ", \"drops_by_reason\": {\"tx_full\": %" PRIu64 ", \"bad_checksum\": %" PRIu64
                     ", \"malformed\": %" PRIu64 ", \"tx_prepare\": %" PRIu64
                     "}, \"rx_missed\": %" PRIu64 ", \"link_changes\": %" PRIu64 "}",
                     i ? ", " : "", t.port, t.driver.c_str(), t.rx_packets, t.tx_packets,
                     t.rx_bytes, t.tx_bytes, t.drops, t.drop_tx_full, t.drop_bad_checksum,
                     t.drop_malformed, t.drop_tx_prepare, t.rx_missed, t.link_changes);
    }
    std::fprintf(f, "], \"queues\": [");
    for (size_t i = 0; i < r.queues.size(); ++i) {
        const QueueTotals& q = r.queues[i];
        std::fprintf(f,
                     "%s{\"port\": %u, \"queue\": %u, \"lcore\": %u, \"rx_packets\": %" PRIu64
                     ", \"tx_packets\": %" PRIu64 ", \"drops\": %" PRIu64
                     ", \"rx_bursts\": %" PRIu64 "}",
                     i ? ", " : "", q.port, q.queue, q.lcore, q.rx_packets, q.tx_packets, q.drops,
                     q.rx_bursts);
    }
    std::fprintf(f, "], \"lcores\": [");
    for (size_t i = 0; i < r.lcores.size(); ++i) {
        const LcoreTotals& l = r.lcores[i];
        std::fprintf(f,
                     "%s{\"lcore\": %u, \"rx_packets\": %" PRIu64 ", \"tx_packets\": %" PRIu64
                     ", \"engine\": ",
                     i ? ", " : "", l.lcore, l.rx_packets, l.tx_packets);
        json_engine(f, l.engine);
        std::fprintf(f, "}");
    }
    std::fprintf(f, "], \"engine\": ");
    json_engine(f, r.engine);
    if (r.nvme.enabled) {
        const auto& n = r.nvme.s;
        std::fprintf(
            f,
            ", \"nvme\": {\"pdus\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"hdgst_good\": %" PRIu64
            ", \"hdgst_bad\": %" PRIu64 ", \"hdgst_unverifiable\": %" PRIu64
            ", \"ddgst_good\": %" PRIu64 ", \"ddgst_bad\": %" PRIu64
            ", \"ddgst_unverifiable\": %" PRIu64 ", \"filled\": %" PRIu64
            ", \"unfillable\": %" PRIu64 ", \"desyncs\": %" PRIu64 ", \"resyncs\": %" PRIu64
            ", \"gaps\": %" PRIu64 ", \"flows_created\": %" PRIu64 ", \"evictions\": %" PRIu64
            ", \"idle_expired\": %" PRIu64 ", \"refused_segments\": %" PRIu64
            ", \"desync_by_reason\": {",
            n.pdus, n.bytes, n.hdgst_good, n.hdgst_bad, n.hdgst_unverifiable, n.ddgst_good,
            n.ddgst_bad, n.ddgst_unverifiable, n.filled, n.unfillable, n.desyncs, n.resyncs, n.gaps,
            n.flows_created, n.evictions, n.idle_expired, n.refused_segments);
        for (int i = 1; i < csum::kNvmeDesyncReasonCount; ++i) {
            const std::string_view name = csum::to_string(static_cast<csum::NvmeDesyncReason>(i));
            std::fprintf(f, "%s\"%.*s\": %" PRIu64, i > 1 ? ", " : "", int(name.size()),
                         name.data(), n.desync_by_reason[i]);
        }
        std::fprintf(f, "}}");
    }
    std::fprintf(f,
                 ", \"captured\": %" PRIu64 ", \"capture_failed\": %" PRIu64
                 ", \"mbufs_in_use_at_exit\": %u}\n",
                 r.captured, r.capture_failed, r.mbufs_in_use);
    if (std::fclose(f) != 0) {
        *err = "--stats-json " + path + ": write failed";
        return false;
    }
    return true;
}

}  // namespace csumd
