// The chain walks VEX-encoded (-mavx); see crc32c_walk.h.
#include <immintrin.h>

#include <array>

#include "crc32c/crc32c_x86.h"
#include "mbuf/crc32c_walk.h"

namespace csum::detail {
namespace {

// kSuffix[n] = x^(8n - 33): clmul by it, then crc32, shifts a 32-bit CRC
// over n bytes. x has order 2^31 - 1 modulo P, so the negative exponents
// (n < 5) wrap.
constexpr uint32_t xpow_wrapped(int64_t e) {
    constexpr int64_t ord = (int64_t{1} << 31) - 1;
    return xpow(static_cast<uint64_t>(((e % ord) + ord) % ord));
}
static_assert(xpow_wrapped(-1) == xpow((uint64_t{1} << 31) - 2));

alignas(64) constexpr auto kSuffix = [] {
    std::array<uint32_t, kShortChainMax + 1> t{};
    for (int64_t n = 0; n <= int64_t{kShortChainMax}; ++n) t[n] = xpow_wrapped(8 * n - 33);
    return t;
}();

inline __m128i clmul32(uint32_t a, uint32_t b) {
    return _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(a)),
                                _mm_cvtsi32_si128(static_cast<int>(b)), 0x00);
}

}  // namespace

CrcWalk crc32c_walk_vex(uint32_t plan, const rte_mbuf* m, uint32_t off, uint32_t len,
                        uint32_t state) noexcept {
    _mm256_zeroupper();
    return walk_segments(plan, m, off, len, state);
}

// Each piece's CRC from 0, independent of the others (so the pieces run in
// parallel), multiplied forward over the bytes after it; the products are
// summed carry-less and reduced by one crc32 at the end. No vector state is
// set up and nothing waits on the previous segment.
CrcWalk crc32c_walk_short(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept {
    _mm256_zeroupper();
    __m128i acc = clmul32(state, kSuffix[len]);  // the incoming state, over all len bytes
    uint32_t last = 0;                           // the final piece: nothing after it
    uint32_t rest = len;                         // bytes from the piece's start to the end
    uint32_t seg_off = off;
    const rte_mbuf* s = off < m->data_len ? m : seek_segment(m, off, &seg_off);
    while (rest > 0 && s != nullptr) {
        uint32_t n = s->data_len - seg_off;
        if (n > rest) n = rest;
        const uint8_t* p = rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off);
        seg_off = 0;
        s = s->next;
        if (n == 0) continue;
        const uint32_t c = x86::crc_lanes_short(0, p, n);  // n <= 256: serial, or lanes
        rest -= n;
        if (rest == 0)
            last = c;
        else
            acc = _mm_xor_si128(acc, clmul32(c, kSuffix[rest]));
    }
    // A chain shorter than pkt_len says: the per-segment walk reports it.
    if (rest != 0) return walk_segments(crc32c_plan(), m, off, len, state);
    const auto folded = static_cast<uint64_t>(_mm_cvtsi128_si64(acc));
    return {static_cast<uint32_t>(_mm_crc32_u64(0, folded)) ^ last, true};
}

}  // namespace csum::detail
