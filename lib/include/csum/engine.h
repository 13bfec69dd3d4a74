// The checksum engine: per burst, parse every layer once, verify and/or fill
// each checksum once, set a verdict on every mbuf, and count.
#pragma once

#include <cstdint>
#include <memory>

#include "csum/counter.h"
#include "csum/export.h"
#include "csum/nvme_tcp.h"
#include "csum/parser_config.h"
#include "csum/verdict.h"

struct rte_mbuf;

namespace csum {

enum class Mode : uint8_t {
    io,      // touch nothing
    verify,  // judge every checksum, set verdicts, count
    fill,    // make every checksum right before TX (software or offload)
    csum,    // verify, then fill what is missing, in one pass
};

struct EngineConfig {
    Mode mode = Mode::verify;
    ParserConfig parser;
    // Packets of a common shape (Ethernet / IPv4|IPv6 / TCP|UDP|SCTP, linear
    // or chained) take the classifier's lean path; false runs the general
    // walker alone, the reference the lean path is tested against.
    bool plain_fast_path = true;
    // NVMe/TCP digests on parser.nvme_ports (none: no tracker). The tracker's
    // mode follows the engine's: fill generates digests, verify/csum check.
    NvmeTrackerConfig nvme;
};

enum class DropReason : uint8_t { bad_checksum, malformed, count };
inline constexpr int kDropReasonCount = static_cast<int>(DropReason::count);

// What a packet's arrival port means for it.
struct RxPortPolicy {
    bool trusted = false;              // skip verification; count as skipped
    uint16_t verify_mask = 0xFFFF;     // bit per LayerProto: checksums to verify (others: skipped)
    bool drop_bad = false;             // drop bad checksums / malformed packets
    bool complete_in_verdict = false;  // the producer left CHECKSUM_COMPLETE verdicts
};

// What the departure port does for us: RTE_ETH_TX_OFFLOAD_{IPV4,TCP,UDP,SCTP}_CKSUM
// bits the port offers and csumd enabled.
struct TxPortPolicy {
    uint64_t offloads = 0;
};

struct EngineStats {
    Counter packets, bytes;
    Counter layer[kLayerProtoCount][kLayerStatusCount];
    Counter ip_summed[4];
    Counter csum_level[8];  // UNNECESSARY packets by csum_level (7 = 7 or more)
    Counter parse_error[kParseErrorCount];
    Counter drop[kDropReasonCount];
    Counter sw_filled, hw_offloaded, skipped_trusted;
    Counter work_tsc;   // TSC ticks in parse + checksum work (first 64 bursts, then 1 in 8 timed)
    Counter sum_bytes;  // bytes read by ones'-complement sums (payload read-once check)
    Counter crc_bytes;  // bytes read by CRC32C
};

CSUM_API std::string_view to_string(DropReason r) noexcept;
CSUM_API std::string_view to_string(Mode m) noexcept;

class CSUM_API Engine {
  public:
    explicit Engine(const EngineConfig& cfg);  // throws if the verdict dynfield can't register
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Processes a received burst bound for one TX port, in place. Packets to
    // forward are moved to the front and their count returned; drops follow,
    // verdicts set, for the caller to log and free. Sets TX offload flags.
    uint16_t process(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf** pkts,
                     uint16_t n) noexcept;

    const EngineStats& stats() const noexcept;
    // The NVMe/TCP tracker's totals as of the last burst, safe to read from
    // any thread; false when no NVMe port is watched.
    bool nvme_stats(NvmeTrackerStats* out) const noexcept;
    const EngineConfig& config() const noexcept;
    int verdict_field() const noexcept;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace csum
