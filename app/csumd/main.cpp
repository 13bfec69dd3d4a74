// csumd: EAL arguments before "--", csumd's own after; or --config FILE.
// Exit codes: 0 ok, 1 runtime failure, 2 bad arguments or config,
// 3 mbufs still in use at exit (a leak).
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pdump.h>

#include "../common/prefault_text.h"
#include "capture.h"
#include "config_file.h"
#include "forwarder.h"
#include "log.h"
#include "options.h"
#include "ports.h"
#include "stats.h"
#include "telemetry.h"
#include "tsan.h"
#include "verdict_log.h"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) {
    g_stop.store(true);
}

int fail(int code, const std::string& msg) {
    std::fprintf(stderr, "csumd: %s\n", msg.c_str());
    return code;
}

// The command line split into EAL and csumd parts, with --config applied.
struct Args {
    std::vector<std::string> eal{"csumd"};
    std::vector<std::string> app;
    csumd::ConfigFile config;
};

std::optional<std::string> split_args(int argc, char** argv, Args* out) {
    std::vector<std::string> eal_cli, app_cli;
    std::string config_path;
    bool after_sep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--" && !after_sep) {
            after_sep = true;
        } else if (a == "--config" || a.rfind("--config=", 0) == 0) {
            if (a == "--config" && i + 1 >= argc) return std::string("--config: missing file name");
            config_path = a == "--config" ? argv[++i] : a.substr(9);
        } else {
            (after_sep ? app_cli : eal_cli).push_back(a);
        }
    }
    if (!config_path.empty()) {
        if (auto err = csumd::load_config(config_path, &out->config)) return err;
        out->eal.insert(out->eal.end(), out->config.eal_args.begin(), out->config.eal_args.end());
    }
    out->eal.insert(out->eal.end(), eal_cli.begin(), eal_cli.end());
    out->app = app_cli;
    return std::nullopt;
}

std::optional<std::string> parse_all_options(const Args& args, csumd::Options* opt) {
    // The file's options first, each error naming its line; the command line overrides.
    const auto& cfg_args = args.config.app_args;
    for (size_t i = 0; i < cfg_args.size(); ++i) {
        char* arg[1] = {const_cast<char*>(cfg_args[i].c_str())};
        if (auto err = csumd::parse_options(1, arg, opt))
            return args.config.app_where[i] + ": [csumd] " + *err;
    }
    std::vector<char*> argv;
    for (const auto& a : args.app) argv.push_back(const_cast<char*>(a.c_str()));
    return csumd::parse_options(static_cast<int>(argv.size()), argv.data(), opt);
}

// Runs at scope exit unless released: closes what start-up opened, in
// reverse order, on every path out of main.
template <typename F>
class ScopeExit {
  public:
    explicit ScopeExit(F f) : f_(std::move(f)) {}
    ~ScopeExit() {
        if (armed_) f_();
    }
    ScopeExit(const ScopeExit&) = delete;
    ScopeExit& operator=(const ScopeExit&) = delete;

  private:
    F f_;
    bool armed_ = true;
};

// One stream per (port, RX queue). Both directions of a port pair share a
// worker for each queue index: with the symmetric RSS key a flow and its
// reverse hash to the same queue, so they meet on one lcore (the NVMe/TCP
// tracker needs both). Each worker transmits on its own TX queue index.
void assign_streams(const csumd::PortPlan& plan, const std::vector<unsigned>& lcores,
                    std::vector<csumd::Stream>* streams, std::vector<csumd::Worker>* workers) {
    *streams = std::vector<csumd::Stream>(plan.ports.size() * plan.rx_queues);
    *workers = std::vector<csumd::Worker>(lcores.size());
    auto index_of = [&](uint16_t id) {
        size_t i = 0;
        while (plan.ports[i]->id != id) ++i;
        return i;
    };
    size_t k = 0;
    for (uint16_t q = 0; q < plan.rx_queues; ++q) {
        for (size_t i = 0; i < plan.ports.size(); ++i) {
            const auto& p = plan.ports[i];
            csumd::Stream& s = (*streams)[k++];
            const size_t pair = std::min(i, index_of(p->peer));
            const size_t w = (pair * plan.rx_queues + q) % workers->size();
            s.rx_port = p->id;
            s.rx_queue = q;
            s.tx_port = p->peer;
            s.tx_queue = static_cast<uint16_t>(w);
            s.lcore = lcores[w];
            s.rx_policy = &p->rx_policy;
            s.tx_policy = &plan.find(p->peer)->tx_policy;
            (*workers)[w].streams.push_back(&s);
        }
    }
}

// Polls until a signal, --duration, --max-packets or --idle-exit; prints
// progress every --stats-period.
void wait_for_stop(const csumd::StatsView& view, const std::vector<csumd::Stream>& streams,
                   const csumd::Options& opt) {
    using clock = std::chrono::steady_clock;
    const auto t0 = view.start;
    auto last_rx_change = t0, last_report = t0;
    uint64_t last_rx = 0;
    csumd::Progress progress;
    while (!g_stop.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const auto now = clock::now();
        const double elapsed = std::chrono::duration<double>(now - t0).count();
        const uint64_t rx = csumd::total_rx(streams);
        if (rx != last_rx) last_rx = rx, last_rx_change = now;
        if (opt.duration_s > 0 && elapsed >= opt.duration_s) break;
        if (opt.max_packets > 0 && rx >= opt.max_packets) break;
        if (opt.idle_exit_s > 0 &&
            std::chrono::duration<double>(now - last_rx_change).count() >= opt.idle_exit_s)
            break;
        if (opt.stats_period_s > 0 &&
            std::chrono::duration<double>(now - last_report).count() >= opt.stats_period_s) {
            csumd::print_progress(view, elapsed, &progress);
            last_report = now;
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines reach pipes as they happen
    Args args;
    if (auto err = split_args(argc, argv, &args)) return fail(2, *err);
    csumd::Options opt;
    if (auto err = parse_all_options(args, &opt)) return fail(2, *err);
    if (opt.help) {
        csumd::print_usage(argv[0]);
        return 0;
    }

    std::vector<char*> eal_argv;
    for (auto& a : args.eal) eal_argv.push_back(a.data());
    if (rte_eal_init(static_cast<int>(eal_argv.size()), eal_argv.data()) < 0)
        return fail(1, std::string("EAL init failed: ") + rte_strerror(rte_errno));
    ScopeExit eal_cleanup([] { rte_eal_cleanup(); });

    if (opt.burst_bytes_auto) opt.burst_bytes = csumd::auto_burst_bytes();
    opt.engine.nvme.idle_timeout_tsc =
        static_cast<uint64_t>(opt.nvme_idle_s * double(rte_get_tsc_hz()));
    std::vector<unsigned> worker_lcores;
    unsigned lc;
    RTE_LCORE_FOREACH_WORKER(lc) worker_lcores.push_back(lc);
    if (worker_lcores.empty())
        return fail(2, "need a worker lcore besides the main one (EAL option -l 0-1)");

    csumd::PortPlan plan;
    bool ports_closed = false;
    ScopeExit close_ports([&] {
        if (!ports_closed) csumd::close_ports(plan);
    });
    if (auto err =
            csumd::open_ports(opt, args.config, static_cast<unsigned>(worker_lcores.size()), &plan))
        return fail(err->find(".ini:") != std::string::npos ? 2 : 1, *err);
    // dpdk-dumpcap can attach when the EAL runs as a primary with shared config.
    if (rte_pdump_init() != 0) CSUMD_LOG(DEBUG, "pdump unavailable: %s", rte_strerror(rte_errno));

    std::unique_ptr<csumd::VerdictLog> verdict_log;
    std::unique_ptr<csumd::BadCapture> capture;
    std::string err;
    if (!opt.verdict_log.empty()) verdict_log.reset(csumd::VerdictLog::open(opt.verdict_log, &err));
    if (err.empty() && !opt.capture_bad.empty())
        capture.reset(csumd::BadCapture::open(opt.capture_bad, &err));
    if (!err.empty()) return fail(1, err);

    std::vector<csumd::Stream> streams;
    std::vector<csumd::Worker> workers;
    assign_streams(plan, worker_lcores, &streams, &workers);
    for (size_t w = 0; w < workers.size(); ++w) {
        if (opt.engine.mode != csum::Mode::io) {
            try {
                workers[w].engine = std::make_unique<csum::Engine>(opt.engine);
            } catch (const std::exception& e) {
                return fail(1, e.what());
            }
        }
        workers[w].lcore = worker_lcores[w];
        workers[w].burst = opt.burst;
        workers[w].burst_bytes = opt.burst_bytes;
        workers[w].stop = &g_stop;
        workers[w].verdict_log = verdict_log.get();
        workers[w].capture = capture.get();
    }

    csumd::StatsView view{&plan, &streams, &workers, &opt, capture.get()};
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    csumd::print_banner(view);
    csum::app::prefault_text();
    using clock = std::chrono::steady_clock;
    view.start = clock::now();
    // Only now may the telemetry thread read the view (start was a data race).
    csumd::TelemetryHandlers tel = csumd::make_telemetry_handlers(&view);
    csumd::register_telemetry(&tel);
    for (auto& w : workers) {
        csumd::tsan_release(&w);  // DPDK's launch is invisible to ThreadSanitizer
        rte_eal_remote_launch(csumd::worker_main, &w, w.lcore);
    }
    std::printf("csumd: forwarding\n");  // scripts wait for this line
    wait_for_stop(view, streams, opt);
    g_stop.store(true);
    rte_eal_mp_wait_lcore();  // workers finish their burst: nothing is held back
    for (auto& w : workers) csumd::tsan_acquire(&w);
    const double duration = std::chrono::duration<double>(clock::now() - view.start).count();
    csumd::clear_telemetry();

    // Port stats are read before the ports close; mbufs are counted after.
    csumd::Report report = csumd::collect_report(view, duration);
    capture.reset();
    verdict_log.reset();
    workers.clear();
    csumd::close_ports(plan);
    ports_closed = true;
    report.mbufs_in_use = rte_mempool_in_use_count(plan.pool);
    csumd::print_report(report);
    int rc = 0;
    if (!opt.stats_json.empty() && !csumd::write_stats_json(opt.stats_json, report, &err))
        rc = fail(1, err);
    if (report.mbufs_in_use != 0) {
        CSUMD_LOG(ERR, "%u mbufs still in use after the ports closed", report.mbufs_in_use);
        if (rc == 0) rc = 3;
    }
    return rc;
}
