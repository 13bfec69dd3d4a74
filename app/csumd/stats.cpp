#include "stats.h"

#include <cinttypes>
#include <cstdio>

#include <rte_cycles.h>
#include <rte_ethdev.h>

namespace csumd {

using csum::LayerProto;
using csum::LayerStatus;

std::vector<PortTotals> collect_totals(const std::vector<uint16_t>& ports,
                                       const std::vector<Stream>& streams) {
    std::vector<PortTotals> out;
    for (uint16_t p : ports) {
        PortTotals t;
        t.port = p;
        for (const Stream& s : streams) {
            if (s.rx_port == p) {
                t.rx_packets += s.stats.rx_packets.get();
                t.rx_bytes += s.stats.rx_bytes.get();
                t.drop_tx_full += s.stats.drop_tx_full.get();
                t.drop_bad_checksum += s.stats.drop_bad_checksum.get();
                t.drop_malformed += s.stats.drop_malformed.get();
                t.drop_tx_prepare += s.stats.drop_tx_prepare.get();
            }
            if (s.tx_port == p) {
                t.tx_packets += s.stats.tx_packets.get();
                t.tx_bytes += s.stats.tx_bytes.get();
            }
        }
        t.drops = t.drop_tx_full + t.drop_bad_checksum + t.drop_malformed + t.drop_tx_prepare;
        rte_eth_stats es{};
        if (rte_eth_stats_get(p, &es) == 0) t.rx_missed = es.imissed;
        out.push_back(t);
    }
    return out;
}

EngineTotals collect_engine(const std::vector<Worker>& workers, csum::Mode mode) {
    EngineTotals t;
    t.mode = mode;
    for (const Worker& w : workers) {
        if (!w.engine) continue;
        const csum::EngineStats& s = w.engine->stats();
        t.packets += s.packets.get();
        t.bytes += s.bytes.get();
        for (int p = 0; p < csum::kLayerProtoCount; ++p)
            for (int k = 0; k < csum::kLayerStatusCount; ++k) t.layer[p][k] += s.layer[p][k].get();
        for (int i = 0; i < 4; ++i) t.ip_summed[i] += s.ip_summed[i].get();
        for (int i = 0; i < 8; ++i) t.csum_level[i] += s.csum_level[i].get();
        for (int i = 0; i < csum::kParseErrorCount; ++i) t.parse_error[i] += s.parse_error[i].get();
        t.sw_filled += s.sw_filled.get();
        t.hw_offloaded += s.hw_offloaded.get();
        t.skipped_trusted += s.skipped_trusted.get();
        t.work_tsc += s.work_tsc.get();
        t.sum_bytes += s.sum_bytes.get();
        t.crc_bytes += s.crc_bytes.get();
    }
    return t;
}

void print_port_stats(const std::vector<PortTotals>& totals, double duration_s) {
    for (const PortTotals& t : totals) {
        std::printf("\n  ---------------------- Forward statistics for port %-2u ----------------------\n",
                    t.port);
        std::printf("  RX-packets: %-14" PRIu64 " RX-dropped: %-14" PRIu64 " RX-total: %" PRIu64 "\n",
                    t.rx_packets, t.rx_missed, t.rx_packets + t.rx_missed);
        std::printf("  TX-packets: %-14" PRIu64 " TX-dropped: %-14" PRIu64 " TX-total: %" PRIu64 "\n",
                    t.tx_packets, t.drop_tx_full, t.tx_packets + t.drop_tx_full);
        std::printf("  RX-bytes:   %-14" PRIu64 " TX-bytes:   %" PRIu64 "\n", t.rx_bytes, t.tx_bytes);
        if (t.drop_bad_checksum + t.drop_malformed + t.drop_tx_prepare)
            std::printf("  Dropped: bad-checksum %" PRIu64 "  malformed %" PRIu64 "  tx-prepare %" PRIu64 "\n",
                        t.drop_bad_checksum, t.drop_malformed, t.drop_tx_prepare);
        std::printf("  ----------------------------------------------------------------------------\n");
    }
    uint64_t rx = 0, tx = 0, drops = 0;
    for (const PortTotals& t : totals) {
        rx += t.rx_packets;
        tx += t.tx_packets;
        drops += t.drops;
    }
    std::printf("\n  +++++++++++++++ Accumulated forward statistics for all ports +++++++++++++++\n");
    std::printf("  RX-packets: %-14" PRIu64 " TX-packets: %-14" PRIu64 " drops: %" PRIu64 "\n", rx, tx,
                drops);
    std::printf("  forwarding time: %.3f s\n", duration_s);
    std::printf("  ++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++\n");
}

void print_engine_stats(const EngineTotals& e) {
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
    std::printf("  ip_summed: NONE %" PRIu64 "  UNNECESSARY %" PRIu64 "  COMPLETE %" PRIu64 "  PARTIAL %" PRIu64 "\n",
                e.ip_summed[0], e.ip_summed[1], e.ip_summed[2], e.ip_summed[3]);
    std::printf("  csum_level:");
    for (int i = 0; i < 8; ++i)
        if (e.csum_level[i]) std::printf(" %d:%" PRIu64, i, e.csum_level[i]);
    std::printf("\n");
    bool any_err = false;
    for (int i = 1; i < csum::kParseErrorCount; ++i)
        if (e.parse_error[i]) {
            if (!any_err) std::printf("  errors:");
            any_err = true;
            std::printf(" %s %" PRIu64, csum::to_string(static_cast<csum::ParseError>(i)).data(), e.parse_error[i]);
        }
    if (any_err) std::printf("\n");
    std::printf("  filled in software %" PRIu64 "  offloaded %" PRIu64 "  skipped (trusted) %" PRIu64 "\n",
                e.sw_filled, e.hw_offloaded, e.skipped_trusted);
    if (e.packets)
        std::printf("  checksum work: %.1f TSC ticks/packet over %" PRIu64 " packets\n",
                    double(e.work_tsc) / double(e.packets), e.packets);
    std::printf("  -----------------------------------------------------------\n");
}

static void json_engine(FILE* f, const EngineTotals& e) {
    std::fprintf(f, "\"engine\": {\"mode\": \"%s\", \"packets\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"layers\": {",
                 csum::to_string(e.mode).data(), e.packets, e.bytes);
    bool first = true;
    for (int p = 0; p < csum::kLayerProtoCount; ++p) {
        std::fprintf(f, "%s\"%s\": {", first ? "" : ", ", csum::to_string(static_cast<LayerProto>(p)).data());
        first = false;
        for (int k = 0; k < csum::kLayerStatusCount; ++k)
            std::fprintf(f, "%s\"%s\": %" PRIu64, k ? ", " : "", csum::to_string(static_cast<LayerStatus>(k)).data(),
                         e.layer[p][k]);
        std::fprintf(f, "}");
    }
    std::fprintf(f, "}, \"ip_summed\": {\"CHECKSUM_NONE\": %" PRIu64 ", \"CHECKSUM_UNNECESSARY\": %" PRIu64
                 ", \"CHECKSUM_COMPLETE\": %" PRIu64 ", \"CHECKSUM_PARTIAL\": %" PRIu64 "}, \"csum_level\": [",
                 e.ip_summed[0], e.ip_summed[1], e.ip_summed[2], e.ip_summed[3]);
    for (int i = 0; i < 8; ++i) std::fprintf(f, "%s%" PRIu64, i ? ", " : "", e.csum_level[i]);
    std::fprintf(f, "], \"parse_errors\": {");
    for (int i = 1; i < csum::kParseErrorCount; ++i)
        std::fprintf(f, "%s\"%s\": %" PRIu64, i > 1 ? ", " : "",
                     csum::to_string(static_cast<csum::ParseError>(i)).data(), e.parse_error[i]);
    const double tpp = e.packets ? double(e.work_tsc) / double(e.packets) : 0.0;
    std::fprintf(f, "}, \"sw_filled\": %" PRIu64 ", \"hw_offloaded\": %" PRIu64 ", \"skipped_trusted\": %" PRIu64
                 ", \"work_tsc\": %" PRIu64 ", \"tsc_hz\": %" PRIu64 ", \"ticks_per_packet\": %.2f, \"sum_bytes\": %" PRIu64
                 ", \"crc_bytes\": %" PRIu64 "}",
                 e.sw_filled, e.hw_offloaded, e.skipped_trusted, e.work_tsc, rte_get_tsc_hz(), tpp, e.sum_bytes,
                 e.crc_bytes);
}

bool write_stats_json(const std::string& path, const std::vector<PortTotals>& totals,
                      const EngineTotals& engine, double duration_s, std::string* err) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        *err = "--stats-json " + path + ": cannot open for writing";
        return false;
    }
    std::fprintf(f, "{\"duration_s\": %.6f, \"ports\": [", duration_s);
    for (size_t i = 0; i < totals.size(); ++i) {
        const PortTotals& t = totals[i];
        std::fprintf(f,
                     "%s{\"id\": %u, \"rx_packets\": %" PRIu64 ", \"tx_packets\": %" PRIu64
                     ", \"rx_bytes\": %" PRIu64 ", \"tx_bytes\": %" PRIu64 ", \"drops\": %" PRIu64
                     ", \"drops_by_reason\": {\"tx_full\": %" PRIu64 ", \"bad_checksum\": %" PRIu64
                     ", \"malformed\": %" PRIu64 ", \"tx_prepare\": %" PRIu64 "}, \"rx_missed\": %" PRIu64 "}",
                     i ? ", " : "", t.port, t.rx_packets, t.tx_packets, t.rx_bytes, t.tx_bytes, t.drops,
                     t.drop_tx_full, t.drop_bad_checksum, t.drop_malformed, t.drop_tx_prepare, t.rx_missed);
    }
    std::fprintf(f, "], ");
    json_engine(f, engine);
    std::fprintf(f, "}\n");
    if (std::fclose(f) != 0) {
        *err = "--stats-json " + path + ": write failed";
        return false;
    }
    return true;
}

}  // namespace csumd
