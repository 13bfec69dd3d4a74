// The Internet sum by a given plan: a direct call per length class behind
// predictable branches, no call through a pointer. inet_sum_active reads the
// plan per call; a run of packets reads it once and calls this.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "csum/inet.h"
#include "dispatch/select.h"
#include "inet/inet_kernels.h"

namespace csum::detail {

extern std::atomic<uint32_t> g_inet_plan;
// The plan as it stands, without choosing one (0 before the first choice:
// every flag clear). For loops that test a flag per packet and have no
// plan of their own to hand.
[[gnu::always_inline]] inline uint32_t inet_plan_loaded() noexcept {
    return g_inet_plan.load(std::memory_order_relaxed);
}

[[gnu::always_inline]] inline uint32_t inet_sum_planned(uint32_t plan, const uint8_t* p, size_t len,
                                                        uint32_t sum) noexcept {
    switch (static_cast<InetKernel>(plan_kernel(plan, len))) {
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

}  // namespace csum::detail
