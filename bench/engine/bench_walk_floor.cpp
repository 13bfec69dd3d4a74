// bench_engine --walk-floor: what walking a chain costs before any test or
// sum, beside the engine's verify of the same chains. The floor loops read
// what every chain verify must (each segment's link, length and data
// pointer) and, on AVX-512, load each segment's bytes into a register by one
// masked load, as the engine's short walk does; nothing else. Sequential:
// one chain after another, as the engine walks them. Interleaved: four
// chains a step, their links loaded side by side.
#include <immintrin.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "bench_common.h"
#include "csum/engine.h"
#include "gen/packet_builder.h"

#if !defined(__clang__)
// GCC 12's AVX-512 intrinsics trip a false -Wmaybe-uninitialized (PR105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace csum::bench {
namespace {

// Links and lengths only: the pointer chase.
[[gnu::noinline]] uint64_t walk_links(rte_mbuf* const* p, int n) {
    uint64_t acc = 0;
    for (int i = 0; i < n; ++i)
        for (const rte_mbuf* g = p[i]; g != nullptr; g = g->next)
            acc += g->data_len + g->data_off + reinterpret_cast<uintptr_t>(g->buf_addr);
    return acc;
}

// The chase with each segment's bytes (at most the first 64 of the packet)
// put in place in one register by a masked load.
[[gnu::noinline, gnu::target("avx512f,avx512bw,bmi2")]] uint64_t walk_loads(rte_mbuf* const* p,
                                                                            int n) {
    uint64_t acc = 0;
    for (int i = 0; i < n; ++i) {
        __m512i z = _mm512_setzero_si512();
        uint32_t pos = 0;
        uint64_t prev = 0;
        for (const rte_mbuf* g = p[i]; g != nullptr; g = g->next) {
            const uint32_t e = std::min(pos + g->data_len, 64u);
            const uint64_t lo = _bzhi_u64(~uint64_t{0}, e);
            z = _mm512_mask_loadu_epi8(z, lo ^ prev, rte_pktmbuf_mtod(g, const char*) - pos);
            prev = lo, pos += g->data_len;
        }
        acc += static_cast<uint64_t>(_mm_cvtsi128_si64(_mm512_castsi512_si128(z))) + pos;
    }
    return acc;
}

// walk_loads four chains a step.
[[gnu::noinline, gnu::target("avx512f,avx512bw,bmi2")]] uint64_t walk_loads4(rte_mbuf* const* p,
                                                                             int n) {
    uint64_t acc = 0;
    for (int i = 0; i + 4 <= n; i += 4) {
        const rte_mbuf* g[4] = {p[i], p[i + 1], p[i + 2], p[i + 3]};
        __m512i z[4] = {};
        uint32_t pos[4] = {};
        uint64_t prev[4] = {};
        for (bool any = true; any;) {
            any = false;
            for (int k = 0; k < 4; ++k) {
                if (g[k] == nullptr) continue;
                const uint32_t e = std::min(pos[k] + g[k]->data_len, 64u);
                const uint64_t lo = _bzhi_u64(~uint64_t{0}, e);
                z[k] = _mm512_mask_loadu_epi8(z[k], lo ^ prev[k],
                                              rte_pktmbuf_mtod(g[k], const char*) - pos[k]);
                prev[k] = lo, pos[k] += g[k]->data_len;
                g[k] = g[k]->next;
                any |= g[k] != nullptr;
            }
        }
        for (int k = 0; k < 4; ++k)
            acc += static_cast<uint64_t>(_mm_cvtsi128_si64(_mm512_castsi512_si128(z[k]))) + pos[k];
    }
    return acc;
}

template <typename F>
double time_walk(F f, rte_mbuf* const* pkts, int reps) {
    std::vector<double> t;
    volatile uint64_t sink = 0;
    for (int r = -reps / 10; r < reps; ++r) {
        const uint64_t t0 = rte_rdtsc_precise();
        sink = sink + f(pkts, kBurst);
        const uint64_t dt = rte_rdtsc_precise() - t0;
        if (r >= 0) t.push_back(double(dt) / kBurst);
    }
    return median(t);
}

}  // namespace

void walk_floor_rows(rte_mempool* mp, Engine& filler, int reps, int rounds) {
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("bmi2");
    std::printf("%-5s %5s %4s %10s %10s %10s %10s %10s\n", "proto", "size", "segs", "links t/p",
                "loads t/p", "loads x4", "engine t/p", "empty t/p");
    EngineConfig c;
    c.mode = Mode::verify;
    Engine e(c);
    for (uint32_t size : {64u, 256u, 1420u}) {
        const auto bytes = gen::build_frame({gen::Proto::tcp4, size, 1, 1});
        for (int segs : {1, 2, 4}) {
            rte_mbuf* b[kBurst];
            for (auto& m : b) m = make_packet(mp, bytes, segs);
            filler.process({}, {}, b, kBurst);
            double tl = 1e18, tv = 1e18, t4 = 1e18, te = 1e18, t0 = 1e18;
            for (int r = 0; r < rounds; ++r) {
                tl = std::min(tl, time_walk(walk_links, b, reps));
                if (avx512) {
                    tv = std::min(tv, time_walk(walk_loads, b, reps));
                    t4 = std::min(t4, time_walk(walk_loads4, b, reps));
                }
                te = std::min(te, time_engine(e, b, reps, 0, 0));
                t0 = std::min(
                    t0, time_walk([](rte_mbuf* const*, int) { return uint64_t{0}; }, b, reps));
            }
            std::printf("%-5s %5u %4d %10.1f", "tcp4", size, segs, tl);
            if (avx512)
                std::printf(" %10.1f %10.1f", tv, t4);
            else
                std::printf(" %10s %10s", "-", "-");
            std::printf(" %10.1f %10.1f\n", te, t0);
            rte_pktmbuf_free_bulk(b, kBurst);
        }
    }
}

}  // namespace csum::bench
