// Comparing an engine on its lean paths with one that runs the reference
// walker alone (plain_fast_path = false): what a packet's verdict says, and
// every counter a user can read.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "csum/verdict.h"

namespace csum::test {

// One engine on its lean paths and one walker-only (plain_fast_path =
// false) per mode: [2i] the lean one and [2i + 1] the walker for modes[i].
std::vector<std::unique_ptr<Engine>> lean_and_walker(std::initializer_list<Mode> modes);

// One packet through one engine: what it wrote and said.
struct OnePacket {
    std::vector<uint8_t> bytes;
    PacketVerdict verdict;  // the unused layer slots zeroed
    uint64_t ol_flags;
    uint64_t lens[3];  // l2_len, l3_len, l4_len
    bool forwarded;
};

// frame cut into segments of lens (summing to its size), with the PMD's
// ol_flags and packet_type, through e.process as a burst of one; the mbuf
// goes back to pool.
OnePacket process_one(Engine& e, rte_mempool* pool, std::span<const uint8_t> frame,
                      std::span<const uint32_t> lens, uint64_t ol_flags, uint32_t ptype,
                      const RxPortPolicy& rx, const TxPortPolicy& tx);

// m's verdict as the bytes that matter: its fixed fields and the layers it
// uses (the unused layer slots are not part of it).
std::string verdict_key(const rte_mbuf* m, const Engine& e);

// What a burst came back as: the kept packets' places in the burst as given,
// and each packet's verdict (named by what[i]) with its ol_flags and
// l2/l3/l4_len, and bytes, in the order given.
struct BurstRecord {
    std::vector<int> order;
    std::vector<std::string> verdicts;
    std::vector<std::vector<uint8_t>> bytes;
    bool operator==(const BurstRecord&) const = default;
};
// orig: the n packets as given to e.process; burst: the array after it,
// its first `kept` the packets it kept.
BurstRecord record_burst(const Engine& e, rte_mbuf* const* orig, rte_mbuf* const* burst, int n,
                         int kept, const std::vector<std::string>& what);

// Every counter of the two engines equal, except the bytes summed and
// CRC'd (a lean path may sum fewer: never twice). Fatal on the first
// difference: callers wrap it in ASSERT_NO_FATAL_FAILURE.
void expect_same_counts(const Engine& lean, const Engine& walker);

// The same, and the bytes summed and CRC'd equal too.
void expect_same_counts_and_work(const Engine& lean, const Engine& walker);

}  // namespace csum::test
