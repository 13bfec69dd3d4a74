// Ticks per call (rte_rdtsc, hot cache, dependent calls, median of many
// samples) of the Internet checksum: each of our kernels, our dispatch, and
// DPDK's rte_raw_cksum built -O3 -march=native and -march=corei7. Also the
// chain walk over 2- and 4-segment mbufs. Ratios are against native DPDK.
//
// bench_inet [--csv FILE] [--json FILE] [--reps N]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "csum/inet.h"
#include "csum/kernels.h"
#include "dpdk_variants.h"
#include "inet/inet_kernels.h"
#include "testkit/eal_args.h"

namespace {

using LinearFn = uint16_t (*)(const void*, size_t);
using ChainFn = uint16_t (*)(const rte_mbuf*, uint32_t, uint32_t);

volatile uint32_t g_zero = 0;  // opaque to the compiler: chains the calls

// Kernels called directly (the private header), so their rows show the
// kernel itself; partial_sum_with would add its availability check.
template <csum::detail::InetKernelFn K>
uint16_t kernel_fn(const void* p, size_t n) {
    return csum::sum_fold(K(static_cast<const uint8_t*>(p), n, 0));
}
uint16_t fixed_fn(const void* p, size_t n) {
    return n == 20 ? csum::sum_fold(csum::partial_sum_fixed<20>(p))
                   : csum::sum_fold(csum::partial_sum_fixed<40>(p));
}
// A wrapper for the common signature: this costs ours one call level more
// than DPDK's wrappers, which have rte_raw_cksum_mbuf inlined.
uint16_t ours_chain(const rte_mbuf* m, uint32_t off, uint32_t len) {
    uint16_t s = 0;
    csum::raw_cksum_mbuf(m, off, len, &s);
    return s;
}

struct Row {
    std::string kind;  // linear or chain
    size_t bytes;
    unsigned segs;
    std::string impl;
    double ticks;
    double ratio = 0;  // native DPDK ticks / these ticks: >1 is faster
    uint16_t result;
};

int g_reps = 1001;
constexpr int kInner = 32;
volatile uint16_t g_sink;

// One sample: kInner calls, each depending on the last one's result.
uint64_t sample_linear(LinearFn f, const uint8_t* p, size_t n) {
    uint16_t r = 0;
    const uint64_t t0 = rte_rdtsc();
    for (int i = 0; i < kInner; ++i) r = f(p + (r & g_zero), n);
    const uint64_t t = rte_rdtsc() - t0;
    g_sink = r;
    return t;
}

uint64_t sample_chain(ChainFn f, const rte_mbuf* m, size_t n) {
    uint16_t r = 0;
    const uint64_t t0 = rte_rdtsc();
    for (int i = 0; i < kInner; ++i) r = f(m, r & g_zero, static_cast<uint32_t>(n));
    const uint64_t t = rte_rdtsc() - t0;
    g_sink = r;
    return t;
}

// Samples of all implementations are taken round-robin, so that load from
// other processes on this shared machine hits them all alike.
template <class Sample>
std::vector<double> interleaved_medians(size_t n_impls, Sample&& sample) {
    std::vector<std::vector<uint64_t>> s(n_impls, std::vector<uint64_t>(g_reps));
    for (size_t i = 0; i < n_impls; ++i) sample(i);  // warm
    for (int r = 0; r < g_reps; ++r)
        for (size_t i = 0; i < n_impls; ++i) s[i][r] = sample(i);
    std::vector<double> med;
    for (auto& v : s) {
        std::nth_element(v.begin(), v.begin() + g_reps / 2, v.end());
        med.push_back(double(v[g_reps / 2]) / kInner);
    }
    return med;
}

rte_mbuf* make_chain(rte_mempool* mp, const uint8_t* data, size_t n, unsigned segs) {
    rte_mbuf* head = nullptr;
    rte_mbuf* tail = nullptr;
    size_t pos = 0;
    for (unsigned i = 0; i < segs; ++i) {
        const size_t end = i + 1 == segs ? n : (n * (i + 1) / segs) & ~size_t{1};  // even splits
        rte_mbuf* m = rte_pktmbuf_alloc(mp);
        if (m == nullptr) return nullptr;
        std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), data + pos, end - pos);
        m->data_len = static_cast<uint16_t>(end - pos);
        m->pkt_len = m->data_len;
        if (head == nullptr) {
            head = tail = m;
        } else {
            tail->next = m;
            tail = m;
            head->nb_segs++;
            head->pkt_len += m->data_len;
        }
        pos = end;
    }
    return head;
}

std::string cpu_name() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "?";
}

}  // namespace

int main(int argc, char** argv) {
    std::string csv_path, json_path;
    size_t extra_size = 0;  // --size N: only that size (for tuning)
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--csv"))
            csv_path = argv[i + 1];
        else if (!std::strcmp(argv[i], "--json"))
            json_path = argv[i + 1];
        else if (!std::strcmp(argv[i], "--reps"))
            g_reps = std::max(1, std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--size"))
            extra_size = std::strtoul(argv[i + 1], nullptr, 10);
    }
    if (csum::testkit::eal_init({.prog = "bench_inet",
                                 .file_prefix = csum::testkit::unique_prefix("bench_inet_")}) < 0) {
        std::fprintf(stderr, "EAL init failed\n");
        return 1;
    }

    std::vector<size_t> sizes = {20, 40, 64, 256, 1420, 4096, 9000, 16384};
    if (extra_size > 0 && extra_size <= 16384) sizes = {extra_size};
    std::vector<uint8_t> buf(16384 + 64);
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<uint8_t>(i * 131 + 7);
    const uint8_t* data = buf.data();  // 64-byte aligned in practice is not assumed

    std::vector<std::pair<std::string, LinearFn>> impls = {{"dpdk_native", dpdk_raw_cksum_native},
                                                           {"dpdk_corei7", dpdk_raw_cksum_corei7},
                                                           {"csum_dispatch", csum::raw_cksum}};
    for (csum::InetKernel k : csum::inet_available_kernels()) {
        LinearFn f = k == csum::InetKernel::scalar ? kernel_fn<csum::detail::inet_sum_scalar>
                     : k == csum::InetKernel::avx2 ? kernel_fn<csum::detail::inet_sum_avx2>
                     : k == csum::InetKernel::avx512
                         ? kernel_fn<csum::detail::inet_sum_avx512>
                         : kernel_fn<csum::detail::inet_sum_avx512_vnni>;
        impls.emplace_back("csum_" + std::string(csum::inet_kernel_name(k)), f);
    }

    std::vector<Row> rows;
    bool mismatch = false;
    for (size_t n : sizes) {
        auto list = impls;
        if (n == 20 || n == 40) list.emplace_back("csum_fixed_inline", fixed_fn);
        const auto med = interleaved_medians(
            list.size(), [&](size_t i) { return sample_linear(list[i].second, data, n); });
        for (size_t i = 0; i < list.size(); ++i)
            rows.push_back({"linear", n, 1, list[i].first, med[i], 0, list[i].second(data, n)});
    }

    rte_mempool* mp = rte_pktmbuf_pool_create("bench_inet", 63, 0, 0, 16384 + RTE_PKTMBUF_HEADROOM,
                                              SOCKET_ID_ANY);
    if (mp == nullptr) {
        std::fprintf(stderr, "mempool failed\n");
        return 1;
    }
    const std::pair<std::string, ChainFn> chain_impls[] = {
        {"dpdk_native", dpdk_raw_cksum_mbuf_native},
        {"dpdk_corei7", dpdk_raw_cksum_mbuf_corei7},
        {"csum_dispatch", ours_chain}};
    for (unsigned segs : {2u, 4u}) {
        for (size_t n : sizes) {
            if (n < 64) continue;
            rte_mbuf* m = make_chain(mp, data, n, segs);
            const auto med = interleaved_medians(std::size(chain_impls), [&](size_t i) {
                return sample_chain(chain_impls[i].second, m, n);
            });
            for (size_t i = 0; i < std::size(chain_impls); ++i)
                rows.push_back({"chain", n, segs, chain_impls[i].first, med[i], 0,
                                chain_impls[i].second(m, 0, static_cast<uint32_t>(n))});
            rte_pktmbuf_free(m);
        }
    }

    // Ratios against native DPDK of the same kind, size and segment count;
    // every implementation must also have computed the same checksum.
    for (auto& r : rows) {
        for (auto& b : rows) {
            if (b.kind == r.kind && b.bytes == r.bytes && b.segs == r.segs &&
                b.impl == "dpdk_native") {
                r.ratio = b.ticks / r.ticks;
                if (b.result != r.result) {
                    mismatch = true;
                    std::fprintf(stderr, "MISMATCH %s %zu %s\n", r.kind.c_str(), r.bytes,
                                 r.impl.c_str());
                }
            }
        }
    }

    std::printf("# bench_inet: %s, TSC %.3f GHz, active kernel %s, reps %d x %d calls\n\n",
                cpu_name().c_str(), rte_get_tsc_hz() / 1e9,
                std::string(csum::inet_kernel_name(csum::inet_active_kernel())).c_str(), g_reps,
                kInner);
    std::printf("%s\n", csum::kernel_calibration_table().c_str());
    std::printf("| kind | segs | bytes | impl | ticks/call | bytes/tick | vs dpdk_native |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    for (auto& r : rows)
        std::printf("| %s | %u | %zu | %s | %.1f | %.1f | %.2fx |\n", r.kind.c_str(), r.segs,
                    r.bytes, r.impl.c_str(), r.ticks, r.bytes / r.ticks, r.ratio);
    if (!csv_path.empty()) {
        std::ofstream f(csv_path);
        f << "kind,segs,bytes,impl,ticks_per_call,ratio_vs_dpdk_native\n";
        for (auto& r : rows)
            f << r.kind << ',' << r.segs << ',' << r.bytes << ',' << r.impl << ',' << r.ticks << ','
              << r.ratio << '\n';
    }
    if (!json_path.empty()) {
        std::ofstream f(json_path);
        f << "[\n";
        for (size_t i = 0; i < rows.size(); ++i) {
            const Row& r = rows[i];
            f << "  {\"kind\": \"" << r.kind << "\", \"segs\": " << r.segs
              << ", \"bytes\": " << r.bytes << ", \"impl\": \"" << r.impl
              << "\", \"ticks_per_call\": " << r.ticks << ", \"ratio_vs_dpdk_native\": " << r.ratio
              << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
        }
        f << "]\n";
    }
    rte_mempool_free(mp);
    rte_eal_cleanup();
    return mismatch ? 2 : 0;
}
