// Internet-sum kernel choice, made once at first use: CSUM_INET_KERNEL if
// set, else calibration (select.h), else (CSUM_CALIBRATE=0) a fixed choice.
// The hot path reads the plan with one relaxed load and branches to a
// direct call per length class: no call through a pointer.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "csum/inet.h"
#include "dispatch/cpu_features.h"
#include "dispatch/select.h"
#include "inet/inet_kernels.h"

namespace csum {
namespace detail {
namespace {

constexpr InetKernel kAll[] = {InetKernel::scalar, InetKernel::avx2, InetKernel::avx512,
                               InetKernel::avx512_vnni};

struct Available {
    InetKernel list[std::size(kAll)];
    size_t n = 0;
};

const Available& available() noexcept {
    static const Available a = [] {
        Available r;
        r.list[r.n++] = InetKernel::scalar;
        if (cpu().can_inet_avx2()) r.list[r.n++] = InetKernel::avx2;
        if (cpu().can_inet_avx512()) r.list[r.n++] = InetKernel::avx512;
        if (cpu().can_inet_avx512_vnni()) r.list[r.n++] = InetKernel::avx512_vnni;
        return r;
    }();
    return a;
}

bool is_available(InetKernel k) noexcept {
    for (size_t i = 0; i < available().n; ++i)
        if (available().list[i] == k) return true;
    return false;
}

InetKernelFn fn_of(InetKernel k) noexcept {
    switch (k) {
        case InetKernel::scalar:
            return inet_sum_scalar;
        case InetKernel::avx2:
            return inet_sum_avx2;
        case InetKernel::avx512:
            return inet_sum_avx512;
        case InetKernel::avx512_vnni:
            return inet_sum_avx512_vnni;
    }
    return inet_sum_scalar;
}

template <InetKernelFn F>
uint32_t probe(const uint8_t* p, size_t len, uint32_t s) noexcept {
    return F(p, len, s);
}

ProbeFn probe_of(InetKernel k) {
    switch (k) {
        case InetKernel::scalar:
            return &probe<inet_sum_scalar>;
        case InetKernel::avx2:
            return &probe<inet_sum_avx2>;
        case InetKernel::avx512:
            return &probe<inet_sum_avx512>;
        case InetKernel::avx512_vnni:
            return &probe<inet_sum_avx512_vnni>;
    }
    return &probe<inet_sum_scalar>;
}

std::atomic<uint32_t> g_plan{0};

uint32_t plan_for_kernel(InetKernel k) {
    return plan_all(static_cast<uint8_t>(k)) | kPlanReady;
}

size_t candidates(Candidate* c) {
    size_t n = 0;
    for (size_t i = 0; i < available().n; ++i) {
        const InetKernel k = available().list[i];
        c[n++] = {static_cast<uint8_t>(k), inet_kernel_name(k).data(), probe_of(k)};
    }
    return n;
}

FamilyReport& report_mut() {
    static FamilyReport r;
    return r;
}

void fixed_report(FamilyReport& r, InetKernel k, const char* why) {
    r.n = candidates(r.cand);
    for (auto& row : r.ticks)
        for (auto& t : row) t = NAN;
    for (auto& c : r.chosen) c = static_cast<uint8_t>(k);
    r.calibrated = false;
    r.why = why;
}

uint32_t choose_plan() {
    FamilyReport& r = report_mut();
    r.family = "inet";
    const InetKernel widest = available().list[available().n - 1];
    if (const char* env = std::getenv("CSUM_INET_KERNEL"); env != nullptr && *env != '\0') {
        InetKernel k;
        if (inet_kernel_from_name(env, &k) && is_available(k)) {
            fixed_report(r, k, "CSUM_INET_KERNEL");
            return plan_for_kernel(k);
        }
        std::fprintf(stderr, "csum: CSUM_INET_KERNEL=%s is not a kernel this CPU runs; ignored\n",
                     env);
    }
    if (!calibration_enabled()) {
        // Fixed: avx2 below 4 KiB, where the AVX-512 kernels' longer
        // reduction loses (docs/benchmarks.md), the widest above.
        const InetKernel mid = is_available(InetKernel::avx2) ? InetKernel::avx2 : widest;
        fixed_report(r, mid, "CSUM_CALIBRATE=0: fixed");
        r.chosen[2] = static_cast<uint8_t>(widest);
        return r.chosen[0] | r.chosen[1] << 8 | r.chosen[2] << 16 | kPlanReady;
    }
    return inet_calibrate_fresh(&r);
}

uint32_t plan_init() noexcept {
    static const bool once = (g_plan.store(choose_plan(), std::memory_order_relaxed), true);
    (void)once;
    return g_plan.load(std::memory_order_relaxed);
}

inline uint32_t plan() noexcept {
    const uint32_t p = g_plan.load(std::memory_order_relaxed);
    return p != 0 ? p : plan_init();
}

}  // namespace

uint32_t inet_calibrate_fresh(FamilyReport* r) noexcept {
    Candidate c[kMaxCandidates];
    const size_t n = candidates(c);
    r->family = "inet";
    calibrate(c, n, r);
    return r->chosen[0] | r->chosen[1] << 8 | r->chosen[2] << 16 | kPlanReady;
}

uint32_t inet_plan_now() noexcept {
    return plan();
}

void inet_plan_set(uint32_t p) noexcept {
    plan_init();
    if (p != 0) g_plan.store(p, std::memory_order_relaxed);
}

const FamilyReport& inet_report() noexcept {
    plan_init();
    return report_mut();
}

// Direct calls behind predictable branches, not a call through a pointer:
// no indirect call per packet or per segment.
uint32_t inet_sum_active(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    switch (static_cast<InetKernel>(plan_kernel(plan(), len))) {
        case InetKernel::avx2:
            return inet_sum_avx2(p, len, sum);
        case InetKernel::avx512:
            return inet_sum_avx512(p, len, sum);
        case InetKernel::avx512_vnni:
            return inet_sum_avx512_vnni(p, len, sum);
        case InetKernel::scalar:
            break;
    }
    return inet_sum_scalar(p, len, sum);
}

}  // namespace detail

std::string_view inet_kernel_name(InetKernel k) noexcept {
    switch (k) {
        case InetKernel::scalar:
            return "scalar";
        case InetKernel::avx2:
            return "avx2";
        case InetKernel::avx512:
            return "avx512";
        case InetKernel::avx512_vnni:
            return "avx512_vnni";
    }
    return "?";
}

bool inet_kernel_from_name(std::string_view name, InetKernel* out) noexcept {
    for (InetKernel k : detail::kAll)
        if (inet_kernel_name(k) == name) return *out = k, true;
    return false;
}

std::span<const InetKernel> inet_available_kernels() noexcept {
    return {detail::available().list, detail::available().n};
}

InetKernel inet_active_kernel() noexcept {
    return static_cast<InetKernel>(detail::plan_kernel(detail::plan(), 1500));
}

bool inet_force_kernel(InetKernel k) noexcept {
    detail::plan_init();  // so a later first use cannot undo the choice
    if (!detail::is_available(k)) return false;
    detail::g_plan.store(detail::plan_for_kernel(k), std::memory_order_relaxed);
    return true;
}

uint32_t partial_sum_with(InetKernel k, const void* data, size_t len, uint32_t sum) noexcept {
    if (!detail::is_available(k)) k = InetKernel::scalar;
    return detail::fn_of(k)(static_cast<const uint8_t*>(data), len, sum);
}

uint32_t partial_sum(const void* data, size_t len, uint32_t sum) noexcept {
    const auto* p = static_cast<const uint8_t*>(data);
    if (len <= detail::kInetShortMax)
        return detail::fold64(detail::add64c(sum, detail::sum_small64(p, len)));
    return detail::inet_sum_active(p, len, sum);
}

uint16_t raw_cksum(const void* data, size_t len) noexcept {
    return sum_fold(partial_sum(data, len, 0));
}

}  // namespace csum
