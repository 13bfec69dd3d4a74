// chain_walk.h's loop built for AVX-512: every header first, then
// the target region (chain_walk_body.h says why).
#include "engine/chain_walk.h"

#include <immintrin.h>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/lean_path.h"
#include "engine/run_parts.h"
#include "inet/inet_kernels.h"
#include "mbuf/inet_mbuf_chain.h"
#include "parse/classify_same.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("bmi2,avx512f,avx512bw,avx512vl,avx512dq"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("bmi2,avx512f,avx512bw,avx512vl,avx512dq")
// GCC 12's AVX-512 intrinsics trip a false -Wmaybe-uninitialized (PR105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "engine/chain_walk_body.h"

namespace csum::chain_walk {

unsigned run_avx512(int shape, bool ports, const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                    unsigned n, const run_parts::RunVerdict& verdict, Out* out,
                    bool* failed) noexcept {
    return run_shape<false>(shape, ports, sc, pkts, j, n, verdict, out, failed);
}

}  // namespace csum::chain_walk
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
