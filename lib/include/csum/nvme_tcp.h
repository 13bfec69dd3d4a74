// NVMe/TCP PDU tracker: follows each direction of NVMe/TCP connections by
// TCP sequence number, finds PDU boundaries, and verifies (or fills in) the
// header and data digests (CRC32C) as segments pass, without buffering
// payload. One tracker per lcore; it takes no locks and allocates nothing
// after construction.
//
// Call feed() once for every TCP segment of an NVMe/TCP port, in arrival
// order, including segments without payload (SYN, FIN, RST end or start
// flows). Feed only segments whose IP/TCP checksums are good: a corrupted
// segment would be judged as NVMe/TCP data. Construct the tracker on the
// lcore (NUMA node) that uses it; it allocates its whole table then.
// See docs/nvme-tcp-resync.md for loss, reordering and resync.
#pragma once

#include "csum/export.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

struct rte_mbuf;

namespace csum {

// One direction of a TCP connection. Addresses are raw network-order bytes;
// an IPv4 address takes the first 4 bytes and the other 12 must be zero.
// Ports are in host order. Zero-initialise before filling (it is hashed and
// compared as bytes).
struct NvmeFlowKey {
    uint8_t src_addr[16];
    uint8_t dst_addr[16];
    uint16_t src_port;
    uint16_t dst_port;
    uint8_t family;  // 4 or 6
    uint8_t pad_[3];
};
static_assert(sizeof(NvmeFlowKey) == 40);

CSUM_API NvmeFlowKey nvme_flow_key_v4(const void* src4, const void* dst4, uint16_t sport,
                                      uint16_t dport);
CSUM_API NvmeFlowKey nvme_flow_key_v6(const void* src16, const void* dst16, uint16_t sport,
                                      uint16_t dport);

// TCP flag bits as in the TCP header (tcp_flags argument of feed()).
inline constexpr uint8_t kTcpFin = 0x01;
inline constexpr uint8_t kTcpSyn = 0x02;
inline constexpr uint8_t kTcpRst = 0x04;
inline constexpr uint8_t kTcpAck = 0x10;

enum class NvmeMode : uint8_t {
    verify,  // check digests, never touch the packet
    fill,    // write digests into the packet (the sender left them to us)
};

enum class NvmeDigestStatus : uint8_t {
    none,          // the PDU carries no such digest
    good,          // verify mode: matches
    bad,           // verify mode: mismatch
    unverifiable,  // bytes it covers were lost, or the PDU isn't trusted yet
    filled,        // fill mode: written into the packet
    unfillable,    // fill mode: couldn't be written (same causes as unverifiable)
};

// Why a stream lost PDU framing. Each has a named counter.
enum class NvmeDesyncReason : uint8_t {
    none,
    unknown_type,   // PDU type not defined by NVMe/TCP
    hlen_mismatch,  // HLEN differs from the fixed length for the type
    plen_lt_hlen,   // PLEN smaller than header (+ digests)
    plen_too_big,   // PLEN above the configured maximum (or type maximum)
    plen_invalid,   // PLEN differs from the fixed size of a data-less type
    pdo_invalid,    // PDO before the header end or past the data end
    digest_flags,   // HDGSTF/DDGSTF contradict negotiation or the PDU type
    gap,            // lost bytes included a PDU header (loss or reordering)
    count
};
inline constexpr int kNvmeDesyncReasonCount = static_cast<int>(NvmeDesyncReason::count);
CSUM_API std::string_view to_string(NvmeDesyncReason r) noexcept;  // "unknown_type", ...

struct NvmeDigestCounts {
    uint16_t good = 0, bad = 0, unverifiable = 0, filled = 0, unfillable = 0;
};

// What happened in one segment. Digest verdicts are reported on the segment
// holding the digest's last byte (or, when that byte was lost, on the segment
// that revealed the loss).
struct NvmeSegmentResult {
    NvmeDigestCounts hdgst;
    NvmeDigestCounts ddgst;
    uint16_t pdus = 0;     // PDUs whose last byte was in this segment
    uint16_t desyncs = 0;  // framing lost in this segment
    uint16_t resyncs = 0;  // framing regained (trusted again) in this segment
    NvmeDesyncReason reason = NvmeDesyncReason::none;  // last desync reason
    bool modified = false;    // fill mode wrote bytes: recompute the TCP checksum
    bool flow_ended = false;  // FIN of both sides, or RST: the connection was dropped
    bool retransmit = false;  // some or all bytes were already seen (ignored)
    bool untracked = false;   // ignored: unknown flow and nothing to start one with
    bool refused = false;     // ignored, nothing read: the payload's descriptors lie (a
                              // segment past its buffer, or the chain ends or loops first)
};

struct NvmeTrackerConfig {
    uint32_t capacity = 4096;              // connections (both directions share one)
    uint64_t idle_timeout_tsc = 0;         // 0: never; else TSC ticks without a segment
    uint32_t max_plen = (1u << 20) + 256;  // larger PLEN is hostile
    NvmeMode mode = NvmeMode::verify;
    uint8_t resync_confirm = 2;  // consecutive valid headers before verdicts resume
};

// Digest and framing counters, kept per connection and in total.
struct NvmeStreamCounts {
    uint64_t pdus = 0, bytes = 0;  // bytes: new payload bytes fed
    uint64_t hdgst_good = 0, hdgst_bad = 0, hdgst_unverifiable = 0;
    uint64_t ddgst_good = 0, ddgst_bad = 0, ddgst_unverifiable = 0;
    uint64_t filled = 0, unfillable = 0;  // fill mode, both digest kinds
    uint64_t desyncs = 0, resyncs = 0;

    // Adds one segment's verdicts (everything but bytes).
    void add(const NvmeSegmentResult& r) noexcept {
        pdus += r.pdus;
        hdgst_good += r.hdgst.good;
        hdgst_bad += r.hdgst.bad;
        hdgst_unverifiable += r.hdgst.unverifiable;
        ddgst_good += r.ddgst.good;
        ddgst_bad += r.ddgst.bad;
        ddgst_unverifiable += r.ddgst.unverifiable;
        filled += r.hdgst.filled + r.ddgst.filled;
        unfillable += r.hdgst.unfillable + r.ddgst.unfillable;
        desyncs += r.desyncs;
        resyncs += r.resyncs;
    }
};

// Per-connection counters (both directions).
using NvmeConnStats = NvmeStreamCounts;

// Totals over all connections, including ones already dropped.
struct NvmeTrackerStats : NvmeStreamCounts {
    uint64_t desync_by_reason[kNvmeDesyncReasonCount] = {};
    uint64_t false_candidates = 0;  // resync candidates rejected at the next header
    uint64_t scanned_bytes = 0;     // bytes searched while desynchronised
    uint64_t retransmitted_bytes = 0;
    uint64_t gaps = 0;              // times bytes were missing (loss or reordering)
    uint64_t refused_segments = 0;  // feed() calls refused for lying descriptors
    uint64_t flows_created = 0, flows_active = 0;
    uint64_t evictions = 0, idle_expired = 0, fin_closed = 0, rst_closed = 0;
};

struct NvmeConnInfo {
    NvmeFlowKey key;  // as first seen (client side usually first)
    NvmeConnStats stats;
    bool hdgst_on, ddgst_on;  // negotiated (or learned) digests
    bool negotiated;          // ICReq/ICResp were seen
};

// One record per completed PDU, for tests and debugging (optional sink).
struct NvmePduRecord {
    uint32_t seq;  // TCP sequence number of the PDU's first byte
    uint32_t plen;
    uint8_t type;
    uint8_t dir;  // 0: direction of the key that created the connection
    NvmeDigestStatus hdgst;
    NvmeDigestStatus ddgst;
};
struct NvmePduLog {
    NvmePduRecord* records = nullptr;
    size_t capacity = 0;
    size_t count = 0;
    size_t dropped = 0;
};

namespace nvme {
struct TrackerAccess;  // the library's own runs of data segments (nvme_tcp/data_run.h)
}

class CSUM_API NvmeTracker {
  public:
    explicit NvmeTracker(const NvmeTrackerConfig& cfg);
    ~NvmeTracker();
    NvmeTracker(const NvmeTracker&) = delete;
    NvmeTracker& operator=(const NvmeTracker&) = delete;

    // One TCP segment of the direction `key`. Payload is payload_len bytes of
    // m starting at packet offset payload_off (may span mbuf segments). In
    // fill mode the payload may be written. Never reads outside
    // [payload_off, payload_off + payload_len) ∩ pkt_len. A payload whose
    // segments claim data past their buffers, or that the chain does not hold
    // within the head's nb_segs segments, is refused (result.refused).
    NvmeSegmentResult feed(const NvmeFlowKey& key, uint32_t tcp_seq, uint8_t tcp_flags, rte_mbuf* m,
                           uint32_t payload_off, uint32_t payload_len, uint64_t now_tsc) noexcept;

    // Drops connections idle longer than the timeout (feed() also expires a
    // few per call); returns how many were dropped.
    size_t expire(uint64_t now_tsc) noexcept;

    const NvmeTrackerStats& stats() const noexcept;
    // Counters of the connection `key` belongs to (either direction), or null.
    const NvmeConnStats* conn_stats(const NvmeFlowKey& key) const noexcept;
    // Copies up to out.size() live connections; returns how many were copied.
    size_t snapshot(std::span<NvmeConnInfo> out) const noexcept;

    void set_pdu_log(NvmePduLog* log) noexcept;

  private:
    friend struct nvme::TrackerAccess;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace csum
