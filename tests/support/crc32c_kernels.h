// Tests of anything that computes CRC32C, run under every kernel this CPU
// has: the body once per kernel, with the chosen plan restored afterwards.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "csum/crc32c.h"
#include "dispatch/cpu_features.h"
#include "dispatch/crc32c_plan.h"
#include "dispatch/select.h"
#include "support/mbuf_helpers.h"

namespace csum::test {

// Restores the chosen plan (a kernel per length class) after tests that
// force one kernel.
class KernelGuard {
  public:
    KernelGuard() : saved_(detail::crc32c_plan_now()) {}
    ~KernelGuard() { detail::crc32c_plan_set(saved_); }

  private:
    uint32_t saved_;
};

// Runs body once per kernel, with that kernel forced and named in the trace,
// then once more under the widest with the other short path (kPlanTree
// flipped) and, where the CPU has the avx512 kernel, the other SCTP pair
// path (kPlanPairFold flipped), so each runs on every CPU that can run it.
template <class F>
void for_each_crc32c_kernel(F body) {
    for (auto k : crc32c_available_kernels()) {
        ASSERT_TRUE(crc32c_force_kernel(k));
        SCOPED_TRACE("kernel " + std::string(crc32c_kernel_name(k)));
        body();
    }
    const uint32_t plan = detail::crc32c_plan_now();
    if (!(plan & detail::kPlanShortInline)) return;
    const uint32_t pair_flip = detail::cpu().can_avx512() ? detail::kPlanPairFold : 0;
    detail::crc32c_plan_set(plan ^ detail::kPlanTree ^ pair_flip);
    SCOPED_TRACE(std::string("kernel ") + std::string(crc32c_kernel_name(crc32c_active_kernel())) +
                 ((plan & detail::kPlanTree) ? ", short path on crc32 lanes"
                                             : ", short path on the tree fold") +
                 (pair_flip == 0                   ? ""
                  : (plan & detail::kPlanPairFold) ? ", SCTP pairs not folded"
                                                   : ", SCTP pairs folded"));
    body();
    detail::crc32c_plan_set(plan);
}

// A fixture (Base, an MbufTest by default) under every kernel; the plan is
// restored after each test.
template <class Base = MbufTest>
class Crc32cKernelsTest : public Base {
  protected:
    template <class F>
    void for_each_kernel(F body) {
        for_each_crc32c_kernel(body);
    }

  private:
    KernelGuard guard_;
};
using Crc32cMbufTest = Crc32cKernelsTest<>;

}  // namespace csum::test
