// bench_engine --bursts: what a packet costs when bursts are short. A port at
// low load hands csumd bursts of one or two packets (net_af_packet over a
// veth here: 1.01 on average), so each Engine::process call's fixed cost
// (its clock, the burst's tally flushed into the counters) falls on few
// packets. The same kBurst packets are processed as kBurst / n calls of n
// packets inside one timed region, so the timer's cost stays per kBurst
// packets; DPDK's bare verify of the same packets, which has no call to
// amortise, is the peer.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "bench_common.h"
#include "csum/engine.h"
#include "gen/packet_builder.h"

namespace csum::bench {

void burst_rows(rte_mempool* mp, Engine& filler, int reps, int rounds, const std::string& only,
                uint32_t only_size, const std::string& only_flags, const std::string& only_mode) {
    using gen::Proto;
    const std::pair<Proto, const char*> protos[] = {
        {Proto::tcp4, "tcp4"}, {Proto::udp4, "udp4"}, {Proto::tcp6, "tcp6"}, {Proto::udp6, "udp6"}};
    const int bursts[] = {1, 2, 4, 8, 16, kBurst};
    const std::vector<uint32_t> sizes =
        only_size != 0 ? std::vector<uint32_t>{only_size} : std::vector<uint32_t>{64, 1420};
    std::printf("# %d packets a timed region, as %d / n calls of n; min of %d rounds\n", kBurst,
                kBurst, rounds);
    std::printf("%-6s %5s %-6s %-5s %4s %10s %10s %8s %9s\n", "proto", "size", "mode", "flags", "n",
                "ticks/pkt", "dpdk t/p", "x dpdk", "x n=32");
    for (auto [proto, name] : protos) {
        if (!only.empty() && only != name) continue;
        for (uint32_t size : sizes) {
            rte_mbuf* pkts[kBurst];
            filled_burst(mp, filler, proto, size, pkts);
            const bool v6 = proto == Proto::tcp6 || proto == Proto::udp6;
            for (const char* mode_name : {"verify", "csum"}) {
                if (!only_mode.empty() && only_mode != mode_name) continue;
                for (const char* flags_name : {"sw", "good"}) {
                    if (!only_flags.empty() && only_flags != flags_name) continue;
                    const bool good = std::string(flags_name) == "good";
                    const uint64_t flags =
                        good ? RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0;
                    EngineConfig c;
                    c.mode = std::string(mode_name) == "csum" ? Mode::csum : Mode::verify;
                    Engine e(c);
                    // Each round times every burst size once, in turn, so that a
                    // noisy phase of the host falls on all of them alike.
                    std::vector<double> best(std::size(bursts), 1e18);
                    double dpdk = 1e18;
                    for (int round = 0; round < rounds; ++round) {
                        for (size_t b = 0; b < std::size(bursts); ++b)
                            best[b] = std::min(
                                best[b], time_engine(e, pkts, reps, flags, kOwnPtype, bursts[b]));
                        if (!good) dpdk = std::min(dpdk, time_dpdk(pkts, reps, v6));
                    }
                    for (size_t b = 0; b < std::size(bursts); ++b) {
                        std::printf("%-6s %5u %-6s %-5s %4d %10.1f", name, size, mode_name,
                                    flags_name, bursts[b], best[b]);
                        if (!good && dpdk > 0)
                            std::printf(" %10.1f %8.2f", dpdk, best[b] / dpdk);
                        else
                            std::printf(" %10s %8s", "-", "-");
                        std::printf(" %9.2f\n", best[b] / best[std::size(bursts) - 1]);
                    }
                }
            }
            rte_pktmbuf_free_bulk(pkts, kBurst);
        }
    }
}

}  // namespace csum::bench
