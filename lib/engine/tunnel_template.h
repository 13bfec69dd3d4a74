// A same-shape tunnel run's template: the frame bytes every packet of the
// run must have (masked compares), its verdict and its constants. The run
// itself is tunnel_run.h; its header tests tunnel_match.h.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "csum/verdict.h"
#include "dispatch/cpu_features.h"
#include "parse/classify_same.h"

namespace csum {

// A run's template and verdict. Kinds: kSums | kIv6 | kUdp | kOcsum (the
// outer UDP checksum present, else zero in the template) | kOv6 (an outer
// IPv6 header: linear packets only, the SSE compare only).
struct TunnelRun {
    static constexpr int kNone = -1, kSums = 1, kIv6 = 2, kUdp = 4, kOcsum = 8, kOv6 = 16;
    static constexpr int kKinds = 32;
    // Frame bytes 12..27 (outer EtherType, IPv4 up to its protocol or IPv6's
    // version and next header), the outer UDP header's 16 (destination port,
    // checksum when zero; GENEVE's option length and protocol) and the 16
    // from the inner EtherType (IP version, IHL, fragment, protocol), at
    // RunConsts' kBlock: (bytes ^ value) & mask is zero in every packet.
    __m128i mask[3], value[3];
    // With AVX-512 (`wide`): frame bytes 12..75 in one, the length fields
    // too (their value zero, their mask 0xFF: the packet's own, derived from
    // its pkt_len, are xored in), and what the lengths are less than pkt_len
    // (words 2, 13, 27 or 28: outer IP, outer UDP, inner IP).
    alignas(64) uint8_t wmask[64], wvalue[64];
    alignas(64) uint16_t wless[32];
    PacketVerdict v;   // the run's verdict (that of `key`)
    uint32_t key = 0;  // TunnelOutcomes::key_of its outcome
    uint32_t hdr = 0;  // bytes summed per packet besides the inner L4 region
    // Bytes after the outer IP packet: the run takes only packets with as
    // many as its first (a PMD that keeps the CRC: 4 in every packet).
    uint32_t trailer = 0;
    uint32_t ptype = 0;  // with flags: its first packet's packet_type
    int kind = kNone;
    bool wide = false;  // the AVX-512 compare (chosen per run)
};

namespace tunnel_run_detail {

// The outer UDP header's offset under outer IPv4, the wide compare's only
// outer version (RunConsts has every offset of either).
inline constexpr uint32_t kOl4 = 34;
inline constexpr uint32_t kWide = 12;  // the AVX-512 compare's 64 bytes start here

// vpshufb's control for the wide compare's length words (at frame bytes
// 16, kOl4 + 4 and the inner IP length's, kIlenAt): their two bytes
// swapped, every other byte zeroed (bit 7 set), so that the broadcast
// pkt_len needs no mask.
template <uint32_t kIlenAt>
struct LenSwap {
    struct alignas(64) Bytes {
        uint8_t b[64];
    };
    static constexpr Bytes make() {
        Bytes c{};
        for (uint8_t& x : c.b) x = 0x80;
        for (const uint32_t at : {16u, kOl4 + 4, kIlenAt}) {
            const uint32_t j = at - kWide;  // even: both bytes in one 16-byte lane
            c.b[j] = static_cast<uint8_t>((j + 1) % 16);
            c.b[j + 1] = static_cast<uint8_t>(j % 16);
        }
        return c;
    }
    static constexpr Bytes ctl = make();
};

inline bool cpu_wide() {
    return detail::cpu().can_engine_avx512();
}
// Tests set it to run the SSE compare on an AVX-512 CPU too.
inline bool force_narrow = false;
// Tests set it to keep fill mode's tunnel run out (the per-packet path's
// counts, for comparison).
inline bool fill_run_off = false;

inline uint32_t be16_at(const uint8_t* p) {
    return shape_detail::be16(p);
}

// A run's offsets: outer IPv4 (20 bytes) or IPv6 (40) / UDP / VXLAN or
// GENEVE (8) / Ethernet / inner IPv4 or IPv6 / TCP or UDP.
template <bool kIv6, bool kUdp, bool kOv6 = false>
struct RunConsts {
    static constexpr uint32_t ol4 = kOv6 ? 54 : 34, il3 = ol4 + 30, il4 = il3 + (kIv6 ? 40 : 20);
    static constexpr uint32_t kHdr = il4 - ol4;
    static constexpr int64_t kLeastL4 = kUdp ? 8 : 20;  // the inner L4 header
    // The outer IP length field, and what it is less than the IP packets'
    // end (IPv4's total length, IPv6's payload length).
    static constexpr uint32_t kOlenAt = kOv6 ? 18 : 16, kOlenLess = kOv6 ? ol4 : 14;
    // The inner IP length field, and what it is less than the IP packets' end.
    static constexpr uint32_t kIlenAt = kIv6 ? il3 + 4 : il3 + 2, kIlenLess = kIv6 ? il4 : il3;
    // The template's three blocks: from the outer EtherType, the outer UDP
    // header and the inner EtherType.
    static constexpr uint32_t kBlock[3] = {12, ol4, il3 - 2};
    // The outer pseudo-header's addresses, and the inner ones.
    static constexpr uint32_t kOaddr = kOv6 ? 22 : 26, kIaddr = il3 + (kIv6 ? 8 : 12);
    // The template's bytes end here (its third block's end): a kind's guess
    // reads nothing past it.
    static constexpr uint32_t kTemplateEnd = kBlock[2] + 16;
};

// RunConsts' offsets of a shape known only at run time.
struct RunOffsets {
    uint32_t ol4, il3, il4, template_end, ilen_at, ilen_less;
};
template <bool kIv6, bool kOv6>
inline constexpr RunOffsets kRunOffsets = {
    RunConsts<kIv6, false, kOv6>::ol4,     RunConsts<kIv6, false, kOv6>::il3,
    RunConsts<kIv6, false, kOv6>::il4,     RunConsts<kIv6, false, kOv6>::kTemplateEnd,
    RunConsts<kIv6, false, kOv6>::kIlenAt, RunConsts<kIv6, false, kOv6>::kIlenLess};
inline constexpr RunOffsets run_offsets(bool iv6, bool ov6) {
    return iv6 ? (ov6 ? kRunOffsets<true, true> : kRunOffsets<true, false>)
               : (ov6 ? kRunOffsets<false, true> : kRunOffsets<false, false>);
}
// The template's block b of the frame at p, for a run of outer version kOv6
// (the blocks' offsets do not depend on the inner shape).
template <bool kOv6>
inline __m128i load_block(const uint8_t* p, int b) {
    return _mm_loadu_si128(
        reinterpret_cast<const __m128i*>(p + RunConsts<false, false, kOv6>::kBlock[b]));
}

// X(k) for every run kind k, 0 to TunnelRun::kKinds - 1 (a switch's cases:
// a function built for another ISA cannot inline a lambda through a helper
// built for the baseline, so each writes its own switch).
// clang-format off
#define CSUM_FOR_EACH_RUN_KIND(X)                                                          \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) \
    X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29)   \
    X(30) X(31)
// clang-format on

// f.template operator()<K>() for the run kind K that g is, by one switch;
// false for any other g.
template <class F>
[[gnu::always_inline]] inline bool with_run_kind(int g, const F& f) {
    static_assert(TunnelRun::kKinds == 32);
#define CSUM_RUN_KIND_CASE(k) \
    case k:                   \
        return f.template operator()<k>();
    switch (g) {
        CSUM_FOR_EACH_RUN_KIND(CSUM_RUN_KIND_CASE)
        default:
            return false;
    }
#undef CSUM_RUN_KIND_CASE
}

}  // namespace tunnel_run_detail

}  // namespace csum
