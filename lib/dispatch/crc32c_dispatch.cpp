// CRC32C kernel choice (family.h), made once at first use: CSUM_CRC32C_KERNEL
// if set, else calibration (select.h), else (CSUM_CALIBRATE=0) the widest.
// Also the public entry point, built with CSUM_ISA_SSE42_FLAGS: its
// pclmulqdq runs only when CPUID reported it (kPlanShortInline); CPUs with
// AVX take the VEX-encoded copy instead.
#include "csum/crc32c.h"
#include "dispatch/cpu_features.h"
#include "dispatch/crc32c_entry.h"
#include "dispatch/crc32c_pair.h"
#include "dispatch/family.h"

namespace csum {
namespace detail {

std::atomic<uint32_t> g_crc_plan{0};

namespace {

bool is_x86(Crc32cKernel k) {
    return k != Crc32cKernel::portable;
}

template <Crc32cFn F>
uint32_t probe(const uint8_t* p, size_t len, uint32_t s) noexcept {
    return F(s, p, len);
}

// sse42 is timed as the entry runs it: the VEX copy where AVX exists.
uint32_t probe_sse42(const uint8_t* p, size_t len, uint32_t s) noexcept;
uint32_t probe_pclmul(const uint8_t* p, size_t len, uint32_t s) noexcept;

uint32_t probe_tree(const uint8_t* p, size_t len, uint32_t s) noexcept {
    return x86::crc_tree_fold(s, p, len);
}
uint32_t probe_lanes(const uint8_t* p, size_t len, uint32_t s) noexcept {
    return x86::crc_lanes_short(s, p, len);
}

uint64_t probe_pair_lanes(const uint8_t* p, const uint8_t* q, size_t len) noexcept {
    return crc32c_pair_vex(p, q, len, 0, 0);
}
uint64_t probe_pair_fold(const uint8_t* p, const uint8_t* q, size_t len) noexcept {
    return crc32c_avx512_pair(0, p, 0, q, len);
}

// Each timed once per process, with the kernels' calibration.
const PathChoice& short_path() noexcept {
    static const PathChoice r = [] {
        const PathChoice c{.what = "short path",
                           .key = "short",
                           .per = "",
                           .from = x86::kTreeMax + 1,
                           .to = x86::kCrossover - 1,
                           .probe = kShortPathProbe,
                           .way = {"crc32 lanes", "tree fold"},
                           .tag = {"lanes", "tree"}};
        if (!calibration_enabled() || !cpu().can_sse42()) return c;
        const ProbeFn fn[] = {&probe_lanes, &probe_tree};
        double t[2];
        time_probes(fn, 2, c.probe, t);
        return path_decided(c, t);
    }();
    return r;
}
const PathChoice& pair_path() noexcept {
    static const PathChoice r = [] {
        const PathChoice c{.what = "SCTP pairs",
                           .key = "pairs",
                           .per = " a buffer in a burst",
                           .from = kAvx512ShortMin,
                           .to = kPairMax,
                           .probe = kPairPathProbe,
                           .way = {"crc32 lanes", "avx512 fold"},
                           .tag = {"lanes", "fold"}};
        if (!calibration_enabled() || !cpu().can_vex() || !cpu().can_avx512()) return c;
        const PairProbeFn fn[] = {&probe_pair_lanes, &probe_pair_fold};
        double t[2];
        time_pair_probes(fn, 2, c.probe, t);
        return path_decided(c, t);
    }();
    return r;
}

struct CrcTraits {
    using Kernel = Crc32cKernel;
    static constexpr const char* kFamily = "crc32c";
    static constexpr const char* kEnv = "CSUM_CRC32C_KERNEL";
    static constexpr const char* kFixedWhy = "CSUM_CALIBRATE=0: widest";
    // A CRC32C decides what happens to a packet (SCTP, NVMe/TCP digests):
    // its latency is what the engine waits on.
    static constexpr bool kShortClassByLatency = true;
    static constexpr std::string_view kNames[] = {"portable", "sse42", "pclmul", "vpclmul_avx2",
                                                  "avx512"};
    static constexpr ProbeFn kProbes[] = {&probe<crc32c_portable>, &probe_sse42, &probe_pclmul,
                                          &probe<crc32c_vpclmul_avx2>, &probe<crc32c_avx512>};

    static std::atomic<uint32_t>& word() { return g_crc_plan; }
    static bool runs(Kernel k) {
        const CpuFeatures& f = cpu();
        const bool can[] = {true, f.can_sse42(), f.can_sse42(), f.can_avx2(), f.can_avx512()};
        return can[static_cast<size_t>(k)];
    }
    // Portable only when nothing else can run.
    static bool timed(Kernel k) { return k != Kernel::portable || !runs(Kernel::sse42); }
    // The inline short path runs only with one of our x86 kernels, so forcing
    // portable really runs that code at every length. Chains carry avx512
    // folding state when the 1420-B class chose avx512.
    static uint32_t plan_of(const uint8_t chosen[kNumClasses]) {
        bool x86 = true;
        for (size_t i = 0; i < kNumClasses; ++i)
            x86 &= is_x86(static_cast<Crc32cKernel>(chosen[i]));
        uint32_t f = kPlanReady;
        if (x86) f |= kPlanShortInline;
        if (cpu().can_vex()) f |= kPlanVex;
        if (chosen[2] == static_cast<uint8_t>(Crc32cKernel::avx512)) f |= kPlanStream;
        if (chosen[0] == static_cast<uint8_t>(Crc32cKernel::sse42) ||
            chosen[0] == static_cast<uint8_t>(Crc32cKernel::pclmul))
            f |= kPlanFirstXmm;
        if (x86 && short_path().second_chosen) f |= kPlanTree;
        // The pair's fold comes with the avx512 kernel's choice at 512 B.
        if (chosen[1] == static_cast<uint8_t>(Crc32cKernel::avx512) && pair_path().second_chosen)
            f |= kPlanPairFold;
        return plan_pack(chosen) | f;
    }
    // Without calibration: the widest kernel.
    static void fixed(std::span<const Kernel> avail, uint8_t chosen[kNumClasses]) {
        for (size_t i = 0; i < kNumClasses; ++i) chosen[i] = static_cast<uint8_t>(avail.back());
    }
};

using Family = KernelFamily<CrcTraits>;

uint32_t probe_sse42(const uint8_t* p, size_t len, uint32_t s) noexcept {
    if (cpu().can_vex())
        return crc32c_raw_vex(Family::plan_for(Crc32cKernel::sse42) & ~kPlanShortInline, s, p, len);
    return crc32c_sse42(s, p, len);
}

uint32_t probe_pclmul(const uint8_t* p, size_t len, uint32_t s) noexcept {
    if (cpu().can_vex())
        return crc32c_raw_vex(Family::plan_for(Crc32cKernel::pclmul) & ~kPlanShortInline, s, p,
                              len);
    return crc32c_pclmul(s, p, len);
}

}  // namespace

uint32_t crc32c_calibrate_fresh(FamilyReport* r) noexcept {
    return Family::calibrate_fresh(r);
}
uint32_t crc32c_plan_init() noexcept {
    return Family::init();
}
uint32_t crc32c_plan_now() noexcept {
    return crc32c_plan();
}
void crc32c_plan_set(uint32_t plan) noexcept {
    Family::set(plan);
}
const PathChoice& crc32c_short_report() noexcept {
    return short_path();
}
const PathChoice& crc32c_pair_report() noexcept {
    return pair_path();
}
const FamilyReport& crc32c_report() noexcept {
    return Family::report();
}
bool crc32c_plan_chosen() noexcept {
    return Family::chosen();
}

}  // namespace detail

std::string_view crc32c_kernel_name(Crc32cKernel k) noexcept {
    return detail::Family::name(k);
}
std::span<const Crc32cKernel> crc32c_available_kernels() noexcept {
    return detail::Family::available();
}
Crc32cKernel crc32c_active_kernel() noexcept {
    return detail::Family::active();
}
bool crc32c_force_kernel(Crc32cKernel k) noexcept {
    return detail::Family::force(k);
}
bool crc32c_kernel_from_name(std::string_view name, Crc32cKernel* out) noexcept {
    return detail::Family::from_name(name, out);
}

uint32_t crc32c_with(Crc32cKernel k, const void* data, size_t len, uint32_t crc) noexcept {
    if (!detail::Family::is_available(k)) k = Crc32cKernel::portable;  // never run what can't run
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
        if (len < detail::x86::kCrossover && (plan & detail::kPlanTree))
            return detail::crc32c_short_vex(plan, p, len, crc);
        if (len < detail::kClassFrom[1] && (plan & detail::kPlanFirstXmm))
            return detail::plan_first_lanes(plan) ? detail::crc32c_lanes_vex(p, len, crc)
                                                  : detail::crc32c_fold128_vex(p, len, crc);
        return detail::crc32c_entry_vex(plan, p, len, crc);
    }
    return detail::entry_sse(plan, p, len, crc);
}

uint32_t crc32c_in_run(const void* data, size_t len, uint32_t crc) noexcept {
    const uint32_t plan = detail::g_crc_plan.load(std::memory_order_relaxed);
    if (detail::plan_folds_runs(plan, len))
        return ~detail::crc32c_avx512_short(~crc, static_cast<const uint8_t*>(data), len);
    return crc32c(data, len, crc);
}

namespace detail {

Crc32cFn crc32c_kernel_fn(Crc32cKernel k) noexcept {
    switch (k) {
        case Crc32cKernel::portable:
            return &crc32c_portable;
        case Crc32cKernel::sse42:
            return &crc32c_sse42;
        case Crc32cKernel::pclmul:
            return &crc32c_pclmul;
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
