// Short ones'-complement sums in general-purpose registers: 8-byte words
// with add-with-carry, and the modulo-0xFFFF test that replaces a fold. For
// the engine's lean paths and the TX shim, which sum 8..64-byte regions
// inline where a kernel call would cost more than the sum.
#pragma once

#include <cstdint>
#include <cstring>

#include "csum/inet.h"

namespace csum::word_sum {

inline uint16_t bswap16(uint32_t v) {
    return static_cast<uint16_t>(((v & 0xFF) << 8) | ((v >> 8) & 0xFF));
}
inline uint16_t load16(const uint8_t* p) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}

inline uint64_t load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline uint32_t load32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
// The adds of N 8-byte words at [p] + [o] ([n] = N, 1..8), one adc chain.
#define CSUM_ADC_WORDS                                         \
    "addq %c[o](%[p]), %[a]\n\t"                               \
    ".if %c[n] > 1\n\tadcq %c[o]+8(%[p]), %[a]\n\t.endif\n\t"  \
    ".if %c[n] > 2\n\tadcq %c[o]+16(%[p]), %[a]\n\t.endif\n\t" \
    ".if %c[n] > 3\n\tadcq %c[o]+24(%[p]), %[a]\n\t.endif\n\t" \
    ".if %c[n] > 4\n\tadcq %c[o]+32(%[p]), %[a]\n\t.endif\n\t" \
    ".if %c[n] > 5\n\tadcq %c[o]+40(%[p]), %[a]\n\t.endif\n\t" \
    ".if %c[n] > 6\n\tadcq %c[o]+48(%[p]), %[a]\n\t.endif\n\t" \
    ".if %c[n] > 7\n\tadcq %c[o]+56(%[p]), %[a]\n\t.endif\n\t"

// a plus N 8-byte words at p + kOff, with end-around carry: one
// add-with-carry per word (compilers keep no carry chain in registers from
// C++), the offset in the instructions so that p stays the one register.
template <int N, int kOff = 0>
[[gnu::always_inline]] inline uint64_t adc_words(uint64_t a, const uint8_t* p) {
    static_assert(N >= 1 && N <= 8);
    asm(CSUM_ADC_WORDS "adcq $0, %[a]\n\tadcq $0, %[a]"  // twice: the first can carry out
        : [a] "+r"(a)
        : [p] "r"(p), [o] "i"(kOff), [n] "i"(N),
          "m"(*reinterpret_cast<const uint8_t(*)[kOff + N * 8]>(p))
        : "cc");
    return a;
}

// An adc chain's rest, for a word count known only at run time: the words
// before [e] from [i] (in rcx, minus their count) on, [i] counting up to
// zero (jrcxz, inc and the loads keep the carry; none when [i] is 0), then
// the carry added back (twice: the first add can carry out). The loop
// starts a 64-byte line: 16-byte aligned, where it fell with the code
// around it moved TCP/IPv6 256-B verify between 20 and 35 ticks on Zen 5.
#define CSUM_ADC_REST              \
    "jrcxz 2f\n\t"                 \
    ".p2align 6\n"                 \
    "1:\n\t"                       \
    "adcq (%[e],%[i],8), %[a]\n\t" \
    "incq %[i]\n\t"                \
    "jnz 1b\n"                     \
    "2:\n\t"                       \
    "adcq $0, %[a]\n\t"            \
    "adcq $0, %[a]"

// CSUM_ADC_REST with two carry chains, for CPUs with ADX: adcx (CF) into
// [a], adox (OF) into [b], four words an iteration. The chain's pending
// carry is added in first; the last (rest words mod 4) words are taken
// whole and kept (masked by cmov) in [b], [t] and [u], added after the
// loop, so that [i] steps by 4 to zero from the loop's end [e] - 8 x that
// count. Its loads stay in the region when it has at least 3 words.
#define CSUM_ADX_REST                 \
    "adcq $0, %[a]\n\t"               \
    "adcq $0, %[a]\n\t"               \
    "testq %[i], %[i]\n\t"            \
    "jz 3f\n\t"                       \
    "movq %[i], %[m]\n\t"             \
    "negq %[m]\n\t"                   \
    "andl $3, %k[m]\n\t"              \
    "addq %[m], %[i]\n\t"             \
    "xorl %k[b], %k[b]\n\t"           \
    "xorl %k[t], %k[t]\n\t"           \
    "xorl %k[u], %k[u]\n\t"           \
    "cmpl $1, %k[m]\n\t"              \
    "cmovaeq -8(%[e]), %[b]\n\t"      \
    "cmpl $2, %k[m]\n\t"              \
    "cmovaeq -16(%[e]), %[t]\n\t"     \
    "cmpl $3, %k[m]\n\t"              \
    "cmovaeq -24(%[e]), %[u]\n\t"     \
    "negq %[m]\n\t"                   \
    "leaq (%[e],%[m],8), %[e]\n\t"    \
    "xorl %k[m], %k[m]\n\t"           \
    "jrcxz 2f\n\t"                    \
    ".p2align 5\n"                    \
    "1:\n\t"                          \
    "adcxq (%[e],%[i],8), %[a]\n\t"   \
    "adoxq 8(%[e],%[i],8), %[b]\n\t"  \
    "adcxq 16(%[e],%[i],8), %[a]\n\t" \
    "adoxq 24(%[e],%[i],8), %[b]\n\t" \
    "leaq 4(%[i]), %[i]\n\t"          \
    "jrcxz 2f\n\t"                    \
    "jmp 1b\n"                        \
    "2:\n\t"                          \
    "adcxq %[t], %[a]\n\t"            \
    "adoxq %[u], %[b]\n\t"            \
    "adcxq %[m], %[a]\n\t"            \
    "adoxq %[m], %[b]\n\t"            \
    "addq %[b], %[a]\n\t"             \
    "adcq $0, %[a]\n\t"               \
    "adcq $0, %[a]\n"                 \
    "3:"

// CSUM_ADC_REST's [i] after kW words of `words`: 0 when there are no more,
// so never a count that reaches below the first kW.
template <int kW>
[[gnu::always_inline]] inline uint64_t adc_rest_index(uint32_t words) {
    return words > uint32_t{kW} ? uint64_t{kW} - words : 0;
}

// a plus the first `words` 8-byte words at p + kOff (at least kW of them;
// kOff + 8 x words <= kMax), with end-around carry: one adc chain, kW words
// unrolled, then a loop for the rest (two chains with adx: only where the
// CPU has ADX).
template <int kW, uint32_t kMax, int kOff = 0>
[[gnu::always_inline]] inline uint64_t adc_words_n(uint64_t a, const uint8_t* p, uint32_t words,
                                                   bool adx) {
    static_assert(kW >= 2 && kW <= 8 && kOff + 8 * kW <= kMax);
    uint64_t i = adc_rest_index<kW>(words);
    const uint8_t* e = p + kOff + 8 * size_t{words};
    if (adx) {
        uint64_t b, m, t, u;
        asm(CSUM_ADC_WORDS CSUM_ADX_REST
            : [a] "+r"(a), [i] "+c"(i), [e] "+r"(e), [b] "=&r"(b), [m] "=&r"(m), [t] "=&r"(t),
              [u] "=&r"(u)
            : [p] "r"(p), [o] "i"(kOff), [n] "i"(kW),
              "m"(*reinterpret_cast<const uint8_t(*)[kMax]>(p))
            : "cc");
        return a;
    }
    asm(CSUM_ADC_WORDS CSUM_ADC_REST
        : [a] "+r"(a), [i] "+c"(i)
        : [p] "r"(p), [e] "r"(e), [o] "i"(kOff), [n] "i"(kW),
          "m"(*reinterpret_cast<const uint8_t(*)[kMax]>(p))
        : "cc");
    return a;
}

// Partial sum of [p, p + len), 8 <= len <= 64. The last, partial word is
// the 8 bytes ending at p + len shifted down: no byte outside the region is
// read. The tail (< 2^56) and a (< 2^35) cannot overflow 64 bits together.
[[gnu::always_inline]] inline uint64_t short_sum64(const uint8_t* p, uint32_t len, uint64_t a) {
    const uint32_t r = len & 7;
    const uint64_t tail = load64(p + len - 8) >> ((64 - 8 * r) & 63);
    a += r ? tail : 0;
    switch (len >> 3) {
        case 1:
            a = adc_words<1>(a, p);
            break;
        case 2:
            a = adc_words<2>(a, p);
            break;
        case 3:
            a = adc_words<3>(a, p);
            break;
        case 4:
            a = adc_words<4>(a, p);
            break;
        case 5:
            a = adc_words<5>(a, p);
            break;
        case 6:
            a = adc_words<6>(a, p);
            break;
        case 7:
            a = adc_words<7>(a, p);
            break;
        default:
            a = adc_words<8>(a, p);
            break;
    }
    return a;  // congruent to the sum modulo 2^64 - 1, hence modulo 0xFFFF
}
inline constexpr uint32_t kShortSum = 64;

// One's-complement arithmetic modulo 0xFFFF, which divides 2^64 - 1: a sum
// folds to 0xFFFF or 0 exactly when it is 0 modulo 0xFFFF (to 0 only when
// it is 0), and swapping a word's bytes multiplies it by 256. So no fold and
// no byte swap. 0xFFFF is odd, so s is a multiple of it exactly when s
// times its inverse modulo 2^64 is at most (2^64 - 1) / 0xFFFF: one multiply
// and a compare, which GCC does not always derive from `s % 0xFFFF` (in the
// large tunnel loop it emitted a 64-bit div).
inline constexpr uint64_t kInvFFFF = [] {
    uint64_t x = 0xFFFF;  // Newton's iteration: x = 1/0xFFFF to 3, 6, ... 96 bits
    for (int i = 0; i < 5; ++i) x *= 2 - 0xFFFF * x;
    return x;
}();
static_assert(kInvFFFF * 0xFFFF == 1);
[[gnu::always_inline]] inline bool mod_ffff_zero(uint64_t s) {
    return s * kInvFFFF <= ~uint64_t{0} / 0xFFFF;
}

// The same with both constants as memory operands: in a loop short of
// registers GCC would otherwise load them (two 10-byte movabs) per packet.
inline constexpr uint64_t kModFfffConsts[2] = {kInvFFFF, ~uint64_t{0} / 0xFFFF};
[[gnu::always_inline]] inline bool mod_ffff_zero_mem(uint64_t s) {
    bool below_or_equal;
    asm("imulq %[inv], %[s]\n\tcmpq %[lim], %[s]"
        : [s] "+r"(s), "=@ccbe"(below_or_equal)
        : [inv] "m"(kModFfffConsts[0]), [lim] "m"(kModFfffConsts[1]));
    return below_or_equal;
}

// A 64-bit one's-complement sum folded to 16 bits, with end-around carries.
[[gnu::always_inline]] inline uint16_t fold64(uint64_t a) {
    a = (a & 0xFFFFFFFFu) + (a >> 32);
    a = (a & 0xFFFFFFFFu) + (a >> 32);
    return sum_fold(static_cast<uint32_t>(a));
}
// An IPv4 header's (20 bytes at ip) five 32-bit words summed: a multiple of
// 0xFFFF exactly when its checksum is right (mod_ffff_zero).
[[gnu::always_inline]] inline uint64_t ipv4_header_words(const uint8_t* ip) {
    return uint64_t{load32(ip)} + load32(ip + 4) + (load32(ip + 8) + uint64_t{load32(ip + 12)}) +
           load32(ip + 16);
}
// The checksum field an IPv4 header at ip should carry (its bytes 10, 11,
// the high half of the third word, taken as zero).
[[gnu::always_inline]] inline uint16_t ipv4_header_field(const uint8_t* ip) {
    const uint64_t h = uint64_t{load32(ip)} + load32(ip + 4) + (load32(ip + 8) & 0xFFFF) +
                       uint64_t{load32(ip + 12)} + load32(ip + 16);
    return static_cast<uint16_t>(~fold64(h));
}
[[gnu::always_inline]] inline uint64_t add_carry(uint64_t a, uint64_t b) {
    a += b;
    return a + (a < b);
}

// a plus the 8-byte words at p + kOff from word kW on that end within n
// bytes and below kLimit, with end-around carry: unrolled, each word tested
// against n (the short regions' form of adc_words_n, which keeps the small
// packets' loops in their registers).
template <int kW, uint32_t kLimit, uint32_t kOff = 0>
[[gnu::always_inline]] inline uint64_t add_words_below(uint64_t a, const uint8_t* p, uint32_t n) {
#pragma GCC unroll 32
    for (uint32_t o = 8 * kW; o < kLimit; o += 8) {
        if (o + 8 > n) break;
        a = add_carry(a, load64(p + kOff + o));
    }
    return a;
}

}  // namespace csum::word_sum
