// The chain walk VEX-encoded (-mavx); see crc32c_walk.h.
#include <immintrin.h>

#include "mbuf/crc32c_walk.h"

namespace csum::detail {

CrcWalk crc32c_walk_vex(uint32_t plan, const rte_mbuf* m, uint32_t off, uint32_t len,
                        uint32_t state) noexcept {
    _mm256_zeroupper();
    return walk_segments(plan, m, off, len, state);
}

}  // namespace csum::detail
