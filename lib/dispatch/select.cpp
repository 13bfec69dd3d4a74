// Calibration timing, the CPU feature read, and the report formatting.
// Baseline ISA: the kernels it times are called through pointers, never
// inlined here.
#include "dispatch/select.h"

#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "csum/kernels.h"
#include "dispatch/cpu_features.h"
#include "dispatch/family.h"

namespace csum {
namespace detail {

unsigned simd_bits_from_args(const char* args, size_t n) noexcept {
    static constexpr char kOpt[] = "--force-max-simd-bitwidth";
    constexpr size_t kLen = sizeof kOpt - 1;
    const char* value = nullptr;
    for (size_t i = 0; i < n;) {
        const char* a = args + i;
        const size_t len = strnlen(a, n - i);
        const size_t next = i + len + 1;
        if (len == 2 && a[0] == '-' && a[1] == '-') break;  // the application's own
        if (len >= kLen && std::memcmp(a, kOpt, kLen) == 0) {
            if (len > kLen && a[kLen] == '=')
                value = a + kLen + 1;
            else if (len == kLen && next < n)
                value = args + next;
        }
        i = next;
    }
    // A value cut off at the end of the bytes read: none.
    if (value == nullptr || value >= args + n || *value < '0' || *value > '9') return 0;
    unsigned long v = 0;
    for (const char* c = value; c < args + n && *c != '\0'; ++c) {
        if (*c < '0' || *c > '9') return 0;
        v = v * 10 + static_cast<unsigned long>(*c - '0');
        if (v > 1u << 20) return 0;
    }
    return v >= 512 ? 512u : v >= 256 ? 256u : v > 0 ? 128u : 0u;
}

namespace {

// The EAL option on this process's command line, as simd_bits_from_args
// reads it (0: none). Read from /proc, not through DPDK: this layer is
// DPDK-free, and only an explicit option counts (DPDK's default of 256
// would turn off AVX-512 kernels where calibration measured them faster).
unsigned eal_option_bits() noexcept {
    FILE* f = std::fopen("/proc/self/cmdline", "rb");
    if (f == nullptr) return 0;
    char buf[16384];
    const size_t n = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    return simd_bits_from_args(buf, n);
}

struct SimdCap {
    unsigned bits;
    const char* from;  // nullptr: no cap asked for
};

const SimdCap& simd_cap() noexcept {
    static const SimdCap cap = []() -> SimdCap {
        if (const char* e = kernel_env("CSUM_MAX_SIMD_BITS")) {
            if (std::strcmp(e, "128") == 0) return {128u, "CSUM_MAX_SIMD_BITS"};
            if (std::strcmp(e, "256") == 0) return {256u, "CSUM_MAX_SIMD_BITS"};
            if (std::strcmp(e, "512") == 0) return {512u, "CSUM_MAX_SIMD_BITS"};
            std::fprintf(stderr, "csum: CSUM_MAX_SIMD_BITS=%s is not 128, 256 or 512; ignored\n",
                         e);
        }
        if (const unsigned bits = eal_option_bits(); bits != 0)
            return {bits, "--force-max-simd-bitwidth"};
        return {512u, nullptr};
    }();
    return cap;
}

}  // namespace

unsigned simd_bits_cap() noexcept {
    return simd_cap().bits;
}

const char* simd_cap_source() noexcept {
    return simd_cap().from;
}

const CpuFeatures& cpu() noexcept {
    static const CpuFeatures f = cap_simd_bits(detect_cpu(), simd_bits_cap());
    return f;
}

bool calibration_enabled() noexcept {
    const char* e = std::getenv("CSUM_CALIBRATE");
    return e == nullptr || std::strcmp(e, "0") != 0;
}

const char* kernel_env(const char* var) noexcept {
    const char* e = std::getenv(var);
    return e != nullptr && *e != '\0' ? e : nullptr;
}

void kernel_env_ignored(const char* var, const char* value) noexcept {
    std::fprintf(stderr, "csum: %s=%s is not a kernel this CPU runs; ignored\n", var, value);
}

void fixed_report(FamilyReport& r, const Candidate* c, size_t n, const uint8_t chosen[kNumClasses],
                  const char* why) noexcept {
    r.n = std::min(n, kMaxCandidates);
    std::copy(c, c + r.n, r.cand);
    for (auto& row : r.ticks)
        for (auto& t : row) t = NAN;
    std::copy(chosen, chosen + kNumClasses, r.chosen);
    r.calibrated = false;
    r.why = why;
}

namespace {

constexpr size_t kBufLen = 9000 + 64;

const uint8_t* probe_buffer() {
    alignas(64) static uint8_t buf[kBufLen];
    static const bool filled = [] {
        uint64_t x = 0x9E3779B97F4A7C15ull;
        for (auto& b : buf) b = static_cast<uint8_t>((x = x * 6364136223846793005ull + 1) >> 56);
        return true;
    }();
    (void)filled;
    return buf;
}

inline uint64_t ticks() {
    _mm_lfence();
    const uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

volatile uint32_t g_sink;
volatile uint32_t g_zero = 0;  // the next call's address depends on this one's result

// Every timed batch starts from one vector state: zmm16..31 zeroed by
// 512-bit instructions (vzeroupper does not reach them; glibc's EVEX string
// functions use them) and the other registers' upper halves cleared. Without
// it, the avx512 kernel (its rounds between the legacy-SSE kernel's) timed
// nearly 2x slow in some processes on an Intel Xeon, and lost its class to a
// kernel the engine then ran 1.4x slower; zeroed as 256-bit instructions it
// still did (docs/notebook/issue-15.md).
[[gnu::target("avx512f")]] void clean_zmm_state() noexcept {
    asm volatile(
        "vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"
        "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"
        "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"
        "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"
        "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n\t"
        "vpxord %%zmm26, %%zmm26, %%zmm26\n\tvpxord %%zmm27, %%zmm27, %%zmm27\n\t"
        "vpxord %%zmm28, %%zmm28, %%zmm28\n\tvpxord %%zmm29, %%zmm29, %%zmm29\n\t"
        "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31\n\t"
        "vzeroupper" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18",
              "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",
              "xmm28", "xmm29", "xmm30", "xmm31");
}
[[gnu::target("avx")]] void clean_ymm_state() noexcept {
    asm volatile("vzeroupper" ::
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                       "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}
// 512-bit instructions only where the SIMD cap allows them (else no
// avx512 kernel is timed either).
void clean_vector_state() noexcept {
    enum class Clean { none, ymm, zmm };
    static const Clean how = [] {
        const CpuFeatures& f = cpu();
        return f.avx512f && f.os_zmm ? Clean::zmm : f.avx && f.os_ymm ? Clean::ymm : Clean::none;
    }();
    if (how == Clean::zmm)
        clean_zmm_state();
    else if (how == Clean::ymm)
        clean_ymm_state();
}

// A timed batch's start: every timing loop here begins its batches so.
inline uint64_t batch_start() {
    clean_vector_state();
    return ticks();
}

// Ticks per call of reps dependent calls of fn at len bytes, the state
// carried through the data address too: latency, as when a checksum
// decides what happens to a packet. Calibration and time_probes' one batch.
double timed_batch(ProbeFn fn, const uint8_t* buf, uint32_t len, unsigned reps, uint32_t* state) {
    const uint32_t zero = g_zero;
    uint32_t s = *state;
    const uint64_t a = batch_start();
    for (unsigned k = 0; k < reps; ++k) s = fn(buf + (s & zero), len, s);
    const uint64_t b = ticks();
    *state = s;
    return static_cast<double>(b - a) / reps;
}

}  // namespace

void time_probes(const ProbeFn* fn, size_t n, uint32_t len, double* min_ticks) noexcept {
    const uint8_t* buf = probe_buffer();
    constexpr unsigned kReps = 32;
    for (size_t i = 0; i < n; ++i) min_ticks[i] = std::numeric_limits<double>::infinity();
    uint32_t state = 0;
    for (unsigned round = 0; round < kTimedRounds; ++round)
        for (size_t i = 0; i < n; ++i) {
            const double per = timed_batch(fn[i], buf, len, kReps, &state);
            if (round > 0) min_ticks[i] = std::min(min_ticks[i], per);
        }
    g_sink = state;
}

void time_pair_probes(const PairProbeFn* fn, size_t n, uint32_t len, double* min_ticks) noexcept {
    const uint8_t* buf = probe_buffer();
    constexpr unsigned kPairs = 16;
    const size_t stride = kBufLen / (2 * kPairs);
    if (len > stride) len = static_cast<uint32_t>(stride);
    for (size_t i = 0; i < n; ++i) min_ticks[i] = std::numeric_limits<double>::infinity();
    uint64_t sink = 0;
    for (unsigned round = 0; round < kTimedRounds; ++round)
        for (size_t i = 0; i < n; ++i) {
            const uint64_t a = batch_start();
            for (unsigned k = 0; k < kPairs; ++k)
                sink ^= fn[i](buf + 2 * k * stride, buf + (2 * k + 1) * stride, len);
            const uint64_t b = ticks();
            if (round > 0)
                min_ticks[i] = std::min(min_ticks[i], static_cast<double>(b - a) / (2 * kPairs));
        }
    g_sink = static_cast<uint32_t>(sink ^ sink >> 32);
}

void calibrate(const Candidate* c, size_t n, FamilyReport* r) noexcept {
    const auto t0 = std::chrono::steady_clock::now();
    const uint8_t* buf = probe_buffer();
    const uint32_t probes[kNumProbes] = {kShortProbe, kProbeLen[0], kProbeLen[1], kProbeLen[2],
                                         kProbeLen[3]};
    // Calls per timed batch: enough that rdtsc's cost and its granularity
    // are small beside them (a KVM guest's TSC can step by ~21 ticks: with 2
    // calls at 9000 B, avx512 and avx512_vnni tied at 115.5 and the margin
    // kept the 13% slower one).
    const unsigned reps[kNumProbes] = {32, 24, 16, 16, 8};
    n = std::min(n, kMaxCandidates);
    r->n = n;
    for (size_t i = 0; i < n; ++i) {
        r->cand[i] = c[i];
        for (auto& t : r->ticks[i]) t = std::numeric_limits<double>::infinity();
    }
    uint32_t state = 0;
    for (unsigned round = 0; round < kTimedRounds; ++round)
        for (size_t pr = 0; pr < kNumProbes; ++pr)
            for (size_t i = 0; i < n; ++i) {
                const double per = timed_batch(c[i].fn, buf, probes[pr], reps[pr], &state);
                if (round > 0) r->ticks[i][pr] = std::min(r->ticks[i][pr], per);
            }
    g_sink = state;
    for (size_t cl = 0; cl < kNumClasses; ++cl) {
        // Candidates come narrowest first; a wider one must win by
        // kWiderMargin. Wider vectors carry costs a short timing does not
        // see (power-up of the upper lanes, neighbours' frequency), and two
        // kernels within a few % swap places from run to run.
        size_t best = 0;
        for (size_t i = 1; i < n; ++i)
            if (r->ticks[i][cl + 1] < kWiderMargin * r->ticks[best][cl + 1]) best = i;
        r->chosen[cl] = c[best].id;
    }
    r->calibrated = true;
    r->why = "calibrated";
    r->micros =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace detail

namespace {

const char* name_of(const detail::FamilyReport& r, uint8_t id) {
    for (size_t i = 0; i < r.n; ++i)
        if (r.cand[i].id == id) return r.cand[i].name;
    return "?";
}

// A family's timed choices between two ways of one path.
std::vector<const detail::PathChoice*> path_choices(const detail::FamilyReport* r) {
    if (r == &detail::crc32c_report())
        return {&detail::crc32c_short_report(), &detail::crc32c_pair_report()};
    return {&detail::inet_rest_report()};
}

double ticks_of(const detail::FamilyReport& r, uint8_t id, size_t probe) {
    for (size_t i = 0; i < r.n; ++i)
        if (r.cand[i].id == id) return r.ticks[i][probe];
    return 0;
}

}  // namespace

std::vector<KernelChoice> kernel_choices() {
    std::vector<KernelChoice> v;
    for (const auto* r : {&detail::crc32c_report(), &detail::inet_report()})
        for (size_t cl = 0; cl < detail::kNumClasses; ++cl) {
            const double t = r->calibrated ? ticks_of(*r, r->chosen[cl], cl + 1) : 0;
            v.push_back({r->family, detail::kClassFrom[cl], detail::kProbeLen[cl],
                         name_of(*r, r->chosen[cl]), t > 0 ? detail::kProbeLen[cl] / t : 0,
                         r->calibrated});
        }
    return v;
}

std::string kernel_choice_summary() {
    std::string s;
    char b[96];
    for (const auto* r : {&detail::crc32c_report(), &detail::inet_report()}) {
        if (!s.empty()) s += "; ";
        s += r->family;
        s += " (";
        s += r->why;
        s += ")";
        for (size_t cl = 0; cl < detail::kNumClasses; ++cl) {
            const double t = r->calibrated ? ticks_of(*r, r->chosen[cl], cl + 1) : 0;
            if (t > 0)
                std::snprintf(b, sizeof b, " %u+:%s %.1fB/t", detail::kClassFrom[cl],
                              name_of(*r, r->chosen[cl]), detail::kProbeLen[cl] / t);
            else
                std::snprintf(b, sizeof b, " %u+:%s", detail::kClassFrom[cl],
                              name_of(*r, r->chosen[cl]));
            s += b;
        }
        for (const auto* c : path_choices(r)) {
            if (!c->timed) continue;
            std::snprintf(b, sizeof b, " %s %u..%u:%s", c->key, c->from, c->to,
                          c->tag[c->second_chosen]);
            s += b;
        }
    }
    if (detail::simd_bits_cap() < 512) {
        std::snprintf(b, sizeof b, "; %s=%u", detail::simd_cap_source(), detail::simd_bits_cap());
        s += b;
    }
    return s;
}

std::string kernel_calibration_table() {
    std::string s;
    char b[160];
    for (const auto* r : {&detail::crc32c_report(), &detail::inet_report()}) {
        std::snprintf(b, sizeof b, "%s kernels (%s, %.0f us): min TSC ticks per call, * = chosen\n",
                      r->family, r->why, r->micros);
        s += b;
        std::snprintf(b, sizeof b, "  %-14s %10u %10u %10u %10u %10u\n", "kernel",
                      detail::kShortProbe, detail::kProbeLen[0], detail::kProbeLen[1],
                      detail::kProbeLen[2], detail::kProbeLen[3]);
        s += b;
        for (size_t i = 0; i < r->n; ++i) {
            std::snprintf(b, sizeof b, "  %-14s", r->cand[i].name);
            s += b;
            for (size_t pr = 0; pr < detail::kNumProbes; ++pr) {
                const bool chosen = pr > 0 && r->chosen[pr - 1] == r->cand[i].id;
                std::snprintf(b, sizeof b, " %9.1f%c", r->ticks[i][pr], chosen ? '*' : ' ');
                s += b;
            }
            s += "\n";
        }
        for (const auto* c : path_choices(r)) {
            if (!c->timed) continue;
            std::snprintf(b, sizeof b, "  %s %u..%u B: %s %.1f, %s %.1f ticks%s at %u B -> %s\n",
                          c->what, c->from, c->to, c->way[0], c->ticks[0], c->way[1], c->ticks[1],
                          c->per, c->probe, c->way[c->second_chosen]);
            s += b;
        }
        if (!r->calibrated) {
            s += "  chosen:";
            for (size_t cl = 0; cl < detail::kNumClasses; ++cl) {
                std::snprintf(b, sizeof b, " %u+:%s", detail::kClassFrom[cl],
                              name_of(*r, r->chosen[cl]));
                s += b;
            }
            s += "\n";
        }
    }
    return s;
}

detail::PathChoice detail::path_decided(PathChoice c, const double t[2]) noexcept {
    c.timed = true;
    c.ticks[0] = t[0], c.ticks[1] = t[1];
    c.second_chosen = t[1] < kWiderMargin * t[0];
    return c;
}

void detail::choose_kernel_plans() noexcept {
    (void)crc32c_report();
    (void)inet_report();
}

bool kernels_calibrated() noexcept {
    return detail::crc32c_report().calibrated && detail::inet_report().calibrated;
}

}  // namespace csum
