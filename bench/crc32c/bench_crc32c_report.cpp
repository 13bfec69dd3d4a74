// bench_crc32c's tables and output files (bench_crc32c_parts.h).
#include <rte_cycles.h>

#include <algorithm>
#include <cstdio>

#include "bench_crc32c_parts.h"
#include "csum/crc32c.h"

namespace crc_bench {

double pct(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * (v.size() - 1))];
}

namespace {

const Result* find(const std::vector<Result>& rs, const std::string& name, size_t len) {
    for (const auto& r : rs)
        if (r.name == name && r.len == len) return &r;
    return nullptr;
}

}  // namespace

void report(const std::vector<Result>& rs, const std::vector<size_t>& sizes, const std::string& out,
            const char* stamp) {
    std::printf("\nTSC ticks per call (median; p10-p90), bytes/tick, ratio to isal_direct\n");
    for (size_t n : sizes) {
        const Result* isal = find(rs, "isal_direct", n);
        std::printf("\n%6zu B  %-15s %9s %17s %8s %8s\n", n, "impl", "ticks", "p10-p90", "B/tick",
                    "vs ISA-L");
        for (const auto& r : rs)
            if (r.len == n)
                std::printf("          %-15s %9.1f %8.1f-%-8.1f %8.2f %8.2f\n", r.name.c_str(),
                            r.med, r.p10, r.p90, n / r.med, isal ? r.med / isal->med : 0.0);
    }
    std::printf(
        "\nTicks of [ISA-L AVX-512 CRC of 1 KiB; ours] (dirty upper state), and the same\n"
        "with a vzeroupper between (clean); dirty/clean near 1 = immune\n");
    std::printf("%6s %9s", "bytes", "isal1k");
    for (const char* h : {"crc32c()", "2seg", "4seg", "sse-enc."})
        std::printf(" %9s %9s %6s", (std::string("d:") + h).c_str(),
                    (std::string("c:") + h).c_str(), "d/c");
    std::printf("\n");
    for (size_t n : sizes) {
        const Result* a = find(rs, "isal1k_alone", n);
        if (a == nullptr) continue;
        std::printf("%6zu %9.1f", n, a->med);
        for (const char* name : {"default", "mbuf_2seg", "mbuf_4seg", "sse_encoded"}) {
            const Result* d = find(rs, std::string("dirty+") + name, n);
            const Result* c = find(rs, std::string("clean+") + name, n);
            if (d == nullptr || c == nullptr) {
                std::printf(" %9s %9s %6s", "-", "-", "-");
                continue;
            }
            std::printf(" %9.1f %9.1f %6.2f", d->med, c->med, d->med / c->med);
        }
        std::printf("\n");
    }
    std::printf("\nChains (crc32c_mbuf, default kernel) vs linear\n");
    std::printf("%6s %9s %9s %9s %9s %11s %9s %11s\n", "bytes", "crc32c()", "mbuf_lin", "2seg",
                "4seg", "2seg/lin", "2seg-lin", "isal2h/isal");
    for (size_t n : sizes) {
        const Result *d = find(rs, "default", n), *l = find(rs, "mbuf_linear", n),
                     *t = find(rs, "mbuf_2seg", n), *f = find(rs, "mbuf_4seg", n),
                     *i1 = find(rs, "isal_direct", n), *i2 = find(rs, "isal_2halves", n);
        if (d == nullptr || t == nullptr || f == nullptr || i1 == nullptr || i2 == nullptr)
            continue;
        const Result* base = l ? l : d;  // 64 KiB fits no single mbuf
        std::printf("%6zu %9.1f %9s %9.1f %9.1f %11.3f %9.1f %11.3f\n", n, d->med,
                    l ? std::to_string(static_cast<int>(l->med + 0.5)).c_str() : "n/a", t->med,
                    f->med, t->med / base->med, t->med - base->med, i2->med / i1->med);
    }
    // The same at the 10th percentile of rounds (a shared host's load inflates
    // the median), against issue 14's target: 1.2x linear, +8 ticks at <= 256 B.
    std::printf("\nChains, 10th percentile of rounds, against the target\n");
    std::printf("%6s %9s %9s %9s %9s %9s %9s\n", "bytes", "mbuf_lin", "2seg", "4seg", "target",
                "2seg/lin", "4seg/lin");
    for (size_t n : sizes) {
        const Result *l = find(rs, "mbuf_linear", n), *d = find(rs, "default", n),
                     *t = find(rs, "mbuf_2seg", n), *f = find(rs, "mbuf_4seg", n);
        if (d == nullptr || t == nullptr || f == nullptr) continue;
        const double lin = (l ? l : d)->p10;
        const double target = 1.2 * lin + (n <= 256 ? 8 : 0);
        std::printf("%6zu %9.1f %9.1f %9.1f %9.1f %9.2f %9.2f\n", n, lin, t->p10, f->p10, target,
                    t->p10 / lin, f->p10 / lin);
    }
    // Other splits (2048 + HEADROOM pool): unequal pieces at odd offsets,
    // 1-byte end pieces, and halves timed from byte 1 against linear from
    // byte 1; the target column is mbuf_lin's (or mbuf_lin_o1's) median.
    std::printf("\nChains of other splits (medians) against the target\n");
    std::printf("%6s %9s %9s %9s %9s %9s %9s\n", "bytes", "mbuf_lin", "4odd", "4tiny", "target",
                "lin_o1", "2x2k_o1");
    for (size_t n : sizes) {
        const Result *l = find(rs, "mbuf_linear", n), *o = find(rs, "mbuf_4odd", n),
                     *t = find(rs, "mbuf_4tiny", n), *l1 = find(rs, "mbuf_lin_o1", n),
                     *h = find(rs, "mbuf_2x2k_o1", n);
        // 4tiny needs an n - 3 byte segment: past 2 KiB only 4odd is built.
        if (l == nullptr || (o == nullptr && t == nullptr)) continue;
        const double target = 1.2 * l->med + (n <= 256 ? 8 : 0);
        auto cell = [](const Result* r) {
            return r ? std::to_string(r->med).substr(0, 5) : std::string("-");
        };
        std::printf("%6zu %9.1f %9s %9s %9.1f %9s %9s\n", n, l->med, cell(o).c_str(),
                    cell(t).c_str(), target, cell(l1).c_str(), cell(h).c_str());
    }
    FILE* csv = std::fopen((out + "/crc32c-bench.csv").c_str(), "w");
    FILE* js = std::fopen((out + "/crc32c-bench.json").c_str(), "w");
    if (csv == nullptr || js == nullptr) return (void)std::perror("output files");
    std::fprintf(csv, "impl,bytes,ticks_median,ticks_p10,ticks_p90,bytes_per_tick,ratio_to_isal\n");
    std::fprintf(js, "{\"date\":\"%s\",\"tsc_hz\":%lu,\"default_kernel\":\"%s\",\"results\":[\n",
                 stamp, static_cast<unsigned long>(rte_get_tsc_hz()),
                 std::string(csum::crc32c_kernel_name(csum::crc32c_active_kernel())).c_str());
    for (size_t k = 0; k < rs.size(); ++k) {
        const auto& r = rs[k];
        const Result* isal = find(rs, "isal_direct", r.len);
        const double ratio = isal ? r.med / isal->med : 0.0;
        std::fprintf(csv, "%s,%zu,%.2f,%.2f,%.2f,%.3f,%.3f\n", r.name.c_str(), r.len, r.med, r.p10,
                     r.p90, r.len / r.med, ratio);
        std::fprintf(js,
                     "{\"impl\":\"%s\",\"bytes\":%zu,\"ticks_median\":%.2f,\"ticks_p10\":%.2f,"
                     "\"ticks_p90\":%.2f,\"bytes_per_tick\":%.3f,\"ratio_to_isal\":%.3f}%s\n",
                     r.name.c_str(), r.len, r.med, r.p10, r.p90, r.len / r.med, ratio,
                     k + 1 < rs.size() ? "," : "");
    }
    std::fprintf(js, "]}\n");
    std::fclose(csv);
    std::fclose(js);
    std::printf("\nwrote %s/crc32c-bench.csv and .json\n", out.c_str());
}

}  // namespace crc_bench
