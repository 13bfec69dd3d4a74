// avx512 kernel: the vpclmul_avx2 folding scheme on zmm registers, four
// accumulators of 64 bytes (see crc32c_vpclmul_avx2.cpp for the algebra).
// Chosen only when CPUID reports avx512f/vl/bw/dq + vpclmulqdq and the OS
// saves zmm state; the tests skip it, saying so, on CPUs without.
//
// The fold loop is bound by vpclmulqdq's one port (two per 64 bytes), while
// the crc32 instruction's port sits idle. So from 4 KiB on, the loop
// walks strides of [crc32 lane of 8*LQ bytes][R x 256 bytes folded]: the
// lane's CRC (from 0) is the state at the end of the lane, and a state enters
// the message as an xor onto the next four bytes, here x0's next block; the
// accumulators fold over the lane. One serial lane per stride is enough:
// lanes of successive strides are independent, so out-of-order execution
// overlaps them. Measurements: docs/perf-crc32c.md.
#include "crc32c/crc32c_kernels.h"
#include "crc32c/crc32c_x86.h"

namespace csum::detail {
namespace {

constexpr size_t kBlock = 256;  // 4 accumulators x 64 bytes

// Evaluated at compile time: xpow() at run time would cost thousands of cycles.
template <size_t D>
__m128i lane_const() {
    constexpr auto lo = static_cast<int64_t>(fold_lo(D)), hi = static_cast<int64_t>(fold_hi(D));
    return _mm_set_epi64x(hi, lo);
}

template <size_t D>
__m512i fold_const() {
    return _mm512_maskz_broadcast_i32x4(0xFFFF, lane_const<D>());
}

inline __m512i fold_xor(__m512i x, __m512i k, __m512i data) {
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), data, 0x96);
}

inline __m512i load(const uint8_t* p) {
    return _mm512_loadu_si512(p);
}

// The lane's CRC as a zmm with it in bits 0..31: through memory (store, then
// a load-port vmovd) when M, else vmovd from the GPR (port 5, beside clmul).
template <bool M>
inline __m512i lane_state(uint64_t c) {
    if constexpr (M) {
        uint32_t m = static_cast<uint32_t>(c);
        __m128i v;
        __asm__("vmovd %1, %0" : "=v"(v) : "m"(m));
        return _mm512_zextsi128_si512(v);
    }
    return _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(c)));
}

// kSkewed<D>[h]: fold constants for D + h bytes, h < 64.
template <size_t D>
constexpr auto kSkewed = [] {
    std::array<std::array<uint64_t, 2>, 64> t{};
    for (size_t h = 0; h < 64; ++h) t[h] = {fold_lo(D + h), fold_hi(D + h)};
    return t;
}();

// Below this many bytes after the last block, crc32 over them after the
// reduction costs less than folding the window (see fold_kernel's end; AMD
// Zen 5, 261 B: 25.1 ticks by the window, 27.5 by crc32). Fold constants
// exist from 5 bytes on (8d - 33 >= 0).
constexpr size_t kSerialTail = 5;

// kFoldBy[d]: fold constants for d bytes, kSerialTail <= d < 256 + 192.
alignas(16) constexpr auto kFoldBy = [] {
    std::array<std::array<uint64_t, 2>, kBlock + 192> t{};
    for (size_t d = kSerialTail; d < t.size(); ++d) t[d] = {fold_lo(d), fold_hi(d)};
    return t;
}();
static_assert(kFoldBy[447][0] == fold_lo(447) && kFoldBy[447][1] == fold_hi(447));

// The 256 bytes from kKeepLast + d keep the last d bytes of a 256-byte window.
constexpr auto kKeepLast = [] {
    std::array<uint8_t, 2 * kBlock> t{};
    for (size_t i = kBlock; i < t.size(); ++i) t[i] = 0xFF;
    return t;
}();

// The state of a 64-byte block x from 0: lanes 0..2 fold forward by 48, 32
// and 16 bytes onto lane 3, and two crc32 reduce it.
inline uint32_t reduce(__m512i x) {
    const __m512i kl = _mm512_inserti32x4(
        _mm512_inserti32x4(_mm512_inserti32x4(_mm512_setzero_si512(), lane_const<48>(), 0),
                           lane_const<32>(), 1),
        lane_const<16>(), 2);
    const __m512i t = fold_xor(x, kl, _mm512_setzero_si512());
    __m128i y = _mm_ternarylogic_epi64(_mm512_maskz_extracti32x4_epi32(0xF, t, 0),
                                       _mm512_maskz_extracti32x4_epi32(0xF, t, 1),
                                       _mm512_maskz_extracti32x4_epi32(0xF, t, 2), 0x96);
    y = _mm_xor_si128(y, _mm512_maskz_extracti32x4_epi32(0xF, x, 3));
    uint64_t c = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(y)));
    c = _mm_crc32_u64(c, static_cast<uint64_t>(_mm_extract_epi64(y, 1)));
    return static_cast<uint32_t>(c);
}

// 128 <= len < 320 (an SCTP packet of 256 B): one 64-byte accumulator. The
// earlier blocks fold straight onto the last whole one, each by its own
// distance (no chain of folds), and the last len % 64 bytes come in as the
// 64-byte window that ends with them, the bytes already folded masked off.
// Eight vpclmulqdq at 222 B against 28 crc32 on the lanes: in bursts of
// independent buffers the fold is the cheaper where clmul is fast (AMD Zen
// 5, 222 B: 11.8 against 14.4 ticks a buffer for crc_lanes_x2's pairs),
// though its latency only ties with the lanes; crc32c_pair's plan bit
// kPlanPairFold is set by that timing (docs/perf-crc32c.md).
inline uint32_t short_fold(uint32_t state, const uint8_t* p, size_t len) {
    const __m512i x0 = _mm512_xor_si512(
        load(p), _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(state))));
    const size_t tail = len % 64;
    __m512i x;
    if (len < 192)
        x = fold_xor(x0, fold_const<64>(), load(p + 64));
    else if (len < 256)
        x = fold_xor(x0, fold_const<128>(),
                     fold_xor(load(p + 64), fold_const<64>(), load(p + 128)));
    else
        x = fold_xor(x0, fold_const<192>(),
                     fold_xor(load(p + 64), fold_const<128>(),
                              fold_xor(load(p + 128), fold_const<64>(), load(p + 192))));
    if (tail >= kSerialTail) {
        const uint8_t* w = p + len - 64;  // inside: a whole block precedes it
        const __m512i kept = _mm512_and_si512(load(w), load(kKeepLast.data() + kBlock - 64 + tail));
        const __m512i by = _mm512_maskz_broadcast_i32x4(
            0xFFFF, _mm_load_si128(reinterpret_cast<const __m128i*>(kFoldBy[tail].data())));
        x = fold_xor(x, by, kept);
    }
    const uint32_t c = reduce(x);
    return tail < kSerialTail ? x86::crc_serial(c, p + len - tail, tail) : c;
}

// CRC from 0 of the 8*LQ bytes at p.
template <size_t LQ>
inline uint64_t lane_crc(const uint8_t* p) {
    uint64_t c = 0;
#pragma GCC unroll 64  // a loop here mispredicts its exit every stride
    for (size_t i = 0; i < 8 * LQ; i += 8) c = _mm_crc32_u64(c, x86::load64(p + i));
    return c;
}

// LQ: qwords of the crc32 lane per stride (0: fold only); R: 256-byte fold
// rounds per stride; M: see lane_state; PF: prefetch distance (0: none);
// A: the first lane aligns the loads; From: no lanes below this length.
// len >= kBlock.
template <size_t LQ, size_t R, bool M = false, size_t PF = 0, bool A = false, size_t From = 0>
__attribute__((always_inline)) inline uint32_t fold_kernel(uint32_t state, const uint8_t* p,
                                                           size_t len) {
    __m512i x0 = _mm512_xor_si512(
        load(p), _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(state))));
    __m512i x1 = load(p + 64), x2 = load(p + 128), x3 = load(p + 192);
    p += kBlock;
    len -= kBlock;

    const __m512i k256 = fold_const<256>();
    // R rounds from q, after a lane whose CRC is c: the first folds over the
    // lane (constant ka). Returns the end.
    auto rounds = [&](const uint8_t* q, uint64_t c, __m512i ka) {
        x0 = fold_xor(x0, ka, _mm512_xor_si512(load(q), lane_state<M>(c)));
        x1 = fold_xor(x1, ka, load(q + 64));
        x2 = fold_xor(x2, ka, load(q + 128));
        x3 = fold_xor(x3, ka, load(q + 192));
        for (size_t r = 1; r < R; ++r) {
            q += kBlock;
            x0 = fold_xor(x0, k256, load(q));
            x1 = fold_xor(x1, k256, load(q + 64));
            x2 = fold_xor(x2, k256, load(q + 128));
            x3 = fold_xor(x3, k256, load(q + 192));
        }
        return q + kBlock;
    };
    if (LQ > 0 && len + kBlock >= From) {
        constexpr size_t L = 8 * LQ, kStride = L + R * kBlock;
        // The first lane takes h < 64 more bytes so that every later 64-byte
        // load is aligned (split loads make the loop load-bound); its fold
        // distance comes from a table.
        if (A && len >= kStride + 63) {
            const size_t h = -reinterpret_cast<uintptr_t>(p + L) & 63;
            const uint64_t c = x86::crc_serial(static_cast<uint32_t>(lane_crc<LQ>(p)), p + L, h);
            const __m512i kh = _mm512_maskz_broadcast_i32x4(
                0xFFFF,
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(kSkewed<L + kBlock>[h].data())));
            const uint8_t* end = rounds(p + L + h, c, kh);
            len -= end - p;
            p = end;
        }
        const __m512i ka = fold_const<L + kBlock>();
        for (; len >= kStride; p += kStride, len -= kStride) {
            if constexpr (PF > 0) {
#pragma GCC unroll 64
                for (size_t i = 0; i < kStride; i += 64)
                    _mm_prefetch(reinterpret_cast<const char*>(p + PF + i), _MM_HINT_T0);
            }
            rounds(p + L, lane_crc<LQ>(p), ka);
        }
    }
    for (; len >= kBlock; p += kBlock, len -= kBlock) {
        x0 = fold_xor(x0, k256, load(p));
        x1 = fold_xor(x1, k256, load(p + 64));
        x2 = fold_xor(x2, k256, load(p + 128));
        x3 = fold_xor(x3, k256, load(p + 192));
    }
    const __m512i k64 = fold_const<64>(), k128 = fold_const<128>(), k192 = fold_const<192>();
    __m512i x;
    if (len < kSerialTail) {
        x = fold_xor(x0, k192, fold_xor(x1, k128, fold_xor(x2, k64, x3)));
    } else {
        // The last len (5..255) bytes as a block: the 256-byte window that
        // ends with them (inside the buffer: a block precedes it), the bytes
        // already folded masked off. The accumulators fold by len more than
        // a whole block's would, straight into the reduction: one clmul
        // level and no 16-byte folds or serial crc32 after it, whatever len.
        const uint8_t* w = p + len - kBlock;
        const uint8_t* m = kKeepLast.data() + len;
        auto unit = [&](size_t i) { return _mm512_and_si512(load(w + i), load(m + i)); };
        auto by = [](size_t d) {
            return _mm512_maskz_broadcast_i32x4(
                0xFFFF, _mm_load_si128(reinterpret_cast<const __m128i*>(kFoldBy[d].data())));
        };
        x = unit(192);  // units wholly masked off add nothing: skipped
        if (len > 64) x = fold_xor(unit(128), k64, x);
        if (len > 128) x = fold_xor(unit(64), k128, x);
        if (len > 192) x = fold_xor(unit(0), k192, x);
        // x0 last: the path of the incoming state has one ternlog here.
        x = fold_xor(x3, by(len), x);
        x = fold_xor(x2, by(len + 64), x);
        x = fold_xor(x1, by(len + 128), x);
        x = fold_xor(x0, by(len + 192), x);
    }

    const uint32_t c = reduce(x);
    return len < kSerialTail ? x86::crc_serial(c, p, len) : c;
}

// Out of line: 8 KiB and more only, so the common path keeps one body.
__attribute__((noinline)) uint32_t fold_aligned(uint32_t state, const uint8_t* p, size_t len) {
    return fold_kernel<kAvx512LaneQwords, 2, false, 0, true>(state, p, len);
}
__attribute__((noinline)) uint32_t fold_prefetch(uint32_t state, const uint8_t* p, size_t len) {
    return fold_kernel<kAvx512LaneQwords, 2, false, 1280, true>(state, p, len);
}

}  // namespace

uint32_t crc32c_avx512(uint32_t state, const uint8_t* p, size_t len) noexcept {
    if (len < kAvx512FoldMin) {
        if (len >= kAvx512ShortMin) return short_fold(state, p, len);
        return x86::crc_3way(state, p, len);
    }
    // The lane's 16 serial crc32s sit on the first stride's critical path:
    // below 4 KiB that latency outweighs the throughput it buys when calls
    // cannot overlap (1420 B: +24%). Aligning lost ~5% at 4 KiB and won up
    // to 7% at 9000 B; prefetch pays once the buffer outgrows L1.
    // Figures: docs/perf-crc32c.md.
    if (len >= 8192) [[unlikely]]
        return len < 32768 ? fold_aligned(state, p, len) : fold_prefetch(state, p, len);
    return fold_kernel<kAvx512LaneQwords, 2, false, 0, false, 4096>(state, p, len);
}

uint64_t crc32c_avx512_pair(uint32_t sp, const uint8_t* p, uint32_t sq, const uint8_t* q,
                            size_t len) noexcept {
    return short_fold(sp, p, len) | static_cast<uint64_t>(short_fold(sq, q, len)) << 32;
}

uint32_t crc32c_avx512_short(uint32_t s, const uint8_t* p, size_t len) noexcept {
    return short_fold(s, p, len);
}

uint32_t crc32c_avx512_mix(size_t v, uint32_t state, const uint8_t* p, size_t len) noexcept {
    if (len < kAvx512FoldMin) return x86::crc_3way(state, p, len);
    switch (v) {
        case 0:
            return fold_kernel<0, 1>(state, p, len);
        case 1:
            return fold_kernel<12, 2>(state, p, len);
        case 2:
            return fold_kernel<16, 2, true>(state, p, len);
        case 3:
            return fold_kernel<24, 3>(state, p, len);
        case 4:
            return fold_kernel<16, 2>(state, p, len);
        case 5:
            return fold_kernel<16, 2, false, 1280>(state, p, len);
        case 6:
            return fold_kernel<16, 2, false, 0, true>(state, p, len);
    }
    return crc32c_avx512(state, p, len);
}

}  // namespace csum::detail
