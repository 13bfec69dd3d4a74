// bench_engine --sizes: bursts of one protocol whose packets differ in size,
// as a port carries them, against the mean of uniform bursts of the same
// sizes (timed in alternation). A uniform burst lets the branch predictor
// learn every size-dependent branch; a burst of mixed sizes does not, so
// this is the cost a user's traffic sees. DPDK's bare verify of the same
// mixed burst is the peer.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "bench_common.h"
#include "csum/engine.h"
#include "gen/packet_builder.h"

namespace csum::bench {
namespace {

struct SizeMix {
    const char* name;
    const char* what;
    std::vector<uint32_t> (*sizes)(uint32_t* rng);
};

uint32_t next(uint32_t* rng) {
    *rng = *rng * 1103515245u + 12345u;
    return *rng >> 8;
}

// kBurst frame lengths, uniformly drawn from [lo, hi].
std::vector<uint32_t> spread(uint32_t* rng, uint32_t lo, uint32_t hi) {
    std::vector<uint32_t> s(kBurst);
    for (auto& x : s) x = lo + next(rng) % (hi - lo + 1);
    return s;
}

const SizeMix kMixes[] = {
    {"imix", "64/576/1500 B at 7:4:1, shuffled",
     [](uint32_t* rng) {
         std::vector<uint32_t> s;
         for (int i = 0; i < kBurst; ++i) s.push_back(i < 19 ? 64 : i < 29 ? 576 : 1500);
         for (int i = kBurst - 1; i > 0; --i) std::swap(s[i], s[next(rng) % uint32_t(i + 1)]);
         return s;
     }},
    {"64-128", "uniform in 64..128 B", [](uint32_t* rng) { return spread(rng, 64, 128); }},
    {"128-320", "uniform in 128..320 B", [](uint32_t* rng) { return spread(rng, 128, 320); }},
    {"64-1500", "uniform in 64..1500 B", [](uint32_t* rng) { return spread(rng, 64, 1500); }},
};

}  // namespace

void size_rows(rte_mempool* mp, Engine& filler, int reps, int rounds, const std::string& only,
               const std::string& only_mode) {
    using gen::Proto;
    const std::pair<Proto, const char*> protos[] = {{Proto::tcp4, "tcp4"},
                                                    {Proto::udp4, "udp4"},
                                                    {Proto::tcp6, "tcp6"},
                                                    {Proto::udp6, "udp6"},
                                                    {Proto::sctp4, "sctp4"}};
    for (const SizeMix& x : kMixes) std::printf("# %-8s %s\n", x.name, x.what);
    std::printf("%-6s %-8s %-6s %10s %12s %8s %10s %8s\n", "proto", "sizes", "mode", "mixed t/p",
                "uniform t/p", "x unif", "dpdk t/p", "x dpdk");
    for (const char* mode : {"verify", "fill"}) {
        if (!only_mode.empty() && only_mode != mode) continue;
        EngineConfig c;
        c.mode = std::string(mode) == "fill" ? Mode::fill : Mode::verify;
        Engine e(c);
        for (auto [proto, name] : protos) {
            if (!only.empty() && only != name) continue;
            for (const SizeMix& x : kMixes) {
                uint32_t rng = 2026;
                std::vector<uint32_t> sizes = x.sizes(&rng);
                for (auto& s : sizes) s = std::max(s, gen::min_frame_len({proto, s}));
                rte_mbuf* mixed[kBurst];
                for (int i = 0; i < kBurst; ++i)
                    mixed[i] =
                        make_packet(mp, gen::build_frame({proto, sizes[i], 1, uint32_t(i + 1)}), 1);
                filler.process({}, {}, mixed, kBurst);
                // One uniform burst per distinct size, each packet its own flow.
                std::map<uint32_t, std::vector<rte_mbuf*>> uni;
                for (uint32_t s : sizes) {
                    if (uni.count(s) != 0) continue;
                    auto& b = uni[s];
                    b.resize(kBurst);
                    for (int i = 0; i < kBurst; ++i)
                        b[i] = make_packet(mp, gen::build_frame({proto, s, 1, uint32_t(i + 1)}), 1);
                    filler.process({}, {}, b.data(), kBurst);
                }
                const bool dpdk = c.mode == Mode::verify && proto != Proto::sctp4;
                const bool v6 = proto == Proto::tcp6 || proto == Proto::udp6;
                double tm = 1e18, td = 1e18;
                std::map<uint32_t, double> tu;
                for (auto& [s, b] : uni) tu[s] = 1e18;
                for (int r = 0; r < rounds; ++r) {
                    tm = std::min(tm, time_engine(e, mixed, reps, 0, 0));
                    for (auto& [s, b] : uni)
                        tu[s] = std::min(tu[s], time_engine(e, b.data(), reps, 0, 0));
                    if (dpdk) td = std::min(td, time_dpdk(mixed, reps, v6));
                }
                double mean = 0;  // each packet at its size's uniform cost
                for (uint32_t s : sizes) mean += tu[s] / kBurst;
                std::printf("%-6s %-8s %-6s %10.1f %12.1f %8.2f", name, x.name, mode, tm, mean,
                            tm / mean);
                if (dpdk && td > 0)
                    std::printf(" %10.1f %8.2f\n", td, tm / td);
                else
                    std::printf(" %10s %8s\n", "-", "-");
                rte_pktmbuf_free_bulk(mixed, kBurst);
                for (auto& [s, b] : uni) rte_pktmbuf_free_bulk(b.data(), kBurst);
            }
        }
    }
}

}  // namespace csum::bench
