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

// The fill run's test of the frame at p's headers that its template does
// not hold: the inner L4 header's (inner_l4_ok), and the outer UDP field
// over IPv6: zero is illegal there but where the port allows it (RFC 6935),
// and a drop: the per-packet path decides.
template <bool kIv6, bool kUdp, bool kPorts, bool kOv6>
[[gnu::always_inline]] inline bool fill_headers_ok(const ShapeConfig& sc, const uint8_t* p,
                                                   uint32_t l4_len) {
    using C = tunnel_run_detail::RunConsts<kIv6, kUdp, kOv6>;
    return inner_l4_ok<kUdp, kPorts>(sc, p + C::il4, l4_len) &&
           !(kOv6 && lean_detail::load16(p + C::ol4 + 6) == 0);
}

// The outer fields of the frame at p (fill_one), its inner ones already
// written: the inner IP header (with its new field) and the inner L4 region
// with its pseudo-header (with its new field) each sum to 0 modulo 0xFFFF,
// so the outer UDP sum (its pseudo-header and every byte from the outer UDP
// header to the end) is the bytes from the outer addresses to the inner
// ones (outer_span_sum) plus 256 x (17 + U - iproto - l4_len) = 256 x (17 +
// kHdr - iproto) (proto and length words as loaded), its own field taken
// out: no payload byte again. Then the outer IPv4 header's field (none in
// IPv6).
template <bool kIv6, bool kUdp, bool kOv6 = false>
[[gnu::always_inline]] inline void fill_outer(uint8_t* p) {
    using namespace lean_detail;
    using C = RunConsts<kIv6, kUdp, kOv6>;
    constexpr uint64_t kIproto = kUdp ? kShapeUdp : kShapeTcp;
    constexpr uint64_t kK = (kShapeUdp + C::kHdr - kIproto) << 8;
    const uint64_t a = tunnel_run_detail::outer_span_sum<kIv6, kUdp, kOv6>(
        kK + (0xFFFFu - load16(p + C::ol4 + 6)), p);
    // The outer UDP field and IPv4 header: a plain UDP/IPv4 (or IPv6)
    // packet's store, at the same offsets.
    run_fill_store<kOv6, true>(p, a);
}

// The fields of the frame at p, innermost first, as lean_tunnel_work writes
// them. The inner frame (at il3 - 14) is a plain packet's layout: run_fill
// fills its L4 field and IPv4 header; then the outer ones. With the adc
// rest loop: the two-chain one cost these loops' 256-B frames 0.7-1.6 ticks
// (eight code layouts, Intel Xeon family 6 model 207).
template <bool kIv6, bool kUdp, bool kOv6 = false>
[[gnu::always_inline]] inline void fill_one(uint32_t plan, uint8_t* p, uint32_t l4_len) {
    lean_detail::run_fill<kIv6, kUdp>(plan & ~detail::kPlanAdxRest,
                                      p + (RunConsts<kIv6, kUdp, kOv6>::il3 - 14), l4_len);
    fill_outer<kIv6, kUdp, kOv6>(p);
}

}  // namespace csum::tunnel_fill_detail
