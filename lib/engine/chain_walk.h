// The chain run's loops on AVX-512 (good_run_chain_avx512[_vnni].cpp,
// fill_chain_avx512.cpp) and AVX2 (good_run_chain_avx2.cpp,
// fill_chain_avx2.cpp): each chain walked once, every segment summed whole
// as it is reached, on vector state carried from segment to segment, with
// no call per packet. Declared here for same_chain_run and same_chain_fill;
// defined in their own files under their own target.
#pragma once

#include <cstdint>

#include "engine/lean_path.h"
#include "engine/run_parts.h"
#include "parse/classify.h"

struct rte_mbuf;

namespace csum::chain_walk {

// What a stretch of chains added up to.
struct Out {
    uint64_t bytes = 0;   // their pkt_len
    uint64_t summed = 0;  // bytes summed, as sums_good counts them
};

// Shapes: 0 TCP/IPv4, 1 UDP/IPv4, 3 TCP/IPv6, 4 UDP/IPv6 (same_dispatch's
// keys); ports: the config has special TCP ports.
//
// Takes chains from pkts[j] on while each is a chain with no RX checksum
// flags, of more than kHeaderGather and at most 65535 bytes in at most
// kInetMaxPieces segments, of the shape, its segments as its descriptor
// says, no bytes after the L4 region, and every sum right; writes each one's
// verdict. Returns the first it did not take; *failed: that one is such a
// chain but failed one of the tests (the caller's run ends there, for the
// general loop), else the caller's loop takes it.
unsigned run_avx512(int shape, bool ports, const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                    unsigned n, const run_parts::RunVerdict& verdict, Out* out,
                    bool* failed) noexcept;
unsigned run_avx512_vnni(int shape, bool ports, const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                         unsigned n, const run_parts::RunVerdict& verdict, Out* out,
                         bool* failed) noexcept;
// run_avx512's counterpart for CPUs with AVX2 (good_run_chain_avx2.cpp):
// the same chains and tests, each walked once on ymm state. (Chains of at
// most kHeaderGather bytes put together in ymm registers measured slower
// than the gathered copy: docs/notebook/issue-15.md.)
unsigned run_avx2(int shape, bool ports, const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                  unsigned n, const run_parts::RunVerdict& verdict, Out* out,
                  bool* failed) noexcept;
// The same for chains of at most kHeaderGather bytes (each assembled in
// two registers by masked loads, then tested and summed as a linear packet):
// one loop for every AVX-512 kernel (it sums in scalar registers).
unsigned run_short_avx512(int shape, bool ports, const ShapeConfig& sc, rte_mbuf** pkts, unsigned j,
                          unsigned n, const run_parts::RunVerdict& verdict, Out* out,
                          bool* failed) noexcept;
// The same walk and shape test for chains the PMD flagged GOOD in every
// layer (RunFlags<kV6, false>), no sum taken: *out's summed stays 0.
unsigned run_short_good_avx512(int shape, bool ports, const ShapeConfig& sc, rte_mbuf** pkts,
                               unsigned j, unsigned n, const run_parts::RunVerdict& verdict,
                               Out* out, bool* failed) noexcept;
// Fill mode's loop (fill_chain_avx512.cpp; same_chain_fill hands its
// chains here on AVX-512): takes chains from pkts[j] on while each is one
// same_chain_fill would fill, fills each as it does and writes its verdict.
// A chain of at most 65535 bytes whose segments hold exactly pkt_len bytes
// and nothing after its L4 region is filled from its walk in registers;
// any other (a padded frame, bytes past pkt_len) by fill_general. Returns
// the first it did not take, untouched. out->summed: the L4 bytes summed.
// plan: detail::inet_plan_now(), for fill_general.
unsigned fill_avx512(int shape, bool ports, const ShapeConfig& sc, uint32_t plan, rte_mbuf** pkts,
                     unsigned j, unsigned n, const run_parts::RunVerdict& verdict,
                     Out* out) noexcept;
// fill_avx512's counterpart for CPUs with AVX2 (fill_chain_avx2.cpp):
// chains over kHeaderGather bytes filled from run_avx2's walk, any other
// by fill_general.
unsigned fill_avx2(int shape, bool ports, const ShapeConfig& sc, uint32_t plan, rte_mbuf** pkts,
                   unsigned j, unsigned n, const run_parts::RunVerdict& verdict, Out* out) noexcept;
// fill_chain.cpp's fill of one chain (m->next set) of shape (kV6, kUdp) in at most
// kInetMaxPieces segments (a gathered front, a kernel call per piece):
// false, with nothing written, if same_chain_fill would not fill it.
// *l4_len: its L4 bytes.
template <bool kV6, bool kUdp, bool kPorts>
bool fill_general(const ShapeConfig& sc, uint32_t plan, rte_mbuf* m, uint32_t* l4_len) noexcept;
// Whether this CPU runs the loops above (AVX-512 F/BW/VL/DQ and BMI2).
bool cpu_has_avx512() noexcept;

}  // namespace csum::chain_walk
