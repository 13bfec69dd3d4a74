#include "verdict_log.h"

#include "csum/verdict.h"

namespace csumd {

VerdictLog* VerdictLog::open(const std::string& path, std::string* err) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        *err = "--verdict-log " + path + ": cannot open for writing";
        return nullptr;
    }
    return new VerdictLog(f);
}

VerdictLog::~VerdictLog() {
    std::fclose(f_);
}

void VerdictLog::write_burst(uint16_t port, uint16_t queue, uint64_t seq, rte_mbuf* const* pkts,
                             uint16_t n, int verdict_field) {
    std::string lines;
    for (uint16_t i = 0; i < n; ++i) {
        const csum::PacketVerdict* v = csum::verdict_of(pkts[i], verdict_field);
        char head[192];
        std::snprintf(head, sizeof head,
                      "{\"port\":%u,\"queue\":%u,\"seq\":%llu,\"len\":%u,\"ip_summed\":\"%s\","
                      "\"csum_level\":%u,",
                      port, queue, static_cast<unsigned long long>(seq + i), pkts[i]->pkt_len,
                      csum::to_string(v->ip_summed).data(), v->csum_level);
        lines += head;
        if (v->error != 0)
            lines += "\"error\":\"" +
                     std::string(csum::to_string(static_cast<csum::ParseError>(v->error))) + "\",";
        lines += "\"layers\":[";
        for (int k = 0; k < v->n_layers; ++k) {
            const csum::LayerVerdict l = v->layer(k);
            lines += k ? ",{\"proto\":\"" : "{\"proto\":\"";
            lines += csum::to_string(l.proto);
            lines += "\",\"status\":\"";
            lines += csum::to_string(l.status);
            lines += "\"}";
        }
        lines += "]}\n";
    }
    std::lock_guard<std::mutex> lock(mu_);
    std::fwrite(lines.data(), 1, lines.size(), f_);
}

}  // namespace csumd
