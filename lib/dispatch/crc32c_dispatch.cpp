// CRC32C kernel choice, made once at first use: CSUM_CRC32C_KERNEL if set,
// else calibration (select.h), else (CSUM_CALIBRATE=0) the widest kernel.
// Also the public entry point, built with CSUM_ISA_SSE42_FLAGS: its
// pclmulqdq runs only when CPUID reported it (kPlanShortInline); CPUs with
// AVX take the VEX-encoded copy instead.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "csum/crc32c.h"
#include "dispatch/cpu_features.h"
#include "dispatch/crc32c_entry.h"

namespace csum {
namespace detail {

std::atomic<uint32_t> g_crc_plan{0};

namespace {

constexpr Crc32cKernel kAll[] = {Crc32cKernel::portable, Crc32cKernel::sse42,
                                 Crc32cKernel::vpclmul_avx2, Crc32cKernel::avx512};

bool cpu_can_run(Crc32cKernel k) {
    const CpuFeatures& f = cpu();
    switch (k) {
        case Crc32cKernel::portable:
            return true;
        case Crc32cKernel::sse42:
            return f.can_sse42();
        case Crc32cKernel::vpclmul_avx2:
            return f.can_avx2();
        case Crc32cKernel::avx512:
            return f.can_avx512();
    }
    return false;
}

struct Available {
    Crc32cKernel list[std::size(kAll)];
    size_t n = 0;
};

const Available& available() {
    static const Available a = [] {
        Available r;
        for (auto k : kAll)
            if (cpu_can_run(k)) r.list[r.n++] = k;
        return r;
    }();
    return a;
}

bool is_available(Crc32cKernel k) {
    const auto& a = available();
    for (size_t i = 0; i < a.n; ++i)
        if (a.list[i] == k) return true;
    return false;
}

bool is_x86(Crc32cKernel k) {
    return k == Crc32cKernel::sse42 || k == Crc32cKernel::vpclmul_avx2 || k == Crc32cKernel::avx512;
}

// The widest kernel: the fixed choice without calibration.
Crc32cKernel widest() {
    return crc32c_available_kernels().back();
}

uint32_t flags_for(bool short_inline, bool stream) {
    uint32_t f = kPlanReady;
    if (short_inline) f |= kPlanShortInline;
    if (cpu().can_vex()) f |= kPlanVex;
    if (stream) f |= kPlanStream;
    return f;
}

// The inline short path runs only with one of our x86 kernels, so forcing
// portable really runs that code at every length.
uint32_t plan_for_kernel(Crc32cKernel k) {
    const auto id = static_cast<uint8_t>(k);
    return plan_all(id) | flags_for(is_x86(k), k == Crc32cKernel::avx512);
}

// Chains carry avx512 folding state when the mid class chose avx512.
uint32_t plan_for_classes(const uint8_t chosen[kNumClasses]) {
    bool x86 = true;
    for (size_t i = 0; i < kNumClasses; ++i) x86 &= is_x86(static_cast<Crc32cKernel>(chosen[i]));
    return (chosen[0] | chosen[1] << 8 | chosen[2] << 16) |
           flags_for(x86, chosen[1] == static_cast<uint8_t>(Crc32cKernel::avx512));
}

template <Crc32cFn F>
uint32_t probe(const uint8_t* p, size_t len, uint32_t s) noexcept {
    return F(s, p, len);
}

// sse42 is timed as the entry runs it: the VEX copy where AVX exists.
uint32_t probe_sse42(const uint8_t* p, size_t len, uint32_t s) noexcept {
    if (cpu().can_vex())
        return crc32c_raw_vex(plan_for_kernel(Crc32cKernel::sse42) & ~kPlanShortInline, s, p, len);
    return crc32c_sse42(s, p, len);
}

ProbeFn probe_of(Crc32cKernel k) {
    switch (k) {
        case Crc32cKernel::portable:
            return &probe<crc32c_portable>;
        case Crc32cKernel::sse42:
            return &probe_sse42;
        case Crc32cKernel::vpclmul_avx2:
            return &probe<crc32c_vpclmul_avx2>;
        case Crc32cKernel::avx512:
            return &probe<crc32c_avx512>;
    }
    return &probe<crc32c_portable>;
}

// Kernels this CPU runs; portable only when nothing else can.
size_t candidates(Candidate* c) {
    size_t n = 0;
    for (auto k : crc32c_available_kernels()) {
        if (k == Crc32cKernel::portable && cpu_can_run(Crc32cKernel::sse42)) continue;
        c[n++] = {static_cast<uint8_t>(k), crc32c_kernel_name(k).data(), probe_of(k)};
    }
    return n;
}

FamilyReport& report_mut() {
    static FamilyReport r;
    return r;
}

void fixed_report(FamilyReport& r, Crc32cKernel k, const char* why) {
    r.n = candidates(r.cand);
    bool listed = false;
    for (size_t i = 0; i < r.n; ++i) listed |= r.cand[i].id == static_cast<uint8_t>(k);
    if (!listed && r.n < kMaxCandidates)
        r.cand[r.n++] = {static_cast<uint8_t>(k), crc32c_kernel_name(k).data(), probe_of(k)};
    for (auto& row : r.ticks)
        for (auto& t : row) t = NAN;
    for (auto& c : r.chosen) c = static_cast<uint8_t>(k);
    r.calibrated = false;
    r.why = why;
}

uint32_t choose_plan() {
    FamilyReport& r = report_mut();
    r.family = "crc32c";
    if (const char* env = std::getenv("CSUM_CRC32C_KERNEL"); env != nullptr && *env != '\0') {
        Crc32cKernel k;
        if (crc32c_kernel_from_name(env, &k) && is_available(k)) {
            fixed_report(r, k, "CSUM_CRC32C_KERNEL");
            return plan_for_kernel(k);
        }
        std::fprintf(stderr, "csum: CSUM_CRC32C_KERNEL=%s is not a kernel this CPU runs; ignored\n",
                     env);
    }
    if (!calibration_enabled()) {
        fixed_report(r, widest(), "CSUM_CALIBRATE=0: widest");
        return plan_for_kernel(widest());
    }
    return crc32c_calibrate_fresh(&r);
}

}  // namespace

uint32_t crc32c_calibrate_fresh(FamilyReport* r) noexcept {
    Candidate c[kMaxCandidates];
    const size_t n = candidates(c);
    r->family = "crc32c";
    calibrate(c, n, r);
    return plan_for_classes(r->chosen);
}

uint32_t crc32c_plan_init() noexcept {
    static const bool once = (g_crc_plan.store(choose_plan(), std::memory_order_relaxed), true);
    (void)once;
    return g_crc_plan.load(std::memory_order_relaxed);
}

uint32_t crc32c_plan_now() noexcept {
    return crc32c_plan();
}

void crc32c_plan_set(uint32_t plan) noexcept {
    crc32c_plan_init();
    if (plan != 0) g_crc_plan.store(plan, std::memory_order_relaxed);
}

const FamilyReport& crc32c_report() noexcept {
    crc32c_plan_init();
    return report_mut();
}

}  // namespace detail

std::string_view crc32c_kernel_name(Crc32cKernel k) noexcept {
    switch (k) {
        case Crc32cKernel::portable:
            return "portable";
        case Crc32cKernel::sse42:
            return "sse42";
        case Crc32cKernel::vpclmul_avx2:
            return "vpclmul_avx2";
        case Crc32cKernel::avx512:
            return "avx512";
    }
    return "?";
}

std::span<const Crc32cKernel> crc32c_available_kernels() noexcept {
    const auto& a = detail::available();
    return {a.list, a.n};
}

Crc32cKernel crc32c_active_kernel() noexcept {
    return static_cast<Crc32cKernel>(detail::plan_kernel(detail::crc32c_plan(), 1500));
}

bool crc32c_force_kernel(Crc32cKernel k) noexcept {
    detail::crc32c_plan_init();  // so a later first use cannot undo this
    if (!detail::is_available(k)) return false;
    detail::g_crc_plan.store(detail::plan_for_kernel(k), std::memory_order_relaxed);
    return true;
}

bool crc32c_kernel_from_name(std::string_view name, Crc32cKernel* out) noexcept {
    for (auto k : detail::kAll)
        if (crc32c_kernel_name(k) == name) return *out = k, true;
    return false;
}

uint32_t crc32c_with(Crc32cKernel k, const void* data, size_t len, uint32_t crc) noexcept {
    if (!detail::is_available(k)) k = Crc32cKernel::portable;  // never run what can't run
    return ~detail::crc32c_kernel_fn(k)(~crc, static_cast<const uint8_t*>(data), len);
}

namespace detail {
namespace {

// The SSE-encoded entry, and the first call's plan load; out of line so that
// crc32c() itself is a load, a test and a tail jump, with no register saves.
__attribute__((noinline)) uint32_t entry_sse(uint32_t plan, const uint8_t* p, size_t len,
                                             uint32_t crc) noexcept {
    if (plan == 0) {
        plan = crc32c_plan_init();
        if (plan & kPlanVex) return crc32c_entry_vex(plan, p, len, crc);
    }
    return ~run_planned(plan, ~crc, p, len);
}

}  // namespace
}  // namespace detail

uint32_t crc32c(const void* data, size_t len, uint32_t crc) noexcept {
    const auto* p = static_cast<const uint8_t*>(data);
    const uint32_t plan = detail::g_crc_plan.load(std::memory_order_relaxed);
    if (plan & detail::kPlanVex) [[likely]] {
        if (len <= detail::x86::kTreeMax) return detail::crc32c_short_vex(plan, p, len, crc);
        return detail::crc32c_entry_vex(plan, p, len, crc);
    }
    return detail::entry_sse(plan, p, len, crc);
}

namespace detail {

Crc32cFn crc32c_kernel_fn(Crc32cKernel k) noexcept {
    switch (k) {
        case Crc32cKernel::portable:
            return &crc32c_portable;
        case Crc32cKernel::sse42:
            return &crc32c_sse42;
        case Crc32cKernel::vpclmul_avx2:
            return &crc32c_vpclmul_avx2;
        case Crc32cKernel::avx512:
            return &crc32c_avx512;
    }
    return &crc32c_portable;
}

__attribute__((noinline)) uint32_t crc32c_short_lanes(uint32_t state, const uint8_t* p,
                                                      size_t len) noexcept {
    return x86::crc_lanes_short(state, p, len);
}
uint32_t crc32c_short_tree(uint32_t state, const uint8_t* p, size_t len) noexcept {
    return len < 16 ? x86::crc_serial(state, p, len) : x86::crc_tree_fold(state, p, len);
}

}  // namespace detail
}  // namespace csum
