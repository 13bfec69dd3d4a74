// vpclmul_avx2 kernel: carry-less folding on ymm registers, with crc32
// instruction streams running alongside on the integer side.
//
// Folding: each 16-byte lane of an accumulator is a piece of message;
// folding it forward by d bytes multiplies its low qword by x^(8d+31) and its
// high qword by x^(8d-33) (see crc32c_consts.h) and xors the result onto the
// data d bytes further on. Four ymm accumulators hide the vpclmulqdq latency.
//
// Mixing: vpclmulqdq (vector pipes) and crc32 (integer pipes) do not compete,
// so the mixed loop walks strides of [3 crc32 lanes of 8S bytes][128 bytes
// folded]. The lanes' CRCs a, b, c (each from 0) enter the message as an
// xor onto the first 8 bytes after the lanes, which the fold then carries:
// c is the state there, and clmul(a, x^(8(2L+8)-33)) ^ clmul(b, x^(8(L+8)-33))
// is an 8-byte piece whose CRC is a and b shifted to that point.
//
// At the end the accumulators fold into one xmm, which two crc32
// instructions reduce to a 32-bit state.
#include "crc32c/crc32c_kernels.h"
#include "crc32c/crc32c_x86.h"

namespace csum::detail {
namespace {

constexpr size_t kBlock = 128;  // 4 accumulators x 32 bytes

// Evaluated at compile time: xpow() at run time would cost thousands of cycles.
template <size_t D>
__m256i fold_const() {
    constexpr auto lo = static_cast<int64_t>(fold_lo(D)), hi = static_cast<int64_t>(fold_hi(D));
    return _mm256_set_epi64x(hi, lo, hi, lo);
}

inline __m256i fold(__m256i x, __m256i k) {
    return _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00),
                            _mm256_clmulepi64_epi128(x, k, 0x11));
}

inline __m256i load(const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// S = qwords per crc32 lane per stride; 0 folds only.
template <size_t S>
uint32_t fold_kernel(uint32_t state, const uint8_t* p, size_t len) {
    // The state enters as an xor onto the first four message bytes: shifting
    // it in at the end, as the short paths do, was slower here
    // (docs/benchmarks.md, "Figures behind choices in the code").
    __m256i x0 =
        _mm256_xor_si256(load(p), _mm256_setr_epi32(static_cast<int>(state), 0, 0, 0, 0, 0, 0, 0));
    __m256i x1 = load(p + 32), x2 = load(p + 64), x3 = load(p + 96);
    p += kBlock;
    len -= kBlock;

    if constexpr (S > 0) {
        constexpr size_t L = 8 * S, kStride = 3 * L + kBlock;
        const __m256i ks = fold_const<kStride>();
        const __m128i kab = _mm_set_epi64x(static_cast<int64_t>(shift_const(L + 8)),
                                           static_cast<int64_t>(shift_const(2 * L + 8)));
        for (; len >= kStride; p += kStride, len -= kStride) {
            uint64_t a = 0, b = 0, c = 0;
            for (size_t i = 0; i < L; i += 8) {
                a = _mm_crc32_u64(a, x86::load64(p + i));
                b = _mm_crc32_u64(b, x86::load64(p + L + i));
                c = _mm_crc32_u64(c, x86::load64(p + 2 * L + i));
            }
            const __m128i ab = _mm_set_epi64x(static_cast<int64_t>(b), static_cast<int64_t>(a));
            const __m128i t = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(ab, kab, 0x00),
                                                          _mm_clmulepi64_si128(ab, kab, 0x11)),
                                            _mm_cvtsi64_si128(static_cast<int64_t>(c)));
            const uint8_t* q = p + 3 * L;
            x0 = _mm256_xor_si256(_mm256_xor_si256(fold(x0, ks), load(q)),
                                  _mm256_zextsi128_si256(t));
            x1 = _mm256_xor_si256(fold(x1, ks), load(q + 32));
            x2 = _mm256_xor_si256(fold(x2, ks), load(q + 64));
            x3 = _mm256_xor_si256(fold(x3, ks), load(q + 96));
        }
    }

    const __m256i k128 = fold_const<128>();
    for (; len >= kBlock; p += kBlock, len -= kBlock) {
        x0 = _mm256_xor_si256(fold(x0, k128), load(p));
        x1 = _mm256_xor_si256(fold(x1, k128), load(p + 32));
        x2 = _mm256_xor_si256(fold(x2, k128), load(p + 64));
        x3 = _mm256_xor_si256(fold(x3, k128), load(p + 96));
    }

    const __m256i k32 = fold_const<32>();
    __m256i x =
        _mm256_xor_si256(_mm256_xor_si256(fold(x0, fold_const<96>()), fold(x1, fold_const<64>())),
                         _mm256_xor_si256(fold(x2, k32), x3));
    for (; len >= 32; p += 32, len -= 32) x = _mm256_xor_si256(fold(x, k32), load(p));

    const __m128i k16 = _mm256_castsi256_si128(fold_const<16>());
    __m128i lo = _mm256_castsi256_si128(x);
    __m128i y = _mm_xor_si128(
        _mm_xor_si128(_mm_clmulepi64_si128(lo, k16, 0x00), _mm_clmulepi64_si128(lo, k16, 0x11)),
        _mm256_extracti128_si256(x, 1));
    if (len >= 16) {
        y = _mm_xor_si128(
            _mm_xor_si128(_mm_clmulepi64_si128(y, k16, 0x00), _mm_clmulepi64_si128(y, k16, 0x11)),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
        p += 16;
        len -= 16;
    }
    uint64_t c = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(y)));
    c = _mm_crc32_u64(c, static_cast<uint64_t>(_mm_extract_epi64(y, 1)));
    return x86::crc_serial(static_cast<uint32_t>(c), p, len);
}

}  // namespace

uint32_t crc32c_vpclmul_avx2(uint32_t state, const uint8_t* p, size_t len) noexcept {
    if (len < kAvx2FoldMin) return x86::crc_3way(state, p, len);
    return fold_kernel<kAvx2MixQwords>(state, p, len);
}

uint32_t crc32c_vpclmul_avx2_fold(uint32_t state, const uint8_t* p, size_t len) noexcept {
    return fold_kernel<0>(state, p, len);
}

uint32_t crc32c_vpclmul_avx2_mix(size_t s, uint32_t state, const uint8_t* p, size_t len) noexcept {
    switch (s) {
        case 2:
            return fold_kernel<2>(state, p, len);
        case 4:
            return fold_kernel<4>(state, p, len);
        case 5:
            return fold_kernel<5>(state, p, len);
        case 6:
            return fold_kernel<6>(state, p, len);
        case 8:
            return fold_kernel<8>(state, p, len);
        case 12:
            return fold_kernel<12>(state, p, len);
    }
    return fold_kernel<0>(state, p, len);
}

}  // namespace csum::detail
