// One kernel family's choice, written once for CRC32C and the Internet sum:
// the environment override, CSUM_CALIBRATE=0, the plan chosen once at first
// use, forcing, the available list and the report. A family supplies only a
// traits struct T (in an anonymous namespace, so each instantiation stays in
// its own file and is built with that file's ISA flags):
//
//   using Kernel = ...;                        // enum, ids 0..n-1, narrowest first
//   static constexpr const char* kFamily, *kEnv, *kFixedWhy;
//   static constexpr std::string_view kNames[];  // by id
//   static constexpr ProbeFn kProbes[];           // by id, for calibration
//   static std::atomic<uint32_t>& word();     // the plan word the hot path reads
//   static bool runs(Kernel);                 // this CPU can run it
//   static bool timed(Kernel);                // calibrate it (given it runs)
//   static uint32_t plan_of(const uint8_t chosen[kNumClasses]);
//   static constexpr bool kShortClassByLatency;  // 128..287 B timed on its own
//   static void fixed(std::span<const Kernel> avail, uint8_t chosen[kNumClasses]);
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string_view>

#include "dispatch/select.h"

namespace csum::detail {

// CSUM_*_KERNEL's value, or null when unset or empty.
const char* kernel_env(const char* var) noexcept;
// Reports (stderr) a CSUM_*_KERNEL value that names no kernel this CPU runs.
void kernel_env_ignored(const char* var, const char* value) noexcept;
// Fills r for a choice made without timing: candidates c[0..n), no ticks.
void fixed_report(FamilyReport& r, const Candidate* c, size_t n, const uint8_t chosen[kNumClasses],
                  const char* why) noexcept;

template <class T>
struct KernelFamily {
    using Kernel = typename T::Kernel;
    static constexpr size_t kCount = std::size(T::kNames);
    static_assert(std::size(T::kProbes) == kCount);

    static std::string_view name(Kernel k) noexcept {
        const auto id = static_cast<size_t>(k);
        return id < kCount ? T::kNames[id] : "?";
    }

    static bool from_name(std::string_view s, Kernel* out) noexcept {
        for (size_t id = 0; id < kCount; ++id)
            if (T::kNames[id] == s) return *out = static_cast<Kernel>(id), true;
        return false;
    }

    // Kernels this CPU can run, narrowest (and so slowest) first.
    static std::span<const Kernel> available() noexcept {
        static const Avail a = [] {
            Avail r;
            for (size_t id = 0; id < kCount; ++id)
                if (T::runs(static_cast<Kernel>(id))) r.list[r.n++] = static_cast<Kernel>(id);
            return r;
        }();
        return {a.list, a.n};
    }

    static bool is_available(Kernel k) noexcept {
        for (Kernel a : available())
            if (a == k) return true;
        return false;
    }

    static uint32_t plan_for(Kernel k) noexcept {
        const auto id = static_cast<uint8_t>(k);
        const uint8_t chosen[kNumClasses] = {id, id, id, id};
        return T::plan_of(chosen);
    }

    // The plan, chosen once: environment, else calibration, else fixed.
    // Never inlined: the hot paths call it only on first use, and inlined it
    // would make them save registers on every call.
    __attribute__((noinline)) static uint32_t init() noexcept {
        static const bool once = (T::word().store(choose(), std::memory_order_relaxed), true);
        (void)once;
        return T::word().load(std::memory_order_relaxed);
    }

    // Without choosing: whether a plan is in force yet (0 is never one).
    static bool chosen() noexcept { return T::word().load(std::memory_order_relaxed) != 0; }

    static uint32_t plan() noexcept {
        const uint32_t p = T::word().load(std::memory_order_relaxed);
        return p != 0 ? p : init();
    }

    static void set(uint32_t p) noexcept {
        init();  // so a later first use cannot undo this
        if (p != 0) T::word().store(p, std::memory_order_relaxed);
    }

    static bool force(Kernel k) noexcept {
        init();
        if (!is_available(k)) return false;
        T::word().store(plan_for(k), std::memory_order_relaxed);
        return true;
    }

    static Kernel active() noexcept { return static_cast<Kernel>(plan_kernel(plan(), 1500)); }

    static const FamilyReport& report() noexcept {
        init();
        return report_mut();
    }

    static uint32_t calibrate_fresh(FamilyReport* r) noexcept {
        Candidate c[kMaxCandidates];
        const size_t n = candidates(c);
        r->family = T::kFamily;
        calibrate(c, n, r);
        // A family whose 128..287 B calls overlap in practice takes its
        // 288..767 B kernel there: the probe times dependent calls.
        if constexpr (!T::kShortClassByLatency) r->chosen[0] = r->chosen[1];
        return T::plan_of(r->chosen);
    }

  private:
    struct Avail {
        Kernel list[kCount];
        size_t n = 0;
    };

    static FamilyReport& report_mut() noexcept {
        static FamilyReport r;
        return r;
    }

    static Candidate candidate(Kernel k) noexcept {
        return {static_cast<uint8_t>(k), name(k).data(), T::kProbes[static_cast<size_t>(k)]};
    }

    static size_t candidates(Candidate* c) noexcept {
        size_t n = 0;
        for (Kernel k : available())
            if (T::timed(k) && n < kMaxCandidates) c[n++] = candidate(k);
        return n;
    }

    // Without timing: the candidates, plus a chosen kernel calibration skips
    // (crc32c's portable can still be forced), so the report can name it.
    static uint32_t fixed_plan(FamilyReport& r, const uint8_t chosen[kNumClasses],
                               const char* why) noexcept {
        Candidate c[kMaxCandidates];
        size_t n = candidates(c);
        for (size_t cl = 0; cl < kNumClasses; ++cl) {
            bool listed = false;
            for (size_t i = 0; i < n; ++i) listed |= c[i].id == chosen[cl];
            if (!listed && n < kMaxCandidates) c[n++] = candidate(static_cast<Kernel>(chosen[cl]));
        }
        fixed_report(r, c, n, chosen, why);
        return T::plan_of(chosen);
    }

    static uint32_t choose() noexcept {
        FamilyReport& r = report_mut();
        r.family = T::kFamily;
        uint8_t chosen[kNumClasses];
        if (const char* env = kernel_env(T::kEnv)) {
            Kernel k;
            if (from_name(env, &k) && is_available(k)) {
                for (auto& ch : chosen) ch = static_cast<uint8_t>(k);
                return fixed_plan(r, chosen, T::kEnv);
            }
            kernel_env_ignored(T::kEnv, env);
        }
        if (!calibration_enabled()) {
            T::fixed(available(), chosen);
            return fixed_plan(r, chosen, T::kFixedWhy);
        }
        return calibrate_fresh(&r);
    }
};

}  // namespace csum::detail
