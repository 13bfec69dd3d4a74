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
// outer UDP checksum present, else zero in the template).
struct TunnelRun {
    static constexpr int kNone = -1, kSums = 1, kIv6 = 2, kUdp = 4, kOcsum = 8;
    // Frame bytes 12..27 (outer EtherType, IPv4 up to its protocol), 34..49
    // (outer UDP: destination port, checksum when zero; GENEVE's option
    // length and protocol) and 62..77 (inner EtherType, IP version, IHL,
    // fragment, protocol): (bytes ^ value) & mask is zero in every packet.
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

inline constexpr uint32_t kOl4 = 34, kIl3 = 64;  // the run's offsets
inline constexpr uint32_t kBlock[3] = {12, 34, 62};
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

inline __m128i load_block(const uint8_t* p, int b) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kBlock[b]));
}
inline uint32_t be16_at(const uint8_t* p) {
    return shape_detail::be16(p);
}

template <bool kIv6, bool kUdp>
struct RunConsts {
    static constexpr uint32_t il4 = kIv6 ? 104 : 84, kHdr = il4 - kOl4;
    static constexpr int64_t kLeastL4 = kUdp ? 8 : 20;  // the inner L4 header
    // The inner IP length field, and what it is less than the IP packets' end.
    static constexpr uint32_t kIlenAt = kIv6 ? kIl3 + 4 : kIl3 + 2, kIlenLess = kIv6 ? il4 : kIl3;
};

}  // namespace tunnel_run_detail

}  // namespace csum
