// The AVX-512 chain sum, shared by inet_mbuf_avx512.cpp and
// inet_mbuf_avx512_vnni.cpp (each built with its own ISA flags, hence the
// internal linkage). As inet_mbuf_avx2.cpp, on zmm: each piece adds its
// 64-byte vectors to accumulators carried along the chain, its tail as one
// masked load (masked bytes read as zero, an odd last byte as the low byte of
// its word), and a piece at an odd packet position has its bytes swapped
// within words.
#pragma once

#include <immintrin.h>

#include <rte_mbuf.h>

#include "inet/inet_kernels.h"
#include "mbuf/inet_mbuf_chain.h"

namespace csum::detail {
namespace {

// Pieces from this length on go to the calibrated kernel (select.h's class 1).
constexpr uint32_t kOwnKernelFrom = 768;
// Vector bytes between reductions: a lane add is within [-0x10000, 0xFFFE],
// 0x4000 per byte in magnitude; with at most 32768 + 65536 bytes pending
// (a piece is <= 65535, rounded up to 64) the horizontal sum stays in int32.
constexpr uint32_t kReduceAfter = 32768;

// Four named accumulators, not an array: GCC kept an array of them on the stack.
template <bool kVnni, bool kSwap>
[[gnu::always_inline]] inline void piece(__m512i& a0, __m512i& a1, __m512i& a2, __m512i& a3,
                                         const uint8_t* p, uint32_t n, __m512i bias, __m512i ones,
                                         __m512i sh) {
    auto step = [&](__m512i a, __m512i x) {
        if constexpr (kSwap) x = _mm512_shuffle_epi8(x, sh);
        if constexpr (kVnni) {
#ifdef __AVX512VNNI__
            return _mm512_dpwssd_epi32(a, _mm512_xor_si512(x, bias), ones);
#else
            static_assert(!kVnni, "kVnni needs -mavx512vnni");
#endif
        } else {
            return _mm512_add_epi32(a, _mm512_madd_epi16(_mm512_xor_si512(x, bias), ones));
        }
    };
    for (; n >= 256; n -= 256, p += 256) {
        a0 = step(a0, _mm512_loadu_si512(p));
        a1 = step(a1, _mm512_loadu_si512(p + 64));
        a2 = step(a2, _mm512_loadu_si512(p + 128));
        a3 = step(a3, _mm512_loadu_si512(p + 192));
    }
    if (n >= 128) {
        a0 = step(a0, _mm512_loadu_si512(p));
        a1 = step(a1, _mm512_loadu_si512(p + 64));
        p += 128, n -= 128;
    }
    if (n >= 64) a2 = step(a2, _mm512_loadu_si512(p)), p += 64, n -= 64;
    if (n > 0) a3 = step(a3, _mm512_maskz_loadu_epi8((__mmask64{1} << n) - 1, p));
}

template <bool kVnni>
[[gnu::always_inline]] inline bool chain_sum512(const rte_mbuf* s, uint32_t seg_off, uint32_t len,
                                                uint32_t pos, uint64_t* even_io,
                                                uint64_t* odd_io) noexcept {
    const __m512i bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    const __m512i ones = _mm512_set1_epi16(1);
    const __m512i swap = _mm512_set_epi8(
        62, 63, 60, 61, 58, 59, 56, 57, 54, 55, 52, 53, 50, 51, 48, 49, 46, 47, 44, 45, 42, 43, 40,
        41, 38, 39, 36, 37, 34, 35, 32, 33, 30, 31, 28, 29, 26, 27, 24, 25, 22, 23, 20, 21, 18, 19,
        16, 17, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    uint64_t even = *even_io, odd = *odd_io, vec = 0;
    uint32_t pending = 0;
    auto reduce = [&] {
        const __m512i t = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
        // Each lane add lost 2 * 0x8000 of bias: 0x4000 per byte summed.
        const int64_t block = int64_t{_mm512_reduce_add_epi32(t)} + int64_t{0x4000} * pending;
        vec += static_cast<uint64_t>(block);  // 0 <= block < 2^32
        a0 = a1 = a2 = a3 = _mm512_setzero_si512();
        pending = 0;
    };
    while (len > 0) {
        if (s == nullptr) return false;  // chain shorter than pkt_len says
        uint32_t n = s->data_len - seg_off;
        if (n > len) n = len;
        const uint8_t* p = rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off);
        if (n <= kInetShortMax || n >= kOwnKernelFrom) {
            // Short pieces inline (scalar: no vector latency for a
            // reduction), long ones on the calibrated kernel.
            const uint64_t seg = n <= kInetShortMax ? sum_small64(p, n) : inet_sum_active(p, n, 0);
            if (pos & 1)
                odd = add64c(odd, seg);
            else
                even = add64c(even, seg);
        } else {
            const uint32_t counted = (n + 63) & ~63u;  // the bias hit every word loaded
            if (pending + counted > kReduceAfter) reduce();
            pending += counted;
            if (pos & 1)
                piece<kVnni, true>(a0, a1, a2, a3, p, n, bias, ones, swap);
            else
                piece<kVnni, false>(a0, a1, a2, a3, p, n, bias, ones, swap);
        }
        pos += n;
        len -= n;
        seg_off = 0;
        s = s->next;
    }
    if (pending != 0) reduce();
    *even_io = add64c(even, vec);
    *odd_io = odd;
    return true;
}

}  // namespace
}  // namespace csum::detail
