// The Internet sum along a chain with vector state carried from segment to
// segment, for inet_mbuf.cpp and the engine's chain run; each ISA variant in
// its own file.
#pragma once

#include <cstdint>

struct rte_mbuf;

namespace csum::detail {

// partial_sum_mbuf for a chain whose descriptors were already checked (the
// engine's classify bounds it by nb_segs and pkt_len): no range walk first.
int partial_sum_mbuf_trusted(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t* sum) noexcept;

// Adds the sum of len bytes from segment s at seg_off onward, which start at
// packet position pos, to *even (pieces at even positions) and *odd (pieces
// at odd positions, to be byte-swapped by the caller): 64-bit ones'-complement
// accumulators, congruent mod 0xFFFF. false if the chain ends first.
bool inet_chain_sum_avx2(const rte_mbuf* s, uint32_t seg_off, uint32_t len, uint32_t pos,
                         uint64_t* even, uint64_t* odd) noexcept;  // needs AVX2

// The same on AVX-512, every piece (short ones too) into eight zmm carried
// along the chain, each at its packet parity: the sum goes to *even only.
bool inet_mbuf_sum_avx512(const rte_mbuf* s, uint32_t seg_off, uint32_t len, uint32_t pos,
                          uint64_t* even) noexcept;  // needs AVX-512 F, BW
bool inet_mbuf_sum_avx512_vnni(const rte_mbuf* s, uint32_t seg_off, uint32_t len, uint32_t pos,
                               uint64_t* even) noexcept;  // and AVX512_VNNI

// A chain's segments as byte ranges, for a caller that has walked it once
// (lib/engine's chain run): at most kInetMaxPieces of them.
inline constexpr uint32_t kInetMaxPieces = 8;
struct InetPieces {
    const uint8_t* p[kInetMaxPieces];
    uint32_t n[kInetMaxPieces];
    uint32_t count;
};

// Bytes [skip, skip + len) of the pieces taken in order, added to *acc as
// above; false if the pieces hold fewer. The AVX-512 ones carry eight
// vectors across the pieces; inet_pieces_sum takes the active kernel (AVX2
// and scalar: one call per piece, no carried state, so the engine's chain
// run takes it only on AVX-512).
bool inet_pieces_sum_avx512(const InetPieces& pc, uint32_t skip, uint32_t len,
                            uint64_t* acc) noexcept;
bool inet_pieces_sum_avx512_vnni(const InetPieces& pc, uint32_t skip, uint32_t len,
                                 uint64_t* acc) noexcept;
bool inet_pieces_sum(const InetPieces& pc, uint32_t skip, uint32_t len, uint64_t* acc) noexcept;

}  // namespace csum::detail
