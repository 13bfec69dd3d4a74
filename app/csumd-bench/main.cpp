// csumd-bench: testpmd-style benchmarking of csum::Engine without ports.
// Traffic is built once (lib/gen), replayed from an mbuf ring on each lcore
// and pushed through Engine::process burst by burst; TSC ticks are counted
// around the engine and around the whole loop.
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "gen/pcap_writer.h"
#include "options.h"
#include "replay_pool.h"
#include "report.h"
#include "runner.h"
#include "testkit/eal_args.h"

namespace {

using namespace bench;

struct Job {
    ReplayPool* pool;
    csum::Engine* engine;
    RunPlan plan;
    Measurement out;
};

int run_job(void* arg) {
    auto* j = static_cast<Job*>(arg);
    j->out = measure(*j->pool, j->engine, j->plan);
    return 0;
}

std::vector<csum::gen::Frame> frames_for(const csum::gen::Profile& p, uint32_t pool) {
    const size_t mix = std::max<size_t>(p.sizes.size(), 1);
    return csum::gen::build_frames(p, (pool + mix - 1) / mix * mix);  // whole IMIX cycles
}

int write_pcap(const Options& o) {
    const auto p = profiles_of(o).front();
    std::vector<std::vector<uint8_t>> bytes;
    double total = 0, data = 0;
    for (auto& f : frames_for(p, o.pool)) {
        total += double(f.bytes.size()), data += f.nvme_data;
        bytes.push_back(std::move(f.bytes));
    }
    std::string err;
    if (!csum::gen::write_pcap(o.write_pcap, bytes, &err)) {
        std::fprintf(stderr, "csumd-bench: %s\n", err.c_str());
        return 1;
    }
    // Scripts parse the per-frame means (NVMe data rate = Mpps x data bytes).
    const double n = double(bytes.size());
    std::printf("csumd-bench: wrote %zu frames of %s to %s (mean %.1f B, nvme data %.1f B)\n",
                bytes.size(), csum::gen::describe(p).c_str(), o.write_pcap.c_str(), total / n,
                data / n);
    return 0;
}

// Default EAL arguments when none are given: no hugepages or PCI needed.
std::vector<std::string> default_eal_args(const char* prog) {
    return csum::testkit::eal_args({.prog = prog,
                                    .file_prefix = csum::testkit::unique_prefix("csumd-bench-"),
                                    .memory_mb = 1024});
}

std::string config_json(const Options& o, const std::vector<unsigned>& lcores) {
    std::string s =
        "{\"burst\": " + std::to_string(o.burst) + ", \"pool\": " + std::to_string(o.pool) +
        ", \"runs\": " + std::to_string(o.runs) + ", \"run_ms\": " + std::to_string(o.run_ms) +
        ", \"warmup_ms\": " + std::to_string(o.warmup_ms) + ", \"lcores\": [";
    for (size_t i = 0; i < lcores.size(); ++i) s += (i ? ", " : "") + std::to_string(lcores[i]);
    return s + "]}";
}

}  // namespace

int main(int argc, char** argv) {
    int split = 0;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--") == 0) split = i;
    Options opt;
    if (auto err =
            parse_options(argc - (split ? split + 1 : 1), argv + (split ? split + 1 : 1), &opt)) {
        std::fprintf(stderr, "csumd-bench: %s\n", err->c_str());
        return 2;
    }
    if (!opt.write_pcap.empty()) return write_pcap(opt);

    std::vector<std::string> eal_store;
    if (split)
        eal_store.assign(argv, argv + split);
    else
        eal_store = default_eal_args(argv[0]);
    if (csum::testkit::eal_init_args(std::move(eal_store)) < 0) {
        std::fprintf(stderr, "csumd-bench: EAL initialisation failed\n");
        return 1;
    }
    // Workers measure when there are any; otherwise the main lcore does.
    std::vector<unsigned> lcores;
    unsigned lc;
    RTE_LCORE_FOREACH_WORKER(lc) lcores.push_back(lc);
    if (lcores.empty()) lcores.push_back(rte_get_main_lcore());

    Machine machine = describe_machine();
    machine.tsc_hz = rte_get_tsc_hz();
    if (!opt.quiet) {
        std::printf(
            "csumd-bench: %s, TSC %.3f GHz, crc32c kernel %s, %zu measuring lcore(s), %u runs x %u "
            "ms\n",
            machine.cpu.c_str(), double(machine.tsc_hz) / 1e9, machine.crc32c_kernel.c_str(),
            lcores.size(), opt.runs, opt.run_ms);
        print_header();
    }
    std::vector<Row> rows;
    int rc = 0;
    for (const auto& prof : profiles_of(opt)) {
        const auto frames = frames_for(prof, opt.pool);
        std::vector<std::unique_ptr<ReplayPool>> pools;
        for (unsigned l : lcores) {
            std::string err;
            pools.push_back(
                ReplayPool::create(prof, frames, opt.burst, int(rte_lcore_to_socket_id(l)), &err));
            if (!pools.back()) {
                std::fprintf(stderr, "csumd-bench: %s: %s\n", csum::gen::describe(prof).c_str(),
                             err.c_str());
                rc = 1;
                break;
            }
        }
        if (rc) break;
        for (csum::Mode mode : opt.modes) {
            csum::EngineConfig ec;
            ec.mode = mode;
            std::vector<std::unique_ptr<csum::Engine>> engines;
            std::vector<Job> jobs(lcores.size());
            for (size_t i = 0; i < lcores.size(); ++i) {
                if (mode != csum::Mode::io) engines.push_back(std::make_unique<csum::Engine>(ec));
                RunPlan plan{
                    mode,      mode != csum::Mode::io && prof.csum != csum::gen::CsumState::correct,
                    opt.burst, opt.warmup_ms,
                    opt.runs,  opt.run_ms};
                jobs[i] = {pools[i].get(),
                           mode != csum::Mode::io ? engines.back().get() : nullptr,
                           plan,
                           {}};
            }
            if (lcores.size() == 1 && lcores[0] == rte_get_main_lcore()) {
                run_job(&jobs[0]);
            } else {
                for (size_t i = 0; i < lcores.size(); ++i)
                    rte_eal_remote_launch(run_job, &jobs[i], lcores[i]);
                rte_eal_mp_wait_lcore();
            }
            std::vector<Measurement> ms;
            for (auto& j : jobs) ms.push_back(j.out);
            for (Row& r : make_rows(prof, mode, pools[0]->mean_frame_bytes(), pools[0]->size(), ms,
                                    machine.tsc_hz)) {
                if (!opt.quiet) print_row(r);
                rows.push_back(r);
            }
        }
    }
    std::string err;
    if (!opt.json.empty() && !write_json(opt.json, machine, config_json(opt, lcores), rows, &err))
        std::fprintf(stderr, "csumd-bench: %s\n", err.c_str()), rc = 1;
    if (!opt.csv.empty() && !write_csv(opt.csv, machine, rows, &err))
        std::fprintf(stderr, "csumd-bench: %s\n", err.c_str()), rc = 1;
    rte_eal_cleanup();
    return rc;
}
