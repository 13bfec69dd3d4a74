// The same-shape run of tunnel packets: after a run's first all-good tunnel
// packet, each following one whose headers match its template is settled
// by masked compares, its length fields and the sums it needs, and gets the
// run's verdict copied. The run takes only linear Ethernet / IPv4 or IPv6 /
// UDP / VXLAN, or GENEVE with no options carrying Ethernet, / Ethernet /
// IPv4 or IPv6 / TCP or UDP, all checksums right by software sums (no RX flag) or
// by a PMD that saw the tunnel and said GOOD for every layer it reports (the
// outer IPv4 header summed all the same). Its "no" decides nothing: the packet goes back to the
// per-packet path (classify_common_tunnel / classify_tunnel and
// tunnel_all_good), so a run takes a strict subset of what they take as
// all good, with the same verdict, counts and bytes summed. Chains of the
// same layout: tunnel_chain_run.h. The template: tunnel_template.h; the
// header tests: tunnel_match.h.
#pragma once

#include <immintrin.h>
#include <smmintrin.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/lean_tunnel.h"
#include "engine/run_parts.h"
#include "engine/run_sums.h"
#include "engine/tunnel_match.h"
#include "engine/tunnel_template.h"

namespace csum {

// The run kind of an all-good tunnel packet that tunnel_all_good took (its
// shape s, its flags as it read them), or TunnelRun::kNone if no run is for it.
// A chain starts one too (its front at s.bytes, gathered or its own, must
// outlive start_tunnel_run): its run takes linear packets and chains with
// no bytes after the outer IP packet (tunnel_chain_run.h; not every kind
// has a chain loop).
[[gnu::always_inline]] inline int tunnel_run_kind(const rte_mbuf* m, const TunnelShape& s) {
    const tunnel_run_detail::RunOffsets o = tunnel_run_detail::run_offsets(s.iv6, s.ov6);
    if (s.ol4 != o.ol4 || s.il3 != o.il3 || !s.eth || s.opts != 0) return TunnelRun::kNone;
    if (m->next == nullptr ? !s.whole || s.in_place == nullptr
                           : s.pkt_len != s.ol4 + s.olen || s.held < s.il4 + 8u)
        return TunnelRun::kNone;
    const int k = (s.iv6 ? TunnelRun::kIv6 : 0) | (s.iproto == kShapeUdp ? TunnelRun::kUdp : 0) |
                  (s.ocsum ? TunnelRun::kOcsum : 0) | (s.ov6 ? TunnelRun::kOv6 : 0);
    const uint64_t f = m->ol_flags & lean_detail::kTunnelRxFlags;
    if (f == 0) return k | TunnelRun::kSums;
    if (lean_detail::pmd_vouches_for_tunnel(f, m->packet_type)) return k;
    return TunnelRun::kNone;
}

namespace tunnel_run_detail {

// The run kind of the linear frame at p, its outer version kOv6 known, by
// its bytes and flags: -1 if its inner EtherType is neither IP. Reads
// nothing past the template's end.
template <bool kOv6>
[[gnu::always_inline]] inline int guess_kind(const uint8_t* p, uint64_t ol_flags) {
    using C = RunConsts<false, false, kOv6>;
    const uint16_t iet =
        lean_detail::load16(p + C::il3 - 2);  // 0x0008 IPv4, 0xDD86 IPv6 (as loaded)
    const bool iv6 = iet == 0xDD86;
    if (!iv6 && iet != 0x0008) return TunnelRun::kNone;
    // IPv6's next header at 6, IPv4's protocol at 9; the outer UDP checksum.
    // Both places read, then one chosen: the read does not wait on iet.
    const uint32_t udp6 = p[C::il3 + 6] == 17, udp4 = p[C::il3 + 9] == 17;
    const int k = (kOv6 ? TunnelRun::kOv6 : 0) | (iv6 ? TunnelRun::kIv6 : 0) |
                  ((iv6 ? udp6 : udp4) ? TunnelRun::kUdp : 0) |
                  (lean_detail::load16(p + C::ol4 + 6) != 0 ? TunnelRun::kOcsum : 0);
    return (ol_flags & lean_detail::kTunnelRxFlags) == 0 ? k | TunnelRun::kSums : k;
}

}  // namespace tunnel_run_detail

// The run kind a packet would have by its bytes and flags alone, as an
// index of templates (-1: none), if its outer header is IPv4: a guess, since
// the template's own test decides. d is m's data (rte_pktmbuf_mtod), at
// hand in the mixed runs; it reads nothing past the template's bytes, in the
// segment. Its links are not read: every template's test refuses a chain
// (mbuf_ok), and the read slowed the mixed runs (docs/notebook/issue-15.md).
// The mixed and fill runs' (outer IPv4 only).
[[gnu::always_inline]] inline int tunnel_run_kind_guess_at(const rte_mbuf* m, const uint8_t* d) {
    constexpr uint32_t kEnd = tunnel_run_detail::RunConsts<false, false>::kTemplateEnd;
    if (m->data_len < kEnd || !segment_in_buffer(m)) return TunnelRun::kNone;
    return tunnel_run_detail::guess_kind<false>(d, m->ol_flags);
}

// The same guess for either outer version (kOv6 when the outer EtherType is
// IPv6): the verify run's.
[[gnu::always_inline]] inline int tunnel_run_kind_guess_any_at(const rte_mbuf* m,
                                                               const uint8_t* d) {
    constexpr uint32_t kEnd4 = tunnel_run_detail::RunConsts<false, false>::kTemplateEnd;
    constexpr uint32_t kEnd6 = tunnel_run_detail::RunConsts<false, false, true>::kTemplateEnd;
    if (m->data_len < kEnd4 || !segment_in_buffer(m)) return TunnelRun::kNone;
    if (lean_detail::load16(d + 12) != 0xDD86)
        return tunnel_run_detail::guess_kind<false>(d, m->ol_flags);
    if (m->data_len < kEnd6) return TunnelRun::kNone;
    return tunnel_run_detail::guess_kind<true>(d, m->ol_flags);
}

// The same for a linear packet whose data is not at hand (a run's start).
[[gnu::always_inline]] inline int tunnel_run_kind_guess_any(const rte_mbuf* m) {
    if (m->next != nullptr) return TunnelRun::kNone;
    return tunnel_run_kind_guess_any_at(m, rte_pktmbuf_mtod(m, const uint8_t*));
}

namespace tunnel_run_detail {

// The wide template of a run whose masks are `mask` (outer IPv4): the three
// blocks in one (the third's last two bytes, 76 and 77, are never masked),
// and the length fields; built on any CPU (the tests read its mask), left
// zero under outer IPv6. A run may start at every other packet: 16-byte
// moves, no byte loops.
inline void start_wide_template(TunnelRun* r, const TunnelShape& s, const uint8_t (&mask)[3][16]) {
    constexpr auto& kBlock = RunConsts<false, false>::kBlock;
    if (s.ov6) {
        std::memset(r->wmask, 0, sizeof r->wmask);
        return;
    }
    const uint8_t* p = s.bytes;
    alignas(16) uint8_t wm[64 + 16] = {};
    std::memcpy(wm + (kBlock[0] - kWide), mask[0], 16);
    std::memcpy(wm + (kBlock[1] - kWide), mask[1], 16);
    std::memcpy(wm + (kBlock[2] - kWide), mask[2], 16);
    const RunOffsets o = run_offsets(s.iv6, false);
    const uint32_t fields[3][2] = {{16, 14}, {kOl4 + 4, kOl4}, {o.ilen_at, o.ilen_less}};
    for (const auto& [at, less] : fields) wm[at - kWide] = wm[at - kWide + 1] = 0xFF;
    for (uint32_t j = 0; j < 64; j += 16) {
        const __m128i mk = _mm_load_si128(reinterpret_cast<const __m128i*>(wm + j));
        _mm_store_si128(reinterpret_cast<__m128i*>(r->wmask + j), mk);
        _mm_store_si128(
            reinterpret_cast<__m128i*>(r->wvalue + j),
            _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kWide + j)), mk));
        _mm_store_si128(reinterpret_cast<__m128i*>(r->wless) + j / 16, _mm_setzero_si128());
    }
    for (const auto& [at, less] : fields) {
        r->wvalue[at - kWide] = r->wvalue[at - kWide + 1] = 0;  // the packet's own
        r->wless[(at - kWide) / 2] = static_cast<uint16_t>(less + r->trailer);
    }
}

}  // namespace tunnel_run_detail

// Sets r up for a run of the kind `kind` whose first packet has shape s
// (at s.bytes), outcome key and packet_type ptype. Of s it reads bytes,
// pkt_len, ov6, iv6, iproto, ocsum and olen (fill mode's sets no more).
inline void start_tunnel_run(TunnelRun* r, const ShapeConfig& sc, const TunnelShape& s, int kind,
                             uint32_t key, uint32_t ptype) {
    using namespace tunnel_run_detail;
    const uint32_t ol4 = run_offsets(s.iv6, s.ov6).ol4;
    alignas(16) uint8_t mask[3][16] = {};
    mask[0][0] = mask[0][1] = 0xFF;  // the outer EtherType
    if (s.ov6) {
        mask[0][2] = 0xF0, mask[0][8] = 0xFF;  // version, next header
    } else {
        // Version and IHL, MF and fragment offset, protocol.
        mask[0][2] = 0xFF, mask[0][8] = 0x3F, mask[0][9] = 0xFF, mask[0][11] = 0xFF;
    }
    // Outer UDP destination port (VXLAN or GENEVE, as the first packet's).
    const uint8_t* p = s.bytes;
    mask[1][2] = mask[1][3] = 0xFF;
    if (!s.ocsum) mask[1][6] = mask[1][7] = 0xFF;  // a zero checksum stays zero
    if (!sc.cfg->vxlan_ports.contains(static_cast<uint16_t>(be16_at(p + ol4 + 2)))) {
        mask[1][8] = 0x3F;                 // GENEVE: no options
        mask[1][10] = mask[1][11] = 0xFF;  // carrying Ethernet
    }
    // Inner: EtherType, version (and IHL, fragment), protocol.
    mask[2][0] = mask[2][1] = 0xFF;
    if (s.iv6) {
        mask[2][2] = 0xF0, mask[2][8] = 0xFF;
    } else {
        mask[2][2] = 0xFF, mask[2][8] = 0x3F, mask[2][9] = 0xFF, mask[2][11] = 0xFF;
    }
    for (int b = 0; b < 3; ++b) {
        r->mask[b] = _mm_load_si128(reinterpret_cast<const __m128i*>(mask[b]));
        r->value[b] =
            _mm_and_si128(s.ov6 ? load_block<true>(p, b) : load_block<false>(p, b), r->mask[b]);
    }
    r->trailer = s.pkt_len - (ol4 + s.olen);
    r->wide = cpu_wide() && !force_narrow && !s.ov6;
    r->ptype = ptype;
    start_wide_template(r, s, mask);
    TunnelOutcomes::verdict_of_key(key, &r->v);
    r->key = key;
    // As tunnel_all_good counts: the outer IPv4 header (not with flags and
    // inner IPv6: the IP flag is the outer header's; none in IPv6); with sums, the inner
    // IP header if IPv4 or under the outer UDP sum, and the bytes from the
    // outer UDP header to the inner IP one if that sum is present.
    r->hdr = s.ov6 || ((kind & TunnelRun::kSums) == 0 && s.iv6) ? 0 : 20;
    if (kind & TunnelRun::kSums) {
        if (!s.iv6 || s.ocsum) r->hdr += s.il4 - s.il3;
        if (s.ocsum) r->hdr += s.il3 - s.ol4;
    }
    r->kind = kind;
}

// What a run took: packets [i, returned), their bytes (pkt_len) and the
// bytes summed.
struct TunnelRunTook {
    uint64_t bytes = 0, summed = 0;
};

// What a mixed run took, per template slot (kSlots of them): packets and
// the sum of their inner L4 lengths (add_took makes the bytes of them).
template <int kSlots>
struct KindTook {
    static_assert(kSlots <= 32);  // a bit a slot
    uint64_t l4_sum[kSlots];
    uint32_t count[kSlots];
    uint32_t kinds = 0;  // bit k: count[k] and l4_sum[k] set
    // One more packet in slot k, of inner L4 length l4.
    [[gnu::always_inline]] void add(int k, int64_t l4) {
        const uint32_t bit = 1u << k;
        if ((kinds & bit) == 0) kinds |= bit, l4_sum[k] = 0, count[k] = 0;
        l4_sum[k] += static_cast<uint64_t>(l4);
        ++count[k];
    }
};

namespace tunnel_run_detail {

// The mbuf's part of the test: nb_segs == 1, the flags the kind takes and,
// with flags, the tunnel packet type of the run's first packet (a PMD that
// saw the tunnel), in one masked compare of bytes 20..35; no next segment.
[[gnu::always_inline]] inline bool mbuf_ok(const rte_mbuf* m, __m128i mask, __m128i good) {
    static_assert(offsetof(rte_mbuf, nb_segs) == 20 && offsetof(rte_mbuf, ol_flags) == 24 &&
                  offsetof(rte_mbuf, packet_type) == 32);
    const __m128i w =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(reinterpret_cast<const char*>(m) + 20));
    return _mm_testz_si128(_mm_xor_si128(w, good), mask) && m->next == nullptr;
}
template <bool kSums>
inline __m128i mbuf_mask() {
    constexpr uint64_t f = lean_detail::kTunnelRxFlags;
    return _mm_set_epi32(int(kSums ? 0 : RTE_PTYPE_TUNNEL_MASK), int(f >> 32), int(uint32_t(f)),
                         0xFFFF);
}
template <bool kSums>
inline __m128i mbuf_good(const TunnelRun& r) {
    constexpr uint64_t f = kSums ? 0 : lean_detail::kTunnelAllGood;
    return _mm_set_epi32(int(kSums ? 0 : r.ptype & RTE_PTYPE_TUNNEL_MASK), int(f >> 32),
                         int(uint32_t(f)), 1);
}

// k plus the frame's bytes from the outer pseudo-header's addresses to the
// inner ones, [kOaddr, kIaddr): whole words, then 6 bytes (inner IPv6) or 2.
// The outer UDP sum's part that is not in the inner L4 check (take_headers,
// fill_outer).
template <bool kIv6, bool kUdp, bool kOv6>
[[gnu::always_inline]] inline uint64_t outer_span_sum(uint64_t k, const uint8_t* p) {
    using namespace lean_detail;
    using C = RunConsts<kIv6, kUdp, kOv6>;
    constexpr uint32_t kLen = C::kIaddr - C::kOaddr, kWords = kLen / 8, kEnd = C::kIaddr;
    static_assert(kLen % 8 == (kIv6 ? 6 : 2));
    uint64_t a = kIv6 ? k + load32(p + kEnd - 6) + load16(p + kEnd - 2) : k + load16(p + kEnd - 2);
    if constexpr (kWords > 8) {  // outer IPv6, inner IPv4: 9 words
        a = adc_words<kWords - 8, C::kOaddr + 64>(a, p);
        return adc_words<8, C::kOaddr>(a, p);
    } else {
        return adc_words<kWords, C::kOaddr>(a, p);
    }
}

// The header part of a packet's test once its headers match the template
// and its three length fields are the run's (l4_len the inner L4 length
// they say): the outer UDP checksum's presence, the inner L4 header, the
// outer IPv4 header and, with the outer UDP sum, the header bytes it covers
// beyond the inner L4 check's. Reads the frame's first il4 + 20 (TCP) or
// il4 + 8 (UDP) bytes only: the chain run's gathered front holds them.
template <bool kSums, bool kIv6, bool kUdp, bool kOcsum, bool kPorts, bool kOv6 = false>
[[gnu::always_inline]] inline bool take_headers(const ShapeConfig& sc, const uint8_t* p,
                                                uint32_t l4_len) {
    using namespace lean_detail;
    using C = RunConsts<kIv6, kUdp, kOv6>;
    constexpr uint32_t il4 = C::il4, kHdr = C::kHdr;
    // A run with the outer UDP sum present takes none without (zero
    // stands for 0xFFFF in the sums, not for "absent").
    if (kOcsum && load16(p + C::ol4 + 6) == 0) return false;
    const uint8_t* th = p + il4;
    if (kUdp) {
        // Its length the inner IP one's, a checksum, no special port (a
        // port whose low byte is one's: the per-packet path decides).
        if (be16_at(th + 4) != l4_len || load16(th + 6) == 0 || sc.udp_hit[th[3]] != 0)
            return false;
    } else if (same_detail::kTcpMinL4.at[th[12]] > l4_len ||
               (kPorts && (sc.tcp_hit[th[1]] | sc.tcp_hit[th[3]]) != 0)) {
        return false;  // data offset below 5 words or past the segment; a special port
    }
    // The outer IPv4 header; never all zero (its first byte is 0x45). With
    // flags and inner IPv6, the IP flag is the outer header's (as
    // tunnel_hw_flags reads it): the PMD vouched for it too.
    if (!kOv6 && !(!kSums && kIv6) && !mod_ffff_zero_mem(adc_words<2, 14>(load32(p + 30), p)))
        return false;
    if (!kSums) return true;  // the PMD vouched for the rest
    if (kOcsum) {
        // The outer UDP sum covers its pseudo-header (addresses at kOaddr,
        // 256 x (17 + U) as loaded, U its length) and every byte from the
        // outer UDP header to the end. The inner L4 check's region and
        // pseudo-header (256 x (iproto + l4_len)), which sum to 0 modulo
        // 0xFFFF, taken out leave the bytes from kOaddr to the inner
        // addresses plus 256 x (17 - iproto + kHdr), the lengths checked
        // (l4_len = U - kHdr). The payload is not summed again.
        constexpr uint64_t kIproto = kUdp ? kShapeUdp : kShapeTcp;
        constexpr uint64_t kK = (kShapeUdp + kHdr - kIproto) << 8;
        const uint64_t a = outer_span_sum<kIv6, kUdp, kOv6>(kK, p);
        return mod_ffff_zero_mem(a);
    }
    return true;
}

// The rest of a packet's test once its headers match the template:
// take_headers, then the inner IPv4 header and the inner L4 sum.
template <bool kSums, bool kIv6, bool kUdp, bool kOcsum, bool kPorts, bool kOv6 = false>
[[gnu::always_inline]] inline bool take_rest(const ShapeConfig& sc, uint8_t* p, uint32_t l4_len,
                                             KnownSum* known) {
    using namespace lean_detail;
    using C = RunConsts<kIv6, kUdp, kOv6>;
    constexpr uint32_t il4 = C::il4, il3 = C::il3;
    if (!take_headers<kSums, kIv6, kUdp, kOcsum, kPorts, kOv6>(sc, p, l4_len)) return false;
    if (!kSums) return true;  // the PMD vouched for the rest
    // The inner IPv4 header, and the inner L4 check: with the addresses just
    // before the L4 header, one region from them of kA + l4_len bytes plus
    // 256 x (iproto + l4_len) (the IP length field as loaded, IPv4's less
    // its 20), as run_sums_good sums a plain packet's, at fixed offsets from
    // the frame. Long ones as the plain run's (run_long_sums, from the inner
    // frame on).
    constexpr uint32_t kA = kIv6 ? 32 : 8, kR = il4 - kA;
    constexpr uint32_t kW = (kA + (kUdp ? 8 : 20)) / 8;  // words every packet has
    const uint32_t nb = kA + l4_len;
    if (__builtin_expect(nb > kRunInlineRegion, 0))
        return run_long_sums<kIv6, kUdp>(detail::inet_plan_now(), p + (il3 - 14), l4_len, known);
    if (!kIv6 && !mod_ffff_zero_mem(adc_words<2, il3>(load32(p + il3 + 16), p))) return false;
    // The last nb % 8 bytes: the word ending there shifted down (by 64 when
    // there are none: x86 shifts by its count mod 64).
    uint64_t tail = load64(p + kR + nb - 8) >> 8;
    asm("shrq %%cl, %0" : "+r"(tail) : "c"((7u - nb) << 3) : "cc");
    constexpr uint32_t kProto = kUdp ? kShapeUdp : kShapeTcp;
    const uint64_t k = kIv6 ? load16(p + C::kIlenAt) + (kProto << 8)
                            : load16(p + C::kIlenAt) + (0xFFFFu + (kProto << 8) - (20u << 8));
    constexpr uint32_t kShort = kTunnelShortRegion;
    return mod_ffff_zero_mem(
        __builtin_expect(nb > kShort, 0)
            ? adc_words_n<kW, kR + kRunInlineRegion, kR>(k + tail, p, nb / 8,
                                                         rest_adx(detail::inet_plan_loaded()))
            : add_words_below<kW, kShort, kR>(adc_words<kW, kR>(k + tail, p), p, nb));
}

// What a run of r's kind took, from its packet count and the sum of their
// inner L4 lengths: each packet's pkt_len is that plus the inner L4 offset
// and the trailer; its summed bytes are that plus the run's header bytes.
inline void add_took(const TunnelRun& r, uint64_t l4_sum, unsigned count, TunnelRunTook* took) {
    const uint32_t il4 =
        run_offsets((r.kind & TunnelRun::kIv6) != 0, (r.kind & TunnelRun::kOv6) != 0).il4;
    took->bytes += l4_sum + uint64_t{il4 + r.trailer} * count;
    took->summed += uint64_t{r.hdr} * count + ((r.kind & TunnelRun::kSums) != 0 ? l4_sum : 0);
}

// One packet's whole test against the run of kind <kSums, kIv6, kUdp,
// kOcsum> whose mbuf test is (mmask, mgood) and whose packets' pkt_len is
// base plus their inner L4 length; match is its header test. Sets *l4 to the
// packet's inner L4 length when it says yes; writes no verdict.
template <bool kSums, bool kIv6, bool kUdp, bool kOcsum, bool kPorts, class Match,
          bool kOv6 = false>
[[gnu::always_inline]] inline bool take_one(const ShapeConfig& sc, rte_mbuf* m, uint8_t* p,
                                            __m128i mmask, __m128i mgood, int64_t base,
                                            const Match& match, int64_t* l4_out) {
    using C = RunConsts<kIv6, kUdp, kOv6>;
    if (!mbuf_ok(m, mmask, mgood)) return false;
    // The inner L4 length pkt_len leaves, at least its header,
    // pkt_len <= data_len, and the data inside the buffer, in one test.
    const uint32_t len = m->pkt_len;
    const int64_t l4 = int64_t{len} - base;
    const int64_t dl = m->data_len;
    if (((l4 - C::kLeastL4) | (dl - len) | (int64_t{m->buf_len} - m->data_off - dl)) < 0)
        return false;
    if (!match(p, len, l4)) return false;
    KnownSum known;  // unused: out here, not set up per packet
    if (!take_rest<kSums, kIv6, kUdp, kOcsum, kPorts, kOv6>(sc, p, static_cast<uint32_t>(l4),
                                                            &known))
        return false;
    *l4_out = l4;
    return true;
}

}  // namespace tunnel_run_detail

namespace tunnel_run_detail {

// A run's loop over [p, end): take(m, data) per packet until it says no;
// returns where it stopped. Headers to the inner L4 one span two cache
// lines: both prefetched. Each packet's data pointer is the one loaded when
// it was prefetched, kRunAhead packets before (as take_while_data), not
// reloaded. Shared by the verify run and fill mode's tunnel run.
template <class Take>
[[gnu::always_inline]] inline rte_mbuf** prefetched_run(rte_mbuf** p, rte_mbuf** const end,
                                                        long voff, const Take& take) {
    constexpr unsigned kAhead = run_parts::kRunAhead;
    static_assert(kAhead == 3);
    if (end - p > kAhead) {
        uint8_t* d0 = rte_pktmbuf_mtod(p[0], uint8_t*);
        uint8_t* d1 = rte_pktmbuf_mtod(p[1], uint8_t*);
        uint8_t* d2 = rte_pktmbuf_mtod(p[2], uint8_t*);
        for (rte_mbuf** const last = end - kAhead; p != last; ++p) {
            rte_mbuf* a = p[kAhead];
            uint8_t* const da = rte_pktmbuf_mtod(a, uint8_t*);
            rte_prefetch0(da);
            rte_prefetch0(da + 64);
            rte_prefetch0(reinterpret_cast<char*>(a) + voff);
            if (!take(*p, d0)) return p;
            d0 = d1, d1 = d2, d2 = da;
        }
    }
    for (; p != end; ++p)
        if (!take(*p, rte_pktmbuf_mtod(*p, uint8_t*))) break;
    return p;
}

// Where a run stopped (the first packet it did not take) and the sum of
// the inner L4 lengths of those it took: returned in two registers, so
// that the loop keeps none of its caller's values live (add_took after it).
struct RunEnd {
    rte_mbuf** end;
    uint64_t l4_sum;
};

// The run of kind <kSums, kIv6, kUdp, kOcsum> from p to end, for either
// header compare: match(p, len, l4) says whether the frame at p, of pkt_len
// len and inner L4 length l4, has the template's headers and the lengths
// len and the trailer make them. The packets it takes get r's verdict.
// Inlined into same_tunnel_run and same_tunnel_run_wide, each built for
// its compare's ISA.
template <bool kSums, bool kIv6, bool kUdp, bool kOcsum, bool kPorts, class Match,
          bool kOv6 = false>
[[gnu::always_inline]] inline RunEnd run_loop(const ShapeConfig& sc, const TunnelRun& r,
                                              rte_mbuf** p, rte_mbuf** const end, long voff,
                                              const Match& match) {
    using namespace lean_detail;
    using C = RunConsts<kIv6, kUdp, kOv6>;
    const __m128i mmask = mbuf_mask<kSums>(), mgood = mbuf_good<kSums>(r);
    const run_parts::RunVerdict verdict(&r.v, voff);
    const int64_t base = int64_t{C::il4} + r.trailer;  // pkt_len less the inner L4 length
    uint64_t l4_sum = 0;
    // Scalars by value: by reference, some stay in memory.
    auto take = [&l4_sum, &sc, &verdict, mmask, mgood, match, base](rte_mbuf* m, uint8_t* p)
                    [[gnu::always_inline]] {
                        int64_t l4;
                        if (!take_one<kSums, kIv6, kUdp, kOcsum, kPorts, Match, kOv6>(
                                sc, m, p, mmask, mgood, base, match, &l4))
                            return false;
                        l4_sum += static_cast<uint64_t>(l4);
                        verdict.write(m);
                        return true;
                    };
    return {prefetched_run(p, end, voff, take), l4_sum};
}

}  // namespace tunnel_run_detail

// The run (run_loop) with the narrow header test.
template <bool kSums, bool kIv6, bool kUdp, bool kOcsum, bool kPorts, bool kOv6 = false>
[[gnu::noinline]] tunnel_run_detail::RunEnd same_tunnel_run(const ShapeConfig& sc,
                                                            const TunnelRun& r, rte_mbuf** from,
                                                            rte_mbuf** end, long voff) {
    using namespace tunnel_run_detail;
    using Match = NarrowMatch<kIv6, kUdp, kOv6>;
    return run_loop<kSums, kIv6, kUdp, kOcsum, kPorts, Match, kOv6>(sc, r, from, end, voff,
                                                                    Match(r));
}

// The same run with the wide one. flatten: the run calls nothing out of
// line, and run_loop's take gets the AVX-512 compare inlined.
template <bool kSums, bool kIv6, bool kUdp, bool kOcsum, bool kPorts>
[[gnu::noinline, gnu::flatten]] CSUM_TUNNEL_WIDE tunnel_run_detail::RunEnd same_tunnel_run_wide(
    const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** from, rte_mbuf** end, long voff) {
    using namespace tunnel_run_detail;
    return run_loop<kSums, kIv6, kUdp, kOcsum, kPorts>(sc, r, from, end, voff,
                                                       WideMatch<kIv6, kUdp>(r));
}

template <bool kSums, bool kIv6, bool kUdp, bool kOcsum, bool kOv6>
inline unsigned tunnel_run_of(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts,
                              unsigned i, unsigned n, long voff, TunnelRunTook* took) {
    using tunnel_run_detail::RunEnd;
    rte_mbuf** const from = pkts + i;
    rte_mbuf** const end = pkts + n;
    // Special TCP ports per config: tested only where there are some.
    RunEnd e;
    if constexpr (kOv6) {  // the narrow compare only
        e = !kUdp && sc.tcp_ports
                ? same_tunnel_run<kSums, kIv6, kUdp, kOcsum, true, true>(sc, r, from, end, voff)
                : same_tunnel_run<kSums, kIv6, kUdp, kOcsum, false, true>(sc, r, from, end, voff);
    } else if (!kUdp && sc.tcp_ports) {
        e = r.wide ? same_tunnel_run_wide<kSums, kIv6, kUdp, kOcsum, true>(sc, r, from, end, voff)
                   : same_tunnel_run<kSums, kIv6, kUdp, kOcsum, true>(sc, r, from, end, voff);
    } else {
        e = r.wide ? same_tunnel_run_wide<kSums, kIv6, kUdp, kOcsum, false>(sc, r, from, end, voff)
                   : same_tunnel_run<kSums, kIv6, kUdp, kOcsum, false>(sc, r, from, end, voff);
    }
    const auto count = static_cast<unsigned>(e.end - from);
    tunnel_run_detail::add_took(r, e.l4_sum, count, took);
    return i + count;
}

namespace tunnel_run_detail {

using RunOf = unsigned (*)(const ShapeConfig&, const TunnelRun&, rte_mbuf**, unsigned, unsigned,
                           long, TunnelRunTook*);
template <int K>
inline constexpr RunOf kRunOf =
    &tunnel_run_of<(K & TunnelRun::kSums) != 0, (K & TunnelRun::kIv6) != 0,
                   (K & TunnelRun::kUdp) != 0, (K & TunnelRun::kOcsum) != 0,
                   (K & TunnelRun::kOv6) != 0>;
template <int... K>
constexpr std::array<RunOf, sizeof...(K)> run_table(std::integer_sequence<int, K...>) {
    return {kRunOf<K>...};
}
// Each kind's run, by its kind (one indirect call a run, none a packet).
inline constexpr auto kRunTable = run_table(std::make_integer_sequence<int, TunnelRun::kKinds>());

}  // namespace tunnel_run_detail

// The run r from pkts[i] (r.kind not kNone).
inline unsigned tunnel_run_dispatch(const ShapeConfig& sc, const TunnelRun& r, rte_mbuf** pkts,
                                    unsigned i, unsigned n, long voff, TunnelRunTook* took) {
    if (static_cast<unsigned>(r.kind) >= TunnelRun::kKinds) return i;
    return tunnel_run_detail::kRunTable[static_cast<unsigned>(r.kind)](sc, r, pkts, i, n, voff,
                                                                       took);
}

}  // namespace csum
