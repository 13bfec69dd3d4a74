// Fill mode's same-shape run for chains: plain TCP/UDP packets in at most
// kInetMaxPieces segments, after a packet of their shape the lean path
// filled, filled with the lean path's bytes, verdict and counts. On
// AVX-512 chain_walk::fill_avx512 takes the run, on AVX2 fill_avx2, and
// each hands any chain its walks refuse (a padded frame, more bytes than
// pkt_len; on AVX2 any short one) to fill_chain here (fill_general);
// elsewhere this loop fills every chain. Each chain is
// walked once (its segments checked as classify() checks them and kept as
// pieces), its headers read in place or gathered from the pieces, the L4
// region summed from the pieces, and the two fields written where they
// lie, a field split by a segment boundary byte by byte. Any chain the walk
// or the shape test refuses ends the run, untouched, for the per-packet
// path.

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "csum/inet.h"
#include "engine/chain_walk.h"
#include "engine/engine_impl.h"
#include "engine/run_parts.h"
#include "engine/run_sums.h"
#include "engine/sctp_crc.h"
#include "engine/tunnel_fill_mixed.h"
#include "mbuf/inet_mbuf_chain.h"
#include "mbuf/segment_read.h"

namespace csum {
namespace {

using namespace word_sum;

// A walked chain: its segments' data and lengths.
struct Pieces {
    uint8_t* p[detail::kInetMaxPieces];
    uint32_t n[detail::kInetMaxPieces];
    uint32_t count;
};

// True if m holds exactly nb_segs (<= kInetMaxPieces) segments, each inside
// its buffer, with at least pkt_len bytes: what classify's gather_front
// takes. A looped chain stops at nb_segs.
[[gnu::always_inline]] inline bool walk_chain(rte_mbuf* m, uint32_t len, Pieces* pc) {
    const uint32_t nb = m->nb_segs;
    if (nb > detail::kInetMaxPieces) return false;
    uint32_t c = 0;
    uint64_t bytes = 0;
    for (rte_mbuf* g = m; g != nullptr; g = g->next) {
        if (c == nb || !segment_in_buffer(g)) return false;
        pc->p[c] = rte_pktmbuf_mtod(g, uint8_t*);
        pc->n[c] = g->data_len;
        bytes += g->data_len;
        ++c;
    }
    pc->count = c;
    return c == nb && bytes >= len;
}

// The first want bytes (want <= the pieces' bytes) copied to d.
[[gnu::always_inline]] inline void gather(const Pieces& pc, uint8_t* d, uint32_t want) {
    for (uint32_t i = 0; want != 0; ++i) {
        const uint32_t k = pc.n[i] < want ? pc.n[i] : want;
        shape_detail::small_copy(d, pc.p[i], k);
        d += k, want -= k;
    }
}

// Bytes b[0, n) at packet offset off (off + n <= the pieces' bytes),
// written where they lie: a field that a piece ends split byte by byte,
// over any empty pieces.
[[gnu::always_inline]] inline void put_bytes(const Pieces& pc, uint32_t off, const void* b,
                                             uint32_t n) {
    uint32_t i = 0;
    // The count bounds the walk, though the pieces hold the field.
    auto seek = [&] {
        while (i < pc.count && off >= pc.n[i]) off -= pc.n[i++];
        return i < pc.count;
    };
    if (!seek()) return;
    if (off + n <= pc.n[i]) {
        std::memcpy(pc.p[i] + off, b, n);
        return;
    }
    for (uint32_t k = 0; k < n; ++k, ++off) {
        if (!seek()) return;
        pc.p[i][off] = static_cast<const uint8_t*>(b)[k];
    }
}

// A walked chain and its first want bytes: in its first segment, or
// gathered into buf. Fields are written back where they lie.
struct ChainFront {
    Pieces pc;
    alignas(16) uint8_t buf[kHeaderGather];
    uint8_t* p;
    bool in_place;

    // False if walk_chain refuses m, or want is over len or kHeaderGather
    // (the buffer's bound held here, not by the callers).
    [[gnu::always_inline]] bool take(rte_mbuf* m, uint32_t len, uint32_t want) {
        if (want > kHeaderGather || want > len || !walk_chain(m, len, &pc)) return false;
        in_place = pc.n[0] >= want;
        p = in_place ? pc.p[0] : buf;
        if (!in_place) gather(pc, buf, want);
        return true;
    }
    // n bytes at off, which lie inside want when in place.
    [[gnu::always_inline]] void put(uint32_t off, const void* b, uint32_t n) {
        if (in_place)
            std::memcpy(p + off, b, n);
        else
            put_bytes(pc, off, b, n);
    }
};

// Bytes [off, off + len) of the pieces (which hold them), summed as 64-bit
// ones' complement (congruent modulo 0xFFFF): a call per long piece (the
// carried-state kernel's set-up costs more on 2-4 pieces); a piece at an odd region position
// rotated by 8 bits (times 256: a byte swap, modulo 0xFFFF, which divides 2^64 - 1).
[[gnu::noinline]] uint64_t pieces_sum(uint32_t plan, const Pieces& pc, uint32_t off, uint32_t len) {
    uint32_t i = 0;
    while (off >= pc.n[i]) off -= pc.n[i++];
    uint64_t acc = 0;
    for (uint32_t pos = 0; len != 0; ++i, off = 0) {
        const uint32_t k = pc.n[i] - off < len ? pc.n[i] - off : len;
        if (k == 0) continue;
        const uint8_t* q = pc.p[i] + off;
        // The kernels from 64 bytes on (run_l4_sum's 128-byte inline sum
        // costs twice their instructions), inline below.
        const uint64_t s = k > kShortSum ? detail::inet_sum_planned(plan, q, k, 0)
                           : k >= 8      ? short_sum64(q, k, 0)
                                         : lean_detail::small_sum(q, k);
        acc = add_carry(acc, pos & 1 ? s << 8 | s >> 56 : s);
        pos += k, len -= k;
    }
    return acc;
}

// One chain of shape (kV6, kUdp): filled as lean_work fills it. False, with
// nothing written, if it is not such a chain. *l4_len_out: its L4 bytes.
template <bool kV6, bool kUdp, bool kPorts>
[[gnu::always_inline]] inline bool fill_chain(const ShapeConfig& sc, uint32_t plan, rte_mbuf* m,
                                              uint32_t* l4_len_out) {
    constexpr uint32_t kL4 = kV6 ? 54 : 34, kField = kL4 + (kUdp ? 6 : 16);
    constexpr uint32_t kNeed = kL4 + (kUdp ? 8 : 20);  // past the L4 field
    const uint32_t len = m->pkt_len;
    // As classify: a short chain gathered whole, a longer one its headers.
    const bool whole = len <= kHeaderGather;
    ChainFront f;
    if (!f.take(m, len, whole ? len : kNeed)) return false;
    const uint8_t* p = f.p;
    uint32_t l4_len;
    if (!same_plain_shape<kV6, kUdp, kPorts>(sc, p, len, &l4_len)) return false;
    const uint8_t* ip = p + 14;
    const uint8_t* th = p + kL4;
    constexpr uint64_t kProto = kUdp ? kShapeUdp : kShapeTcp;
    const uint64_t k = (kProto + l4_len) << 8;  // as fill_short
    const uint64_t addrs =
        kV6 ? adc_words<4>(k, ip + 8) : k + uint64_t{load32(ip + 12)} + load32(ip + 16);
    const uint64_t d = !whole                ? pieces_sum(plan, f.pc, kL4, l4_len)
                       : l4_len <= kShortSum ? short_sum64(th, l4_len, 0)
                                             : partial_sum(th, l4_len);
    uint64_t l = add_carry(addrs, d);
    l = add_carry(l, 0xFFFFu - load16(th + (kField - kL4)));  // the field as zero
    uint16_t w = static_cast<uint16_t>(~fold64(l));
    if (kUdp && w == 0) w = 0xFFFF;
    uint16_t c = 0;
    if (!kV6) c = word_sum::ipv4_header_field(ip);
    f.put(kField, &w, 2);
    if (!kV6) f.put(24, &c, 2);
    *l4_len_out = l4_len;
    return true;
}

// One SCTP chain of shape kV6 (same_sctp_shape, as same_sctp_run's chain
// loop takes them): its CRC32C and, over IPv4, its header field written
// where they lie, as lean_work fills them. False, with nothing written, if
// it is not such a chain. *l4_len_out: the bytes CRCed.
template <bool kV6>
[[gnu::always_inline]] inline bool fill_sctp_chain(rte_mbuf* m, uint32_t* l4_len_out) {
    constexpr uint32_t kL4 = kV6 ? 54 : 34;
    const uint32_t len = m->pkt_len;
    // As gather_front: a short chain gathered whole, a longer one its common
    // and first chunk headers (same_sctp_shape reads later ones from m).
    const uint32_t want = len <= kHeaderGather ? len : kL4 + 16;
    ChainFront f;
    if (!f.take(m, len, want)) return false;
    const uint8_t* p = f.p;
    const uint32_t n0 = f.pc.n[0];
    const uint32_t held = f.in_place ? (n0 < len ? n0 : len) : want;
    uint32_t l4_len;
    if (!same_sctp_shape<kV6>(m, p, len, held, &l4_len)) return false;
    const uint32_t crc =
        rte_cpu_to_le_32(kL4 + l4_len <= held ? sctp_linear_crc(p + kL4, l4_len)
                                              : sctp_crc_held(m, p, held, kL4, l4_len));
    uint16_t c = 0;
    if (!kV6) c = word_sum::ipv4_header_field(p + 14);
    f.put(kL4 + 8, &crc, 4);  // in place, held >= kL4 + 16 holds both fields
    if (!kV6) f.put(24, &c, 2);
    *l4_len_out = l4_len;
    return true;
}

// The run loop over chains from pkts[i]: fill(m, &l4_len) fills one or says
// no; each filled one gets the run's verdict. Returns the first not taken;
// sums[0]: their bytes, [1]: their L4 bytes.
template <typename Fill>
[[gnu::always_inline]] inline unsigned chain_fill_loop(rte_mbuf** pkts, unsigned i, unsigned n,
                                                       const run_parts::RunVerdict& verdict,
                                                       uint64_t* sums, Fill&& fill) {
    constexpr unsigned kAhead = run_parts::kRunAhead;
    const long voff = verdict.offset();
    uint64_t bytes = 0, l4 = 0;
    unsigned j = i;
    for (; j < n; ++j) {
        if (j + kAhead < n) {
            rte_mbuf* a = pkts[j + kAhead];
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + voff);  // and its next, in that line
        }
        // The next chain's second segment, its link prefetched an iteration ago.
        if (j + 1 < n && pkts[j + 1]->next != nullptr) rte_prefetch0(pkts[j + 1]->next);
        rte_mbuf* m = pkts[j];
        uint32_t l4_len;
        if (m->next == nullptr || !fill(m, &l4_len)) break;
        bytes += m->pkt_len, l4 += l4_len;
        verdict.write(m);
    }
    sums[0] = bytes, sums[1] = l4;
    return j;
}

}  // namespace

namespace chain_walk {
template <bool kV6, bool kUdp, bool kPorts>
bool fill_general(const ShapeConfig& sc, uint32_t plan, rte_mbuf* m, uint32_t* l4_len) noexcept {
    return fill_chain<kV6, kUdp, kPorts>(sc, plan, m, l4_len);
}
#define CSUM_FILL_GENERAL(v6, udp, ports)                                               \
    template bool fill_general<v6, udp, ports>(const ShapeConfig&, uint32_t, rte_mbuf*, \
                                               uint32_t*) noexcept;
CSUM_FILL_GENERAL(false, false, false)
CSUM_FILL_GENERAL(false, false, true)
CSUM_FILL_GENERAL(false, true, false)
CSUM_FILL_GENERAL(true, false, false)
CSUM_FILL_GENERAL(true, false, true)
CSUM_FILL_GENERAL(true, true, false)
#undef CSUM_FILL_GENERAL
}  // namespace chain_walk

// The run's loop: fills chains from pkts[i] on and writes the verdict;
// returns the first it did not take. sums[0]: their bytes, [1]: L4 bytes.
template <bool kV6, bool kUdp, bool kPorts>
unsigned Engine::Impl::same_chain_fill(rte_mbuf** pkts, unsigned i, unsigned n,
                                       const PacketVerdict* v, uint64_t* sums) {
    const ShapeConfig& sc = *shapes;
    const run_parts::RunVerdict verdict(v, verdict_off);
    const uint32_t plan = detail::inet_plan_now();  // for the pieces' kernel calls
    // On AVX-512, chain_walk.h's loop takes the whole run: chains walked
    // into registers or summed on carried vector state, fill_general for
    // any its walks refuse.
    if (chain_walk::cpu_has_avx512()) {
        constexpr int kShape = (kV6 ? 3 : 0) + (kUdp ? 1 : 0);
        chain_walk::Out o;
        const unsigned e =
            chain_walk::fill_avx512(kShape, kPorts, sc, plan, pkts, i, n, verdict, &o);
        sums[0] = o.bytes, sums[1] = o.summed;
        return e;
    }
    // On AVX2 (the Internet sum's kernel, as the verify run picks its
    // walk), fill_avx2's loop the same way, for a run that starts with a
    // chain over kHeaderGather bytes; one that starts short stays here
    // (fill_avx2's call per short chain measured 3-6 ticks slower at 64 B).
    if (inet_active_kernel() == InetKernel::avx2 && i < n && pkts[i]->pkt_len > kHeaderGather) {
        constexpr int kShape = (kV6 ? 3 : 0) + (kUdp ? 1 : 0);
        chain_walk::Out o;
        const unsigned e = chain_walk::fill_avx2(kShape, kPorts, sc, plan, pkts, i, n, verdict, &o);
        sums[0] = o.bytes, sums[1] = o.summed;
        return e;
    }
    return chain_fill_loop(pkts, i, n, verdict, sums, [&](rte_mbuf* m, uint32_t* l4_len) {
        return fill_chain<kV6, kUdp, kPorts>(sc, plan, m, l4_len);
    });
}

template <bool kV6>
unsigned Engine::Impl::same_sctp_chain_fill(rte_mbuf** pkts, unsigned i, unsigned n,
                                            const PacketVerdict* v, uint64_t* sums) {
    const run_parts::RunVerdict verdict(v, verdict_off);
    return chain_fill_loop(pkts, i, n, verdict, sums, fill_sctp_chain<kV6>);
}

// The chains from i on that the run of shape k takes, counted and moved to
// *kept.. as fill_run does for linear packets.
unsigned Engine::Impl::chain_fill_run(int k, rte_mbuf** pkts, unsigned i, unsigned n,
                                      uint16_t* kept, bool trusted) {
    const int key = LeanOutcomes::kFilled + k;
    const PacketVerdict* v = &lean_outcomes.good_verdict(key);
    uint64_t sums[2] = {0, 0};
    unsigned e;
    const bool ports = shapes->tcp_ports;
    switch (k) {
        case 0:
            e = ports ? same_chain_fill<false, false, true>(pkts, i, n, v, sums)
                      : same_chain_fill<false, false, false>(pkts, i, n, v, sums);
            break;
        case 1:
            e = same_chain_fill<false, true, false>(pkts, i, n, v, sums);
            break;
        case 3:
            e = ports ? same_chain_fill<true, false, true>(pkts, i, n, v, sums)
                      : same_chain_fill<true, false, false>(pkts, i, n, v, sums);
            break;
        case 4:
            e = same_chain_fill<true, true, false>(pkts, i, n, v, sums);
            break;
        case 2:
            e = same_sctp_chain_fill<false>(pkts, i, n, v, sums);
            break;
        case 5:
            e = same_sctp_chain_fill<true>(pkts, i, n, v, sums);
            break;
        default:
            return i;
    }
    fill_took(k, pkts, i, e, sums[0], sums[1], kept, trusted);
    return e;
}

// Linear and chained packets of shape k from i on, by turns, until neither
// run takes one.
unsigned Engine::Impl::fill_runs(int k, uint32_t keys, rte_mbuf** pkts, unsigned i, unsigned n,
                                 uint16_t* kept, bool trusted) {
    for (;;) {
        unsigned e =
            chain_fill_run(k, pkts, fill_run(k, pkts, i, n, kept, trusted), n, kept, trusted);
        // Shapes may alternate, plain and tunnel ones (by their fill templates).
        if (e == i && e < n &&
            (run_parts::mixed_may_take(pkts[i], keys, shapes->udp_hit) ||
             tunnel_fill_detail::fill_template_for(tunnel_fills, trusted, pkts[i])))
            e = mixed_fill(keys, pkts, i, n, kept, trusted);
        if (e == i || e == n) return e;
        i = e;
    }
}

}  // namespace csum
