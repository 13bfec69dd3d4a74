// Bursts of chained packets for comparing engines: each packet's bytes, cut,
// RX flags and a descriptor lie told after the chain is built and taken back
// before it is read or freed; and frames with their checksums filled by an
// engine in fill mode.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "gen/packet_builder.h"
#include "support/engine_compare.h"

namespace csum::test {

// What a chain's descriptors may lie about: nb_segs one too many or too few,
// pkt_len past the data (by 1 + the packet's place in its burst % 7), the
// last segment's data_len a byte short, the last segment linked back to the
// head or to itself, the first or the last segment's data claimed a byte
// past its buffer's end (buf_len one short of data_off + data_len).
enum class Lie : uint8_t {
    none,
    segs_high,
    segs_low,
    pkt_len_past,
    last_cut,
    loop_to_head,
    loop_to_self,
    head_past_buffer,
    tail_past_buffer
};

// The segment's buffer made to end one byte before its data does, and back.
void shrink_buffer(rte_mbuf* seg);
void restore_buffer(rte_mbuf* seg);

// One packet of a burst: its bytes cut into segments of lens (see
// make_chain), its RX ol_flags and packet_type, and the lie it tells.
struct ChainSpec {
    std::vector<uint8_t> bytes;
    std::vector<uint32_t> lens;
    uint64_t ol_flags = 0;
    uint32_t packet_type = 0;
    Lie lie = Lie::none;
};

// The chains of specs, data at headroom + misalign, each telling its lie:
// burst() is the array to process (an engine reorders it), orig() the
// packets as built. undo_lies() takes the lies back; the destructor does
// too, then frees every packet.
class ChainBurst {
  public:
    ChainBurst() = default;
    ChainBurst(const ChainBurst&) = delete;
    ChainBurst& operator=(const ChainBurst&) = delete;
    ~ChainBurst();

    // Fatal failure if the pool runs dry: callers wrap it in ASSERT_NO_FATAL_FAILURE.
    void build(rte_mempool* pool, std::span<const ChainSpec> specs, uint16_t misalign = 0);
    void undo_lies();

    rte_mbuf** burst() { return burst_.data(); }
    rte_mbuf* const* orig() const { return orig_.data(); }
    uint16_t size() const { return static_cast<uint16_t>(orig_.size()); }

  private:
    std::vector<rte_mbuf*> burst_, orig_, tails_;
    std::vector<Lie> lies_;  // told and not yet taken back
};

// specs as one burst through the lean engine and the walker-only one, the
// lies taken back before the packets are read: the same kept order,
// verdicts and bytes (record_burst, packets named by what) and counters
// (expect_same_counts). Fatal on the first difference. tx: the port they leave by.
void expect_same_burst(Engine& lean, Engine& walker, rte_mempool* pool,
                       std::span<const ChainSpec> specs, const RxPortPolicy& rx, uint16_t misalign,
                       const std::vector<std::string>& what, const TxPortPolicy& tx = {});

// Frames with every checksum an engine in fill mode writes filled in (where
// it sees them).
class Filler {
  public:
    explicit Filler(rte_mempool* pool);
    std::vector<uint8_t> operator()(std::vector<uint8_t> frame);
    // gen::build_frame's frame, filled.
    std::vector<uint8_t> frame(gen::Proto p, uint32_t len, uint32_t flow, uint16_t chunks = 1);
    // SCTP over IPv6, which has no generator: sctp4's SCTP bytes behind an
    // IPv6 header, len bytes in all, filled.
    std::vector<uint8_t> sctp6(uint32_t len, uint32_t flow, uint16_t chunks = 1);

  private:
    rte_mempool* pool_;
    Engine engine_;
};

}  // namespace csum::test
