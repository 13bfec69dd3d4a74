// vpclmul_avx2 kernel: carry-less folding on ymm registers.
//
// Each 16-byte lane of an accumulator is a piece of message; folding it
// forward by d bytes multiplies its low qword by x^(8d+31) and its high
// qword by x^(8d-33) (see crc32c_consts.h) and xors the result onto the data
// d bytes further on. Four ymm accumulators hide the vpclmulqdq latency.
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

}  // namespace

uint32_t crc32c_vpclmul_avx2(uint32_t state, const uint8_t* p, size_t len) noexcept {
    if (len < kAvx2FoldMin) return x86::crc_3way(state, p, len);
    return crc32c_vpclmul_avx2_fold(state, p, len);
}

uint32_t crc32c_vpclmul_avx2_fold(uint32_t state, const uint8_t* p, size_t len) noexcept {
    // The state enters as an xor onto the first four message bytes.
    __m256i x0 =
        _mm256_xor_si256(load(p), _mm256_setr_epi32(static_cast<int>(state), 0, 0, 0, 0, 0, 0, 0));
    __m256i x1 = load(p + 32), x2 = load(p + 64), x3 = load(p + 96);
    p += kBlock;
    len -= kBlock;

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

    const __m128i k16 =
        _mm_set_epi64x(static_cast<int64_t>(fold_hi(16)), static_cast<int64_t>(fold_lo(16)));
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

}  // namespace csum::detail
