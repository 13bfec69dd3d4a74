#include "runner.h"

#include <algorithm>
#include <vector>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

namespace bench {
namespace {

constexpr int kBurstsPerClockCheck = 16;

LayerCounts snapshot(const csum::Engine* e, uint64_t* parse_errors) {
    LayerCounts c;
    *parse_errors = 0;
    if (e == nullptr) return c;
    const auto& s = e->stats();
    for (int p = 0; p < csum::kLayerProtoCount; ++p)
        for (int k = 0; k < csum::kLayerStatusCount; ++k) c.n[p][k] = s.layer[p][k].get();
    for (int i = 1; i < csum::kParseErrorCount; ++i) *parse_errors += s.parse_error[i].get();
    return c;
}

RunCounts run_once(ReplayPool& pool, csum::Engine* engine, const RunPlan& plan, uint64_t ticks) {
    static const csum::RxPortPolicy rx{};
    static const csum::TxPortPolicy
        tx{};  // no offloads: all software, like testpmd's "csum set sw"
    rte_mbuf* pkts[512];
    RunCounts c;
    thread_local std::vector<uint32_t> samples;  // per-burst ticks, bounded
    samples.clear();
    samples.reserve(1u << 20);
    const uint64_t work0 = engine ? engine->stats().work_tsc.get() : 0;
    const uint64_t pk0 = engine ? engine->stats().packets.get() : 0;
    const uint64_t start = rte_rdtsc(), end = start + ticks;
    uint64_t now = start;
    while (now < end) {
        for (int b = 0; b < kBurstsPerClockCheck; ++b) {
            const auto got = pool.next(pkts, plan.burst, plan.restore);
            if (engine != nullptr) {
                const uint64_t t0 = rte_rdtsc();
                engine->process(rx, tx, pkts, plan.burst);
                const uint64_t dt = rte_rdtsc() - t0;
                c.engine_tsc += dt;
                if (samples.size() < samples.capacity())
                    samples.push_back(uint32_t(std::min<uint64_t>(dt, ~0u)));
            } else {
                asm volatile(""
                             :
                             : "r"(pkts[0])
                             : "memory");  // io: the packets are "sent" untouched
            }
            c.packets += plan.burst, c.bytes += got.bytes, c.corrupt += got.corrupt,
                c.nvme_data += got.nvme_data;
        }
        now = rte_rdtsc();
    }
    c.loop_tsc = now - start;
    if (!samples.empty()) {
        std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
        c.engine_burst_median = double(samples[samples.size() / 2]) / plan.burst;
    }
    if (engine != nullptr) {
        c.work_tsc = engine->stats().work_tsc.get() - work0;
        c.engine_packets = engine->stats().packets.get() - pk0;
    }
    return c;
}

}  // namespace

Measurement measure(ReplayPool& pool, csum::Engine* engine, const RunPlan& plan) {
    Measurement m;
    m.lcore = rte_lcore_id();
    const uint64_t hz = rte_get_tsc_hz();
    run_once(pool, engine, plan, hz * plan.warmup_ms / 1000);
    uint64_t pe0 = 0, pe1 = 0;
    const LayerCounts before = snapshot(engine, &pe0);
    for (uint32_t r = 0; r < plan.runs; ++r)
        m.runs.push_back(run_once(pool, engine, plan, hz * plan.run_ms / 1000));
    const LayerCounts after = snapshot(engine, &pe1);
    for (int p = 0; p < csum::kLayerProtoCount; ++p)
        for (int k = 0; k < csum::kLayerStatusCount; ++k)
            m.layers.n[p][k] = after.n[p][k] - before.n[p][k];
    m.parse_errors = pe1 - pe0;
    return m;
}

}  // namespace bench
