// CRC32C of a range whose length is known before its first byte (an NVMe/TCP
// PDU's data), fed in pieces that may arrive in separate packets. Under an
// avx512 plan the folding state itself is carried between pieces (four zmm
// accumulators and a partial unit, the unit walk of crc32c_units.h) and reduced to
// 32 bits once, at the end; otherwise a 32-bit CRC is carried. Fixed size:
// nothing a sender claims makes it grow.
#pragma once

#include <cstdint>

struct rte_mbuf;

namespace csum::detail {

struct alignas(64) Crc32cCarry {
    uint8_t acc[5][64];  // vector path: x0..x3 and the partial unit
    uint32_t total;      // bytes the range holds
    uint32_t left;       // bytes still to come
    uint32_t crc;        // scalar path: CRC32C so far
    uint8_t o;           // vector path: bytes of the partial unit filled (front pad included)
    bool vec;            // which path begin() chose (fixed for the range)
    bool short_chain;    // an mbuf held fewer bytes than its range said
};

// Vector path (CSUM_ISA_AVX512_FLAGS); only where begin() chose it.
void crc32c_carry_begin_vec(Crc32cCarry& c) noexcept;
void crc32c_carry_feed_vec(Crc32cCarry& c, const uint8_t* p, uint32_t n) noexcept;
uint32_t crc32c_carry_feed_vec(Crc32cCarry& c, const rte_mbuf* m, uint32_t off,
                               uint32_t n) noexcept;
uint32_t crc32c_carry_end_vec(const Crc32cCarry& c) noexcept;

// feed_vec of the range's last n bytes, then end_vec, storing nothing.
uint32_t crc32c_carry_feed_end_vec(const Crc32cCarry& c, const uint8_t* p, uint32_t n) noexcept;
// begin_vec, then feed_vec of n bytes, with one store of the state.
void crc32c_carry_begin_feed_vec(Crc32cCarry& c, const uint8_t* p, uint32_t n) noexcept;

// 32-bit path.
uint32_t crc32c_carry_feed_crc(uint32_t crc, const uint8_t* p, uint32_t n) noexcept;
bool crc32c_carry_feed_crc(uint32_t* crc, const rte_mbuf* m, uint32_t off, uint32_t n) noexcept;

// Starts a range of `total` bytes.
void crc32c_carry_begin(Crc32cCarry& c, uint32_t total) noexcept;

// Feeds the next bytes; anything past `total` is ignored (and the range is
// then no longer complete()). Inline: it runs for every data segment.
inline void crc32c_carry_feed(Crc32cCarry& c, const uint8_t* p, uint32_t n) noexcept {
    if (n > c.left) n = c.left, c.short_chain = true;
    if (n == 0) return;
    c.left -= n;
    if (c.vec)
        crc32c_carry_feed_vec(c, p, n);
    else
        c.crc = crc32c_carry_feed_crc(c.crc, p, n);
}
// Packet bytes [off, off+n) of a chain.
inline void crc32c_carry_feed(Crc32cCarry& c, const rte_mbuf* m, uint32_t off,
                              uint32_t n) noexcept {
    if (n > c.left) n = c.left, c.short_chain = true;
    if (n == 0) return;
    c.left -= n;
    const bool whole =
        c.vec ? crc32c_carry_feed_vec(c, m, off, n) == 0 : crc32c_carry_feed_crc(&c.crc, m, off, n);
    if (!whole) c.short_chain = true;
}
// The next n bytes (n <= c.left, n < 65536) with their Internet sum, in one
// pass: returns a 32-bit partial sum of p's 16-bit words in memory order
// (congruent modulo 0xFFFF to inet_sum(p, n, 0)); the bytes are fed to the
// carry only if base plus that sum is 0 modulo 0xFFFF (the checksum the
// caller completes with it is right): *kept says which. Nothing is fed
// otherwise, so a segment whose checksum is wrong leaves no trace.
// The kernel (c.vec, a CPU with AVX512_VNNI) and its portable reference.
uint32_t crc32c_carry_feed_summed_vnni(Crc32cCarry& c, const uint8_t* p, uint32_t n, uint64_t base,
                                       bool* kept) noexcept;
// The same returning only *kept (the engine's run has no use for the sum).
bool crc32c_carry_feed_kept_vnni(Crc32cCarry& c, const uint8_t* p, uint32_t n,
                                 uint64_t base) noexcept;
uint32_t crc32c_carry_feed_summed_ref(Crc32cCarry& c, const uint8_t* p, uint32_t n, uint64_t base,
                                      bool* kept) noexcept;

// crc32c_carry_begin(c, total), then crc32c_carry_feed(c, p, n): a PDU
// boundary's next data, its state stored once.
void crc32c_carry_begin_feed(Crc32cCarry& c, uint32_t total, const uint8_t* p, uint32_t n) noexcept;
// All `total` bytes were fed, and nothing more.
inline bool crc32c_carry_complete(const Crc32cCarry& c) noexcept {
    return c.left == 0 && !c.short_chain;
}
// The CRC32C of the range (as crc32c() over it in one piece); meaningful
// only when complete().
uint32_t crc32c_carry_end(const Crc32cCarry& c) noexcept;

// crc32c_carry_feed(c, p, n), then crc32c_carry_end(c) into *crc if the range
// is then complete(): the range's end without storing its folding state
// (nothing reads it after the end). False if not complete.
inline bool crc32c_carry_feed_end(Crc32cCarry& c, const uint8_t* p, uint32_t n,
                                  uint32_t* crc) noexcept {
    if (c.vec && n == c.left && n != 0 && !c.short_chain) {
        c.left = 0;
        *crc = ~crc32c_carry_feed_end_vec(c, p, n);
        return true;
    }
    crc32c_carry_feed(c, p, n);
    if (!crc32c_carry_complete(c)) return false;
    *crc = crc32c_carry_end(c);
    return true;
}

}  // namespace csum::detail
