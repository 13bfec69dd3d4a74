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

#include "crc32c/crc32c_consts.h"
#include "mbuf/crc32c_walk.h"

namespace csum::detail {
namespace {

constexpr uint64_t low_bits(int n) {
    return n <= 0 ? 0 : n >= 64 ? ~0ull : (1ull << n) - 1;
}

// kWindow[kWinBias + x]: the low x bits set (none below 0, all 64 above 63),
// for every x a unit can see: pos - 64k and pos + n - 64k, k < 4. The mask of
// [a, b) in a unit is then two loads and a xor (no BMI2, no shift by cl).
constexpr int kWinBias = 192;
alignas(64) constexpr auto kWindow = [] {
    std::array<uint64_t, kWinBias + kGatherMax + 1> t{};
    for (int x = -kWinBias; x <= static_cast<int>(kGatherMax); ++x) t[x + kWinBias] = low_bits(x);
    return t;
}();

// x^e mod P for any integer e: x has order 2^31 - 1 modulo the Castagnoli
// polynomial, so the negative exponents of 1..4 bytes wrap.
constexpr uint64_t kOrderOfX = (1ull << 31) - 1;
static_assert(xpow(kOrderOfX) == 0x80000000u, "x^(2^31-1) == 1 mod P");

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

constexpr uint32_t xpow_any(int64_t e) {
    const auto ord = static_cast<int64_t>(kOrderOfX);
    return xpow(static_cast<uint64_t>((e % ord + ord) % ord));
}

// mul33(a, b) = a * b * x^33 mod P: one clmul and one crc32.
inline uint32_t mul33(uint32_t a, uint32_t b) {
    const __m128i t = _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(a)),
                                           _mm_cvtsi32_si128(static_cast<int>(b)), 0x00);
    return static_cast<uint32_t>(_mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(t))));
}

// With K = mul33(t0[len & 255], t1[len >> 8]), K = x^(8 len - 33) for
// len < 2^16; t2 and t3 add len's third byte.
constexpr auto kShiftBy = [] {
    std::array<std::array<uint32_t, 256>, 4> t{};
    for (int64_t b = 0; b < 256; ++b) {
        t[0][b] = xpow_any(8 * b - 33 - 33);
        t[1][b] = xpow_any(8 * 256 * b);
        t[2][b] = xpow_any(8 * b - 33 - 66);
        t[3][b] = xpow_any(8 * 65536 * b);
    }
    return t;
}();

// s * x^(8 len) mod P, any len.
inline uint32_t shift_by(uint32_t s, uint32_t len) {
    uint32_t k;
    if (len < (1u << 16)) {
        k = mul33(kShiftBy[0][len & 255], kShiftBy[1][len >> 8]);
    } else if (len < (1u << 24)) {
        k = mul33(mul33(kShiftBy[2][len & 255], kShiftBy[1][(len >> 8) & 255]),
                  kShiftBy[3][len >> 16]);
    } else {
        k = xpow(8 * static_cast<uint64_t>(len) - 33);  // over 16 MiB of data
    }
    return mul33(s, k);
}

template <size_t D>
__m512i fold_const() {
    constexpr auto lo = static_cast<int64_t>(fold_lo(D)), hi = static_cast<int64_t>(fold_hi(D));
    return _mm512_broadcast_i32x4(_mm_set_epi64x(hi, lo));
}

inline __m512i fold_xor(__m512i x, __m512i k, __m512i data) {
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), data, 0x96);
}

alignas(64) constexpr std::array<uint64_t, 8> kLaneFold = {
    fold_lo(48), fold_hi(48), fold_lo(32), fold_hi(32), fold_lo(16), fold_hi(16), 0, 0};

// The CRC (from 0) of the 64 bytes in x: lanes 0..2 fold onto lane 3.
inline uint32_t reduce_unit(__m512i x) {
    const __m512i t = fold_xor(x, _mm512_load_si512(kLaneFold.data()), _mm512_setzero_si512());
    __m128i y =
        _mm_ternarylogic_epi64(_mm512_extracti32x4_epi32(t, 0), _mm512_extracti32x4_epi32(t, 1),
                               _mm512_extracti32x4_epi32(t, 2), 0x96);
    y = _mm_xor_si128(y, _mm512_extracti32x4_epi32(x, 3));
    uint64_t r = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(y)));
    r = _mm_crc32_u64(r, static_cast<uint64_t>(_mm_extract_epi64(y, 1)));
    return static_cast<uint32_t>(r);
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

// Longer chains: the same masked loads at stream positions, 64-byte units
// folded into four accumulators 256 bytes apart. x0 always takes the next
// unit and the four rotate by renaming, so x0..x3 are oldest first at the
// end whatever the split: no phase to track, no per-unit switch. A piece
// that ends inside a unit leaves it in `cur` for the next piece to complete.
// The stream is padded at the front to end on a unit boundary.
inline uint32_t units(const rte_mbuf* s, uint32_t seg_off, uint32_t len, uint32_t* rest_out) {
    const uint64_t* w = kWindow.data() + kWinBias;
    const __m512i z = _mm512_setzero_si512();
    const __m512i k256 = fold_const<256>();
    __m512i x0 = z, x1 = z, x2 = z, x3 = z, cur = z;
    uint32_t o = (0u - len) & 63;  // bytes of cur already filled
    uint32_t rest = len;
    for (;;) {
        uint32_t n = s->data_len - seg_off;
        if (n > rest) n = rest;
        const uint8_t* b = rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off) - o;
        const uint32_t e = o + n;  // the piece ends at b + e
        if (e < 64) {
            cur = _mm512_mask_loadu_epi8(cur, w[e] ^ w[o], b);
            o = e;
        } else {
            cur = _mm512_mask_loadu_epi8(cur, ~w[o], b);
            const __m512i t = fold_xor(x0, k256, cur);
            x0 = x1, x1 = x2, x2 = x3, x3 = t;
            uint32_t k = 64;
            for (; k + 256 <= e; k += 256) {
                x0 = fold_xor(x0, k256, _mm512_loadu_si512(b + k));
                x1 = fold_xor(x1, k256, _mm512_loadu_si512(b + k + 64));
                x2 = fold_xor(x2, k256, _mm512_loadu_si512(b + k + 128));
                x3 = fold_xor(x3, k256, _mm512_loadu_si512(b + k + 192));
            }
            for (; k + 64 <= e; k += 64) {
                const __m512i u = fold_xor(x0, k256, _mm512_loadu_si512(b + k));
                x0 = x1, x1 = x2, x2 = x3, x3 = u;
            }
            o = e - k;
            cur = _mm512_maskz_loadu_epi8(w[o], b + k);
        }
        rest -= n;
        s = s->next;
        if (rest == 0 || s == nullptr) break;
        seg_off = 0;
    }
    *rest_out = rest;
    return reduce_unit(_mm512_ternarylogic_epi64(fold_xor(x0, fold_const<192>(), x3),
                                                 fold_xor(x1, fold_const<128>(), z),
                                                 fold_xor(x2, fold_const<64>(), z), 0x96));
}

// A chain shorter than pkt_len says: the per-segment walk reports it.
__attribute__((noinline, cold)) CrcWalk short_chain(const rte_mbuf* m, uint32_t off, uint32_t len,
                                                    uint32_t state) {
    return walk_segments(crc32c_plan(), m, off, len, state);
}

// The segment holding off (empty segments stepped over); nullptr if none.
inline const rte_mbuf* seek(const rte_mbuf* s, uint32_t* seg_off) {
    while (*seg_off >= s->data_len) {
        *seg_off -= s->data_len;
        s = s->next;
        if (s == nullptr) break;
    }
    return s;
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
