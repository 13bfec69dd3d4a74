// Fill mode's tunnel run parts (tunnel_fill_run.cpp for linear packets,
// tunnel_chain_run_avx2.cpp for chains): the inner L4 header's test and the
// four fields of a frame of the run's layout.
#pragma once

#include <cstdint>

#include "engine/run_sums.h"
#include "engine/tunnel_run.h"

namespace csum::tunnel_fill_detail {

using tunnel_run_detail::RunConsts;

// The inner L4 header as take_rest tests it: UDP's length the inner IP
// one's, a checksum, no port whose low byte is a special one's; TCP's data
// offset at least 5 words and within the segment, no special port.
template <bool kUdp, bool kPorts>
[[gnu::always_inline]] inline bool inner_l4_ok(const ShapeConfig& sc, const uint8_t* th,
                                               uint32_t l4_len) {
    if (kUdp)
        return tunnel_run_detail::be16_at(th + 4) == l4_len && lean_detail::load16(th + 6) != 0 &&
               sc.udp_hit[th[3]] == 0;
    return same_detail::kTcpMinL4.at[th[12]] <= l4_len &&
           !(kPorts && (sc.tcp_hit[th[1]] | sc.tcp_hit[th[3]]) != 0);
}

// The outer two of the four fields of the frame at p (fill_one), its
// inner ones already written: the inner IP header (with its new field) and
// the inner L4 region with its pseudo-header (with its new field) each sum
// to 0 modulo 0xFFFF, so the outer UDP sum (its pseudo-header and bytes 34
// to the end) is the bytes from the outer addresses (26) to the inner ones
// (76, IPv6: 72) plus 256 x (17 + U - iproto - l4_len) = 256 x (17 + kHdr -
// iproto) (proto and length words as loaded), its own field taken out: no
// payload byte again.
template <bool kIv6, bool kUdp>
[[gnu::always_inline]] inline void fill_outer(uint8_t* p) {
    using namespace lean_detail;
    constexpr uint64_t kIproto = kUdp ? kShapeUdp : kShapeTcp;
    constexpr uint64_t kK = (kShapeUdp + RunConsts<kIv6, kUdp>::kHdr - kIproto) << 8;
    const uint64_t k = kK + (0xFFFFu - load16(p + 40));
    const uint64_t a = kIv6 ? adc_words<5, 26>(k + load32(p + 66) + load16(p + 70), p)  // [26, 72)
                            : adc_words<6, 26>(k + load16(p + 74), p);                  // [26, 76)
    // The outer UDP field (at 40, as a plain UDP/IPv4 packet's) and the outer
    // IPv4 header: a plain UDP/IPv4 packet's store.
    run_fill_store<false, true>(p, a);
}

// The four fields of the frame at p, innermost first, as lean_tunnel_work
// writes them. The inner frame (at 50) is a plain packet's layout: run_fill
// fills its L4 field and IPv4 header; then the outer ones.
template <bool kIv6, bool kUdp>
[[gnu::always_inline]] inline void fill_one(uint32_t plan, uint8_t* p, uint32_t l4_len) {
    lean_detail::run_fill<kIv6, kUdp>(plan, p + 50, l4_len);
    fill_outer<kIv6, kUdp>(p);
}

}  // namespace csum::tunnel_fill_detail
