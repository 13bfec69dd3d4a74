// The dedicated path for the commonest packet: one segment holding Ethernet,
// IPv4 without options (not fragmented) or IPv6 without extension headers,
// then TCP or UDP with a checksum on no tunnel or NVMe port, or SCTP. Everything else,
// and every doubt, returns false and goes to the general walker.
#pragma once

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "engine/tally.h"

namespace csum {

enum class PlainOutcome : uint8_t { not_plain, forward, drop_bad };

PlainOutcome process_plain(const EngineConfig& cfg, const RxPortPolicy& rx, const TxPortPolicy& tx,
                           rte_mbuf* m, PacketVerdict* v, Tally& t) noexcept;

}  // namespace csum
