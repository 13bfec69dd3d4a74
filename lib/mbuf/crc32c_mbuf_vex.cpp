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
// pieces, from 0, nothing to set up or combine. The incoming state joins at
// the end, shifted over len bytes (one clmul + crc32), so a chained call
// waits ~10 cycles on it rather than on the whole serial chain.
CrcWalk crc32c_walk_serial(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept {
    _mm256_zeroupper();
    const bool late = len >= 5;  // x86::shift_state covers 5..127 bytes
    uint32_t c = late ? 0 : state;
    uint32_t rest = len;
    uint32_t seg_off = off;
    const rte_mbuf* s = off < m->data_len ? m : seek_segment(m, off, &seg_off);
    while (rest > 0 && s != nullptr) {
        uint32_t n = s->data_len - seg_off;
        if (n > rest) n = rest;
        c = x86::crc_serial(c, rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off), n);
        rest -= n;
        seg_off = 0;
        s = s->next;
    }
    // A chain shorter than pkt_len says: the CRC of the bytes that exist.
    if (rest != 0) return walk_segments(crc32c_plan(), m, off, len, state);
    return {late ? c ^ x86::shift_state(state, len) : c, true};
}

}  // namespace csum::detail
