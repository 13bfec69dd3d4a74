// The same-shape runs' sums (good_run.cpp, tunnel_run.h, fill_run.cpp) of a plain TCP/UDP packet
// whole at p (frame offsets: L3 at 14, L4 at 34 or 54). In both versions the pseudo-header's
// addresses lie just before the L4 header, so the L4 check is one region:
// from the addresses' start, kA (8 or 32) + l4_len bytes, plus proto and
// length. kMin is the least that region can be (the shape's least l4_len):
// its first kMin / 8 words are summed without a length test, the rest by
// the length. Equal to sums_good for the same packet, known included.
#pragma once

#include <cstdint>

#include "engine/lean_path.h"

namespace csum::lean_detail {

// The most region bytes (addresses and L4) the runs sum inline (frames to
// 282 B over IPv4, 278 over IPv6): past it the out-of-line call and the
// kernel cost less than more words of the adc loop. Up to kRunShortRegion
// the words are unrolled, past it looped.
inline constexpr uint32_t kRunInlineRegion = 256;
inline constexpr uint32_t kRunShortRegion = 128;
static_assert(detail::kRestFrom == kRunShortRegion + 1 && detail::kRestTo == kRunInlineRegion);
// Whether the plan chose the two-chain rest loop (ADX, and timed faster).
[[gnu::always_inline]] inline bool rest_adx(uint32_t plan) {
    return (plan & detail::kPlanAdxRest) != 0;
}
// The tunnel runs' inner region unrolled up to this (take_rest): their
// loops hold more registers than the plain runs'.
inline constexpr uint32_t kTunnelShortRegion = 64;

// run_sums_good's sum for IPv6 (region 22 .. 54 + l4_len, at most kMax
// bytes): the pseudo-header's proto and length (the payload length as
// loaded), the tail (the word ending at the region's end, shifted down by
// 64 - 8 x its bytes, 8 + 56 - 8 x (l4_len % 8) as 8 then -8 x (l4_len + 1)
// modulo 64), the first kW words and the rest, all addressed from p: one
// asm block, so that no value is spilled or copied between them.
template <bool kUdp, int kW, uint32_t kMax, bool kRest>
[[gnu::always_inline]] inline uint64_t v6_run_sum(const uint8_t* p, uint32_t l4_len,
                                                  bool adx = false) {
    static_assert(kW >= 1 && kW <= 8 && 8 * kW <= kMax);
    constexpr uint32_t kProto = (kUdp ? kShapeUdp : kShapeTcp) << 8;
#define CSUM_V6_HEAD                 \
    "movq 46(%[p],%q[l4]), %[t]\n\t" \
    "leal 8(,%q[l4],8), %k[i]\n\t"   \
    "movzwl 18(%[p]), %k[a]\n\t"     \
    "shrq $8, %[t]\n\t"              \
    "negl %k[i]\n\t"                 \
    "shrq %%cl, %[t]\n\t"            \
    "leaq %c[proto](%[a],%[t]), %[a]\n\t"
    uint64_t a, tail, i;
    if constexpr (kRest) {
        const uint32_t words = (32 + l4_len) / 8;
        const uint8_t* e = p + 22 + 8 * size_t{words};
        if (adx) {
            uint64_t b, m, u;
            asm(CSUM_V6_HEAD "movq %[ni], %[i]\n\t" CSUM_ADC_WORDS CSUM_ADX_REST
                : [a] "=&r"(a), [t] "=&r"(tail), [i] "=&c"(i), [e] "+r"(e), [b] "=&r"(b),
                  [m] "=&r"(m), [u] "=&r"(u)
                : [p] "r"(p), [l4] "r"(uint64_t{l4_len}), [o] "i"(22), [n] "i"(kW),
                  [proto] "i"(kProto), [ni] "r"(adc_rest_index<kW>(words)),
                  "m"(*reinterpret_cast<const uint8_t(*)[22 + kMax]>(p))
                : "cc");
            return a;
        }
        asm(CSUM_V6_HEAD "movq %[ni], %[i]\n\t" CSUM_ADC_WORDS CSUM_ADC_REST
            : [a] "=&r"(a), [t] "=&r"(tail), [i] "=&c"(i)
            : [p] "r"(p), [l4] "r"(uint64_t{l4_len}), [o] "i"(22), [n] "i"(kW), [proto] "i"(kProto),
              [ni] "r"(adc_rest_index<kW>(words)), [e] "r"(e),
              "m"(*reinterpret_cast<const uint8_t(*)[22 + kMax]>(p))
            : "cc");
    } else {
        asm(CSUM_V6_HEAD CSUM_ADC_WORDS "adcq $0, %[a]\n\tadcq $0, %[a]"
            : [a] "=&r"(a), [t] "=&r"(tail), [i] "=&c"(i)
            : [p] "r"(p), [l4] "r"(uint64_t{l4_len}), [o] "i"(22), [n] "i"(kW), [proto] "i"(kProto),
              "m"(*reinterpret_cast<const uint8_t(*)[22 + 8 * kW]>(p))
            : "cc");
    }
#undef CSUM_V6_HEAD
    return a;
}

// partial_sum(p, len) for len > 32, its value exactly (a known sum handed
// on is the one lean_work would compute), without its call, its load of
// the plan and inet_sum_active's call: the run loads the plan once.
[[gnu::always_inline]] inline uint32_t run_l4_sum(uint32_t plan, const uint8_t* p, uint32_t len) {
    if (len <= detail::kInetShortMax) return detail::fold64(detail::sum_short64(p, len, 0));
    return detail::inet_sum_planned(plan, p, len, 0);
}

// run_sums_good's long packets, out of its loop (inline, the kernel call
// would cost the loop's short packets their registers: tcp4 64 B 11.8 ->
// 15.1 ticks): the header and the addresses inline, the L4 region by the
// kernel, as its own region (sums_good's sums, the known one included).
template <bool kV6, bool kUdp>
[[gnu::noinline]] bool run_long_sums(uint32_t plan, const uint8_t* p, uint32_t l4_len,
                                     KnownSum* known) {
    constexpr uint32_t kProto = kUdp ? kShapeUdp : kShapeTcp;
    constexpr int kAddrWords = kV6 ? 4 : 1;
    if (!kV6 && !mod_ffff_zero_mem(adc_words<2>(load32(p + 30), p + 14))) return false;
    const uint32_t d = run_l4_sum(plan, p + (kV6 ? 54 : 34), l4_len);
    const uint64_t k = kV6 ? load16(p + 18) + (kProto << 8)
                           : load16(p + 16) + (0xFFFFu + (kProto << 8) - (20u << 8));
    if (!mod_ffff_zero_mem(adc_words<kAddrWords>(k + d, p + (kV6 ? 22 : 26)))) {
        if (!kV6 || l4_len > kSmallSum) *known = {d, true};  // as sums_good's
        return false;
    }
    return true;
}

template <bool kV6, bool kUdp>
[[gnu::always_inline]] inline bool run_sums_good(uint32_t plan, uint8_t* p, uint32_t l4_len,
                                                 uint64_t* sum_bytes, KnownSum* known) {
    constexpr uint32_t kA = kV6 ? 32 : 8, kMin = kA + (kUdp ? 8 : 20), kW = kMin / 8;
    const uint8_t* r = p + (kV6 ? 22 : 26);
    const uint32_t n = kA + l4_len;
    constexpr uint32_t kInline = kRunInlineRegion, kShort = kRunShortRegion;
    if (__builtin_expect(l4_len > kInline - kA, 0)) {  // n > kInline, tested on l4_len
        if (!run_long_sums<kV6, kUdp>(plan, p, l4_len, known)) return false;
        *sum_bytes += (kV6 ? 0 : 20) + l4_len;
        return true;
    }
    if constexpr (kV6) {
        const uint64_t a =
            __builtin_expect(n > kShort, 0)
                ? v6_run_sum<kUdp, kW, kInline, true>(p, l4_len, rest_adx(plan))
                : add_words_below<kW, kShort>(v6_run_sum<kUdp, kW, kShort, false>(p, l4_len), r, n);
        if (!mod_ffff_zero_mem(a)) return false;
        *sum_bytes += l4_len;
        return true;
    }
    if (!kV6) {
        // The header's 20 bytes; never 0 (its first byte is 0x45).
        const uint64_t h = adc_words<2>(load32(p + 30), p + 14);
        if (!mod_ffff_zero_mem(h)) return false;
    }
    // The last n % 8 bytes: the word ending at the region's end shifted
    // down, by 64 when there are none (two shifts: x86's takes its count
    // mod 64, so 56 - 8n needs no mask).
    uint64_t tail = load64(r + n - 8) >> 8;
    asm("shrq %%cl, %0" : "+r"(tail) : "c"((7u - n) << 3) : "cc");
    // The pseudo-header's proto + length times 256, modulo 0xFFFF: the IP
    // length field as loaded (a byte swap is a times 256), IPv4's less its 20.
    constexpr uint32_t kProto = kUdp ? kShapeUdp : kShapeTcp;
    const uint64_t k = kV6 ? load16(p + 18) + (kProto << 8)
                           : load16(p + 16) + (0xFFFFu + (kProto << 8) - (20u << 8));
    const uint64_t a = __builtin_expect(n > kShort, 0)
                           ? adc_words_n<kW, kInline>(k + tail, r, n / 8, rest_adx(plan))
                           : add_words_below<kW, kShort>(adc_words<kW>(k + tail, r), r, n);
    if (!mod_ffff_zero_mem(a)) return false;
    *sum_bytes += (kV6 ? 0 : 20) + l4_len;
    return true;
}

// Fill mode's same-shape run (fill_run.cpp) for the packet whole at p, of
// run_sums_good's shape: the same region sums with the L4 field taken as
// zero (0xFFFF less it, as fill_short), then both fields written, the
// IPv4 header's (its own field likewise) and the L4 one (UDP's 0 as
// 0xFFFF), as fill_short and lean_work's general fill write them.
// fold64 in two rotate-adds: the high half of a + ror(a, 32) is the
// halves' sum with its end-around carry, and so on down to 16 bits (fold64's
// value: a nonzero sum never folds to 0).
[[gnu::always_inline]] inline uint16_t fold64_rot(uint64_t a) {
    a += a >> 32 | a << 32;
    uint32_t x = static_cast<uint32_t>(a >> 32);
    x += x >> 16 | x << 16;
    return static_cast<uint16_t>(x >> 16);
}
template <bool kV6, bool kUdp>
[[gnu::always_inline]] inline void run_fill_store(uint8_t* p, uint64_t a) {
    constexpr uint32_t kField = (kV6 ? 54 : 34) + (kUdp ? 6 : 16);
    uint16_t w = static_cast<uint16_t>(~fold64_rot(a));
    if (kUdp) w = w == 0 ? 0xFFFF : w;
    std::memcpy(p + kField, &w, 2);
    if (!kV6) {
        // The header's 20 bytes, its field (bytes 10-11) as zero.
        const uint64_t h =
            adc_words<2>(uint64_t{load32(p + 30)} + (0xFFFFu - load16(p + 24)), p + 14);
        const auto c = static_cast<uint16_t>(~fold64_rot(h));
        std::memcpy(p + 24, &c, 2);
    }
}
template <bool kV6, bool kUdp>
[[gnu::always_inline]] inline uint64_t run_fill_field(const uint8_t* p) {
    return 0xFFFFu - load16(p + (kV6 ? 54 : 34) + (kUdp ? 6 : 16));
}

// run_fill's long packets, out of its loop (as run_long_sums): the L4
// region by the kernel, the addresses and the rest inline.
template <bool kV6, bool kUdp>
[[gnu::noinline]] void run_long_fill(uint32_t plan, uint8_t* p, uint32_t l4_len) {
    constexpr uint32_t kProto = kUdp ? kShapeUdp : kShapeTcp;
    constexpr int kAddrWords = kV6 ? 4 : 1;
    const uint32_t d = run_l4_sum(plan, p + (kV6 ? 54 : 34), l4_len);
    const uint64_t k = kV6 ? load16(p + 18) + (kProto << 8)
                           : load16(p + 16) + (0xFFFFu + (kProto << 8) - (20u << 8));
    const uint64_t a = k + d + run_fill_field<kV6, kUdp>(p);
    run_fill_store<kV6, kUdp>(p, adc_words<kAddrWords>(a, p + (kV6 ? 22 : 26)));
}

template <bool kV6, bool kUdp>
[[gnu::always_inline]] inline void run_fill(uint32_t plan, uint8_t* p, uint32_t l4_len) {
    constexpr uint32_t kA = kV6 ? 32 : 8, kMin = kA + (kUdp ? 8 : 20), kW = kMin / 8;
    const uint8_t* r = p + (kV6 ? 22 : 26);
    const uint32_t n = kA + l4_len;
    constexpr uint32_t kInline = kRunInlineRegion, kShort = kRunShortRegion;
    if (__builtin_expect(l4_len > kInline - kA, 0))
        return run_long_fill<kV6, kUdp>(plan, p, l4_len);
    const bool mid = __builtin_expect(n > kShort, 0);
    uint64_t a;
    if constexpr (kV6) {
        a = mid ? v6_run_sum<kUdp, kW, kInline, true>(p, l4_len, rest_adx(plan))
                : v6_run_sum<kUdp, kW, kShort, false>(p, l4_len);
        a = add_carry(a, run_fill_field<kV6, kUdp>(p));
    } else {
        // As run_sums_good: the tail, proto and length, then the words.
        uint64_t tail = load64(r + n - 8) >> 8;
        asm("shrq %%cl, %0" : "+r"(tail) : "c"((7u - n) << 3) : "cc");
        constexpr uint32_t kProto = kUdp ? kShapeUdp : kShapeTcp;
        const uint64_t k = load16(p + 16) + (0xFFFFu + (kProto << 8) - (20u << 8));
        a = k + tail + run_fill_field<kV6, kUdp>(p);
        a = mid ? adc_words_n<kW, kInline>(a, r, n / 8, rest_adx(plan)) : adc_words<kW>(a, r);
    }
    if (!mid) a = add_words_below<kW, kShort>(a, r, n);
    run_fill_store<kV6, kUdp>(p, a);
}

}  // namespace csum::lean_detail
