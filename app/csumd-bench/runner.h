// One measurement on one lcore: warm-up, then timed runs of the replay loop
// through Engine::process, TSC-timed.
#pragma once

#include <cstdint>
#include <vector>

#include "csum/engine.h"
#include "replay_pool.h"

namespace bench {

struct RunCounts {
    uint64_t packets = 0, bytes = 0, corrupt = 0, nvme_data = 0;
    uint64_t loop_tsc = 0;    // the whole run: replay + engine + bookkeeping
    uint64_t engine_tsc = 0;  // around Engine::process calls only
    uint64_t work_tsc = 0;    // the engine's own work_tsc (parse + checksums)
    uint64_t engine_packets = 0;
    // Ticks per packet of the median Engine::process call: robust to
    // preemption on a loaded machine, where the totals above are not.
    double engine_burst_median = 0;
};

struct LayerCounts {
    uint64_t n[csum::kLayerProtoCount][csum::kLayerStatusCount] = {};
};

struct Measurement {
    unsigned lcore = 0;
    std::vector<RunCounts> runs;
    LayerCounts layers;  // over the timed runs
    uint64_t parse_errors = 0;
};

struct RunPlan {
    csum::Mode mode = csum::Mode::verify;
    bool restore = false;  // put checksum fields back before each burst
    uint16_t burst = 32;
    uint32_t warmup_ms = 200, runs = 5, run_ms = 500;
};

// Runs the plan over pool; engine is null for io mode.
Measurement measure(ReplayPool& pool, csum::Engine* engine, const RunPlan& plan);

}  // namespace bench
