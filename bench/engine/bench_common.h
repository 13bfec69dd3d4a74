// bench_engine's shared parts: bursts of packets, the engine's and DPDK's
// timings (TSC ticks per packet, medians of reps).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "csum/engine.h"
#include "gen/packet_builder.h"

namespace csum::bench {

constexpr int kBurst = 32;

// segs segments of equal size; or, with first > 0 and segs > 1, a first
// segment of `first` bytes and the rest split evenly over the others.
rte_mbuf* make_packet(rte_mempool* mp, const std::vector<uint8_t>& bytes, int segs,
                      size_t first = 0);
// As a scatter-RX PMD leaves a frame in mbufs of seg_bytes (> 0) data room:
// every segment full but the last.
rte_mbuf* make_scattered(rte_mempool* mp, const std::vector<uint8_t>& bytes, size_t seg_bytes);
double median(std::vector<double>& v);
// The timer's own cost, per packet of a burst: the median of reps empty
// timed regions (rte_rdtsc_precise twice, as every timing here takes), over
// kBurst. Inside every figure; on AMD Zen 1 (KVM) ~120 ticks a region.
double timer_ticks(int reps);
// Ticks per packet for one engine pass over the kBurst packets, median of
// reps; the pass is calls of per_call (>= 1) packets, the last one shorter
// where per_call does not divide kBurst, in one timed region. ptype
// kOwnPtype: each packet keeps the packet_type it has.
inline constexpr uint32_t kOwnPtype = ~0u;
double time_engine(Engine& e, rte_mbuf** pkts, int reps, uint64_t rx_flags, uint32_t ptype,
                   int per_call = kBurst);
// DPDK's bare verify (rte_ipv4_cksum, rte_ipv4/6_udptcp_cksum_mbuf_verify):
// its ticks per packet over the burst; 0 if it does not find every packet
// right (then it is no peer for this row).
double time_dpdk(rte_mbuf** pkts, int reps, bool v6);
// The same over a burst of IPv4 and IPv6 packets.
double time_dpdk_mixed(rte_mbuf** pkts, int reps);
// kBurst packets of proto and size, their checksums filled by filler; the first.
rte_mbuf* filled_burst(rte_mempool* mp, Engine& filler, gen::Proto proto, uint32_t size,
                       rte_mbuf** pkts);

// --tunnels and --chains (bench_pairs.cpp).
void tunnel_pairs(rte_mempool* mp, Engine& filler, int reps, int rounds, uint32_t size);
void chain_pairs(rte_mempool* mp, Engine& filler, int reps, int rounds, const std::string& proto,
                 uint32_t size, const std::string& mode_only, const std::string& flags_only,
                 uint32_t first_seg);
// --walk-floor (bench_walk_floor.cpp).
void walk_floor_rows(rte_mempool* mp, Engine& filler, int reps, int rounds);
// --mixed and --drops (bench_traffic.cpp).
void mixed_rows(rte_mempool* mp, Engine& filler, int reps, int rounds, const std::string& only,
                uint32_t only_size, const std::string& only_flags, const std::string& only_mode);
void drop_rows(rte_mempool* mp, Engine& filler, int reps, int rounds, const std::string& only,
               uint32_t only_size, const std::string& only_flags);
// --bursts (bench_bursts.cpp).
void burst_rows(rte_mempool* mp, Engine& filler, int reps, int rounds, const std::string& only,
                uint32_t only_size, const std::string& only_flags, const std::string& only_mode);
// --sizes (bench_sizes.cpp).
void size_rows(rte_mempool* mp, Engine& filler, int reps, int rounds, const std::string& only,
               const std::string& only_mode);

}  // namespace csum::bench
