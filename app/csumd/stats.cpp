#include "stats.h"

#include <cinttypes>
#include <cstdio>

#include <rte_ethdev.h>

namespace csumd {

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
            }
            if (s.tx_port == p) {
                t.tx_packets += s.stats.tx_packets.get();
                t.tx_bytes += s.stats.tx_bytes.get();
            }
        }
        t.drops = t.drop_tx_full;
        rte_eth_stats es{};
        if (rte_eth_stats_get(p, &es) == 0) t.rx_missed = es.imissed;
        out.push_back(t);
    }
    return out;
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

bool write_stats_json(const std::string& path, const std::vector<PortTotals>& totals,
                      double duration_s, std::string* err) {
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
                     ", \"drops_by_reason\": {\"tx_full\": %" PRIu64 "}, \"rx_missed\": %" PRIu64 "}",
                     i ? ", " : "", t.port, t.rx_packets, t.tx_packets, t.rx_bytes, t.tx_bytes,
                     t.drops, t.drop_tx_full, t.rx_missed);
    }
    std::fprintf(f, "]}\n");
    if (std::fclose(f) != 0) {
        *err = "--stats-json " + path + ": write failed";
        return false;
    }
    return true;
}

}  // namespace csumd
