// The chain loops (engine/chain_walk.h, engine/tunnel_chain_run.h) this CPU
// runs, for the tests that call them directly: each plain one with the inet
// kernel it belongs to (AVX2 has a long loop only).
#pragma once

#include <utility>
#include <vector>

#include "csum/inet.h"
#include "engine/chain_walk.h"
#include "engine/tunnel_chain_run.h"

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

// The tunnel chain loops: AVX2's wherever the CPU has it, AVX-512's too
// where the engine would run it.
struct TunnelChainLoop {
    const char* name;
    decltype(&tunnel_chain::run_avx2) run;
    decltype(&tunnel_chain::fill_avx2) fill;
};
inline std::vector<TunnelChainLoop> tunnel_chain_loops() {
    std::vector<TunnelChainLoop> loops;
    if (tunnel_chain::cpu_level() >= 1)
        loops.push_back({"avx2", tunnel_chain::run_avx2, tunnel_chain::fill_avx2});
    if (tunnel_chain::cpu_level() == 2)
        loops.push_back({"avx512", tunnel_chain::run_avx512, tunnel_chain::fill_avx512});
    return loops;
}

}  // namespace csum::test
