// The chain walks VEX-encoded (-mavx); see crc32c_walk.h.
#include <immintrin.h>

#include "crc32c/crc32c_x86.h"
#include "mbuf/crc32c_walk.h"

namespace csum::detail {

CrcWalk crc32c_walk_vex(uint32_t plan, const rte_mbuf* m, uint32_t off, uint32_t len,
                        uint32_t state) noexcept {
    _mm256_zeroupper();
    return walk_segments(plan, m, off, len, state);
}

// Up to kSerialChainMax bytes: the crc32 instruction straight through the
// pieces, the state carried in a register; nothing to set up or combine.
CrcWalk crc32c_walk_serial(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept {
    uint32_t rest = len;
    uint32_t seg_off = off;
    const rte_mbuf* s = off < m->data_len ? m : seek_segment(m, off, &seg_off);
    while (rest > 0 && s != nullptr) {
        uint32_t n = s->data_len - seg_off;
        if (n > rest) n = rest;
        state = x86::crc_serial(state, rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off), n);
        rest -= n;
        seg_off = 0;
        s = s->next;
    }
    return {state, rest == 0};
}

}  // namespace csum::detail
