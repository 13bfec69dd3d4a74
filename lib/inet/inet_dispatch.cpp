// Kernel choice: made once, at load, from CPUID, unless the environment
// (CSUM_INET_KERNEL=<name>) or inet_force_kernel says otherwise.
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "csum/inet.h"
#include "inet/inet_cpu.h"
#include "inet/inet_kernels.h"

namespace csum {
namespace {

using detail::InetKernelFn;

constexpr InetKernel kAll[] = {InetKernel::scalar, InetKernel::avx2, InetKernel::avx512};

struct Available {
    InetKernel list[3];
    size_t n = 0;
};

const Available& available() noexcept {
    static const Available a = [] {
        Available r;
        const detail::InetCpu cpu = detail::inet_cpu_detect();
        r.list[r.n++] = InetKernel::scalar;
        if (cpu.avx2) r.list[r.n++] = InetKernel::avx2;
        if (cpu.avx512) r.list[r.n++] = InetKernel::avx512;
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
            return detail::inet_sum_scalar;
        case InetKernel::avx2:
            return detail::inet_sum_avx2;
        case InetKernel::avx512:
            return detail::inet_sum_avx512;
    }
    return detail::inet_sum_scalar;
}

uint32_t resolve_and_sum(const uint8_t* p, size_t len, uint32_t sum) noexcept;

std::atomic<InetKernelFn> g_fn{resolve_and_sum};
std::atomic<InetKernel> g_active{InetKernel::scalar};

void set_active(InetKernel k) noexcept {
    g_active.store(k, std::memory_order_relaxed);
    g_fn.store(fn_of(k), std::memory_order_release);
}

InetKernel initial_choice() noexcept {
    const Available& a = available();
    InetKernel k = a.list[a.n - 1];  // fastest last
    if (const char* env = std::getenv("CSUM_INET_KERNEL"); env != nullptr && *env != '\0') {
        InetKernel want;
        if (inet_kernel_from_name(env, &want) && is_available(want))
            k = want;
        else
            std::fprintf(stderr,
                         "csum: CSUM_INET_KERNEL=%s unknown or unsupported here; using %s\n", env,
                         inet_kernel_name(k).data());
    }
    return k;
}

void ensure_init() noexcept {
    static const bool once = (set_active(initial_choice()), true);
    (void)once;
}

uint32_t resolve_and_sum(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    ensure_init();
    return g_fn.load(std::memory_order_acquire)(p, len, sum);
}

// Choose at load time; resolve_and_sum covers a call from another static
// initialiser that runs before this one.
[[maybe_unused]] const bool g_chosen_at_load = (ensure_init(), true);

}  // namespace

std::string_view inet_kernel_name(InetKernel k) noexcept {
    switch (k) {
        case InetKernel::scalar:
            return "scalar";
        case InetKernel::avx2:
            return "avx2";
        case InetKernel::avx512:
            return "avx512";
    }
    return "?";
}

bool inet_kernel_from_name(std::string_view name, InetKernel* out) noexcept {
    for (InetKernel k : kAll)
        if (inet_kernel_name(k) == name) return *out = k, true;
    return false;
}

std::span<const InetKernel> inet_available_kernels() noexcept {
    return {available().list, available().n};
}

InetKernel inet_active_kernel() noexcept {
    ensure_init();
    return g_active.load(std::memory_order_relaxed);
}

bool inet_force_kernel(InetKernel k) noexcept {
    ensure_init();  // so a later first use cannot undo the choice
    if (!is_available(k)) return false;
    set_active(k);
    return true;
}

uint32_t partial_sum_with(InetKernel k, const void* data, size_t len, uint32_t sum) noexcept {
    if (!is_available(k)) k = InetKernel::scalar;
    return fn_of(k)(static_cast<const uint8_t*>(data), len, sum);
}

namespace detail {
// Direct calls behind predictable branches, not a call through a pointer:
// no indirect call per packet or per segment (the kernel's 2025 lesson). A
// call before the choice (another static constructor) runs scalar, correctly.
uint32_t inet_sum_active(const uint8_t* p, size_t len, uint32_t sum) noexcept {
    const InetKernel k = g_active.load(std::memory_order_relaxed);
    if (k == InetKernel::avx2) return inet_sum_avx2(p, len, sum);
    if (k == InetKernel::avx512) return inet_sum_avx512(p, len, sum);
    return inet_sum_scalar(p, len, sum);
}

InetKernelFn inet_active_fn() noexcept {
    return g_fn.load(std::memory_order_relaxed);
}
}  // namespace detail

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
