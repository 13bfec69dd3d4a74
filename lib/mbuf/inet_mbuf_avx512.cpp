// The chain sum on zmm (inet_mbuf_avx512_body.h): vpmaddwd, then vpaddd.
// GCC 12's AVX-512 intrinsics trip a false -Wmaybe-uninitialized (PR105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "mbuf/inet_mbuf_avx512_body.h"

namespace csum::detail {

bool inet_mbuf_sum_avx512(const rte_mbuf* s, uint32_t seg_off, uint32_t len, uint32_t pos,
                          uint64_t* even) noexcept {
    return chain_sum512<false>(s, seg_off, len, pos, even);
}

bool inet_pieces_sum_avx512(const InetPieces& pc, uint32_t skip, uint32_t len,
                            uint64_t* acc) noexcept {
    return pieces_sum512<false>(pc, skip, len, acc);
}

}  // namespace csum::detail
