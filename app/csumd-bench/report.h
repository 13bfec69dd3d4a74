// Turns measurements into rows (median and spread of runs) and writes them
// as a table, JSON and CSV.
#pragma once

#include <string>
#include <vector>

#include "gen/profile.h"
#include "runner.h"

namespace bench {

struct Dist {
    double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
};

struct Row {
    csum::gen::Profile profile;
    csum::Mode mode;
    int lcore;  // -1: all lcores together
    double mean_frame_bytes;
    uint32_t pool;
    uint32_t runs = 0;
    Dist mpps, gbps, data_gbps;                      // data_gbps: NVMe PDU data carried
    Dist loop_tpp, engine_tpp, work_tpp, burst_tpp;  // TSC ticks per packet
    uint64_t packets = 0, engine_packets = 0, corrupt = 0, parse_errors = 0;
    LayerCounts layers;
};

struct Machine {
    std::string cpu, date, crc32c_kernel;
    unsigned cpus = 0;
    uint64_t tsc_hz = 0;
};

Machine describe_machine();

// Rows for one profile x mode from each lcore's measurement, plus an
// all-lcores row when there is more than one.
std::vector<Row> make_rows(const csum::gen::Profile& p, csum::Mode mode, double mean_frame,
                           uint32_t pool, const std::vector<Measurement>& per_lcore,
                           uint64_t tsc_hz);

void print_header();
void print_row(const Row& r);
bool write_json(const std::string& path, const Machine& m, const std::string& config,
                const std::vector<Row>& rows, std::string* err);
bool write_csv(const std::string& path, const Machine& m, const std::vector<Row>& rows,
               std::string* err);

}  // namespace bench
