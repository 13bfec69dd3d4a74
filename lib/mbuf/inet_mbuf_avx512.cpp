// The chain sum on zmm (inet_mbuf_avx512_body.h): vpmaddwd, then vpaddd.
// Built whole with AVX-512 flags: GCC's false warning off for the file.
#include "simd/target_region.h"
CSUM_AVX512_INTRINSIC_WARNINGS_OFF
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
