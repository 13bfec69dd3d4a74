// Short chains (issue 14): a range of up to kGatherMax bytes over any number
// of segments, with no per-segment CRC, no fold state carried and no copy
// through memory (a load spanning two stores stalls on store forwarding).
//
// - Up to 64 bytes (one unit): the stream is laid out to end on byte 63 of
//   one zmm (leading zeros do not change a CRC that starts from 0), every
//   piece masked into it at its stream place, the unit reduced once.
// - 65..256 bytes: each piece is cut from its end into chunks of up to 64
//   bytes, each loaded right-aligned into a zmm (mask = its length) and
//   folded in one step onto the stream's last 16 bytes by constants chosen by
//   its distance to the end (kFoldTo); the folded chunks xor into one zmm,
//   whose four lanes are xored and reduced once. A piece of up to 64 bytes is
//   one chunk whatever its place, so a piece costs the same with any split.
//
// The incoming state joins at the end, shifted over len bytes, so the data's
// CRC never waits on it. A chain shorter than pkt_len says leaves zeros where
// its missing bytes would be; the result is shifted back over them
// (kUnshift), which is the CRC of the bytes that exist.
// Built with CSUM_ISA_AVX512_FLAGS; used only under a plan with kPlanStream.
// Built whole with AVX-512 flags: GCC's false warning off for the file.
#include "simd/target_region.h"
CSUM_AVX512_INTRINSIC_WARNINGS_OFF
#include <immintrin.h>

#include <array>

#include "mbuf/crc32c_units.h"

namespace csum::detail {
namespace {

using namespace units512;

// kShiftN[n] = x^(8n - 33): s * x^(8n) = mul33(s, kShiftN[n]).
constexpr auto kShiftN = [] {
    std::array<uint32_t, kGatherMax + 1> t{};
    for (int64_t n = 0; n <= static_cast<int64_t>(kGatherMax); ++n) t[n] = xpow_any(8 * n - 33);
    return t;
}();

inline uint32_t shift_state(uint32_t s, uint32_t n) {
    return mul33(s, kShiftN[n]);
}

// kUnshift[n] = x^(-8n - 33): the raw CRC of a stream followed by n zero
// bytes, times x^(-8n), is the raw CRC of the stream alone.
constexpr auto kUnshift = [] {
    std::array<uint32_t, kGatherMax + 1> t{};
    for (int64_t n = 0; n <= static_cast<int64_t>(kGatherMax); ++n) t[n] = xpow_any(-8 * n - 33);
    return t;
}();

// kFoldTo[d]: per 128-bit lane j of a 64-byte chunk that ends d bytes before
// the stream's end, the (lo, hi) constants that fold the lane over
// d + 16 (3 - j) bytes onto the stream's last 16 bytes (d = 0, j = 3 is a
// fold by 0: the constants are taken modulo P, so it is still exact).
alignas(64) constexpr auto kFoldTo = [] {
    std::array<std::array<uint64_t, 8>, kGatherMax> t{};
    for (int64_t d = 0; d < static_cast<int64_t>(kGatherMax); ++d)
        for (int64_t j = 0; j < 4; ++j) {
            const int64_t bits = 8 * (d + 16 * (3 - j));
            t[d][2 * j] = xpow_any(bits + 31);
            t[d][2 * j + 1] = xpow_any(bits - 33);
        }
    return t;
}();

// kHigh[h]: the top h bytes of a zmm.
alignas(64) constexpr auto kHigh = [] {
    std::array<uint64_t, 65> t{};
    for (int h = 0; h <= 64; ++h) t[h] = ~low_bits(64 - h);
    return t;
}();

struct Gathered {
    uint32_t data;     // raw CRC from 0 of the range, zeros for missing bytes
    uint32_t missing;  // bytes at the range's end that the chain lacked
};

// The segment holding off, its offset in *so; nullptr if the chain ends first.
inline const rte_mbuf* seek_short(const rte_mbuf* s, uint32_t* so) {
    while (*so >= s->data_len) {
        *so -= s->data_len;
        s = s->next;
        if (s == nullptr) break;
    }
    return s;
}

// 1 <= len <= 64: one unit, every piece masked in at [pos, e).
[[gnu::always_inline]] inline Gathered gather_unit(const rte_mbuf* s, uint32_t so, uint32_t len) {
    const uint64_t* w = kWindow.data() + kWinBias;
    s = seek_short(s, &so);
    if (s == nullptr) return {0, len};
    int64_t pos = 64 - static_cast<int64_t>(len);
    const uint8_t* p = rte_pktmbuf_mtod_offset(s, const uint8_t*, so);
    int64_t e = pos + static_cast<int64_t>(s->data_len - so);
    __m512i acc = _mm512_setzero_si512();
    while (e < 64) {  // every piece but the last
        acc = _mm512_xor_si512(acc, _mm512_maskz_loadu_epi8(w[e] ^ w[pos], p - pos));
        s = s->next;
        if (s == nullptr) return {reduce_unit(acc), static_cast<uint32_t>(64 - e)};
        pos = e;
        p = rte_pktmbuf_mtod(s, const uint8_t*);
        e = pos + s->data_len;
    }
    acc = _mm512_xor_si512(acc, _mm512_maskz_loadu_epi8(~w[pos], p - pos));
    return {reduce_unit(acc), 0};
}

// The n <= 64 bytes before q, ending d bytes before the stream's end.
[[gnu::always_inline]] inline __m512i fold_chunk(__m512i acc, __m512i x, uint64_t d) {
    const __m512i k = _mm512_load_si512(kFoldTo[d].data());
    return _mm512_ternarylogic_epi64(acc, _mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), 0x96);
}

// The raw CRC of the last 16 bytes' worth folded into acc's four lanes.
inline uint32_t reduce_lanes(__m512i a) {
    const __m256i y = _mm256_xor_si256(_mm512_castsi512_si256(a), _mm512_extracti64x4_epi64(a, 1));
    const __m128i x = _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    uint64_t r = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(x)));
    r = _mm_crc32_u64(r, static_cast<uint64_t>(_mm_extract_epi64(x, 1)));
    return static_cast<uint32_t>(r);
}

// 1 <= len <= kGatherMax: every piece in chunks folded straight to the end.
[[gnu::always_inline]] inline Gathered gather_chunks(const rte_mbuf* s, uint32_t so, uint32_t len) {
    s = seek_short(s, &so);
    if (s == nullptr) return {0, len};
    const uint8_t* p = rte_pktmbuf_mtod_offset(s, const uint8_t*, so);
    uint64_t n = s->data_len - so;
    uint64_t rest = len;  // bytes after the current piece's start
    __m512i acc = _mm512_setzero_si512();
    for (;;) {
        if (n > rest) n = rest;
        rest -= n;  // the piece ends rest bytes before the stream's end
        const uint8_t* q = p + n;
        uint64_t d = rest;
        while (__builtin_expect(n > 64, 0)) {  // whole chunks from the piece's end
            acc = fold_chunk(acc, _mm512_loadu_si512(q - 64), d);
            n -= 64, q -= 64, d += 64;
            // Keeps GCC from deriving n, q and d from a trip count after the
            // loop (a dozen instructions per long piece: 2 x 128 B 25 -> 18 ticks).
            __asm__("" : "+r"(n), "+r"(q), "+r"(d));
        }
        acc = fold_chunk(acc, _mm512_maskz_loadu_epi8(kHigh[n], q - 64), d);
        if (rest == 0) break;
        s = s->next;
        if (s == nullptr) break;
        p = rte_pktmbuf_mtod(s, const uint8_t*);
        n = s->data_len;
    }
    return {reduce_lanes(acc), static_cast<uint32_t>(rest)};
}

// A chain that ended early: the CRC of the bytes that exist (see the top).
__attribute__((noinline, cold)) uint32_t unshift(uint32_t raw, uint32_t missing) {
    return mul33(raw, kUnshift[missing]);
}
// The same, final CRC out: a tail call, so the leaves need no stack frame.
__attribute__((noinline, cold)) uint32_t unshift_final(uint32_t raw, uint32_t missing) {
    return ~mul33(raw, kUnshift[missing]);
}

// crc32c_mbuf's contract (final CRC in and out), 1 <= len <= kGatherMax.
// The leaves start on a 64-byte boundary so that their loops do not move with
// the code before them (2 x 128 B measured 0.63x or 0.78x linear by build).
template <bool kUnit>
__attribute__((noinline, aligned(64))) uint32_t mbuf_short(const rte_mbuf* m, uint32_t off,
                                                           uint32_t len, uint32_t crc) {
    const uint32_t joined = shift_state(~crc, len);
    const Gathered g = kUnit ? gather_unit(m, off, len) : gather_chunks(m, off, len);
    if (g.missing != 0) return unshift_final(g.data ^ joined, g.missing);
    return ~(g.data ^ joined);
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

// crc32c_mbuf for len > kGatherMax (len <= pkt_len - off).
__attribute__((noinline, aligned(64))) uint32_t mbuf_long(const rte_mbuf* m, uint32_t off,
                                                          uint32_t len, uint32_t crc) {
    const uint32_t joined = shift_by(~crc, len);
    uint32_t seg_off = off, rest = len;
    const rte_mbuf* s = seek(m, &seg_off);
    const uint32_t data = s != nullptr ? units(s, seg_off, len, &rest) : 0;
    if (rest != 0) return ~short_chain(m, off, len, ~crc).state;
    return ~(data ^ joined);
}

}  // namespace

uint32_t crc32c_mbuf_gather(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t crc) noexcept {
    if (len <= 64) return len == 0 ? crc : mbuf_short<true>(m, off, len, crc);
    if (len <= kGatherMax) return mbuf_short<false>(m, off, len, crc);
    return mbuf_long(m, off, len, crc);
}

CrcWalk crc32c_walk_gather(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept {
    if (len == 0) return {state, true};
    if (len > kGatherMax) {
        uint32_t seg_off = off, rest;
        const rte_mbuf* s = seek(m, &seg_off);
        if (s == nullptr) return short_chain(m, off, len, state);
        const uint32_t data = units(s, seg_off, len, &rest);
        if (rest != 0) return short_chain(m, off, len, state);
        return {data ^ shift_by(state, len), true};
    }
    const Gathered g = len <= 64 ? gather_unit(m, off, len) : gather_chunks(m, off, len);
    const uint32_t raw = g.data ^ shift_state(state, len);
    if (g.missing != 0) return {unshift(raw, g.missing), false};
    return {raw, true};
}

}  // namespace csum::detail
