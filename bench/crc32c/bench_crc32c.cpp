// CRC32C benchmark: TSC ticks per call (rte_rdtsc), hot cache, dependent
// calls (each call's CRC seeds the next). Every implementation is timed in
// the same rounds, interleaved, and the median over rounds is reported, so
// noise from other processes hits all of them alike.
//
//   bench_crc32c [--rounds N] [--out DIR] [--align A] [--crossover] [--variants]
//                [--burst] [--sizes LIST] [EAL args...]
//
// --align A puts the flat buffer A bytes past a 64-byte boundary (default 0).
// --crossover sweeps 16..512 B in 16 B steps (plus 1, 4, 16 KiB) and adds the
// tuning variants: both short paths, fold-only, the vpclmul_avx2 mixed loop
// with crc32 lanes of 2..12 qwords, and the avx512 loop variants.
// --variants adds the same variants at the usual sizes.
// --sizes LIST times these lengths instead: comma-separated, each N or
// A-B (every length) or A-B/S (step S), e.g. 256-1500,4095,4096.
// --burst times only crc32c_mbuf over bursts of 32 chains as the engine meets
// them (see burst()), instead of the tables below.
// Results go to DIR/crc32c-bench.{csv,json}. BENCH_ONLY="name,name" (env) keeps
// only the rows named (their peers in the tables need naming too).
#include <isa-l/crc.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_hash_crc.h>
#include <rte_mbuf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "bench_crc32c_parts.h"
#include "crc32c/crc32c_kernels.h"
#include "csum/crc32c.h"
#include "csum/kernels.h"
#include "testkit/eal_args.h"
#include "testkit/isal_crc32c.h"

namespace csum::detail {
struct CrcWalk {
    uint32_t state;
    bool complete;
};
CrcWalk crc32c_walk_stream(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept;
}  // namespace csum::detail

namespace {

using namespace csum;
using namespace crc_bench;

struct Ctx {
    const uint8_t* buf;
    rte_mbuf* lin;   // one segment
    rte_mbuf* two;   // halves
    rte_mbuf* four;  // quarters
    // Other splits, in a 2048 + HEADROOM pool (issue 14: "any split"):
    rte_mbuf* odd4;   // 4 unequal pieces, each at an odd offset
    rte_mbuf* tiny4;  // 1, n - 3, 1, 1 bytes
    rte_mbuf* two2k;  // halves, timed from byte 1 (n - 1 bytes)
};

volatile uint32_t g_sink;

template <class F>
double run_batch(F f, const Ctx& c, size_t n, unsigned iters) {
    uint32_t crc = 0;
    const uint64_t t0 = rte_rdtsc();
    for (unsigned i = 0; i < iters; ++i) crc = f(c, n, crc);
    const uint64_t t1 = rte_rdtsc();
    g_sink = crc;
    return static_cast<double>(t1 - t0) / iters;
}

using BatchFn = double (*)(const Ctx&, size_t, unsigned);
struct Impl {
    const char* name;
    BatchFn batch;
    size_t min_len = 0;  // smaller sizes are skipped
    unsigned segs = 0;   // mbuf shape used (0: flat buffer); skipped if not built
    size_t max_len = SIZE_MAX;
    bool tuning = false;                          // only with --crossover
    Crc32cKernel needs = Crc32cKernel::portable;  // the kernel it calls directly
};

enum : unsigned { kOdd4 = 5, kTiny4 = 6, kTwo2k = 7 };
rte_mbuf* shape(const Ctx& c, unsigned segs) {
    switch (segs) {
        case 1:
            return c.lin;
        case 2:
            return c.two;
        case 4:
            return c.four;
        case kOdd4:
            return c.odd4;
        case kTiny4:
            return c.tiny4;
        case kTwo2k:
            return c.two2k;
    }
    return nullptr;
}

#define IMPL(name, expr, ...)                                              \
    Impl {                                                                 \
        name,                                                              \
            [](const Ctx& ctx, size_t len, unsigned it) {                  \
                return run_batch(                                          \
                    [](const Ctx& c, size_t n, uint32_t crc) -> uint32_t { \
                        (void)c, (void)n;                                  \
                        return expr;                                       \
                    },                                                     \
                    ctx, len, it);                                         \
            },                                                             \
            __VA_ARGS__                                                    \
    }

// ISA-L's AVX-512 crc32_iscsi returns with the upper zmm state dirty. Run it
// just before ours, then ours must not pay SSE/AVX transitions (issue 14).
alignas(64) uint8_t g_dirty_buf[1024];
inline void dirty_upper() {
    g_sink = crc32_iscsi(g_dirty_buf, sizeof g_dirty_buf, g_sink);
}
inline void dirty_then_clean() {
    dirty_upper();
    __asm__ volatile("vzeroupper" ::: "memory");
}

uint32_t kern(detail::Crc32cFn f, const uint8_t* p, size_t n, uint32_t crc) {
    return ~f(~crc, p, n);
}

// The next call's address depends on this one's CRC (as in calibration):
// nothing of it starts early, so this times latency.
volatile uint32_t g_zero = 0;
inline const uint8_t* after(const uint8_t* p, uint32_t crc) {
    return p + (crc & g_zero);
}

inline void vzu() {
    __asm__ volatile("vzeroupper" ::: "memory");
}

// The rows that call kernel k directly: on a CPU without it (AVX2 without
// VPCLMULQDQ: Haswell to Skylake, AMD Zen 1 and 2) they would stop the
// bench with SIGILL, so they are left out there.
void add_calling(Crc32cKernel k, std::vector<Impl>& v, std::initializer_list<Impl> rows) {
    for (Impl i : rows) {
        i.needs = k;
        v.push_back(i);
    }
}

// A tuning row for one variant of a kernel's loop (crc32c_kernels.h), from
// min_len bytes; fenced rows start with a vzeroupper, as the public entry does.
using MixFn = uint32_t (*)(size_t, uint32_t, const uint8_t*, size_t) noexcept;
template <MixFn kMix, size_t kVariant, bool kFenced = false>
Impl mix_row(const char* name, size_t min_len) {
    return IMPL(name, ((kFenced ? vzu() : void()), ~kMix(kVariant, ~crc, c.buf, n)), min_len, 0,
                SIZE_MAX, true);
}
template <size_t kVariant>
Impl avx512_row(const char* name) {
    return mix_row<detail::crc32c_avx512_mix, kVariant, true>(name, 256);
}

bool runs_here(Crc32cKernel k) {
    for (auto a : crc32c_available_kernels())
        if (a == k) return true;
    return false;
}

std::vector<Impl> all_impls(bool tuning) {
    // Rows any CPU runs: the portable kernel, the public entry points, ISA-L, DPDK.
    std::vector<Impl> v = {
        IMPL("portable", kern(detail::crc32c_portable, c.buf, n, crc)),
        IMPL("latency_default", crc32c(after(c.buf, crc), n, crc), 0, 0, SIZE_MAX, true),
        IMPL("latency_isal",
             ~crc32_iscsi(const_cast<uint8_t*>(after(c.buf, crc)), static_cast<int>(n), ~crc), 0, 0,
             SIZE_MAX, true),
        IMPL("isal_kernel", kern(testkit::isal_crc32c_raw, c.buf, n, crc)),
        IMPL("default", crc32c(c.buf, n, crc)),
        IMPL("isal_direct", ~crc32_iscsi(const_cast<uint8_t*>(c.buf), static_cast<int>(n), ~crc)),
        IMPL("isal_2halves",
             ~crc32_iscsi(const_cast<uint8_t*>(c.buf) + n / 2, static_cast<int>(n - n / 2),
                          crc32_iscsi(const_cast<uint8_t*>(c.buf), static_cast<int>(n / 2), ~crc))),
        // Independent calls (throughput, as for unrelated packets): the CRC is
        // not fed into the next call, only xored into the running value.
        IMPL("default_indep", crc ^ crc32c(c.buf, n, 0)),
        IMPL("isal_indep",
             crc ^ ~crc32_iscsi(const_cast<uint8_t*>(c.buf), static_cast<int>(n), ~0u)),
        IMPL("rte_hash_crc", rte_hash_crc(c.buf, static_cast<uint32_t>(n), crc)),
        IMPL("mbuf_linear", crc32c_mbuf(c.lin, 0, static_cast<uint32_t>(n), crc), 0, 1),
        IMPL("mbuf_2seg", crc32c_mbuf(c.two, 0, static_cast<uint32_t>(n), crc), 0, 2),
        IMPL("mbuf_4seg", crc32c_mbuf(c.four, 0, static_cast<uint32_t>(n), crc), 0, 4),
        IMPL("mbuf_4odd", crc32c_mbuf(c.odd4, 0, static_cast<uint32_t>(n), crc), 0, kOdd4),
        IMPL("mbuf_4tiny", crc32c_mbuf(c.tiny4, 0, static_cast<uint32_t>(n), crc), 0, kTiny4),
        IMPL("mbuf_2x2k_o1", crc32c_mbuf(c.two2k, 1, static_cast<uint32_t>(n - 1), crc), 0, kTwo2k),
        IMPL("mbuf_lin_o1", crc32c_mbuf(c.lin, 1, static_cast<uint32_t>(n - 1), crc), 0, 1),
        // Each call preceded by ISA-L's AVX-512 CRC of 1 KiB, and the same with
        // a vzeroupper in between: the difference is the dirty-state penalty.
        IMPL("isal1k_alone", (dirty_upper(), crc)),
        // The SSE-encoded sse42 kernel, as the short paths were built before:
        // shows that this bench sees the penalty when it exists.
        IMPL("dirty+sse_encoded", (dirty_upper(), crc32c_with(Crc32cKernel::sse42, c.buf, n, crc))),
        IMPL("clean+sse_encoded",
             (dirty_then_clean(), crc32c_with(Crc32cKernel::sse42, c.buf, n, crc))),
        IMPL("dirty+default", (dirty_upper(), crc32c(c.buf, n, crc))),
        IMPL("clean+default", (dirty_then_clean(), crc32c(c.buf, n, crc))),
        IMPL("dirty+mbuf_2seg",
             (dirty_upper(), crc32c_mbuf(c.two, 0, static_cast<uint32_t>(n), crc)), 0, 2),
        IMPL("clean+mbuf_2seg",
             (dirty_then_clean(), crc32c_mbuf(c.two, 0, static_cast<uint32_t>(n), crc)), 0, 2),
        IMPL("dirty+mbuf_4seg",
             (dirty_upper(), crc32c_mbuf(c.four, 0, static_cast<uint32_t>(n), crc)), 0, 4),
        IMPL("clean+mbuf_4seg",
             (dirty_then_clean(), crc32c_mbuf(c.four, 0, static_cast<uint32_t>(n), crc)), 0, 4),
    };
    add_calling(
        Crc32cKernel::sse42, v,
        {
            IMPL("sse42", kern(detail::crc32c_sse42, c.buf, n, crc)),
            IMPL("short_lanes", kern(detail::crc32c_short_lanes, c.buf, n, crc), 0, 0, 256, true),
            IMPL("short_lanes_indep", crc ^ kern(detail::crc32c_short_lanes, c.buf, n, 0), 0, 0,
                 256, true),
        });
    add_calling(
        Crc32cKernel::pclmul, v,
        {
            IMPL("pclmul", kern(detail::crc32c_pclmul, c.buf, n, crc)),
            mix_row<detail::crc32c_pclmul_mix, 0>("pclmul_fold_only", 128),
            mix_row<detail::crc32c_pclmul_mix, 1>("pclmul_mix1", 128),
            mix_row<detail::crc32c_pclmul_mix, 2>("pclmul_mix2", 128),
            mix_row<detail::crc32c_pclmul_mix, 4>("pclmul_mix4", 128),
            mix_row<detail::crc32c_pclmul_mix, 8>("pclmul_mix8", 128),
            IMPL("short_tree_indep", crc ^ kern(detail::crc32c_short_tree, c.buf, n, 0), 0, 0, 127,
                 true),
            IMPL("short_tree", kern(detail::crc32c_short_tree, c.buf, n, crc), 0, 0, 127, true),
        });
    add_calling(Crc32cKernel::vpclmul_avx2, v,
                {
                    IMPL("vpclmul_avx2", kern(detail::crc32c_vpclmul_avx2, c.buf, n, crc)),
                    IMPL("avx2_fold_only", kern(detail::crc32c_vpclmul_avx2_fold, c.buf, n, crc),
                         128, 0, SIZE_MAX, true),
                    mix_row<detail::crc32c_vpclmul_avx2_mix, 2>("mix2", 128),
                    mix_row<detail::crc32c_vpclmul_avx2_mix, 4>("mix4", 128),
                    mix_row<detail::crc32c_vpclmul_avx2_mix, 5>("mix5", 128),
                    mix_row<detail::crc32c_vpclmul_avx2_mix, 6>("mix6", 128),
                    mix_row<detail::crc32c_vpclmul_avx2_mix, 8>("mix8", 128),
                    mix_row<detail::crc32c_vpclmul_avx2_mix, 12>("mix12", 128),
                });
    add_calling(
        Crc32cKernel::avx512, v,
        {
            IMPL("avx512", kern(detail::crc32c_avx512, c.buf, n, crc)),
            // avx512 loop variants (crc32c_kernels.h), each after a vzeroupper as
            // the public entry runs it: without one, back-to-back dependent calls
            // of the plain kernel ran ~10% slower here (Xeon EMR).
            IMPL("avx512_fenced", (vzu(), kern(detail::crc32c_avx512, c.buf, n, crc)), 256, 0,
                 SIZE_MAX, true),
            IMPL("latency_fold_only",
                 (vzu(), ~detail::crc32c_avx512_mix(0, ~crc, after(c.buf, crc), n)), 256, 0,
                 SIZE_MAX, true),
            avx512_row<0>("avx512_fold_only"),
            avx512_row<1>("avx512_lane12"),
            avx512_row<2>("avx512_lane16_mem"),
            avx512_row<3>("avx512_lane24"),
            avx512_row<4>("avx512_lane16"),
            avx512_row<5>("avx512_lane16_pf"),
            avx512_row<6>("avx512_lane16_align"),
            IMPL("stream_1seg",
                 ~detail::crc32c_walk_stream(c.lin, 0, static_cast<uint32_t>(n), ~crc).state, 0, 1),
            // The carried-state walk crc32c_mbuf used before the gather (it still
            // serves the NVMe/TCP carry): the peer for the chain rows.
            IMPL("stream_2seg",
                 ~detail::crc32c_walk_stream(c.two, 0, static_cast<uint32_t>(n), ~crc).state, 0, 2),
            IMPL("stream_4seg",
                 ~detail::crc32c_walk_stream(c.four, 0, static_cast<uint32_t>(n), ~crc).state, 0,
                 4),
        });
    if (!tuning) std::erase_if(v, [](const Impl& i) { return i.tuning; });
    if (const char* o = getenv("BENCH_ONLY"))
        std::erase_if(v, [o](const Impl& i) { return std::strstr(o, i.name) == nullptr; });
    std::erase_if(v, [](const Impl& i) { return !runs_here(i.needs); });
    return v;
}

std::vector<Result> measure(const std::vector<Impl>& impls, const std::vector<size_t>& sizes,
                            const std::vector<Ctx>& ctx, unsigned rounds) {
    const size_t ni = impls.size(), ns = sizes.size();
    std::vector<unsigned> iters(ni * ns, 0);
    std::vector<std::vector<double>> samples(ni * ns);
    for (size_t s = 0; s < ns; ++s)
        for (size_t i = 0; i < ni; ++i) {
            if (sizes[s] < impls[i].min_len || sizes[s] > impls[i].max_len) continue;
            if (impls[i].segs != 0 && shape(ctx[s], impls[i].segs) == nullptr) continue;
            impls[i].batch(ctx[s], sizes[s], 64);  // warm up
            const double t = impls[i].batch(ctx[s], sizes[s], 64);
            iters[i * ns + s] =
                std::clamp(static_cast<unsigned>(20000 / std::max(t, 1.0)), 4u, 2000u);
        }
    for (unsigned r = 0; r < rounds; ++r)
        for (size_t s = 0; s < ns; ++s)
            for (size_t i = 0; i < ni; ++i)
                if (unsigned it = iters[i * ns + s])
                    samples[i * ns + s].push_back(impls[i].batch(ctx[s], sizes[s], it));
    std::vector<Result> out;
    for (size_t i = 0; i < ni; ++i)
        for (size_t s = 0; s < ns; ++s)
            if (!samples[i * ns + s].empty()) {
                const auto& v = samples[i * ns + s];
                out.push_back({impls[i].name, sizes[s], pct(v, 0.5), pct(v, 0.1), pct(v, 0.9)});
            }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned rounds = 400;
    std::string out = ".";
    bool crossover = false, variants = false, burst_only = false;
    size_t align = 0;  // flat buffer's offset from a 64-byte boundary
    std::string size_list;
    std::vector<std::string> eal =
        testkit::eal_args({.prog = argv[0], .file_prefix = testkit::unique_prefix("crcbench_")});
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--rounds" && i + 1 < argc)
            rounds = static_cast<unsigned>(std::stoul(argv[++i]));
        else if (a == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (a == "--align" && i + 1 < argc)
            align = std::stoul(argv[++i]) % 64;
        else if (a == "--crossover")
            crossover = true;
        else if (a == "--variants")
            variants = true;
        else if (a == "--burst")
            burst_only = true;
        else if (a == "--sizes" && i + 1 < argc)
            size_list = argv[++i];
        else
            eal.push_back(a);
    }
    if (testkit::eal_init_args(std::move(eal)) < 0) {
        std::fprintf(stderr, "EAL init failed\n");
        return 1;
    }
    if (burst_only) {
        burst(rounds);
        rte_eal_cleanup();
        return 0;
    }
    rte_mempool* mp = rte_pktmbuf_pool_create("crcbench", 255, 0, 0, UINT16_MAX, SOCKET_ID_ANY);
    // The pool shape from issue 14 (8191 x (2048 + HEADROOM), 256 cached).
    rte_mempool* mp2k = rte_pktmbuf_pool_create("crcbench2k", 8191, 256, 0,
                                                2048 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
    if (mp == nullptr || mp2k == nullptr) return std::fprintf(stderr, "mempool failed\n"), 1;

    std::vector<size_t> sizes = {64, 128, 256, 1420, 4096, 9000, 16384, 65536};
    if (crossover) {
        sizes.clear();
        for (size_t n = 16; n <= 512; n += 16) sizes.push_back(n);
        for (size_t n : {1024, 4096, 16384}) sizes.push_back(n);  // mixed-loop lane tuning
    }
    if (!size_list.empty()) {
        sizes = parse_sizes(size_list);
        if (sizes.empty()) return std::fprintf(stderr, "bad --sizes %s\n", size_list.c_str()), 1;
    }
    std::vector<uint8_t> mem(65536 + 128);
    std::mt19937 rng(1);
    for (auto& b : mem) b = static_cast<uint8_t>(rng());
    const auto base = reinterpret_cast<uintptr_t>(mem.data());
    const uint8_t* flat = mem.data() + ((64 - base % 64) % 64) + align;
    std::vector<Ctx> ctx;
    for (size_t n : sizes) {
        // Pieces of n/4 - 3, n/4 + 5, n/4 + 1 and the rest, at headroom + 1, 7, 3, 5.
        const size_t q = n / 4;
        rte_mbuf* odd4 =
            q >= 3 ? chain(mp2k, flat, {0, q - 3, 2 * q + 2, 3 * q + 3, n}, {1, 7, 3, 5}) : nullptr;
        rte_mbuf* tiny4 =
            n >= 3 ? chain(mp2k, flat, {0, 1, n - 2, n - 1, n}, {3, 3, 3, 3}) : nullptr;
        ctx.push_back({flat, chain(mp, flat, n, 1), chain(mp, flat, n, 2), chain(mp, flat, n, 4),
                       odd4, tiny4, chain(mp2k, flat, n, 2)});
    }

    char stamp[64];
    const std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::printf(
        "crc32c bench %s: TSC %.3f GHz, default kernel %s, %u rounds, buffer 64-byte boundary + "
        "%zu\n",
        stamp, rte_get_tsc_hz() / 1e9,
        std::string(crc32c_kernel_name(crc32c_active_kernel())).c_str(), rounds, align);
    std::printf("%s", kernel_calibration_table().c_str());
    const auto rs = measure(all_impls(crossover || variants), sizes, ctx, rounds);
    report(rs, sizes, out, stamp);
    for (auto& c : ctx)
        for (rte_mbuf* m : {c.lin, c.two, c.four, c.odd4, c.tiny4, c.two2k}) rte_pktmbuf_free(m);
    rte_mempool_free(mp);
    rte_mempool_free(mp2k);
    rte_eal_cleanup();
    return 0;
}
