#include "report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>

#include "csum/crc32c.h"
#include "csum/verdict.h"

namespace bench {
namespace {

using FilePtr = std::unique_ptr<FILE, int (*)(FILE*)>;

// Quantile by linear interpolation between order statistics.
double quantile(const std::vector<double>& s, double q) {
    const double pos = q * double(s.size() - 1);
    const size_t lo = size_t(pos);
    const size_t hi = std::min(lo + 1, s.size() - 1);
    return s[lo] + (s[hi] - s[lo]) * (pos - double(lo));
}

Dist dist(std::vector<double> v) {
    if (v.empty()) return {};
    std::sort(v.begin(), v.end());
    return {quantile(v, 0.5), v.front(), v.back(), quantile(v, 0.25), quantile(v, 0.75)};
}

template <typename F>
Dist over_runs(const std::vector<RunCounts>& runs, F f) {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(f(r));
    return dist(v);
}

Row base_row(const csum::gen::Profile& p, csum::Mode mode, double mean_frame, uint32_t pool) {
    Row r{};
    r.profile = p, r.mode = mode, r.mean_frame_bytes = mean_frame, r.pool = pool;
    return r;
}

void fill_row(Row* r, const std::vector<RunCounts>& runs, uint64_t hz) {
    const double h = double(hz);
    auto secs = [h](const RunCounts& c) { return double(c.loop_tsc) / h; };
    r->mpps =
        over_runs(runs, [&](const RunCounts& c) { return double(c.packets) / secs(c) / 1e6; });
    r->gbps =
        over_runs(runs, [&](const RunCounts& c) { return double(c.bytes) * 8 / secs(c) / 1e9; });
    r->data_gbps = over_runs(
        runs, [&](const RunCounts& c) { return double(c.nvme_data) * 8 / secs(c) / 1e9; });
    r->loop_tpp =
        over_runs(runs, [](const RunCounts& c) { return double(c.loop_tsc) / double(c.packets); });
    r->engine_tpp = over_runs(
        runs, [](const RunCounts& c) { return double(c.engine_tsc) / double(c.packets); });
    r->work_tpp =
        over_runs(runs, [](const RunCounts& c) { return double(c.work_tsc) / double(c.packets); });
    r->burst_tpp = over_runs(runs, [](const RunCounts& c) { return c.engine_burst_median; });
    r->runs = uint32_t(runs.size());
    for (const auto& c : runs)
        r->packets += c.packets, r->engine_packets += c.engine_packets, r->corrupt += c.corrupt;
}

void json_dist(FILE* f, const char* name, const Dist& d) {
    std::fprintf(
        f, "\"%s\": {\"median\": %.4f, \"min\": %.4f, \"max\": %.4f, \"q1\": %.4f, \"q3\": %.4f}",
        name, d.median, d.min, d.max, d.q1, d.q3);
}

std::string json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if (uint8_t(c) >= 0x20) o += c;
    }
    return o;
}

std::string lcore_name(int lc) {
    return lc < 0 ? "all" : std::to_string(lc);
}

}  // namespace

Machine describe_machine() {
    Machine m;
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("model name", 0) == 0 && m.cpu.empty())
            m.cpu = line.substr(line.find(':') + 2);
        if (line.rfind("processor", 0) == 0) ++m.cpus;
    }
    char buf[64];
    const std::time_t t = std::time(nullptr);
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    m.date = buf;
    m.crc32c_kernel = std::string(csum::crc32c_kernel_name(csum::crc32c_active_kernel()));
    return m;
}

std::vector<Row> make_rows(const csum::gen::Profile& p, csum::Mode mode, double mean_frame,
                           uint32_t pool, const std::vector<Measurement>& per_lcore, uint64_t hz) {
    std::vector<Row> rows;
    for (const Measurement& m : per_lcore) {
        Row r = base_row(p, mode, mean_frame, pool);
        r.lcore = int(m.lcore);
        fill_row(&r, m.runs, hz);
        r.layers = m.layers, r.parse_errors = m.parse_errors;
        rows.push_back(r);
    }
    if (per_lcore.size() > 1) {
        // Runs with the same index ran at the same time on every lcore: add them up.
        std::vector<RunCounts> sum(per_lcore[0].runs.size());
        Row r = base_row(p, mode, mean_frame, pool);
        r.lcore = -1;
        for (const Measurement& m : per_lcore) {
            for (size_t i = 0; i < sum.size() && i < m.runs.size(); ++i) {
                const RunCounts& c = m.runs[i];
                sum[i].packets += c.packets, sum[i].bytes += c.bytes,
                    sum[i].nvme_data += c.nvme_data;
                sum[i].corrupt += c.corrupt, sum[i].engine_packets += c.engine_packets;
                sum[i].loop_tsc = std::max(sum[i].loop_tsc, c.loop_tsc);
            }
            for (int a = 0; a < csum::kLayerProtoCount; ++a)
                for (int b = 0; b < csum::kLayerStatusCount; ++b)
                    r.layers.n[a][b] += m.layers.n[a][b];
            r.parse_errors += m.parse_errors;
        }
        fill_row(&r, sum, hz);
        // Per-packet ticks are per lcore; an aggregate of them means nothing.
        r.loop_tpp = r.engine_tpp = r.work_tpp = r.burst_tpp = Dist{};
        rows.push_back(r);
    }
    return rows;
}

void print_header() {
    std::printf("%-40s %-6s %-3s %8s %16s %8s %9s %8s %8s %8s\n", "profile", "mode", "lc", "Mpps",
                "(min..max)", "Gbit/s", "data Gb/s", "loop t/p", "eng t/p", "eng med");
}

void print_row(const Row& r) {
    char spread[40];
    std::snprintf(spread, sizeof spread, "(%.2f..%.2f)", r.mpps.min, r.mpps.max);
    std::printf("%-40s %-6s %-3s %8.2f %16s %8.2f %9.2f %8.1f %8.1f %8.1f\n",
                csum::gen::describe(r.profile).c_str(), csum::to_string(r.mode).data(),
                lcore_name(r.lcore).c_str(), r.mpps.median, spread, r.gbps.median,
                r.data_gbps.median, r.loop_tpp.median, r.engine_tpp.median, r.burst_tpp.median);
    std::fflush(stdout);
}

bool write_json(const std::string& path, const Machine& m, const std::string& config,
                const std::vector<Row>& rows, std::string* err) {
    FilePtr f(std::fopen(path.c_str(), "w"), &std::fclose);
    if (!f) return *err = path + ": cannot open for writing", false;
    FILE* o = f.get();
    std::fprintf(o,
                 "{\"tool\": \"csumd-bench\", \"schema\": 1, \"date\": \"%s\", \"tsc_hz\": %" PRIu64
                 ",\n",
                 m.date.c_str(), m.tsc_hz);
    std::fprintf(o, " \"machine\": {\"cpu\": \"%s\", \"cpus\": %u, \"crc32c_kernel\": \"%s\"},\n",
                 json_escape(m.cpu).c_str(), m.cpus, m.crc32c_kernel.c_str());
    std::fprintf(o, " \"config\": %s,\n \"results\": [", config.c_str());
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        const auto& p = r.profile;
        std::fprintf(o,
                     "%s\n  {\"profile\": \"%s\", \"proto\": \"%s\", \"size\": \"%s\", "
                     "\"mean_frame_bytes\": %.1f, ",
                     i ? "," : "", csum::gen::describe(p).c_str(),
                     csum::gen::to_string(p.traffic).data(),
                     p.traffic == csum::gen::Traffic::nvme_c2h ? "nvme" : p.size_name.c_str(),
                     r.mean_frame_bytes);
        std::fprintf(o,
                     "\"seg\": \"%s\", \"seg_bytes\": %u, \"csum\": \"%s\", \"flows\": %u, "
                     "\"sctp_chunks\": %u, ",
                     csum::gen::to_string(p.seg).data(), p.seg_bytes,
                     csum::gen::csum_state_name(p).c_str(), p.flows, p.sctp_chunks);
        if (p.traffic == csum::gen::Traffic::nvme_c2h)
            std::fprintf(o, "\"nvme_pdu_data\": %u, \"nvme_mss\": %u, ", p.nvme_pdu_data,
                         p.nvme_mss);
        std::fprintf(o, "\"mode\": \"%s\", \"lcore\": \"%s\", \"pool\": %u, \"runs\": %u,\n   ",
                     csum::to_string(r.mode).data(), lcore_name(r.lcore).c_str(), r.pool, r.runs);
        json_dist(o, "mpps", r.mpps), std::fputs(", ", o), json_dist(o, "gbps", r.gbps),
            std::fputs(",\n   ", o);
        json_dist(o, "data_gbps", r.data_gbps), std::fputs(",\n   \"ticks_per_packet\": {", o);
        json_dist(o, "loop", r.loop_tpp), std::fputs(", ", o), json_dist(o, "engine", r.engine_tpp);
        std::fputs(", ", o), json_dist(o, "engine_work", r.work_tpp);
        std::fputs(", ", o), json_dist(o, "engine_burst_median", r.burst_tpp);
        std::fprintf(o,
                     "},\n   \"packets\": %" PRIu64 ", \"engine_packets\": %" PRIu64
                     ", \"expected_bad\": %" PRIu64 ", \"parse_errors\": %" PRIu64
                     ", \"layers\": {",
                     r.packets, r.engine_packets, r.corrupt, r.parse_errors);
        const char* sep = "";
        for (int a = 0; a < csum::kLayerProtoCount; ++a) {
            const char* inner = "";
            for (int b = 0; b < csum::kLayerStatusCount; ++b) {
                if (r.layers.n[a][b] == 0) continue;
                if (*inner == 0)
                    std::fprintf(o, "%s\"%s\": {", sep,
                                 csum::to_string(csum::LayerProto(a)).data());
                std::fprintf(o, "%s\"%s\": %" PRIu64, inner,
                             csum::to_string(csum::LayerStatus(b)).data(), r.layers.n[a][b]);
                inner = ", ";
            }
            if (*inner != 0) std::fputs("}", o), sep = ", ";
        }
        std::fputs("}}", o);
    }
    std::fputs("\n ]}\n", o);
    if (std::ferror(o)) return *err = path + ": write failed", false;
    return true;
}

bool write_csv(const std::string& path, const Machine& m, const std::vector<Row>& rows,
               std::string* err) {
    FilePtr f(std::fopen(path.c_str(), "w"), &std::fclose);
    if (!f) return *err = path + ": cannot open for writing", false;
    FILE* o = f.get();
    std::fprintf(
        o,
        "date,cpu,proto,size,mean_frame_bytes,seg,csum,flows,sctp_chunks,mode,lcore,"
        "mpps,mpps_min,mpps_max,mpps_q1,mpps_q3,gbps,data_gbps,"
        "loop_ticks_per_packet,engine_ticks_per_packet,work_ticks_per_packet,"
        "engine_burst_median_ticks,engine_ticks_min,engine_ticks_max,packets,expected_bad\n");
    for (const Row& r : rows) {
        const auto& p = r.profile;
        std::fprintf(o, "%s,\"%s\",%s,%s,%.1f,%s,%s,%u,%u,%s,%s,", m.date.c_str(), m.cpu.c_str(),
                     csum::gen::to_string(p.traffic).data(),
                     p.traffic == csum::gen::Traffic::nvme_c2h ? "nvme" : p.size_name.c_str(),
                     r.mean_frame_bytes, csum::gen::to_string(p.seg).data(),
                     csum::gen::csum_state_name(p).c_str(), p.flows, p.sctp_chunks,
                     csum::to_string(r.mode).data(), lcore_name(r.lcore).c_str());
        std::fprintf(o,
                     "%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%" PRIu64
                     ",%" PRIu64 "\n",
                     r.mpps.median, r.mpps.min, r.mpps.max, r.mpps.q1, r.mpps.q3, r.gbps.median,
                     r.data_gbps.median, r.loop_tpp.median, r.engine_tpp.median, r.work_tpp.median,
                     r.burst_tpp.median, r.engine_tpp.min, r.engine_tpp.max, r.packets, r.corrupt);
    }
    if (std::ferror(o)) return *err = path + ": write failed", false;
    return true;
}

}  // namespace bench
