// The pieces every same-shape run shares (good_run.cpp, good_run_chain.cpp):
// which PMD flags it takes, the verdict it writes, and its prefetching loop.
#pragma once

#include <emmintrin.h>

#include <smmintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "csum/verdict.h"

namespace csum::run_parts {

// By flags: GOOD for every layer with a checksum (UNKNOWN is not GOOD; IPv6
// has no header checksum). By our sums: no flag at all (a PMD's say goes to
// the general loop).
template <bool kV6, bool kSums>
struct RunFlags {
    static constexpr uint64_t kMask =
        kSums ? RTE_MBUF_F_RX_L4_CKSUM_MASK | RTE_MBUF_F_RX_IP_CKSUM_MASK
              : RTE_MBUF_F_RX_L4_CKSUM_MASK | (kV6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_MASK);
    static constexpr uint64_t kGood =
        kSums ? 0 : RTE_MBUF_F_RX_L4_CKSUM_GOOD | (kV6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD);
};

// A packet a same-shape run reads whole at its data: no next segment, the
// shape's least length kMinLen <= pkt_len <= data_len, and the data inside
// its buffer (data_off + data_len <= buf_len), in one test.
template <int64_t kMinLen>
[[gnu::always_inline]] inline bool whole_at_hand(const rte_mbuf* m) {
    const int64_t len = m->pkt_len, dl = m->data_len;
    return m->next == nullptr &&
           ((len - kMinLen) | (dl - len) | (int64_t{m->buf_len} - m->data_off - dl)) >= 0;
}

// A run's test of an mbuf's descriptor: its flags, and for a linear run
// nb_segs == 1 too, in one masked compare of the mbuf's bytes 16..31.
// kNoFlags: no flag is read (fill mode verifies nothing), only nb_segs.
template <bool kV6, bool kSums, bool kNoFlags = false>
class RunMbufTest {
  public:
    using F = RunFlags<kV6, kSums>;
    static constexpr uint64_t kMask = kNoFlags ? 0 : F::kMask, kGood = kNoFlags ? 0 : F::kGood;
    static_assert(offsetof(rte_mbuf, nb_segs) == 20 && offsetof(rte_mbuf, ol_flags) == 24);
    RunMbufTest()
        : mask_(_mm_set_epi64x(int64_t(kMask), int64_t(0xFFFFull << 32))),
          good_(_mm_set_epi64x(int64_t(kGood), int64_t(1ull << 32))) {}
    // (w ^ good) & mask == 0: good lies within mask.
    [[gnu::always_inline]] bool linear(const rte_mbuf* m) const {
        const __m128i w =
            _mm_load_si128(reinterpret_cast<const __m128i*>(reinterpret_cast<const char*>(m) + 16));
        return _mm_testz_si128(_mm_xor_si128(w, good_), mask_);
    }
    [[gnu::always_inline]] static bool flags(const rte_mbuf* m) {
        return (m->ol_flags & kMask) == kGood;
    }

  private:
    __m128i mask_, good_;
};

// The run's one verdict, held in registers and written into each packet's
// dynfield as two overlapping 16-byte stores.
class RunVerdict {
  public:
    static_assert(sizeof(PacketVerdict) == 20);
    RunVerdict(const PacketVerdict* v, long off)
        : lo_(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v))),
          hi_(_mm_loadu_si128(
              reinterpret_cast<const __m128i*>(reinterpret_cast<const char*>(v) + 4))),
          off_(off) {}
    [[gnu::always_inline]] void write(rte_mbuf* m) const {
        char* d = reinterpret_cast<char*>(m) + off_;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d), lo_);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 4), hi_);
    }
    long offset() const { return off_; }

  private:
    __m128i lo_, hi_;
    long off_;
};

// The mixed runs' shape of a frame (mixed_run.cpp), its first 42 bytes at
// hand: a good_key (LeanOutcomes: IPv6 * 3 + TCP 0 / UDP 1 / SCTP 2), or
// kPlainKeys for any other. EtherType and protocol only: the shape's own
// test decides.
inline constexpr int kPlainKeys = 6;
[[gnu::always_inline]] inline int plain_key(const uint8_t* p) {
    uint16_t et;  // as loaded: 0x0008 IPv4, 0xDD86 IPv6
    __builtin_memcpy(&et, p + 12, 2);
    const bool v6 = et == 0xDD86;
    if (!v6 && et != 0x0008) return kPlainKeys;
    const uint8_t proto = p[v6 ? 20 : 23];
    const int l4 = proto == 6 ? 0 : proto == 17 ? 1 : proto == 132 ? 2 : kPlainKeys;
    return v6 * 3 + l4;
}
// Whether a mixed run would look at m: linear, its first 42 bytes in the
// segment, a TCP/UDP key among `keys` (bits), and for UDP a destination
// port whose low byte udp_hit (ShapeConfig's) does not mark: a VXLAN packet
// looks like UDP/IPv4 to plain_key, and the runs refuse it only after their
// start, which costs more than this test.
[[gnu::always_inline]] inline bool mixed_may_take(const rte_mbuf* m, uint32_t keys,
                                                  const uint8_t* udp_hit) {
    if (!whole_at_hand<42>(m)) return false;
    const uint8_t* p = rte_pktmbuf_mtod(m, const uint8_t*);
    const int k = plain_key(p);
    if (k >= kPlainKeys || ((keys >> k) & 1) == 0) return false;
    if (k == 1) return udp_hit[p[37]] == 0;                       // UDP/IPv4: 42 bytes at hand
    if (k == 4) return m->data_len >= 58 && udp_hit[p[57]] == 0;  // UDP/IPv6
    return true;
}

inline constexpr unsigned kRunAhead = 3;  // packets prefetched ahead

// Takes packets from p while take(m) holds; returns the first it did not
// take. Two loops: the first prefetches kRunAhead ahead with no bound test.
template <typename Take>
[[gnu::always_inline]] inline rte_mbuf** take_while(rte_mbuf** p, rte_mbuf** const end,
                                                    long verdict_off, Take&& take) {
    if (end - p > kRunAhead)
        for (rte_mbuf** const last = end - kRunAhead; p != last; ++p) {
            rte_mbuf* a = p[kRunAhead];
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + verdict_off);
            if (!take(*p)) return p;
        }
    for (; p != end; ++p)
        if (!take(*p)) return p;
    return p;
}

// take_while for a run that reads each packet's bytes: take(m, data) gets
// the data pointer loaded when the packet was prefetched, kRunAhead packets
// before (three rotating registers), not reloaded from the mbuf: its loads
// leave the packet's dependency chain and the loop's load ports.
template <typename Take>
[[gnu::always_inline]] inline rte_mbuf** take_while_data(rte_mbuf** p, rte_mbuf** const end,
                                                         long verdict_off, Take&& take) {
    static_assert(kRunAhead == 3);
    if (end - p > kRunAhead) {
        uint8_t* d0 = rte_pktmbuf_mtod(p[0], uint8_t*);
        uint8_t* d1 = rte_pktmbuf_mtod(p[1], uint8_t*);
        uint8_t* d2 = rte_pktmbuf_mtod(p[2], uint8_t*);
        for (rte_mbuf** const last = end - kRunAhead; p != last; ++p) {
            rte_mbuf* a = p[kRunAhead];
            uint8_t* const da = rte_pktmbuf_mtod(a, uint8_t*);
            rte_prefetch0(da);
            rte_prefetch0(reinterpret_cast<char*>(a) + verdict_off);
            if (!take(*p, d0)) return p;
            d0 = d1, d1 = d2, d2 = da;
        }
    }
    for (; p != end; ++p)
        if (!take(*p, rte_pktmbuf_mtod(*p, uint8_t*))) return p;
    return p;
}

// The packets [i, e) a run took, moved up to kept.. where packets dropped
// before the run lie between (kept < i), by the per-packet loop's swaps (so
// in the same order). Returns e.
inline unsigned keep_taken(rte_mbuf** pkts, unsigned i, unsigned e, unsigned kept) {
    if (kept != i)
        for (unsigned j = i; j < e; ++j) {
            rte_mbuf* const m = pkts[j];
            pkts[j] = pkts[kept];
            pkts[kept++] = m;
        }
    return e;
}

// When a burst loop tries its all-good run: after two packets in a row that
// are not all good, the next ones go to the lean path until one is good (a
// run that stops at once costs more than the path under a flood of bad
// packets; one after a single bad packet much less).
class BadStreak {
  public:
    explicit BadStreak(bool run_first = true) : run_next_(run_first) {}
    bool run_next() const { return run_next_; }
    // The run took packets (from != to): not "in a row" any more.
    void run_took(unsigned from, unsigned to) { last_bad_ &= from == to; }
    void after(bool good) { run_next_ = good || !last_bad_, last_bad_ = !good; }
    void reset() { run_next_ = true, last_bad_ = false; }

  private:
    bool run_next_, last_bad_ = false;
};

// A 16-bit field at packet offset off of a chain a fill walk took (so
// m->next is a segment, no link loops, and the chain holds off + 2 bytes),
// written into the segments that hold its bytes.
[[gnu::always_inline]] inline void put_chain_field(rte_mbuf* m, uint32_t off, uint16_t v) {
    const uint32_t n0 = m->data_len;
    if (off + 2 <= n0) {
        std::memcpy(rte_pktmbuf_mtod_offset(m, uint8_t*, off), &v, 2);
        return;
    }
    if (off >= n0 && off + 2 - n0 <= m->next->data_len) {  // both in the second segment
        std::memcpy(rte_pktmbuf_mtod_offset(m->next, uint8_t*, off - n0), &v, 2);
        return;
    }
    uint8_t b[2];
    std::memcpy(b, &v, 2);
    uint32_t pos = 0;
    for (rte_mbuf* g = m; g != nullptr && pos < off + 2; g = g->next) {
        for (uint32_t k = 0; k < 2; ++k)
            if (off + k - pos < g->data_len) rte_pktmbuf_mtod(g, uint8_t*)[off + k - pos] = b[k];
        pos += g->data_len;
    }
}

}  // namespace csum::run_parts
