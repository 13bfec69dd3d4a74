// Placeholder for the carried-state chain walk.
#include <immintrin.h>

#include "mbuf/crc32c_walk.h"

namespace csum::detail {

CrcWalk crc32c_walk_stream(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept {
    _mm256_zeroupper();
    return walk_segments(crc32c_plan(), m, off, len, state);
}

}  // namespace csum::detail
