// NVMe/TCP: the tracker's feeds and the lean path's digest verdicts.
#include <cstdlib>
#include <cstring>
#include <utility>

#include <rte_prefetch.h>

#include "dispatch/cpu_features.h"
#include "engine/engine_impl.h"
#include "engine/run_parts.h"
#include "nvme_tcp/data_run.h"

namespace csum {

// Calls add(proto, n, status) for each kind of digest verdict in r, in the
// order the verdict lists them.
template <class Add>
void for_each_digest(const NvmeSegmentResult& r, Add&& add) {
    for (auto [proto, c] :
         {std::pair{LayerProto::nvme_hdgst, r.hdgst}, std::pair{LayerProto::nvme_ddgst, r.ddgst}}) {
        add(proto, c.good, LayerStatus::good);
        add(proto, c.bad, LayerStatus::bad);
        add(proto, c.unverifiable, LayerStatus::unverifiable);
        add(proto, c.filled, LayerStatus::filled);
        add(proto, c.unfillable, LayerStatus::unverifiable);
    }
}

// Feeds the packet's TCP segment to the NVMe/TCP tracker, if its TCP
// checksum can be trusted, and adds one layer per digest it completed.
void Engine::Impl::feed_nvme(rte_mbuf* m, PacketWork& w) {
    nvme_fed = true;
    const TcpSegmentInfo& t = pr.tcp;
    const LayerStatus tcp = w.status[t.layer];
    // A corrupted segment must not be judged as NVMe/TCP data. A TCP sum
    // skipped on a port's verify list vouches for nothing; one skipped on a
    // trusted port, or in fill mode (which verifies nothing), does.
    const bool vouched = w.trusted || cfg.mode == Mode::fill;
    if (tcp != LayerStatus::good && tcp != LayerStatus::partial && tcp != LayerStatus::filled &&
        !(tcp == LayerStatus::skipped && vouched))
        return;
    const NvmeFlowKey key = t.v6 ? nvme_flow_key_v6(t.src.data(), t.dst.data(), t.sport, t.dport)
                                 : nvme_flow_key_v4(t.src.data(), t.dst.data(), t.sport, t.dport);
    const NvmeSegmentResult r =
        nvme->feed(key, t.seq, t.flags, m, t.payload_off, t.payload_len, burst_tsc);
    // Most segments lie inside PDU data and complete no digest.
    if (!has_digests(r)) return;
    for_each_digest(r, [&](LayerProto proto, uint16_t n, LayerStatus s) {
        for (uint16_t i = 0; i < n && pr.n < kMaxParsedLayers; ++i) {
            ParsedLayer& l = pr.layer[pr.n];
            l = ParsedLayer{};
            l.proto = proto;
            l.preset = true;
            l.status = s;
            w.status[pr.n++] = s;
        }
    });
}
// A lean NVMe/TCP segment that completed digests: the walker's verdict and
// counts for [IPv4,] TCP and one layer per digest, from the statuses at
// hand. Returns false if the packet is to be dropped.
bool Engine::Impl::lean_nvme_verdict(const RxPortPolicy& rx, rte_mbuf* m, const PacketShape& s,
                                     const LeanOutcome& o, const NvmeSegmentResult& r) {
    const NvmeDigestCounts &h = r.hdgst, &d = r.ddgst;
    const bool all_good = o.l4 == LayerStatus::good && (s.v6 || o.ip == LayerStatus::good) &&
                          (h.bad | h.unverifiable | h.filled | h.unfillable | d.bad |
                           d.unverifiable | d.filled | d.unfillable) == 0 &&
                          h.good < 4 && d.good < 4;
    NvmeGood* g = all_good ? &nvme_good[s.v6][h.good][d.good] : nullptr;
    if (g != nullptr && g->ready) {  // the common case: written before
        std::memcpy(verdict_of(m, verdict_off), &g->v, sizeof g->v);
        ++g->n;
        g->bytes += m->pkt_len;
        nvme_good_used |= 1u << (g - &nvme_good[0][0][0]);
        return true;
    }
    VerdictLayer layers[kMaxParsedLayers];
    int n = 0;
    if (!s.v6) layers[n++] = {LayerProto::ipv4, o.ip, s.l3_off, s.l3_off + 10u};
    layers[n++] = {LayerProto::tcp, o.l4, s.l4_off, s.l4_off + 16u};
    bool bad = o.ip == LayerStatus::bad || o.l4 == LayerStatus::bad;
    for_each_digest(r, [&](LayerProto proto, uint16_t k, LayerStatus st) {
        for (uint16_t i = 0; i < k && n < kMaxParsedLayers; ++i) {
            layers[n++] = {proto, st, 0, 0};
            bad |= st == LayerStatus::bad;
        }
    });
    PacketVerdict* v = verdict_of(m, verdict_off);
    const auto at = [&](int i) { return layers[i]; };
    write_verdict(v, n, ParseError::none, false, at);
    if (g != nullptr) {  // keep it for the next ones
        std::memset(&g->v, 0, sizeof g->v);
        write_verdict(&g->v, n, ParseError::none, false, at);
        g->ready = true;
    }
    const bool drop = rx.drop_bad && bad;
    tally.count(*v, n, at, m->pkt_len, drop ? static_cast<int>(DropReason::bad_checksum) : -1);
    return !drop;
}

}  // namespace csum

namespace csum {

bool nvme_fused_default() noexcept {
    const char* e = std::getenv("CSUM_NVME_FUSED");  // "0": sum and fold in two passes
    return detail::cpu().can_inet_avx512_vnni() && (e == nullptr || std::strcmp(e, "0") != 0);
}

namespace {
// The pseudo-header's partial sum of a TCP/IP frame b (IPv4: false if its
// header checksum is wrong), as sums_good adds it.
template <bool kV6>
[[gnu::always_inline]] inline bool pseudo_base(const uint8_t* b, uint32_t l4_len, uint64_t* base) {
    using namespace lean_detail;
    const uint8_t* ip = b + 14;
    const uint64_t k = uint64_t{kShapeTcp + l4_len} << 8;
    if constexpr (kV6) {
        *base = uint64_t{partial_sum_fixed<32>(ip + 8)} + k;
        return true;
    } else {
        const uint64_t addrs = uint64_t{load32(ip + 12)} + load32(ip + 16);
        const uint64_t h = addrs + load32(ip) + uint64_t{load32(ip + 4)} + uint64_t{load32(ip + 8)};
        *base = addrs + k;
        return h != 0 && mod_ffff_zero(h);
    }
}
}  // namespace

unsigned Engine::Impl::nvme_data_run(bool v6, const RxPortPolicy& rx, rte_mbuf** pkts, unsigned i,
                                     unsigned n, unsigned* kept, uint32_t* plain,
                                     const PacketVerdict* v, uint64_t* bytes, SameSums* ss) {
    return v6 ? nvme_data_run_as<true>(rx, pkts, i, n, kept, plain, v, bytes, ss)
              : nvme_data_run_as<false>(rx, pkts, i, n, kept, plain, v, bytes, ss);
}

// Returns the first packet it did not take. A packet it stops at is left
// untouched (not fed, not counted) for good_run_as, unless its sums were
// wrong (ss->bad, with its L4 sum in ss->known).
template <bool kV6>
unsigned Engine::Impl::nvme_data_run_as(const RxPortPolicy& rx, rte_mbuf** pkts, unsigned i,
                                        unsigned n, unsigned* kept_io, uint32_t* plain,
                                        const PacketVerdict* v, uint64_t* bytes, SameSums* ss) {
    constexpr unsigned kAhead = 3;
    constexpr uint32_t l4_off = kV6 ? 54 : 34;
    nvme::DataRun run = nvme::TrackerAccess::open(*nvme, burst_tsc);
    if (run.s == nullptr || run.v6 != kV6) return i;
    nvme::Stream& st = *run.s;
    const ShapeConfig& sc = *shapes;
    const long voff = verdict_off;
    const run_parts::RunVerdict verdict(v, voff);
    const run_parts::RunMbufTest<kV6, true> mbuf_ok;  // as same_good_run<kSums>
    // The flow's addresses as they lie at IP byte 12 (IPv4) or 8 (IPv6).
    const __m128i a0 = _mm_load_si128(reinterpret_cast<const __m128i*>(run.addr));
    const __m128i a1 = _mm_load_si128(reinterpret_cast<const __m128i*>(run.addr + 16));
    const bool fused = nvme_fused;
    uint64_t sum = 0, summed = 0;
    unsigned kept = *kept_io, k = i;
    uint32_t plain_n = 0;
    for (; k < n; ++k) {
        if (k + kAhead < n) {
            rte_mbuf* a = pkts[k + kAhead];
            rte_prefetch0(rte_pktmbuf_mtod(a, void*));
            rte_prefetch0(reinterpret_cast<char*>(a) + voff);
        }
        rte_mbuf* m = pkts[k];
        const uint32_t len = m->pkt_len;
        uint8_t* const b = rte_pktmbuf_mtod(m, uint8_t*);
        uint32_t l4_len;
        // No port test: the flow's ports below are an NVMe/TCP port's.
        if (m->next != nullptr || !mbuf_ok.linear(m) || m->data_len < len ||
            !segment_in_buffer(m) || !same_plain_shape<kV6, false, false>(sc, b, len, &l4_len))
            break;
        const uint8_t* th = b + l4_off;
        uint32_t ports;
        std::memcpy(&ports, th, 4);
        __m128i x;
        if constexpr (kV6) {
            const __m128i s0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 22));
            const __m128i s1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 38));
            x = _mm_or_si128(_mm_xor_si128(s0, a0), _mm_xor_si128(s1, a1));
        } else {
            x = _mm_xor_si128(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + 26)), a0);
        }
        const uint32_t hl = (th[12] >> 2) & 0x3C;
        const uint32_t plen = l4_len - hl;
        const uint32_t seq = be32_at(th + 4);
        // Of the flow, in order, in sync: anything else goes back to good_run_as.
        if (!_mm_testz_si128(x, x) || ports != run.ports ||
            (th[13] & (kTcpSyn | kTcpFin | kTcpRst)) != 0 || !run.in_order(seq, plen))
            break;
        // The shape only where a sum or a verdict needs it (not in one pass).
        const auto shape = [&] {
            PacketShape s = lean_detail::run_shape<kV6, false>(b, b, len, len, l4_len);
            s.l4_hdr = static_cast<uint8_t>(hl), s.nvme = true;
            return s;
        };
        const bool in_data = run.in_data(plen);
        uint64_t base;
        if (in_data && fused && st.dd_on && st.dcarry.vec && plen <= st.dcarry.left) {
            // The common case, in one pass over the payload: its sum, and its
            // bytes into the data digest only if the TCP sum is right.
            if (!pseudo_base<kV6>(b, l4_len, &base)) {
                ss->bad = true;  // as sums_good: the general loop names it
                break;
            }
            base = lean_detail::short_sum64(th, hl, base);
            if (!detail::crc32c_carry_feed_kept_vnni(st.dcarry, th + hl, plen, base)) {
                ss->bad = true;
                break;
            }
            summed += (kV6 ? 0 : 20) + l4_len;
            run.took(plen);
        } else if (in_data) {
            if (KnownSum ks; !lean_detail::sums_good(m, shape(), &summed, &ks)) {
                ss->known = ks, ss->bad = true;
                break;
            }
            // Only the data digest grows.
            if (st.dd_on) detail::crc32c_carry_feed(st.dcarry, th + hl, plen);
            run.took(plen);
        } else {
            // A PDU boundary: the tracker's own path, and its verdict. (Its
            // data's rest summed and folded in one pass measured slower.)
            const PacketShape s = shape();
            if (KnownSum ks; !lean_detail::sums_good(m, s, &summed, &ks)) {
                ss->known = ks, ss->bad = true;
                break;
            }
            // The common boundary, every digest good, in the run itself.
            if (const int hd = run.boundary(th + hl, plen, seq); hd >= 0) {
                NvmeGood& g = nvme_good[kV6][hd][1];
                if (g.ready) {
                    std::memcpy(reinterpret_cast<char*>(m) + voff, &g.v, sizeof g.v);
                    ++g.n;
                    g.bytes += len;
                    nvme_good_used |= 1u << ((kV6 ? 16u : 0u) + hd * 4u + 1u);
                    if (kept != k) pkts[k] = pkts[kept], pkts[kept] = m;
                    ++kept;
                    continue;
                }
                NvmeSegmentResult r;
                r.hdgst.good = static_cast<uint16_t>(hd);
                r.ddgst.good = 1;
                r.pdus = 1;
                const LeanOutcome o{LayerStatus::good, LayerStatus::good, false};
                if (lean_nvme_verdict(rx, m, s, o, r)) {
                    if (kept != k) pkts[k] = pkts[kept], pkts[kept] = m;
                    ++kept;
                }
                continue;
            }
            const NvmeSegmentResult r = nvme::TrackerAccess::feed_boundary(
                *nvme, run, m, seq, l4_off + hl, plen, burst_tsc);
            if (has_digests(r)) {
                // All digests good, a verdict of that shape written before:
                // lean_nvme_verdict's common case without its call.
                const NvmeDigestCounts &h = r.hdgst, &d = r.ddgst;
                if ((h.bad | h.unverifiable | h.filled | h.unfillable | d.bad | d.unverifiable |
                     d.filled | d.unfillable) == 0 &&
                    (h.good | d.good) < 4) {
                    const uint32_t gi = (kV6 ? 16u : 0u) + h.good * 4u + d.good;
                    NvmeGood& g = nvme_good[kV6][h.good][d.good];
                    if (g.ready) {
                        char* vp = reinterpret_cast<char*>(m) + voff;
                        std::memcpy(vp, &g.v, sizeof g.v);
                        ++g.n;
                        g.bytes += len;
                        nvme_good_used |= 1u << gi;
                        if (kept != k) pkts[k] = pkts[kept], pkts[kept] = m;
                        ++kept;
                        continue;
                    }
                }
                const LeanOutcome o{LayerStatus::good, LayerStatus::good, false};
                if (lean_nvme_verdict(rx, m, s, o, r)) {
                    if (kept != k) pkts[k] = pkts[kept], pkts[kept] = m;
                    ++kept;
                }
                continue;
            }
        }
        ++plain_n;
        sum += len;
        verdict.write(m);
        if (kept != k) pkts[k] = pkts[kept], pkts[kept] = m;
        ++kept;
    }
    nvme::TrackerAccess::close(*nvme, run, burst_tsc);
    if (k != i) nvme_fed = true;  // publish the tracker's stats with this burst's
    *bytes += sum;
    *plain += plain_n;
    *kept_io = kept;
    ss->summed += summed;
    return k;
}

}  // namespace csum
