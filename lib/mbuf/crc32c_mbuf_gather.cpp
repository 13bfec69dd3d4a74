// Short chains (issue 14): a range of up to kGatherMax bytes over any number
// of segments is gathered straight into zmm registers by masked loads, one
// per 64-byte unit a piece may touch, then reduced once. No copy through
// memory (a load spanning two stores would stall on store forwarding), no
// fold state, no per-piece branches, and the data's CRC never waits on the
// incoming state: that joins at the end, shifted over len bytes.
//
// The stream is laid out so that it ends on the last of U = ceil(len / 64)
// units: leading zeros do not change a CRC that starts from 0. A piece of n
// bytes at stream position pos lands in unit k by a masked load from
// p - pos + 64k whose mask is the window [pos, pos + n) seen from that unit;
// units it does not reach get an empty mask, which reads nothing.
// Built with CSUM_ISA_AVX512_FLAGS; used only under a plan with kPlanStream.
// GCC 12's AVX-512 intrinsics trip a false -Wmaybe-uninitialized (PR105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <array>

#include "mbuf/crc32c_units.h"

namespace csum::detail {
namespace {

using namespace units512;

// kShiftN[n] = x^(8n - 33): s * x^(8n) = crc32(0, clmul(s, kShiftN[n])).
constexpr auto kShiftN = [] {
    std::array<uint32_t, kGatherMax + 1> t{};
    const auto ord = static_cast<int64_t>(kOrderOfX);
    for (int64_t n = 0; n <= static_cast<int64_t>(kGatherMax); ++n)
        t[n] = xpow(static_cast<uint64_t>(((8 * n - 33) % ord + ord) % ord));
    return t;
}();

inline uint32_t shift_state(uint32_t s, uint32_t n) {
    const __m128i t = _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(s)),
                                           _mm_cvtsi32_si128(static_cast<int>(kShiftN[n])), 0x00);
    return static_cast<uint32_t>(_mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(t))));
}

// U units. Returns the data's CRC from 0; *rest is what the chain lacked.
template <int U>
inline uint32_t gather(const rte_mbuf* s, uint32_t seg_off, uint32_t len, uint32_t* rest_out) {
    const uint64_t* w = kWindow.data() + kWinBias;
    const __m512i z = _mm512_setzero_si512();
    __m512i u0 = z, u1 = z, u2 = z, u3 = z;
    int pos = 64 * U - static_cast<int>(len);
    uint32_t rest = len;
    for (;;) {
        uint32_t n = s->data_len - seg_off;
        if (n > rest) n = rest;
        const uint8_t* b = rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off) - pos;
        const int e = pos + static_cast<int>(n);
        u0 = _mm512_mask_loadu_epi8(u0, w[e] ^ w[pos], b);
        if (U > 1) u1 = _mm512_mask_loadu_epi8(u1, w[e - 64] ^ w[pos - 64], b + 64);
        if (U > 2) u2 = _mm512_mask_loadu_epi8(u2, w[e - 128] ^ w[pos - 128], b + 128);
        if (U > 3) u3 = _mm512_mask_loadu_epi8(u3, w[e - 192] ^ w[pos - 192], b + 192);
        pos = e;
        rest -= n;
        s = s->next;
        if (rest == 0 || s == nullptr) break;
        seg_off = 0;
    }
    *rest_out = rest;
    __m512i x;
    if (U == 1) {
        x = u0;
    } else if (U == 2) {
        x = fold_xor(u0, fold_const<64>(), u1);
    } else if (U == 3) {
        x = _mm512_xor_si512(fold_xor(u0, fold_const<128>(), u2),
                             fold_xor(u1, fold_const<64>(), z));
    } else {
        x = _mm512_ternarylogic_epi64(fold_xor(u0, fold_const<192>(), u3),
                                      fold_xor(u1, fold_const<128>(), z),
                                      fold_xor(u2, fold_const<64>(), z), 0x96);
    }
    return reduce_unit(x);
}

// Longer chains: the same masked loads at stream positions, folded as they
// go (crc32c_units.h).
[[gnu::always_inline]] inline uint32_t units(const rte_mbuf* s, uint32_t seg_off, uint32_t len,
                                             uint32_t* rest_out) {
    UnitFold f = UnitFold::start(len);
    *rest_out = fold_chain(f, s, seg_off, len);
    return f.crc();
}

// A chain shorter than pkt_len says: the per-segment walk reports it.
__attribute__((noinline, cold)) CrcWalk short_chain(const rte_mbuf* m, uint32_t off, uint32_t len,
                                                    uint32_t state) {
    return walk_segments(crc32c_plan(), m, off, len, state);
}

// crc32c_mbuf for 1 <= len <= 64 U (len <= pkt_len - off): one leaf per
// unit count, so each keeps its few registers and needs no stack frame.
template <int U>
__attribute__((noinline)) uint32_t mbuf_units(const rte_mbuf* m, uint32_t off, uint32_t len,
                                              uint32_t crc) {
    const uint32_t joined = ~shift_state(~crc, len);
    uint32_t seg_off = off, rest = len;
    const rte_mbuf* s = seek(m, &seg_off);
    const uint32_t data = s != nullptr ? gather<U>(s, seg_off, len, &rest) : 0;
    if (rest != 0) return ~short_chain(m, off, len, ~crc).state;
    return data ^ joined;
}

// crc32c_mbuf for len > kGatherMax (len <= pkt_len - off).
__attribute__((noinline)) uint32_t mbuf_long(const rte_mbuf* m, uint32_t off, uint32_t len,
                                             uint32_t crc) {
    const uint32_t joined = shift_by(~crc, len);
    uint32_t seg_off = off, rest = len;
    const rte_mbuf* s = seek(m, &seg_off);
    const uint32_t data = s != nullptr ? units(s, seg_off, len, &rest) : 0;
    if (rest != 0) return ~short_chain(m, off, len, ~crc).state;
    return ~(data ^ joined);
}

}  // namespace

uint32_t crc32c_mbuf_gather(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t crc) noexcept {
    if (len <= 64) return len == 0 ? crc : mbuf_units<1>(m, off, len, crc);
    if (len <= 128) return mbuf_units<2>(m, off, len, crc);
    if (len <= 192) return mbuf_units<3>(m, off, len, crc);
    if (len <= 256) return mbuf_units<4>(m, off, len, crc);
    return mbuf_long(m, off, len, crc);
}

CrcWalk crc32c_walk_gather(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept {
    if (len == 0) return {state, true};
    uint32_t seg_off = off;
    const rte_mbuf* s = seek(m, &seg_off);
    if (s == nullptr) return short_chain(m, off, len, state);
    uint32_t rest;
    uint32_t data;
    if (len <= 64)
        data = gather<1>(s, seg_off, len, &rest);
    else if (len <= 128)
        data = gather<2>(s, seg_off, len, &rest);
    else if (len <= 192)
        data = gather<3>(s, seg_off, len, &rest);
    else if (len <= 256)
        data = gather<4>(s, seg_off, len, &rest);
    else
        data = units(s, seg_off, len, &rest);
    if (rest != 0) return short_chain(m, off, len, state);
    return {data ^ (len <= kGatherMax ? shift_state(state, len) : shift_by(state, len)), true};
}

}  // namespace csum::detail
