// Kernel choice, made once from CPUID (or CSUM_CRC32C_KERNEL), and the
// public entry point with its inline short path.
//
// This file is compiled with CSUM_ISA_SSE42_FLAGS so that the 3-way crc32
// path inlines here; its pclmulqdq runs only when the sse42 kernel (or a
// wider one) was chosen, i.e. when CPUID reported pclmulqdq.
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "crc32c/cpu_features.h"
#include "crc32c/crc32c_kernels.h"
#include "crc32c/crc32c_x86.h"
#include "csum/crc32c.h"

namespace csum {
namespace detail {
namespace {

// Below x86::kCrossover bytes crc32c() runs the inline short path instead
// of calling a kernel; the measurements are next to kCrossover.

constexpr Crc32cKernel kAll[] = {Crc32cKernel::portable, Crc32cKernel::isal, Crc32cKernel::sse42,
                                 Crc32cKernel::vpclmul_avx2, Crc32cKernel::avx512};

struct Available {
    Crc32cKernel list[std::size(kAll)];
    size_t n = 0;
};

bool cpu_can_run(Crc32cKernel k, const CpuFeatures& f) {
    switch (k) {
        case Crc32cKernel::portable:
        case Crc32cKernel::isal:
            return true;  // ISA-L dispatches internally
        case Crc32cKernel::sse42:
            return f.can_sse42();
        case Crc32cKernel::vpclmul_avx2:
            return f.can_avx2();
        case Crc32cKernel::avx512:
            return f.can_avx512();
    }
    return false;
}

const Available& available() {
    static const Available a = [] {
        Available r;
        const CpuFeatures f = detect_cpu();
        for (auto k : kAll)
            if (cpu_can_run(k, f)) r.list[r.n++] = k;
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

uint32_t resolve_then_run(uint32_t state, const uint8_t* p, size_t len) noexcept;

// Constant-initialised, so crc32c() works even from static constructors: the
// first call goes through resolve_then_run.
std::atomic<Crc32cFn> g_fn{&resolve_then_run};
std::atomic<size_t> g_short_below{0};
std::atomic<Crc32cKernel> g_kernel{Crc32cKernel::portable};

void activate(Crc32cKernel k) {
    // The inline path is the sse42 kernel; use it only when the chosen kernel
    // is one of ours built on crc32 + pclmulqdq, so forcing portable or isal
    // really runs that code for every length.
    const bool x86 =
        k == Crc32cKernel::sse42 || k == Crc32cKernel::vpclmul_avx2 || k == Crc32cKernel::avx512;
    g_kernel.store(k, std::memory_order_relaxed);
    g_active_plus1.store(static_cast<uint8_t>(static_cast<uint8_t>(k) + 1),
                         std::memory_order_relaxed);
    g_short_below.store(x86 ? x86::kCrossover : 0, std::memory_order_relaxed);
    g_fn.store(crc32c_kernel_fn(k), std::memory_order_relaxed);
}

void ensure_init() {
    static const bool done =
        (activate(crc32c_choose_kernel(std::getenv("CSUM_CRC32C_KERNEL"))), true);
    (void)done;
}

uint32_t resolve_then_run(uint32_t state, const uint8_t* p, size_t len) noexcept {
    ensure_init();
    return g_fn.load(std::memory_order_relaxed)(state, p, len);
}

}  // namespace

uint32_t resolve_first(uint32_t state, const uint8_t* p, size_t len) noexcept {
    return resolve_then_run(state, p, len);
}

std::atomic<uint8_t> g_active_plus1{0};

__attribute__((noinline)) uint32_t crc32c_short_lanes(uint32_t state, const uint8_t* p,
                                                      size_t len) noexcept {
    return x86::crc_lanes_short(state, p, len);
}
uint32_t crc32c_short_tree(uint32_t state, const uint8_t* p, size_t len) noexcept {
    return len < 16 ? x86::crc_serial(state, p, len) : x86::crc_tree_fold(state, p, len);
}

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
        case Crc32cKernel::isal:
            return &crc32c_isal;
    }
    return &crc32c_portable;
}

Crc32cKernel crc32c_choose_kernel(const char* env) noexcept {
    const auto& a = available();
    // Fastest of ours; isal is a comparison point, never the default.
    Crc32cKernel best = Crc32cKernel::portable;
    for (size_t i = 0; i < a.n; ++i)
        if (a.list[i] != Crc32cKernel::isal) best = a.list[i];
    if (env == nullptr || *env == '\0') return best;
    Crc32cKernel k;
    if (!crc32c_kernel_from_name(env, &k)) {
        std::fprintf(stderr, "csum: CSUM_CRC32C_KERNEL=%s is not a kernel name; using %s\n", env,
                     crc32c_kernel_name(best).data());
        return best;
    }
    if (!is_available(k)) {
        std::fprintf(stderr,
                     "csum: CSUM_CRC32C_KERNEL=%s needs CPU features missing here; using %s\n", env,
                     crc32c_kernel_name(best).data());
        return best;
    }
    return k;
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
        case Crc32cKernel::isal:
            return "isal";
    }
    return "?";
}

std::span<const Crc32cKernel> crc32c_available_kernels() noexcept {
    const auto& a = detail::available();
    return {a.list, a.n};
}

Crc32cKernel crc32c_active_kernel() noexcept {
    detail::ensure_init();
    return detail::g_kernel.load(std::memory_order_relaxed);
}

bool crc32c_force_kernel(Crc32cKernel k) noexcept {
    detail::ensure_init();
    if (!detail::is_available(k)) return false;
    detail::activate(k);
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

// A call before the kernel was chosen (from another static constructor):
// choose it, then run it.
static uint32_t crc32c_first_call(const uint8_t* p, size_t len, uint32_t crc) noexcept {
    return ~detail::resolve_first(~crc, p, len);
}

uint32_t crc32c(const void* data, size_t len, uint32_t crc) noexcept {
    const auto* p = static_cast<const uint8_t*>(data);
    const size_t short_below = detail::g_short_below.load(std::memory_order_relaxed);
    // Only the tree fold is inlined: the lanes need callee-saved registers,
    // and their push/pop would tax every short call (~4 ticks measured).
    if (len <= detail::x86::kTreeMax && len < short_below)
        return ~detail::x86::crc_short_path(~crc, p, len);
    if (len < short_below) return ~detail::crc32c_short_lanes(~crc, p, len);
    // Direct calls behind predictable branches, not a call through a pointer:
    // no indirect call per packet (the kernel's 2025 lesson).
    switch (detail::g_kernel.load(std::memory_order_relaxed)) {
        case Crc32cKernel::vpclmul_avx2: return ~detail::crc32c_vpclmul_avx2(~crc, p, len);
        case Crc32cKernel::avx512: return ~detail::crc32c_avx512(~crc, p, len);
        case Crc32cKernel::sse42: return ~detail::crc32c_sse42(~crc, p, len);
        case Crc32cKernel::isal: return ~detail::crc32c_isal(~crc, p, len);
        case Crc32cKernel::portable: break;
    }
    if (detail::g_active_plus1.load(std::memory_order_relaxed) == 0) return crc32c_first_call(p, len, crc);
    return ~detail::crc32c_portable(~crc, p, len);
}

}  // namespace csum
