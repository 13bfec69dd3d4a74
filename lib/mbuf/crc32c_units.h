// The 64-byte unit walk shared by crc32c_mbuf's chains (crc32c_mbuf_gather.cpp)
// and the carried CRC (crc32c_mbuf_avx512.cpp): one implementation.
//
// A range of known length is laid out so that it ends on a 64-byte unit
// boundary (leading zeros do not change a CRC that starts from 0). A piece of
// n bytes at its place in the stream is masked into the partial unit `cur`
// (o bytes filled); each completed unit folds into four accumulators 256
// bytes apart. x0 always takes the next unit and the four rotate by renaming,
// so x0..x3 are oldest first whatever the split: no phase, no per-unit
// switch. A piece that ends inside a unit leaves it in `cur` for the next.
// Include only from files built with CSUM_ISA_AVX512_FLAGS.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstdint>

#include "crc32c/crc32c_consts.h"
#include "mbuf/crc32c_walk.h"
#include "simd/masked_load.h"

namespace csum::detail::units512 {

constexpr uint64_t low_bits(int n) {
    return n <= 0 ? 0 : n >= 64 ? ~0ull : (1ull << n) - 1;
}

// kWindow[kWinBias + x]: the low x bits set (none below 0, all 64 above 63),
// for every x a unit can see: pos - 64k and pos + n - 64k, k < 4. The mask of
// [a, b) in a unit is then two loads and a xor (no BMI2, no shift by cl).
inline constexpr int kWinBias = 192;
alignas(64) inline constexpr auto kWindow = [] {
    std::array<uint64_t, kWinBias + kGatherMax + 1> t{};
    for (int x = -kWinBias; x <= static_cast<int>(kGatherMax); ++x) t[x + kWinBias] = low_bits(x);
    return t;
}();

// x^e mod P for any integer e: x has order 2^31 - 1 modulo the Castagnoli
// polynomial, so the negative exponents wrap.
inline constexpr uint64_t kOrderOfX = (1ull << 31) - 1;
static_assert(xpow(kOrderOfX) == 0x80000000u, "x^(2^31-1) == 1 mod P");

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
alignas(64) inline constexpr auto kShiftBy = [] {
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
inline __m512i fold_const() {
    constexpr auto lo = static_cast<int64_t>(fold_lo(D)), hi = static_cast<int64_t>(fold_hi(D));
    return _mm512_broadcast_i32x4(_mm_set_epi64x(hi, lo));
}

inline __m512i fold_xor(__m512i x, __m512i k, __m512i data) {
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), data, 0x96);
}

alignas(64) inline constexpr std::array<uint64_t, 8> kLaneFold = {
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

// Pieces from this length on take crc32 lanes (UnitFold::body): a 1420-B
// range in 2 pieces measured faster without. The carry (NVMe/TCP) takes none:
// the lane's serial crc32s sit right before its reduction and were slower
// there. Figures: docs/notebook/issue-14.md (helper crclong).
inline constexpr uint32_t kLaneMin = 768;

// The fold state of one range: what crc32c_mbuf keeps in registers over a
// chain and the carry stores between packets.
struct UnitFold {
    __m512i x0, x1, x2, x3, cur;
    uint32_t o;          // bytes of cur already filled
    bool fresh = false;  // as start() left it: nothing in x0..x3 or cur yet

    // A range of len bytes: padded at the front to end on a unit boundary.
    static UnitFold start(uint32_t len) {
        const __m512i z = _mm512_setzero_si512();
        return {z, z, z, z, z, (0u - len) & 63, true};
    }

    // The next n bytes of the range, at p. Masked-off bytes are never read.
    // kLanes: long pieces take crc32 lanes (body()).
    template <bool kLanes = true>
    __attribute__((always_inline)) void piece(const uint8_t* p, uint32_t n) {
        const uint64_t* w = kWindow.data() + kWinBias;
        const uint8_t* b = p - o;
        const uint32_t e = o + n;  // the piece ends at b + e
        if (e < 64) {
            cur = simd::mask_loadu(cur, w[e] ^ w[o], b);
            o = e;
            return;
        }
        cur = simd::mask_loadu<true>(cur, ~w[o], b);
        const __m512i t = fold_xor(x0, fold_const<256>(), cur);
        x0 = x1, x1 = x2, x2 = x3, x3 = t;
        body<kLanes>(b, 64, e);
    }

    // piece() for the first bytes of a range whose x0..x2 are still zero (x3
    // and cur may hold bytes in front of it): a zero accumulator needs no
    // fold, so the first three units just move in, and a fourth when x3 is
    // zero too (Z == 4, a fresh start()).
    template <int Z, bool kLanes = true>
    __attribute__((always_inline)) void first(const uint8_t* p, uint32_t n) {
        static_assert(Z == 3 || Z == 4);
        const uint64_t* w = kWindow.data() + kWinBias;
        const uint8_t* b = p - o;
        const uint32_t e = o + n;
        if (e < 64 * Z) return piece<kLanes>(p, n);
        const __m512i u0 = simd::mask_loadu<true>(cur, ~w[o], b);
        if constexpr (Z == 4) {
            x0 = u0, x1 = _mm512_loadu_si512(b + 64);
            x2 = _mm512_loadu_si512(b + 128), x3 = _mm512_loadu_si512(b + 192);
        } else {
            x0 = x3, x1 = u0;
            x2 = _mm512_loadu_si512(b + 64), x3 = _mm512_loadu_si512(b + 128);
        }
        body<kLanes>(b, 64 * Z, e);
    }

    // Whole units from b + k up to b + e, then the partial one into cur.
    template <bool kLanes>
    __attribute__((always_inline)) void body(const uint8_t* b, uint32_t k, uint32_t e) {
        const uint64_t* w = kWindow.data() + kWinBias;
        const __m512i k256 = fold_const<256>();
        // A long piece also keeps the crc32 port busy, as the linear kernel
        // does (crc32c_avx512.cpp): strides of [one unit by crc32][four
        // folded], the unit's CRC (from 0) xored onto the next four bytes,
        // the accumulators folded over both. The fold alone is bound by
        // vpclmulqdq's one port.
        if (kLanes && e - k >= kLaneMin) {
            const __m512i k320 = fold_const<320>();
            // Two strides a turn, their lanes interleaved: half the loop's
            // scalar work, which shares ports with crc32 and vpclmulqdq.
            for (; k + 640 <= e; k += 640) {
                const uint8_t* q = b + k;
                uint64_t c = 0, d = 0;
#pragma GCC unroll 8
                for (int i = 0; i < 64; i += 8) {
                    uint64_t u, v;
                    __builtin_memcpy(&u, q + i, 8);
                    __builtin_memcpy(&v, q + 320 + i, 8);
                    c = _mm_crc32_u64(c, u);
                    d = _mm_crc32_u64(d, v);
                }
                const __m512i lc = _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(c)));
                const __m512i ld = _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(d)));
                x0 = fold_xor(x0, k320, _mm512_xor_si512(_mm512_loadu_si512(q + 64), lc));
                x1 = fold_xor(x1, k320, _mm512_loadu_si512(q + 128));
                x2 = fold_xor(x2, k320, _mm512_loadu_si512(q + 192));
                x3 = fold_xor(x3, k320, _mm512_loadu_si512(q + 256));
                x0 = fold_xor(x0, k320, _mm512_xor_si512(_mm512_loadu_si512(q + 384), ld));
                x1 = fold_xor(x1, k320, _mm512_loadu_si512(q + 448));
                x2 = fold_xor(x2, k320, _mm512_loadu_si512(q + 512));
                x3 = fold_xor(x3, k320, _mm512_loadu_si512(q + 576));
            }
            for (; k + 320 <= e; k += 320) {
                const uint8_t* q = b + k;
                uint64_t c = 0;
#pragma GCC unroll 8
                for (int i = 0; i < 64; i += 8) {
                    uint64_t v;
                    __builtin_memcpy(&v, q + i, 8);
                    c = _mm_crc32_u64(c, v);
                }
                const __m512i lane = _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(c)));
                x0 = fold_xor(x0, k320, _mm512_xor_si512(_mm512_loadu_si512(q + 64), lane));
                x1 = fold_xor(x1, k320, _mm512_loadu_si512(q + 128));
                x2 = fold_xor(x2, k320, _mm512_loadu_si512(q + 192));
                x3 = fold_xor(x3, k320, _mm512_loadu_si512(q + 256));
            }
        }
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
        cur = simd::maskz_loadu(w[o], b + k);
    }

    // The CRC (from 0) of the range; meaningful once all of it was fed
    // (then o == 0 and cur is empty).
    uint32_t crc() const {
        const __m512i z = _mm512_setzero_si512();
        return reduce_unit(_mm512_ternarylogic_epi64(fold_xor(x0, fold_const<192>(), x3),
                                                     fold_xor(x1, fold_const<128>(), z),
                                                     fold_xor(x2, fold_const<64>(), z), 0x96));
    }
};

// Segments of a chain from s at seg_off, up to len bytes, into f. Returns the
// bytes the chain lacked.
template <bool kLanes = true>
__attribute__((always_inline)) inline uint32_t fold_chain(UnitFold& f, const rte_mbuf* s,
                                                          uint32_t seg_off, uint32_t len) {
    uint32_t rest = len;
    const bool fresh = f.fresh;  // known where f comes from start()
    f.fresh = false;
    if (fresh) {
        // x0..x3 stay zero until a piece completes the first unit: pieces
        // before it (a 1-byte first segment) only fill cur.
        const uint64_t* w = kWindow.data() + kWinBias;
        for (;;) {
            uint32_t n = s->data_len - seg_off;
            if (n > rest) n = rest;
            const uint8_t* p = rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off);
            rest -= n;
            s = s->next;
            seg_off = 0;
            if (f.o + n >= 64) {
                f.first<4, kLanes>(p, n);
                break;
            }
            f.cur = simd::mask_loadu(f.cur, w[f.o + n] ^ w[f.o], p - f.o);
            f.o += n;
            if (rest == 0 || s == nullptr) return rest;
        }
        if (rest == 0 || s == nullptr) return rest;
    }
    for (;;) {
        uint32_t n = s->data_len - seg_off;
        if (n > rest) n = rest;
        f.piece<kLanes>(rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off), n);
        rest -= n;
        s = s->next;
        if (rest == 0 || s == nullptr) break;
        seg_off = 0;
    }
    return rest;
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

}  // namespace csum::detail::units512
