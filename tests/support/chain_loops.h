// The chain loops (engine/chain_walk.h) this CPU runs, for the tests that
// call them directly: each with the inet kernel it belongs to (AVX2 has a
// long loop only).
#pragma once

#include <utility>
#include <vector>

#include "csum/inet.h"
#include "engine/chain_walk.h"

namespace csum::test {

using ChainLoopFn = decltype(&chain_walk::run_avx512);

// kShort: the loops for chains of at most kHeaderGather bytes; else the long ones.
template <bool kShort>
std::vector<std::pair<InetKernel, ChainLoopFn>> chain_loops() {
    std::vector<std::pair<InetKernel, ChainLoopFn>> loops;
    for (InetKernel k : inet_available_kernels()) {
        if (k == InetKernel::avx2 && !kShort) loops.push_back({k, chain_walk::run_avx2});
        if (k == InetKernel::avx512)
            loops.push_back({k, kShort ? chain_walk::run_short_avx512 : chain_walk::run_avx512});
        if (k == InetKernel::avx512_vnni)
            loops.push_back(
                {k, kShort ? chain_walk::run_short_avx512 : chain_walk::run_avx512_vnni});
    }
    return loops;
}

}  // namespace csum::test
