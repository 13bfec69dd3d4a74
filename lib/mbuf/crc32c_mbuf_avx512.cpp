// The carried CRC32C's vector path (issue 14): a range of known length fed in
// pieces that arrive in separate packets. Its state between pieces is the
// unit walk's (crc32c_units.h, the same code crc32c_mbuf runs over chains):
// four zmm accumulators and the partial unit with its fill, stored in a
// Crc32cCarry. A piece costs its bytes whatever the split; the state is
// reduced to 32 bits once, at the end.
// Built with CSUM_ISA_AVX512_FLAGS; used only under a plan with kPlanStream.
// Built whole with AVX-512 flags: GCC's false warning off for the file.
#include "simd/target_region.h"
CSUM_AVX512_INTRINSIC_WARNINGS_OFF
#include <immintrin.h>

#include <array>

#include "mbuf/crc32c_carry.h"
#include "mbuf/crc32c_units.h"

namespace csum::detail {
namespace {

using namespace units512;

inline UnitFold load_fold(const Crc32cCarry& c) {
    return {_mm512_load_si512(c.acc[0]), _mm512_load_si512(c.acc[1]), _mm512_load_si512(c.acc[2]),
            _mm512_load_si512(c.acc[3]), _mm512_load_si512(c.acc[4]), c.o};
}

inline void store_fold(Crc32cCarry& c, const UnitFold& f) {
    _mm512_store_si512(c.acc[0], f.x0);
    _mm512_store_si512(c.acc[1], f.x1);
    _mm512_store_si512(c.acc[2], f.x2);
    _mm512_store_si512(c.acc[3], f.x3);
    _mm512_store_si512(c.acc[4], f.cur);
    c.o = static_cast<uint8_t>(f.o);
}

}  // namespace

// The unit walk over every length (no short-range leaves): the bench's peer
// for what crc32c_walk_gather's leaves buy.
CrcWalk crc32c_walk_stream(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t state) noexcept {
    if (len == 0) return {state, true};
    uint32_t seg_off = off;
    const rte_mbuf* s = seek(m, &seg_off);
    UnitFold f = UnitFold::start(len);
    // A chain shorter than pkt_len says: the per-segment walk reports it.
    if (s == nullptr || fold_chain(f, s, seg_off, len) != 0)
        return walk_segments(crc32c_plan(), m, off, len, state);
    return {f.crc() ^ shift_by(state, len), true};
}

// CRC32C starts from the state ~0. The range's fold starts from 0 instead,
// with 4 bytes in front that bring 0 to ~0 (crc32_u32(0, 0x641F6454) == ~0):
// its end then needs no shift of ~0 over the whole range. kInitPad holds
// them at [124, 128); 128 bytes read at 64 - o put them right before the
// range's first byte (cur's byte o), in the unit before (x3) when o < 4.
alignas(64) constexpr auto kInitPad = [] {
    std::array<uint8_t, 192> t{};
    t[124] = 0x54, t[125] = 0x64, t[126] = 0x1F, t[127] = 0x64;
    return t;
}();

inline UnitFold init_fold(uint32_t total) {
    UnitFold f = UnitFold::start(total);
    f.x3 = _mm512_loadu_si512(kInitPad.data() + 64 - f.o);
    f.cur = _mm512_loadu_si512(kInitPad.data() + 128 - f.o);
    f.fresh = false;
    return f;
}

void crc32c_carry_begin_vec(Crc32cCarry& c) noexcept {
    store_fold(c, init_fold(c.total));
}

void crc32c_carry_begin_feed_vec(Crc32cCarry& c, const uint8_t* p, uint32_t n) noexcept {
    UnitFold f = init_fold(c.total);
    if (n != 0) f.first<3, false>(p, n);  // init_fold leaves x0..x2 zero
    store_fold(c, f);
}

uint32_t crc32c_carry_feed_end_vec(const Crc32cCarry& c, const uint8_t* p, uint32_t n) noexcept {
    UnitFold f = load_fold(c);
    f.piece<false>(p, n);
    return f.crc();
}

void crc32c_carry_feed_vec(Crc32cCarry& c, const uint8_t* p, uint32_t n) noexcept {
    UnitFold f = load_fold(c);
    f.piece<false>(p, n);
    store_fold(c, f);
}

uint32_t crc32c_carry_feed_vec(Crc32cCarry& c, const rte_mbuf* m, uint32_t off,
                               uint32_t n) noexcept {
    uint32_t seg_off = off;
    const rte_mbuf* s = seek(m, &seg_off);
    if (s == nullptr) return n;
    UnitFold f = load_fold(c);
    const uint32_t missing = fold_chain<false>(f, s, seg_off, n);
    store_fold(c, f);
    return missing;
}

uint32_t crc32c_carry_end_vec(const Crc32cCarry& c) noexcept {
    return load_fold(c).crc();  // raw CRC from state ~0: begin put ~0 in front
}

}  // namespace csum::detail
