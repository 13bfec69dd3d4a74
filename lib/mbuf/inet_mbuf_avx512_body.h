// The AVX-512 chain sum, shared by inet_mbuf_avx512.cpp and
// inet_mbuf_avx512_vnni.cpp (each built with its own ISA flags, hence the
// internal linkage). Every piece, short or long, adds its 64-byte vectors to
// eight accumulators carried along the whole chain, reduced once at its end:
// no kernel call, set-up or reduction per segment, and the same eight
// dependency chains as the linear kernel (inet/inet_avx512_body.h). A piece's
// tail is one masked load (masked bytes are neither read nor summed; an odd
// last byte is the low byte of its word). A piece at an odd packet position
// has its bytes swapped within words as loaded (a swap is multiplication by
// 256 mod 0xFFFF, so it distributes over the sum).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include <rte_mbuf.h>

#include "inet/inet_kernels.h"
#include "mbuf/inet_mbuf_chain.h"
#include "mbuf/segment_read.h"
#include "simd/masked_load.h"

namespace csum::detail {
namespace {

template <bool kVnni>
[[gnu::always_inline]] inline __m512i step512(__m512i a, __m512i x, __m512i bias, __m512i ones) {
    if constexpr (kVnni) {
#ifdef __AVX512VNNI__
        return _mm512_dpwssd_epi32(a, _mm512_xor_si512(x, bias), ones);
#else
        static_assert(!kVnni, "kVnni needs -mavx512vnni");
#endif
    } else {
        return _mm512_add_epi32(a, _mm512_madd_epi16(_mm512_xor_si512(x, bias), ones));
    }
}

// Vectors between reductions: each lane add is within [-0x10000, 0xFFFE],
// so a vector moves the 128 lanes' total by less than 2^20; below 2048
// vectors it and every partial sum of the horizontal add stay within int32.
// A piece is at most 65535 bytes (1024 vectors).
constexpr uint32_t kReduceAfterVectors = 2047 - 1024;

// The sum of the pieces walk(add) hands to add(q, n), in order, the first at
// packet position pos, added to *acc; false if walk returns false (the
// chain ended early).
template <bool kVnni, class Walk>
[[gnu::always_inline]] inline bool sum512(Walk&& walk, uint32_t pos, uint64_t* acc) noexcept {
    const __m512i bias = _mm512_set1_epi16(static_cast<int16_t>(0x8000));
    const __m512i ones = _mm512_set1_epi16(1);
    // Eight named accumulators, not an array: GCC kept an array on the stack.
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
            a7 = a0;
    uint64_t vec = 0;
    uint32_t pending = 0;  // vectors loaded since the last reduction
    auto reduce = [&] {
        const __m512i t =
            _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3)),
                             _mm512_add_epi32(_mm512_add_epi32(a4, a5), _mm512_add_epi32(a6, a7)));
        // Each lane add lost 2 * 0x8000 of bias: 0x4000 per byte, 64 bytes a vector.
        const int64_t block =
            int64_t{_mm512_reduce_add_epi32(t)} + int64_t{0x100000} * int64_t{pending};
        vec += static_cast<uint64_t>(block);  // 0 <= block < 2^32
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = _mm512_setzero_si512();
        pending = 0;
    };
    const __m512i sh = _mm512_set_epi8(
        62, 63, 60, 61, 58, 59, 56, 57, 54, 55, 52, 53, 50, 51, 48, 49, 46, 47, 44, 45, 42, 43, 40,
        41, 38, 39, 36, 37, 34, 35, 32, 33, 30, 31, 28, 29, 26, 27, 24, 25, 22, 23, 20, 21, 18, 19,
        16, 17, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
    // n > 0 bytes at q: whole vectors, then the tail as one masked load.
    auto piece = [&]<bool kSwap>(const uint8_t* q, uint32_t n) {
        auto step = [&](__m512i a, __m512i x) {
            if constexpr (kSwap) x = _mm512_shuffle_epi8(x, sh);
            return step512<kVnni>(a, x, bias, ones);
        };
        for (; n >= 512; n -= 512, q += 512) {
            a0 = step(a0, _mm512_loadu_si512(q));
            a1 = step(a1, _mm512_loadu_si512(q + 64));
            a2 = step(a2, _mm512_loadu_si512(q + 128));
            a3 = step(a3, _mm512_loadu_si512(q + 192));
            a4 = step(a4, _mm512_loadu_si512(q + 256));
            a5 = step(a5, _mm512_loadu_si512(q + 320));
            a6 = step(a6, _mm512_loadu_si512(q + 384));
            a7 = step(a7, _mm512_loadu_si512(q + 448));
        }
        if (n >= 256) {
            a0 = step(a0, _mm512_loadu_si512(q));
            a1 = step(a1, _mm512_loadu_si512(q + 64));
            a2 = step(a2, _mm512_loadu_si512(q + 128));
            a3 = step(a3, _mm512_loadu_si512(q + 192));
            q += 256, n -= 256;
        }
        if (n >= 128) {
            a4 = step(a4, _mm512_loadu_si512(q));
            a5 = step(a5, _mm512_loadu_si512(q + 64));
            q += 128, n -= 128;
        }
        if (n >= 64) a6 = step(a6, _mm512_loadu_si512(q)), q += 64, n -= 64;
        if (n > 0) a7 = step(a7, simd::maskz_loadu((__mmask64{1} << n) - 1, q));
    };
    auto add = [&](const uint8_t* q, uint32_t n) {
        if (n == 0) return;
        const uint32_t vectors = (n + 63) / 64;
        if (pending + vectors > kReduceAfterVectors) reduce();
        pending += vectors;
        if (pos & 1)
            piece.template operator()<true>(q, n);
        else
            piece.template operator()<false>(q, n);
        pos += n;
    };
    if (!walk(add)) return false;
    if (pending != 0) reduce();
    *acc = add64c(*acc, vec);
    return true;
}

// len bytes of the chain from segment s at seg_off (< its data_len, or 0),
// which start at packet position pos.
template <bool kVnni>
[[gnu::always_inline]] inline bool chain_sum512(const rte_mbuf* s, uint32_t seg_off, uint32_t len,
                                                uint32_t pos, uint64_t* acc) noexcept {
    return sum512<kVnni>(
        [&](auto& add) {
            while (len > 0) {
                // A chain shorter than pkt_len says, or a segment claiming
                // data past its buffer.
                if (s == nullptr || !segment_in_buffer(s)) return false;
                uint32_t n = s->data_len - seg_off;
                if (n > len) n = len;
                add(rte_pktmbuf_mtod_offset(s, const uint8_t*, seg_off), n);
                len -= n;
                seg_off = 0;
                s = s->next;
            }
            return true;
        },
        pos, acc);
}

// [skip, skip + len) of the pieces' bytes taken in order.
template <bool kVnni>
[[gnu::always_inline]] inline bool pieces_sum512(const InetPieces& pc, uint32_t skip, uint32_t len,
                                                 uint64_t* acc) noexcept {
    return sum512<kVnni>(
        [&](auto& add) {
            uint32_t i = 0;
            for (; i < pc.count && skip >= pc.n[i]; ++i) skip -= pc.n[i];
            for (; len > 0; ++i) {
                if (i >= pc.count) return false;
                uint32_t n = pc.n[i] - skip;
                if (n > len) n = len;
                add(pc.p[i] + skip, n);
                len -= n;
                skip = 0;
            }
            return true;
        },
        0, acc);
}

}  // namespace
}  // namespace csum::detail
