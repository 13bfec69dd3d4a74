// Ones'-complement partial-sum kernels: 16-bit host-order words, the result
// folded to 32 bits. An odd trailing byte counts as the low byte of a word.
// Every kernel returns a value congruent (mod 0xFFFF) to the exact sum, and
// 0 only when every input word and `sum` were 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace csum::detail {

using InetKernelFn = uint32_t (*)(const uint8_t* p, size_t len, uint32_t sum) noexcept;

uint32_t inet_sum_scalar(const uint8_t* p, size_t len, uint32_t sum) noexcept;
uint32_t inet_sum_avx2(const uint8_t* p, size_t len, uint32_t sum) noexcept;
uint32_t inet_sum_avx512(const uint8_t* p, size_t len, uint32_t sum) noexcept;
uint32_t inet_sum_avx512_vnni(const uint8_t* p, size_t len, uint32_t sum) noexcept;

// Up to this many bytes, callers sum inline (sum_small64) rather than pay
// for a vector kernel's set-up and a call.
constexpr size_t kInetShortMax = 128;
// Up to this many, the tiny loop (less set-up) beats the short one.
constexpr size_t kInetTinyMax = 32;

// The kernel chosen for this length class, called directly (no call
// through a pointer); lib/dispatch.
uint32_t inet_sum_active(const uint8_t* p, size_t len, uint32_t sum) noexcept;

// Internal linkage on purpose: each kernel file is built with different ISA
// flags, and a shared inline copy could be the one built for AVX-512.
namespace {

inline uint64_t add64c(uint64_t a, uint64_t b) {
    const uint64_t r = a + b;
    return r + (r < a);  // end-around carry
}

inline uint32_t fold64(uint64_t s) {
    s = (s & 0xFFFFFFFFu) + (s >> 32);
    s = (s & 0xFFFFFFFFu) + (s >> 32);
    return static_cast<uint32_t>(s);
}

// Bytes [0, len < 8): placed at the same parity they have in memory, which is
// all a mod-0xFFFF sum cares about.
inline uint64_t sum_lt8(const uint8_t* p, size_t len) {
    uint64_t t = 0;
    if (len & 4) {
        uint32_t w;
        std::memcpy(&w, p, 4);
        t += w;
        p += 4;
    }
    if (len & 2) {
        uint16_t w;
        std::memcpy(&w, p, 2);
        t += w;
        p += 2;
    }
    if (len & 1) {
        uint16_t w = 0;
        std::memcpy(&w, p, 1);  // low byte of a host-order word
        t += w;
    }
    return t;
}

// Up to a few hundred bytes: 64-bit loads, one add plus one carry count
// each. Returns the sum unfolded (congruent mod 2^64-1).
inline uint64_t sum_short64(const uint8_t* p, size_t len, uint64_t sum) {
    uint64_t a0 = sum, a1 = 0, c0 = 0, c1 = 0;
    while (len >= 16) {
        uint64_t w0, w1;
        std::memcpy(&w0, p, 8);
        std::memcpy(&w1, p + 8, 8);
        a0 += w0;
        c0 += a0 < w0;
        a1 += w1;
        c1 += a1 < w1;
        p += 16;
        len -= 16;
    }
    if (len & 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        a0 += w;
        c0 += a0 < w;
        p += 8;
    }
    a1 = add64c(a1, sum_lt8(p, len & 7));
    return add64c(add64c(a0, a1), c0 + c1);
}

// Up to a few dozen bytes: 32-bit loads into two 64-bit accumulators; no
// carries to count, less set-up than sum_short64. Returns the exact sum.
inline uint64_t sum_tiny64(const uint8_t* p, size_t len) {
    uint64_t a = 0, b = 0;
    while (len >= 8) {
        uint32_t w[2];
        std::memcpy(w, p, 8);
        a += w[0];
        b += w[1];
        p += 8;
        len -= 8;
    }
    return a + b + sum_lt8(p, len);
}

inline uint32_t sum_short(const uint8_t* p, size_t len, uint32_t sum) {
    return fold64(sum_short64(p, len, sum));
}

// The exact or congruent 64-bit sum of a short piece (len <= kInetShortMax),
// with the cheaper set-up below kInetTinyMax.
inline uint64_t sum_small64(const uint8_t* p, size_t len) noexcept {
    return len <= kInetTinyMax ? sum_tiny64(p, len) : sum_short64(p, len, 0);
}

}  // namespace

}  // namespace csum::detail
