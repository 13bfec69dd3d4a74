// The carried CRC32C and the Internet sum of one piece in one pass
// (AVX-512 + VPCLMULQDQ + AVX512_VNNI): each 64-byte load feeds both the
// unit walk's fold (crc32c_units.h) and a vpdpwssd sum. The reference is
// crc32c_carry_feed_summed_ref (crc32c_carry.cpp).
// Built whole with AVX-512 flags: GCC's false warning off for the file.
#include "simd/target_region.h"
CSUM_AVX512_INTRINSIC_WARNINGS_OFF

#include <immintrin.h>

#include "mbuf/crc32c_carry.h"
#include "mbuf/crc32c_units.h"
#include "simd/masked_load.h"

namespace csum::detail {
namespace {

using namespace units512;

// Each 16-bit word biased to signed, times 1, pairs added into 32-bit lanes:
// every lane add lost 2 * 0x8000, which the caller adds back per vector.
inline __m512i sum_step(__m512i acc, __m512i x) {
    const __m512i bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    return _mm512_dpwssd_epi32(acc, _mm512_xor_si512(x, bias), _mm512_set1_epi16(1));
}

// As lean_path.h's mod_ffff_zero: s is 0 modulo 0xFFFF.
constexpr uint64_t kInvFFFF = [] {
    uint64_t x = 0xFFFF;
    for (int i = 0; i < 5; ++i) x *= 2 - 0xFFFF * x;
    return x;
}();
static_assert(kInvFFFF * 0xFFFF == 1);

[[gnu::always_inline]] inline uint32_t feed_summed(Crc32cCarry& c, const uint8_t* p, uint32_t n,
                                                   uint64_t base, bool* kept) {
    const uint64_t* w = kWindow.data() + kWinBias;
    const __m512i k256 = fold_const<256>();
    __m512i x0 = _mm512_load_si512(c.acc[0]), x1 = _mm512_load_si512(c.acc[1]);
    __m512i x2 = _mm512_load_si512(c.acc[2]), x3 = _mm512_load_si512(c.acc[3]);
    __m512i cur = _mm512_load_si512(c.acc[4]);
    const uint32_t o = c.o;
    const uint8_t* b = p - o;
    const uint32_t e = o + n;  // the piece ends at b + e
    // The sum sees only the piece's bytes (the rest masked to zero), in
    // words paired from b: from p when o is even, shifted by a byte when odd.
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    uint32_t vectors = 1;
    uint32_t o_end;
    if (e < 64) {
        const __m512i x = simd::maskz_loadu(w[e] ^ w[o], b);
        s0 = sum_step(s0, x);
        cur = _mm512_or_si512(cur, x);
        o_end = e;
    } else {
        const __m512i x = simd::maskz_loadu(~w[o], b);
        s0 = sum_step(s0, x);
        const __m512i t = fold_xor(x0, k256, _mm512_or_si512(cur, x));
        x0 = x1, x1 = x2, x2 = x3, x3 = t;
        uint32_t k = 64;
        for (; k + 256 <= e; k += 256) {
            const __m512i d0 = _mm512_loadu_si512(b + k), d1 = _mm512_loadu_si512(b + k + 64);
            const __m512i d2 = _mm512_loadu_si512(b + k + 128),
                          d3 = _mm512_loadu_si512(b + k + 192);
            x0 = fold_xor(x0, k256, d0);
            x1 = fold_xor(x1, k256, d1);
            x2 = fold_xor(x2, k256, d2);
            x3 = fold_xor(x3, k256, d3);
            s0 = sum_step(s0, d0);
            s1 = sum_step(s1, d1);
            s2 = sum_step(s2, d2);
            s3 = sum_step(s3, d3);
            vectors += 4;
        }
        for (; k + 64 <= e; k += 64) {
            const __m512i d = _mm512_loadu_si512(b + k);
            const __m512i u = fold_xor(x0, k256, d);
            x0 = x1, x1 = x2, x2 = x3, x3 = u;
            s1 = sum_step(s1, d);
            ++vectors;
        }
        o_end = e - k;
        cur = simd::maskz_loadu(w[o_end], b + k);
        if (o_end != 0) {
            s2 = sum_step(s2, cur);
            ++vectors;
        }
    }
    // Per lane at most 2 x 0x10000 per vector over <= 1100 vectors of a
    // piece under 64 KiB: the four add within int32; the 16 lanes in 64 bits.
    const __m512i s = _mm512_add_epi32(_mm512_add_epi32(s0, s1), _mm512_add_epi32(s2, s3));
    const __m512i wide = _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(s)),
                                          _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(s, 1)));
    uint64_t t = static_cast<uint64_t>(_mm512_reduce_add_epi64(wide) +
                                       int64_t{0x4000} * 64 * static_cast<int64_t>(vectors));
    if (o & 1) t <<= 8;  // each byte sat at the other parity: x 256 (256^2 = 1 mod 0xFFFF)
    t = (t & 0xFFFFFFFFu) + (t >> 32);
    t = (t & 0xFFFFFFFFu) + (t >> 32);
    const auto sum = static_cast<uint32_t>(t);
    uint64_t all = base + sum;
    all += all < sum;  // end-around carry
    *kept = all * kInvFFFF <= ~uint64_t{0} / 0xFFFF;
    if (*kept) {
        _mm512_store_si512(c.acc[0], x0);
        _mm512_store_si512(c.acc[1], x1);
        _mm512_store_si512(c.acc[2], x2);
        _mm512_store_si512(c.acc[3], x3);
        _mm512_store_si512(c.acc[4], cur);
        c.o = static_cast<uint8_t>(o_end);
        c.left -= n;
    }
    return sum;
}

}  // namespace

uint32_t crc32c_carry_feed_summed_vnni(Crc32cCarry& c, const uint8_t* p, uint32_t n, uint64_t base,
                                       bool* kept) noexcept {
    return feed_summed(c, p, n, base, kept);
}

bool crc32c_carry_feed_kept_vnni(Crc32cCarry& c, const uint8_t* p, uint32_t n,
                                 uint64_t base) noexcept {
    bool kept;
    feed_summed(c, p, n, base, &kept);
    return kept;
}

}  // namespace csum::detail
