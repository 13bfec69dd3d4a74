// The chain sum on zmm (inet_mbuf_avx512_body.h) with vpdpwssd (AVX512_VNNI):
// the multiply-add and the accumulate in one op.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "mbuf/inet_mbuf_avx512_body.h"

namespace csum::detail {

bool inet_chain_sum_avx512_vnni(const rte_mbuf* s, uint32_t seg_off, uint32_t len, uint32_t pos,
                                uint64_t* even, uint64_t* odd) noexcept {
    return chain_sum512<true>(s, seg_off, len, pos, even, odd);
}

}  // namespace csum::detail
