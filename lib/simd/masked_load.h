// Masked 64-byte loads that stay on the pages of the bytes they keep.
//
// A masked-off byte never faults, but when it lies on a page that is not
// present (never touched, or PROT_NONE) the CPU takes a fault-suppression
// assist: ~330 TSC ticks per load on AMD Zen 5, against ~8 (docs/notebook/
// issue-14.md, "masked loads at a page edge"). Pools of large buffers, external
// buffers and guard pages put such a page right after (or before) a piece.
// A window crosses a page boundary only when it starts in a page's last 63
// bytes; then, if all its kept bytes lie on one side, the load is moved onto
// that page and the lanes rotated back in registers (AVX512BW only). A window
// that keeps nothing reads a constant instead.
// Used where a window can end far into a buffer (long pieces, the tails of
// linear sums). The short-chain gathers (<= 256 B) keep plain masked loads:
// their windows stay within 64 B of a segment's data, whose page is touched,
// and a check per load cost them 10-25% (docs/notebook/issue-14.md).
// Include only from files built with CSUM_ISA_AVX512_FLAGS.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace csum::simd {

// The smallest page: a window that crosses no 4-KiB boundary crosses no page.
inline constexpr uintptr_t kPageBytes = 4096;

// Lane i of the result is lane (i + d) mod 64 of v, 0 < d < 64.
[[gnu::always_inline]] inline __m512i rotate_bytes_down(__m512i v, uint32_t d) {
    const __m512i iota =
        _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13,
                         12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i k31 = _mm512_set1_epi16(31);
    const __m512i w = _mm512_and_si512(
        _mm512_add_epi16(iota, _mm512_set1_epi16(static_cast<int16_t>(d >> 1))), k31);
    const __m512i a = _mm512_permutexvar_epi16(w, v);  // by d & ~1 bytes
    if ((d & 1) == 0) return a;
    const __m512i b = _mm512_permutexvar_epi16(
        _mm512_and_si512(_mm512_add_epi16(w, _mm512_set1_epi16(1)), k31), v);
    return _mm512_or_si512(_mm512_srli_epi16(a, 8), _mm512_slli_epi16(b, 8));
}

// The window at p crosses into the next page at byte c (0 < c < 64).
// Inlined into the unlikely branch: as a call, the callers' leaves would
// realign their stack to save zmm state around it.
[[gnu::always_inline]] inline __m512i maskz_loadu_at_edge(uint64_t keep, const uint8_t* p,
                                                          uint32_t c) {
    const uint64_t low = (uint64_t{1} << c) - 1;
    if ((keep & low) != 0 && (keep & ~low) != 0) return _mm512_maskz_loadu_epi8(keep, p);
    // All kept bytes on one page: a window on that page, the same bytes kept
    // (none read outside them), rotated back.
    const bool lower = (keep & low) != 0;
    const uint8_t* base = lower ? p + c - 64 : p + c;
    const uint64_t moved = lower ? keep << (64 - c) : keep >> c;
    return _mm512_maskz_mov_epi8(keep,
                                 rotate_bytes_down(_mm512_maskz_loadu_epi8(moved, base), 64 - c));
}

// A window that keeps nothing reads these instead (no branch).
alignas(64) inline constexpr uint8_t kNothing[64] = {};

// Where to load a window from: p, or kNothing when it keeps nothing.
[[gnu::always_inline]] inline const uint8_t* window(uint64_t keep, const void* p) {
    return keep != 0 ? static_cast<const uint8_t*>(p) : kNothing;
}

// _mm512_maskz_loadu_epi8(keep, p) that touches no page outside the kept bytes'.
[[gnu::always_inline]] inline __m512i maskz_loadu(uint64_t keep, const void* p) {
    const uint8_t* b = window(keep, p);
    const auto in_page = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(b) & (kPageBytes - 1));
    if (__builtin_expect(in_page > kPageBytes - 64, 0))
        return maskz_loadu_at_edge(keep, b, static_cast<uint32_t>(kPageBytes) - in_page);
    return _mm512_maskz_loadu_epi8(keep, b);
}

// _mm512_mask_loadu_epi8(src, keep, p), likewise; kSome: keep != 0 is known.
template <bool kSome = false>
[[gnu::always_inline]] inline __m512i mask_loadu(__m512i src, uint64_t keep, const void* p) {
    const uint8_t* b = kSome ? static_cast<const uint8_t*>(p) : window(keep, p);
    const auto in_page = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(b) & (kPageBytes - 1));
    if (__builtin_expect(in_page > kPageBytes - 64, 0))
        return _mm512_mask_mov_epi8(
            src, keep, maskz_loadu_at_edge(keep, b, static_cast<uint32_t>(kPageBytes) - in_page));
    return _mm512_mask_loadu_epi8(src, keep, b);
}

}  // namespace csum::simd
