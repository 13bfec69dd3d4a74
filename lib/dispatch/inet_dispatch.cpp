// Internet-sum kernel choice (family.h), made once at first use:
// CSUM_INET_KERNEL if set, else calibration (select.h), else
// (CSUM_CALIBRATE=0) a fixed choice.
// The hot path reads the plan with one relaxed load and branches to a
// direct call per length class: no call through a pointer.
#include "csum/inet.h"
#include "dispatch/cpu_features.h"
#include "dispatch/family.h"
#include "dispatch/inet_entry.h"
#include "inet/inet_kernels.h"
#include "inet/word_sum.h"

namespace csum {
namespace detail {

std::atomic<uint32_t> g_inet_plan{0};

namespace {

// Timed where an IPv4 packet's L4 header lies in a frame that starts a
// cache line (34 bytes in), not at the line: sums rarely start aligned, and
// the AVX-512 kernels' aligned-line loop costs a little more at a line.
// The probe buffer holds kProbeLen's largest + 64 bytes.
template <InetKernelFn F>
uint32_t probe(const uint8_t* p, size_t len, uint32_t s) noexcept {
    return F(p + 34, len, s);
}

// The runs' rest loops, as they sum a region after its first two words.
template <bool kAdx>
uint32_t probe_rest(const uint8_t* p, size_t len, uint32_t s) noexcept {
    constexpr uint32_t kMax = 512;
    const auto words = static_cast<uint32_t>(len < kMax ? len / 8 : kMax / 8);
    return static_cast<uint32_t>(word_sum::adc_words_n<2, kMax>(s, p + 26, words, kAdx));
}

const PathChoice& rest_path() noexcept {
    static const PathChoice r = [] {
        const PathChoice c{.what = "run rest loop",
                           .key = "rest",
                           .per = "",
                           .from = kRestFrom,
                           .to = kRestTo,
                           .probe = kRestProbe,
                           .way = {"adc", "adcx/adox"},
                           .tag = {"adc", "adx"}};
        if (!calibration_enabled() || !cpu().adx) return c;
        const ProbeFn fn[] = {&probe_rest<false>, &probe_rest<true>};
        double t[2];
        time_probes(fn, 2, c.probe, t);
        return path_decided(c, t);
    }();
    return r;
}

struct InetTraits {
    using Kernel = InetKernel;
    static constexpr const char* kFamily = "inet";
    static constexpr const char* kEnv = "CSUM_INET_KERNEL";
    static constexpr const char* kFixedWhy = "CSUM_CALIBRATE=0: fixed";
    static constexpr std::string_view kNames[] = {"scalar", "avx2", "avx512", "avx512_vnni"};
    static constexpr InetKernelFn kFns[] = {inet_sum_scalar, inet_sum_avx2, inet_sum_avx512,
                                            inet_sum_avx512_vnni};
    // Sums of 128..287 B in a burst are independent: the latency probe picks
    // scalar at 222 B on AMD Zen 5 (25.4 vs avx2 28.9 ticks), yet UDP/IPv4
    // 256 B in bench_engine cost 33.1 ticks with it against 26.9 with avx2.
    static constexpr bool kShortClassByLatency = false;
    static constexpr ProbeFn kProbes[] = {&probe<inet_sum_scalar>, &probe<inet_sum_avx2>,
                                          &probe<inet_sum_avx512>, &probe<inet_sum_avx512_vnni>};

    static std::atomic<uint32_t>& word() { return g_inet_plan; }
    static bool runs(Kernel k) {
        const CpuFeatures& f = cpu();
        const bool can[] = {true, f.can_inet_avx2(), f.can_inet_avx512(), f.can_inet_avx512_vnni()};
        return can[static_cast<size_t>(k)];
    }
    static bool timed(Kernel) { return true; }
    static uint32_t plan_of(const uint8_t chosen[kNumClasses]) {
        return plan_pack(chosen) | kPlanReady | (rest_path().second_chosen ? kPlanAdxRest : 0);
    }
    // Without calibration: avx2 below 4 KiB, where the AVX-512 kernels'
    // longer reduction loses (docs/benchmarks.md, "Figures behind
    // choices in the code"), the widest above.
    static void fixed(std::span<const Kernel> avail, uint8_t chosen[kNumClasses]) {
        const Kernel widest = avail.back();
        const Kernel mid = runs(Kernel::avx2) ? Kernel::avx2 : widest;
        chosen[0] = chosen[1] = chosen[2] = static_cast<uint8_t>(mid);
        chosen[3] = static_cast<uint8_t>(widest);
    }
};

using Family = KernelFamily<InetTraits>;

}  // namespace

uint32_t inet_calibrate_fresh(FamilyReport* r) noexcept {
    return Family::calibrate_fresh(r);
}
uint32_t inet_plan_now() noexcept {
    return Family::plan();
}
void inet_plan_set(uint32_t p) noexcept {
    Family::set(p);
}
const PathChoice& inet_rest_report() noexcept {
    return rest_path();
}
const FamilyReport& inet_report() noexcept {
    return Family::report();
}
bool inet_plan_chosen() noexcept {
    return Family::chosen();
}

uint32_t inet_sum_active(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    return inet_sum_planned(Family::plan(), p, len, sum);
}

}  // namespace detail

std::string_view inet_kernel_name(InetKernel k) noexcept {
    return detail::Family::name(k);
}
bool inet_kernel_from_name(std::string_view name, InetKernel* out) noexcept {
    return detail::Family::from_name(name, out);
}
std::span<const InetKernel> inet_available_kernels() noexcept {
    return detail::Family::available();
}
InetKernel inet_active_kernel() noexcept {
    return detail::Family::active();
}
bool inet_force_kernel(InetKernel k) noexcept {
    return detail::Family::force(k);
}

uint32_t partial_sum_with(InetKernel k, const void* data, size_t len, uint32_t sum) noexcept {
    if (!detail::Family::is_available(k)) k = InetKernel::scalar;
    return detail::InetTraits::kFns[static_cast<size_t>(k)](static_cast<const uint8_t*>(data), len,
                                                            sum);
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
