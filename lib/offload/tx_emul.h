// TX checksum offload in software: what a NIC does with an mbuf's
// RTE_MBUF_F_TX_*_CKSUM requests and its l2/l3/outer lengths.
#pragma once

#include <cstdint>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "csum/csum.h"

namespace csum {

// Checksums written for one packet, by kind.
struct TxServed {
    uint8_t ip, tcp, udp, sctp, outer_ip, outer_udp;
    bool to_hw;  // requests left for the hardware
};

// Serves the requests in m->ol_flags that `emulate` (RTE_ETH_TX_OFFLOAD_*_CKSUM
// bits) covers, then clears their flags. Returns -1 and leaves the packet
// untouched when the request doesn't fit the packet; *err names why.
// An outer UDP checksum served here covers the inner headers, so inner
// requests are then served here too, even where the hardware could.
int tx_emulate(rte_mbuf* m, uint64_t emulate, TxServed* served, csum_tx_error* err) noexcept;

// The RTE_ETH_TX_OFFLOAD_* bits tx_emulate can serve.
inline constexpr uint64_t kTxEmulatable =
    RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
    RTE_ETH_TX_OFFLOAD_SCTP_CKSUM | RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM |
    RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM;

}  // namespace csum
