// The PMD's receive checksum flags, decoded once for both paths.
#pragma once

#include <cstdint>

#include <rte_mbuf.h>

#include "csum/verdict.h"

namespace csum {

enum class HwFlag : uint8_t { unknown, good, bad, none };

inline HwFlag ip_flag(uint64_t f) {
    switch (f & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
        case RTE_MBUF_F_RX_IP_CKSUM_GOOD:
            return HwFlag::good;
        case RTE_MBUF_F_RX_IP_CKSUM_BAD:
            return HwFlag::bad;
        case RTE_MBUF_F_RX_IP_CKSUM_NONE:
            return HwFlag::none;
        default:
            return HwFlag::unknown;
    }
}

inline HwFlag l4_flag(uint64_t f) {
    switch (f & RTE_MBUF_F_RX_L4_CKSUM_MASK) {
        case RTE_MBUF_F_RX_L4_CKSUM_GOOD:
            return HwFlag::good;
        case RTE_MBUF_F_RX_L4_CKSUM_BAD:
            return HwFlag::bad;
        case RTE_MBUF_F_RX_L4_CKSUM_NONE:
            return HwFlag::none;
        default:
            return HwFlag::unknown;
    }
}

inline HwFlag outer_l4_flag(uint64_t f) {
    switch (f & RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK) {
        case RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD:
            return HwFlag::good;
        case RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD:
            return HwFlag::bad;
        default:
            return HwFlag::unknown;  // INVALID and UNKNOWN: do it ourselves
    }
}

// Every layer of a plain packet flagged GOOD (IPv6 has no header checksum).
inline bool hw_all_good(uint64_t f, bool v6) {
    const uint64_t mask = RTE_MBUF_F_RX_L4_CKSUM_MASK | (v6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_MASK);
    const uint64_t good = RTE_MBUF_F_RX_L4_CKSUM_GOOD | (v6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD);
    return (f & mask) == good;
}

// Whether a PMD's flags say anything of a tunnel's outer headers: one that
// names a tunnel (packet_type) without them may have checked only those.
inline bool pmd_saw_outer(uint64_t f) {
    return (f & (RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK | RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD)) != 0;
}

// A known flag's status: NONE means intact and not filled (CHECKSUM_PARTIAL).
inline LayerStatus status_of(HwFlag h) {
    return h == HwFlag::good  ? LayerStatus::good
           : h == HwFlag::bad ? LayerStatus::bad
                              : LayerStatus::partial;
}

}  // namespace csum
