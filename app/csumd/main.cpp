// csumd: EAL arguments before "--", csumd's own after.
// Exit codes: 0 ok, 1 runtime failure, 2 bad arguments.
#include <signal.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "forwarder.h"
#include "options.h"
#include "ports.h"
#include "stats.h"
#include "verdict_log.h"

namespace {

std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop.store(true); }

int fail(int code, const std::string& msg) {
    std::fprintf(stderr, "csumd: %s\n", msg.c_str());
    return code;
}

uint64_t total_rx(const std::vector<csumd::Stream>& streams) {
    uint64_t n = 0;
    for (const auto& s : streams) n += s.stats.rx_packets.get();
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    int sep = argc;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--") == 0) {
            sep = i;
            break;
        }
    csumd::Options opt;
    if (sep < argc) {
        if (auto err = csumd::parse_options(argc - sep - 1, argv + sep + 1, &opt)) return fail(2, *err);
    }

    if (rte_eal_init(sep, argv) < 0) return fail(1, std::string("EAL init failed: ") + rte_strerror(rte_errno));

    std::vector<unsigned> worker_lcores;
    unsigned lc;
    RTE_LCORE_FOREACH_WORKER(lc) worker_lcores.push_back(lc);
    if (worker_lcores.empty()) {
        rte_eal_cleanup();
        return fail(2, "need a worker lcore besides the main one (EAL option -l 0-1)");
    }

    csumd::PortPlan plan;
    if (auto err = csumd::open_ports(opt, static_cast<unsigned>(worker_lcores.size()), &plan)) {
        rte_eal_cleanup();
        return fail(1, *err);
    }

    std::unique_ptr<csumd::VerdictLog> verdict_log;
    if (!opt.verdict_log.empty()) {
        std::string err;
        verdict_log.reset(csumd::VerdictLog::open(opt.verdict_log, &err));
        if (!verdict_log) {
            csumd::close_ports(plan);
            rte_eal_cleanup();
            return fail(1, err);
        }
    }

    // One stream per port; streams go round-robin to workers, and each worker
    // transmits on its own TX queue index.
    std::vector<csumd::Stream> streams(plan.ports.size());
    std::vector<csumd::Worker> workers(worker_lcores.size());
    for (size_t i = 0; i < plan.ports.size(); ++i) {
        const size_t w = i % workers.size();
        size_t peer_idx = 0;
        while (plan.ports[peer_idx] != plan.peer[i]) ++peer_idx;
        streams[i].rx_port = plan.ports[i];
        streams[i].rx_queue = 0;
        streams[i].tx_port = plan.peer[i];
        streams[i].tx_queue = static_cast<uint16_t>(w);
        streams[i].rx_policy = &plan.rx_policy[i];
        streams[i].tx_policy = &plan.tx_policy[peer_idx];
        workers[w].streams.push_back(&streams[i]);
    }
    for (auto& w : workers) {
        if (opt.engine.mode != csum::Mode::io) w.engine = std::make_unique<csum::Engine>(opt.engine);
        w.verdict_log = verdict_log.get();
    }

    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    std::printf("csumd: mode %s, %zu port(s), %zu worker lcore(s)\n", csum::to_string(opt.engine.mode).data(),
                plan.ports.size(), workers.size());
    for (size_t i = 0; i < plan.ports.size(); ++i) {
        const uint64_t o = plan.tx_policy[i].offloads;
        std::printf("csumd: port %u%s forwards to port %u; port %u fills checksums in %s%s%s%s%s\n",
                    plan.ports[i], plan.rx_policy[i].trusted ? " (trusted)" : "", plan.peer[i], plan.ports[i],
                    o ? "hardware for" : "software", o & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM ? " ipv4" : "",
                    o & RTE_ETH_TX_OFFLOAD_TCP_CKSUM ? " tcp" : "", o & RTE_ETH_TX_OFFLOAD_UDP_CKSUM ? " udp" : "",
                    o & RTE_ETH_TX_OFFLOAD_SCTP_CKSUM ? " sctp" : "");
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t w = 0; w < workers.size(); ++w) {
        workers[w].lcore = worker_lcores[w];
        workers[w].burst = opt.burst;
        workers[w].stop = &g_stop;
        rte_eal_remote_launch(csumd::worker_main, &workers[w], worker_lcores[w]);
    }

    using clock = std::chrono::steady_clock;
    auto last_rx_change = clock::now(), last_report = clock::now();
    uint64_t last_rx = 0;
    while (!g_stop.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const auto now = clock::now();
        const double elapsed = std::chrono::duration<double>(now - t0).count();
        const uint64_t rx = total_rx(streams);
        if (rx != last_rx) last_rx = rx, last_rx_change = now;
        if (opt.duration_s > 0 && elapsed >= opt.duration_s) break;
        if (opt.idle_exit_s > 0 &&
            std::chrono::duration<double>(now - last_rx_change).count() >= opt.idle_exit_s)
            break;
        if (opt.stats_period_s > 0 &&
            std::chrono::duration<double>(now - last_report).count() >= opt.stats_period_s) {
            std::printf("csumd: %.1f s  rx %" PRIu64 " pkts\n", elapsed, rx);
            std::fflush(stdout);
            last_report = now;
        }
    }
    g_stop.store(true);
    rte_eal_mp_wait_lcore();
    const double duration = std::chrono::duration<double>(clock::now() - t0).count();

    auto totals = csumd::collect_totals(plan.ports, streams);
    auto engine_totals = csumd::collect_engine(workers, opt.engine.mode);
    csumd::print_port_stats(totals, duration);
    csumd::print_engine_stats(engine_totals);
    int rc = 0;
    std::string err;
    if (!opt.stats_json.empty() &&
        !csumd::write_stats_json(opt.stats_json, totals, engine_totals, duration, &err))
        rc = fail(1, err);
    verdict_log.reset();
    workers.clear();
    csumd::close_ports(plan);
    rte_eal_cleanup();
    return rc;
}
