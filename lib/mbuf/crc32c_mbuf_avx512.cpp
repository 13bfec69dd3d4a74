// CRC32C over a chain with the folding state carried across segments and
// reduced once per chain (issue 14): four zmm accumulators (256 B in
// flight, as crc32c_avx512.cpp) plus a partial 64-byte unit held in a
// register, filled by masked loads, so a segment boundary costs no copy and
// no reduction, whatever the split (1-byte segments, odd offsets).
//
// The range length is known up front, so the stream is padded at the FRONT
// with zeros to end on a 64-byte unit boundary: no tail to fold. Leading
// zeros do not change a CRC that starts from state 0, and the data's CRC is
// taken from 0: the incoming state joins at the end, shifted over len bytes
// (s * x^(8 len), one clmul + crc32 with a constant from three small tables),
// so a chained call waits ~10 cycles on the state, not on the whole chain.
// Built with CSUM_ISA_AVX512_FLAGS; used only under a plan whose mid class
// chose the avx512 kernel.
// GCC 12's AVX-512 intrinsics trip a false -Wmaybe-uninitialized (PR105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>

#include "crc32c/crc32c_consts.h"
#include "mbuf/crc32c_carry.h"
#include "mbuf/crc32c_walk.h"

namespace csum::detail {
namespace {

constexpr uint64_t kOrderOfX = (1ull << 31) - 1;
static_assert(xpow(kOrderOfX) == 0x80000000u, "x^(2^31-1) == 1 mod P");

template <size_t D>
__m128i lane_const() {
    constexpr auto lo = static_cast<int64_t>(fold_lo(D)), hi = static_cast<int64_t>(fold_hi(D));
    return _mm_set_epi64x(hi, lo);
}

template <size_t D>
__m512i fold_const() {
    return _mm512_broadcast_i32x4(lane_const<D>());
}

inline __m512i fold_xor(__m512i x, __m512i k, __m512i data) {
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), data, 0x96);
}

inline __m512i load(const uint8_t* p) {
    return _mm512_loadu_si512(p);
}

inline uint64_t low_bits(unsigned n) {
    return n >= 64 ? ~0ull : (1ull << n) - 1;
}

alignas(64) constexpr std::array<uint64_t, 8> kLaneFold = {
    fold_lo(48), fold_hi(48), fold_lo(32), fold_hi(32), fold_lo(16), fold_hi(16), 0, 0};

// x^e mod P for any integer e: x has order 2^31 - 1 modulo the Castagnoli
// polynomial (checked above), so negative exponents wrap.
constexpr uint32_t xpow_any(int64_t e) {
    const auto ord = static_cast<int64_t>(kOrderOfX);
    return xpow(static_cast<uint64_t>(((e % ord) + ord) % ord));
}

// mul33(a, b) = a * b * x^33 mod P: one clmul and one crc32.
inline uint32_t mul33(uint32_t a, uint32_t b) {
    const __m128i t = _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(a)),
                                           _mm_cvtsi32_si128(static_cast<int>(b)), 0x00);
    return static_cast<uint32_t>(_mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(t))));
}

// With K = mul33(t0[len & 255], t1[len >> 8]), K = x^(8 len - 33) and
// mul33(s, K) = s * x^(8 len), for len < 2^16; t2 adds len's third byte.
constexpr auto kShiftBy = [] {
    std::array<std::array<uint32_t, 256>, 4> t{};
    for (int64_t b = 0; b < 256; ++b) {
        t[0][b] = xpow_any(8 * b - 33 - 33);
        t[1][b] = xpow_any(8 * 256 * b);
        t[2][b] = xpow_any(8 * b - 33 - 66);  // t0 for three factors
        t[3][b] = xpow_any(8 * 65536 * b);
    }
    return t;
}();

// s * x^(8 len) mod P.
inline uint32_t shift_by(uint32_t s, uint32_t len) {
    uint32_t k;
    if (len < (1u << 16)) {
        k = mul33(kShiftBy[0][len & 255], kShiftBy[1][len >> 8]);
    } else if (len < (1u << 24)) {
        k = mul33(mul33(kShiftBy[2][len & 255], kShiftBy[1][(len >> 8) & 255]),
                  kShiftBy[3][len >> 16]);
    } else {
        k = xpow(8 * static_cast<uint64_t>(len) - 33);  // rare: over 16 MiB of data
    }
    return mul33(s, k);
}

// The carried state: four accumulators (unit i of the stream goes to
// x[i & 3]), a partial unit of np bytes, and the accumulator for the next
// unit. Kept in registers within a call; stored in a Crc32cCarry between.
struct Fold512 {
    __m512i x0, x1, x2, x3, part;
    unsigned np, phase;

    void push(__m512i u, __m512i k256) {
        switch (phase) {
            case 0:
                x0 = fold_xor(x0, k256, u);
                break;
            case 1:
                x1 = fold_xor(x1, k256, u);
                break;
            case 2:
                x2 = fold_xor(x2, k256, u);
                break;
            default:
                x3 = fold_xor(x3, k256, u);
                break;
        }
        phase = (phase + 1) & 3;
    }

    // One contiguous piece of the stream.
    inline void piece(const uint8_t* p, uint32_t n) {
        const __m512i k256 = fold_const<256>();
        if (np != 0) {  // complete the partial unit; masked bytes are never read
            const unsigned take = n < 64 - np ? n : 64 - np;
            const __mmask64 mk = low_bits(np + take) & ~low_bits(np);
            part = _mm512_mask_loadu_epi8(part, mk, p - np);
            np += take;
            p += take;
            n -= take;
            if (np < 64) return;
            push(part, k256);
            np = 0;
        }
        // Up to the next 256-byte boundary of the stream: one branch, no loop.
        if (phase != 0 && n >= 64) {
            const unsigned k = std::min<unsigned>(4 - phase, n / 64);
            if (phase == 1) {
                x1 = fold_xor(x1, k256, load(p));
                if (k > 1) x2 = fold_xor(x2, k256, load(p + 64));
                if (k > 2) x3 = fold_xor(x3, k256, load(p + 128));
            } else if (phase == 2) {
                x2 = fold_xor(x2, k256, load(p));
                if (k > 1) x3 = fold_xor(x3, k256, load(p + 64));
            } else {
                x3 = fold_xor(x3, k256, load(p));
            }
            phase = (phase + k) & 3;
            p += 64 * k;
            n -= 64 * k;
        }
        if (phase == 0) {
            for (; n >= 256; p += 256, n -= 256) {
                x0 = fold_xor(x0, k256, load(p));
                x1 = fold_xor(x1, k256, load(p + 64));
                x2 = fold_xor(x2, k256, load(p + 128));
                x3 = fold_xor(x3, k256, load(p + 192));
            }
            if (n >= 64) {  // the rest of the piece: up to three units
                x0 = fold_xor(x0, k256, load(p));
                if (n >= 128) x1 = fold_xor(x1, k256, load(p + 64));
                if (n >= 192) x2 = fold_xor(x2, k256, load(p + 128));
                const unsigned k = n / 64;
                phase = k;
                p += 64 * k;
                n -= 64 * k;
            }
        }
        if (n != 0) {
            part = _mm512_maskz_loadu_epi8(low_bits(n), p);
            np = n;
        }
    }

    // Pieces [off, off+len) of a chain; returns the bytes that were not there.
    inline uint32_t chain(const rte_mbuf* m, uint32_t off, uint32_t len) {
        uint32_t seg_off = off;
        const rte_mbuf* s = off < m->data_len ? m : seek_segment(m, off, &seg_off);
        while (len > 0 && s != nullptr) {
            uint32_t n = s->data_len - seg_off;
            if (n > len) n = len;
            const uint8_t* p = rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off);
            len -= n;
            seg_off = 0;
            s = s->next;
            piece(p, n);
        }
        return len;
    }

    // The CRC (raw, from state 0) of a stream that ended on a unit boundary.
    inline uint32_t reduce(bool one_unit) const {
        __m512i x;
        if (one_unit) {
            x = x0;  // nothing to fold
        } else {
            // Oldest accumulator first: x[phase], ..., x[phase + 3].
            __m512i a = x0, b = x1, c = x2, d = x3;
            switch (phase) {
                case 1:
                    a = x1, b = x2, c = x3, d = x0;
                    break;
                case 2:
                    a = x2, b = x3, c = x0, d = x1;
                    break;
                case 3:
                    a = x3, b = x0, c = x1, d = x2;
                    break;
                default:
                    break;
            }
            x = _mm512_ternarylogic_epi64(fold_xor(a, fold_const<192>(), d),
                                          fold_xor(b, fold_const<128>(), _mm512_setzero_si512()),
                                          fold_xor(c, fold_const<64>(), _mm512_setzero_si512()),
                                          0x96);
        }
        // Lanes 0..2 fold forward by 48, 32 and 16 bytes onto lane 3.
        const __m512i kl = _mm512_load_si512(kLaneFold.data());
        const __m512i t = fold_xor(x, kl, _mm512_setzero_si512());
        __m128i y =
            _mm_ternarylogic_epi64(_mm512_extracti32x4_epi32(t, 0), _mm512_extracti32x4_epi32(t, 1),
                                   _mm512_extracti32x4_epi32(t, 2), 0x96);
        y = _mm_xor_si128(y, _mm512_extracti32x4_epi32(x, 3));
        uint64_t r = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(y)));
        r = _mm_crc32_u64(r, static_cast<uint64_t>(_mm_extract_epi64(y, 1)));
        return static_cast<uint32_t>(r);
    }

    void load_from(const Crc32cCarry& c) {
        x0 = _mm512_load_si512(c.acc[0]);
        x1 = _mm512_load_si512(c.acc[1]);
        x2 = _mm512_load_si512(c.acc[2]);
        x3 = _mm512_load_si512(c.acc[3]);
        part = _mm512_load_si512(c.acc[4]);
        np = c.np;
        phase = c.phase;
    }
    void store_to(Crc32cCarry& c) const {
        _mm512_store_si512(c.acc[0], x0);
        _mm512_store_si512(c.acc[1], x1);
        _mm512_store_si512(c.acc[2], x2);
        _mm512_store_si512(c.acc[3], x3);
        _mm512_store_si512(c.acc[4], part);
        c.np = static_cast<uint8_t>(np);
        c.phase = static_cast<uint8_t>(phase);
    }
};

// Front padding: the stream of `total` bytes ends on a unit boundary.
inline unsigned front_pad(uint32_t total) {
    return (0u - total) & 63;
}

}  // namespace

CrcWalk crc32c_walk_stream(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept {
    if (len == 0) return {state, true};
    // The data's CRC from 0; the state joins at the end.
    const uint32_t joined = shift_by(state, len);
    const __m512i z = _mm512_setzero_si512();
    Fold512 f{z, z, z, z, z, front_pad(len), 0};
    // A chain shorter than pkt_len says: the per-segment walk reports it.
    if (f.chain(m, off, len) != 0) return walk_segments(crc32c_plan(), m, off, len, state);
    return {f.reduce(front_pad(len) + len <= 64) ^ joined, true};
}

void crc32c_carry_begin_vec(Crc32cCarry& c) noexcept {
    const __m512i z = _mm512_setzero_si512();
    const Fold512 f{z, z, z, z, z, front_pad(c.total), 0};
    f.store_to(c);
}

void crc32c_carry_feed_vec(Crc32cCarry& c, const uint8_t* p, uint32_t n) noexcept {
    Fold512 f;
    f.load_from(c);
    f.piece(p, n);
    f.store_to(c);
}

uint32_t crc32c_carry_feed_vec(Crc32cCarry& c, const rte_mbuf* m, uint32_t off,
                               uint32_t n) noexcept {
    Fold512 f;
    f.load_from(c);
    const uint32_t missing = f.chain(m, off, n);
    f.store_to(c);
    return missing;
}

uint32_t crc32c_carry_end_vec(const Crc32cCarry& c) noexcept {
    Fold512 f;
    f.load_from(c);
    // Raw CRC from state ~0: the data's CRC from 0, plus ~0 shifted over it.
    return f.reduce(front_pad(c.total) + c.total <= 64) ^ shift_by(~0u, c.total);
}

}  // namespace csum::detail
