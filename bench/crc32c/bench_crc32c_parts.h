// bench_crc32c's parts shared across its files: mbuf chains cut as asked,
// the --sizes parser, the results' report and the --burst mode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct rte_mbuf;
struct rte_mempool;

namespace crc_bench {

// Segment i holds bytes [cuts[i], cuts[i + 1]) of src at headroom + skew[i];
// nullptr if a piece does not fit its buffer or the pool is empty.
rte_mbuf* chain(rte_mempool* mp, const uint8_t* src, const std::vector<size_t>& cuts,
                const std::vector<uint16_t>& skew = {});
// n bytes in nseg equal pieces.
rte_mbuf* chain(rte_mempool* mp, const uint8_t* src, size_t n, unsigned nseg);

// --sizes: "256-1500/4,4096" -> lengths; empty on a malformed list.
std::vector<size_t> parse_sizes(const std::string& list);

struct Result {
    std::string name;
    size_t len;
    double med, p10, p90;
};

// The q-quantile of v (0.5: the median).
double pct(std::vector<double> v, double q);

// The tables on stdout, and out/crc32c-bench.{csv,json}.
void report(const std::vector<Result>& rs, const std::vector<size_t>& sizes, const std::string& out,
            const char* stamp);

// --burst: crc32c_mbuf over bursts of 32 packets, linear and chained.
void burst(unsigned rounds);

}  // namespace crc_bench
