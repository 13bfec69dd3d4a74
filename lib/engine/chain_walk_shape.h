// What every chain loop's file shares (chain_walk_body.h,
// fill_chain_avx512.cpp, good_run_chain_avx2.cpp, fill_chain_avx2.cpp): the
// shape key to the loop's instantiation, and the prefetch of the chains
// ahead. Included inside each file's target region; internal linkage, so
// each has its own copy built for its ISA.
#pragma once

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/run_parts.h"

namespace csum::chain_walk {
namespace {

// go.template operator()<kV6, kUdp, kPorts>() for shape key 0 (TCP/IPv4),
// 1 (UDP/IPv4), 3 (TCP/IPv6) or 4 (UDP/IPv6), ports: the config has special
// TCP ports; none() for any other key.
template <class Go, class None>
[[gnu::always_inline]] inline auto by_shape(int shape, bool ports, Go&& go, None&& none) {
    switch (shape) {
        case 0:
            return ports ? go.template operator()<false, false, true>()
                         : go.template operator()<false, false, false>();
        case 1:
            return go.template operator()<false, true, false>();
        case 3:
            return ports ? go.template operator()<true, false, true>()
                         : go.template operator()<true, false, false>();
        case 4:
            return go.template operator()<true, true, false>();
        default:
            return none();
    }
}

// At chain j of n: the data and verdict line of the chain kRunAhead on,
// and later segments' descriptors, a hop a packet: the second segment of
// the chain after next, and (kThird) the third of the next one.
template <bool kThird>
[[gnu::always_inline]] inline void prefetch_ahead(rte_mbuf* const* pkts, unsigned j, unsigned n,
                                                  long voff) {
    if (j + run_parts::kRunAhead < n) {
        rte_mbuf* a = pkts[j + run_parts::kRunAhead];
        rte_prefetch0(rte_pktmbuf_mtod(a, void*));
        rte_prefetch0(reinterpret_cast<char*>(a) + voff);
    }
    if (j + 2 < n) {
        const rte_mbuf* s2 = pkts[j + 2]->next;
        if (s2 != nullptr) rte_prefetch0(s2), rte_prefetch0(reinterpret_cast<const char*>(s2) + 64);
        if constexpr (kThird) {
            const rte_mbuf* t2 = pkts[j + 1]->next;
            const rte_mbuf* t3 = t2 != nullptr ? t2->next : nullptr;
            if (t3 != nullptr)
                rte_prefetch0(t3), rte_prefetch0(reinterpret_cast<const char*>(t3) + 64);
        }
    }
}

}  // namespace
}  // namespace csum::chain_walk
