// Engine::Impl, shared by the engine's .cpp files (engine.cpp: the burst
// loops; good_run.cpp: the all-good runs; engine_nvme.cpp: NVMe/TCP).
// Internal: not installed.
#pragma once

#include <emmintrin.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "csum/engine.h"
#include "engine/chain_walk.h"
#include "engine/lean_outcomes.h"
#include "engine/lean_path.h"
#include "engine/lean_tunnel.h"
#include "engine/packet_work.h"
#include "engine/run_parts.h"
#include "engine/tally.h"
#include "engine/tunnel_mixed_run.h"
#include "engine/tunnel_run.h"
#include "parse/classify_same.h"
#include "parse/parser.h"

namespace csum {

// The tracker's plain counters, published once per burst as relaxed atomics
// so that a stats thread reads whole values while the worker runs.
class NvmeStatsMirror {
  public:
    static_assert(sizeof(NvmeTrackerStats) % sizeof(uint64_t) == 0);
    static constexpr size_t kWords = sizeof(NvmeTrackerStats) / sizeof(uint64_t);
    void publish(const NvmeTrackerStats& s) noexcept {
        uint64_t w[kWords];
        std::memcpy(w, &s, sizeof w);
        for (size_t i = 0; i < kWords; ++i) words_[i].store(w[i], std::memory_order_relaxed);
    }
    void read(NvmeTrackerStats* out) const noexcept {
        uint64_t w[kWords];
        for (size_t i = 0; i < kWords; ++i) w[i] = words_[i].load(std::memory_order_relaxed);
        std::memcpy(out, w, sizeof w);
    }

  private:
    std::atomic<uint64_t> words_[kWords] = {};
};

// Any digest count nonzero: the two count blocks (20 bytes) in three loads.
inline bool has_digests(const NvmeSegmentResult& r) {
    static_assert(offsetof(NvmeSegmentResult, hdgst) == 0 &&
                  offsetof(NvmeSegmentResult, ddgst) == sizeof(NvmeDigestCounts) &&
                  sizeof(NvmeDigestCounts) == 10);
    uint64_t a, b;
    uint32_t c;
    std::memcpy(&a, &r, 8);
    std::memcpy(&b, reinterpret_cast<const char*>(&r) + 8, 8);
    std::memcpy(&c, reinterpret_cast<const char*>(&r) + 16, 4);
    return (a | b | c) != 0;
}

inline uint32_t be32_at(const uint8_t* p) {
    return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

bool nvme_fused_default() noexcept;

struct CSUM_LOCAL Engine::Impl {
    EngineConfig cfg;
    std::unique_ptr<ShapeConfig> shapes;  // cfg.parser with its port filters
    EngineStats stats;
    int verdict_off;
    ParseResult pr;  // reused packet to packet: parsing never allocates
    Tally tally;     // this burst's counts (walker packets, and the lean path's byte counts)
    LeanOutcomes lean_outcomes;      // this burst's lean packets, by outcome
    TunnelOutcomes tunnel_outcomes;  // ... and its lean tunnel packets
    std::unique_ptr<NvmeTracker> nvme;
    NvmeStatsMirror nvme_published;
    bool nvme_fed = false;  // the tracker saw a segment this burst: publish its stats
    // The tracker's clock (idle timeouts): the burst's TSC, read when the
    // tracker first asks (rdtsc costs ~40 ticks on a VM; most bursts feed it nothing).
    class BurstClock {
      public:
        void start(uint64_t t0) { tsc_ = t0; }  // 0: not read yet
        operator uint64_t() {
            if (tsc_ == 0) tsc_ = rte_rdtsc();
            return tsc_;
        }

      private:
        uint64_t tsc_ = 0;
    };
    BurstClock burst_tsc;
    // work_tsc times the first burst after kWorkSamplePackets untimed packets
    // and counts its ticks per packet for those packets too: rdtsc costs ~40
    // ticks on a VM. By packets, not bursts: one burst in nine at 32 packets,
    // one call in 257 at one packet (a call's fixed cost is ~50 ticks, and
    // a timed one's clock would add ~7 to every call). The first kWorkAllTimed
    // bursts are all timed, so that a short run (a demo's few packets)
    // reports what it measured, not one cold burst.
    static constexpr uint32_t kWorkSamplePackets = 256, kWorkAllTimed = 64;
    uint32_t bursts_all_timed = kWorkAllTimed;  // left to time before sampling
    uint64_t untimed_pkts = 0;                  // packets since the last timed burst

    void feed_nvme(rte_mbuf* m, PacketWork& w);
    [[gnu::always_inline]] NvmeSegmentResult feed_nvme_shape(rte_mbuf* m, const PacketShape& s,
                                                             LayerStatus l4);
    // Lean NVMe/TCP segments whose checksums and digests are all good: the
    // verdict per (IPv6, good HDGSTs, good DDGSTs), written once, and this
    // burst's counts, flushed with the lean outcomes.
    struct NvmeGood {
        PacketVerdict v;
        bool ready = false;
        uint32_t n = 0;
        uint64_t bytes = 0;
    };
    NvmeGood nvme_good[2][4][4];
    uint32_t nvme_good_used = 0;  // bit v6 * 16 + HDGSTs * 4 + DDGSTs: flushed per burst
    void flush_nvme_good();
    bool lean_nvme_verdict(const RxPortPolicy& rx, rte_mbuf* m, const PacketShape& s,
                           const LeanOutcome& o, const NvmeSegmentResult& r);
    bool process_one(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf* m, bool classified);
    // The lean path's work and verdict for one classified packet; false: drop it.
    // *all_good: whether its verdict is the all-good one.
    template <Mode kMode>
    [[gnu::always_inline]] bool lean_one(const RxPortPolicy& rx, const LeanBurst& b, rte_mbuf* m,
                                         PacketShape s, KnownSum known = {},
                                         bool* all_good = nullptr) {
        const LeanOutcome o = lean_work<kMode>(b, m, s, tally, known);
        const bool good = LeanOutcomes::all_good(s, o);
        if (all_good) *all_good = good;
        if (kMode == Mode::verify && s.nvme) {
            // Segments inside PDU data complete no digest: the plain verdict.
            const NvmeSegmentResult r = feed_nvme_shape(m, s, o.l4);
            if (has_digests(r)) return lean_nvme_verdict(rx, m, s, o, r);
        }
        const PacketVerdict& v =
            good ? lean_outcomes.good(s) : lean_outcomes.record(b, s, o, s.pkt_len);
        std::memcpy(verdict_of(m, verdict_off), &v, sizeof(PacketVerdict));
        return !o.drop;
    }
    uint16_t good_run(const RxPortPolicy& rx, rte_mbuf** pkts, uint16_t i, uint16_t n,
                      uint16_t* kept, uint64_t* sum_bytes, bool* shaped, KnownSum* known);
    // The shape key of the last GOOD-flags linear run (-1: none yet).
    int last_good_key = -1;
    // A same-shape run's key: where the next burst starts, not mixed.
    void set_good_key(int key) { last_good_key = key, good_mixed = false; }
    // The last all-good burst's shapes alternated (mixed_good_run took at
    // least half of it and saw a change of kind every kMixedEvery packets
    // or more often): the next burst starts with the mixed run, not with a
    // same-shape run that would stop at its first packet of another shape.
    static constexpr unsigned kMixedEvery = 8;
    bool good_mixed = false;
    uint16_t burst_n = 0;  // this burst's packets (Engine::process)
    // What a software-sum same-shape run summed, and why it stopped.
    struct SameSums {
        uint64_t summed = 0;  // bytes summed (the tally's sum_bytes)
        uint64_t crced = 0;   // SCTP bytes CRCed (the tally's crc_bytes)
        KnownSum known;       // the L4 sum (SCTP: CRC) of the packet it stopped at
        bool bad = false;     // it stopped at a packet of the shape whose sums are not right
    };
    // The rest of an all-good run of linear packets of one plain shape, by
    // GOOD flags or (kSums) by our sums (kPorts: the config has special TCP
    // ports to test).
    template <bool kV6, bool kUdp, bool kPorts, bool kSums>
    [[gnu::noinline]] unsigned same_good_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                             const PacketVerdict* v, uint64_t* bytes, SameSums* ss);
    // The same for linear packets of any plain TCP/UDP shape, interleaved
    // (mixed_run.cpp): where same_good_run stops at once, shapes alternate.
    template <bool kPorts, bool kSums>
    [[gnu::noinline]] unsigned mixed_good_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                              SameSums* ss);
    template <bool kSums>
    unsigned mixed_good_dispatch(rte_mbuf** pkts, unsigned i, unsigned n, unsigned kept,
                                 SameSums* ss = nullptr) {
        // TCP, UDP, SCTP over either IP version, or a tunnel with a template.
        if (!run_parts::mixed_may_take(pkts[i], 0x3Fu, shapes->udp_hit) &&
            !tunnel_template_for(pkts[i]))
            return i;
        const unsigned e = shapes->tcp_ports ? mixed_good_run<true, kSums>(pkts, i, n, ss)
                                             : mixed_good_run<false, kSums>(pkts, i, n, ss);
        return run_parts::keep_taken(pkts, i, e, kept);
    }
    // The mixed run from pkts[i], where a burst's first packet is not of the
    // last run's shape: the packets it takes kept (*kept moves on with i).
    template <bool kSums>
    unsigned mixed_good_start(rte_mbuf** pkts, unsigned i, unsigned n, unsigned* kept,
                              SameSums* ss) {
        if (i >= n) return i;
        const unsigned e = mixed_good_dispatch<kSums>(pkts, i, n, *kept, ss);
        *kept += e - i;
        return e;
    }
    // The mixed run from pkts[i], by the PMD's flags or by our sums as that
    // packet carries them; the packets it takes moved to kept... A packet
    // whose sums are wrong stops it: *bad set (bad may be nullptr), its sum
    // in *known (never summed twice). Returns the first it did not take.
    unsigned mixed_from(rte_mbuf** pkts, unsigned i, unsigned n, unsigned kept, bool* bad,
                        KnownSum* known);
    // The same for SCTP (same_sctp_shape), its CRC checked when kSums;
    // kChains: chains too, their headers gathered where split.
    template <bool kV6, bool kSums, bool kChains>
    [[gnu::noinline]] unsigned same_sctp_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                             const PacketVerdict* v, uint64_t* bytes, SameSums* ss);
    // The segments after an NVMe/TCP one fed (software sums, linear): of its
    // flow and in order, each checked as same_good_run<kSums> checks a plain
    // one; one inside PDU data only extends the data digest, any other goes
    // through the tracker and lean_nvme_verdict. Moves kept packets to
    // *kept.., counts the plain verdicts in *plain.
    // The run sums and folds a payload in one pass (AVX512_VNNI; CSUM_NVME_FUSED=0: not).
    bool nvme_fused = nvme_fused_default();
    unsigned nvme_data_run(bool v6, const RxPortPolicy& rx, rte_mbuf** pkts, unsigned i, unsigned n,
                           unsigned* kept, uint32_t* plain, const PacketVerdict* v, uint64_t* bytes,
                           SameSums* ss);
    template <bool kV6>
    [[gnu::noinline]] unsigned nvme_data_run_as(const RxPortPolicy& rx, rte_mbuf** pkts, unsigned i,
                                                unsigned n, unsigned* kept, uint32_t* plain,
                                                const PacketVerdict* v, uint64_t* bytes,
                                                SameSums* ss);
    // The same for chained packets (good_run_chain.cpp): each one's front
    // gathered, then the shape test and sums of same_good_run. kWalk (our
    // sums on AVX-512: 1, with VNNI: 2; on AVX2: 3, chains over
    // kHeaderGather bytes): each chain walked once, its pieces summed on
    // one vector state.
    template <bool kV6, bool kUdp, bool kPorts, bool kSums, int kWalk = 0>
    [[gnu::noinline]] unsigned same_chain_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                              const PacketVerdict* v, uint64_t* bytes,
                                              SameSums* ss);
    // The all-good run of shape key k (-1: takes none) from pkts[i]: of
    // linear packets (same_good_run, same_sctp_run) or of chains (kChains:
    // same_chain_run, same_sctp_run's chain loop). kSums: the packets carry
    // no RX flags and our sums decide (ss collects them). The packets it
    // takes move up to kept.. (keep_taken), past any dropped before the run.
    template <bool kChains, bool kV6, bool kUdp, bool kPorts, bool kSums>
    [[gnu::always_inline]] unsigned same_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                             const PacketVerdict* v, uint64_t* bytes,
                                             SameSums* ss) {
        if constexpr (kChains && !kSums) {
            // GOOD flags: a stretch that starts short is walked into
            // registers on AVX-512, as with software sums (a gathered
            // copy's loads wait on its stores).
            if (pkts[i]->pkt_len <= kHeaderGather && chain_walk::cpu_has_avx512())
                return same_chain_run<kV6, kUdp, kPorts, false, 1>(pkts, i, n, v, bytes, ss);
        }
        if constexpr (kChains)
            return same_chain_run<kV6, kUdp, kPorts, kSums>(pkts, i, n, v, bytes, ss);
        else
            return same_good_run<kV6, kUdp, kPorts, kSums>(pkts, i, n, v, bytes, ss);
    }
    template <bool kChains, bool kSums>
    unsigned same_dispatch(int k, rte_mbuf** pkts, unsigned i, unsigned n, unsigned kept,
                           const PacketVerdict* v, uint64_t* bytes, SameSums* ss = nullptr) {
        const bool ports = shapes->tcp_ports;
        const unsigned e = [&] {
            switch (k) {
                case 0:
                    return ports ? same_run<kChains, false, false, true, kSums>(pkts, i, n, v,
                                                                                bytes, ss)
                                 : same_run<kChains, false, false, false, kSums>(pkts, i, n, v,
                                                                                 bytes, ss);
                case 1:
                    return same_run<kChains, false, true, false, kSums>(pkts, i, n, v, bytes, ss);
                case 3:
                    return ports ? same_run<kChains, true, false, true, kSums>(pkts, i, n, v, bytes,
                                                                               ss)
                                 : same_run<kChains, true, false, false, kSums>(pkts, i, n, v,
                                                                                bytes, ss);
                case 4:
                    return same_run<kChains, true, true, false, kSums>(pkts, i, n, v, bytes, ss);
                case 2:
                    return same_sctp_run<false, kSums, kChains>(pkts, i, n, v, bytes, ss);
                case 5:
                    return same_sctp_run<true, kSums, kChains>(pkts, i, n, v, bytes, ss);
                default:
                    return i;
            }
        }();
        return run_parts::keep_taken(pkts, i, e, kept);
    }
    // kChains: *chain_key gets the shape key of the chain it stopped
    // after (-1 if it stopped for any other reason).
    template <bool kFlags, bool kChains>
    uint16_t good_run_as(const RxPortPolicy& rx, rte_mbuf** pkts, uint16_t first, uint16_t n,
                         uint16_t* kept, uint64_t* sum_bytes, bool* shaped, KnownSum* known,
                         int* chain_key = nullptr);
    template <bool kFlags>
    uint16_t good_chain_run(const RxPortPolicy& rx, rte_mbuf** pkts, uint16_t i, uint16_t n,
                            uint16_t* kept, uint64_t* sum_bytes, bool* shaped, KnownSum* known);
    template <Mode kMode>
    int tunnel_or_walker(const RxPortPolicy& rx, const TxPortPolicy& tx, const LeanBurst& b,
                         rte_mbuf* m, bool lean, uint32_t* key, bool* keep);
    template <Mode kMode>
    bool not_plain(const RxPortPolicy& rx, const TxPortPolicy& tx, const LeanBurst& b, rte_mbuf* m,
                   bool lean);
    unsigned fill_not_plain(const RxPortPolicy& rx, const TxPortPolicy& tx, const LeanBurst& b,
                            rte_mbuf** pkts, unsigned i, unsigned n, uint16_t* kept);
    // Mostly tunnels in the last burst: this one tries the tunnel classifier
    // first (tunnel_burst). A per-burst choice: the plain loop has no test.
    bool tunnel_first = false;
    uint16_t burst_tunnels = 0;  // lean tunnel packets this burst
    template <Mode kMode>
    // first_bad: the lean path takes pkts[0] straight, with that L4 sum if
    // known (where same_burst stopped at a packet of its shape whose sums
    // are wrong; tunnel_burst_rest passes none).
    uint16_t run_burst(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf** pkts, uint16_t n,
                       const KnownSum* first_bad = nullptr);
    // A burst that goes on with the last run's shape: its packets up to the
    // first the same-shape run does not take, with no per-burst setup (the
    // policy decode, the first packet's classify), then run_burst for the
    // rest. Only where run_burst would try the all-good run first.
    template <Mode kMode>
    [[gnu::always_inline]] uint16_t plain_burst(const RxPortPolicy& rx, const TxPortPolicy& tx,
                                                rte_mbuf** pkts, uint16_t n) {
        constexpr uint32_t kFull = 1u << static_cast<unsigned>(LayerProto::ipv4) |
                                   1u << static_cast<unsigned>(LayerProto::tcp) |
                                   1u << static_cast<unsigned>(LayerProto::udp) |
                                   1u << static_cast<unsigned>(LayerProto::sctp);
        if constexpr (kMode == Mode::verify || kMode == Mode::csum) {
            if (last_good_key >= 0 && cfg.plain_fast_path && !rx.complete_in_verdict &&
                !rx.trusted && (rx.verify_mask & kFull) == kFull && n != 0)
                return same_then_rest<kMode>(rx, tx, pkts, n);  // instantiated for these two
        }
        // Fill mode: a burst that goes on with the last fill run's shape, its
        // fields still the software's (the run keeps every packet it takes).
        if (kMode == Mode::fill && last_fill_key >= 0 && cfg.plain_fast_path &&
            !rx.complete_in_verdict && ((fill_sw_keys(tx.offloads) >> last_fill_key) & 1) &&
            n != 0) {
            const uint16_t i = fill_burst(pkts, n, fill_sw_keys(tx.offloads), rx.trusted);
            return i == n ? n
                          : static_cast<uint16_t>(i + run_burst<kMode>(rx, tx, pkts + i, n - i));
        }
        return run_burst<kMode>(rx, tx, pkts, n);
    }
    // same_burst, then run_burst for the rest: out of line, so that the
    // stop's sum is no local of the inlined plain_burst (which cost the
    // uniform tunnel bursts a TSC step).
    template <Mode kMode>
    uint16_t same_then_rest(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf** pkts,
                            uint16_t n);
    // Where it stops at a packet of the shape whose sums are wrong, *bad is
    // set and *stop holds that packet's L4 sum, for the lean path.
    uint16_t same_burst(rte_mbuf** pkts, uint16_t n, bool* bad, KnownSum* stop);
    // Fill mode's burst entry, out of line: inlined into Engine::process it
    // changed the register allocation the verify and csum entries share.
    uint16_t fill_mode_burst(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf** pkts,
                             uint16_t n);
    // Fill mode's same-shape run (fill_run.cpp): after a plain linear
    // TCP/UDP/SCTP packet the lean path filled in software, the packets of its
    // shape, filled as it fills them. last_fill_key: that shape's good_key
    // (-1: none yet), where the next burst starts (fill_burst).
    int last_fill_key = -1;
    static uint32_t fill_sw_keys(uint64_t tx_offloads);
    unsigned fill_run(int k, rte_mbuf** pkts, unsigned i, unsigned n, uint16_t* kept, bool trusted);
    // What a run of shape k took from i to e (bytes, L4 bytes summed or
    // CRCed): counted as lean_work counts its fills, and moved to *kept...
    void fill_took(int k, rte_mbuf** pkts, unsigned i, unsigned e, uint64_t bytes,
                   uint64_t l4_bytes, uint16_t* kept, bool trusted);
    uint16_t fill_burst(rte_mbuf** pkts, uint16_t n, uint32_t keys, bool trusted);
    template <bool kV6, bool kUdp, bool kPorts>
    [[gnu::noinline]] unsigned same_fill_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                             const PacketVerdict* v, uint64_t* sums);
    // The same for SCTP (same_sctp_shape): its CRC32C and IPv4 header field.
    template <bool kV6>
    [[gnu::noinline]] unsigned same_sctp_fill_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                                  const PacketVerdict* v, uint64_t* sums);
    // The same for chains (fill_chain.cpp); fill_runs: both runs by turns.
    unsigned chain_fill_run(int k, rte_mbuf** pkts, unsigned i, unsigned n, uint16_t* kept,
                            bool trusted);
    // The mixed run's fill (mixed_run.cpp): linear packets of the plain
    // shapes in keys and tunnels by their fill templates, interleaved,
    // where a same-shape run stops at once.
    template <bool kPorts>
    [[gnu::noinline]] unsigned mixed_fill_run(uint32_t keys, rte_mbuf** pkts, unsigned i,
                                              unsigned n, uint16_t* kept, bool trusted);
    unsigned mixed_fill(uint32_t keys, rte_mbuf** pkts, unsigned i, unsigned n, uint16_t* kept,
                        bool trusted) {
        return shapes->tcp_ports ? mixed_fill_run<true>(keys, pkts, i, n, kept, trusted)
                                 : mixed_fill_run<false>(keys, pkts, i, n, kept, trusted);
    }
    unsigned fill_runs(int k, uint32_t keys, rte_mbuf** pkts, unsigned i, unsigned n,
                       uint16_t* kept, bool trusted);
    template <bool kV6, bool kUdp, bool kPorts>
    [[gnu::noinline]] unsigned same_chain_fill(rte_mbuf** pkts, unsigned i, unsigned n,
                                               const PacketVerdict* v, uint64_t* sums);
    template <bool kV6>
    [[gnu::noinline]] unsigned same_sctp_chain_fill(rte_mbuf** pkts, unsigned i, unsigned n,
                                                    const PacketVerdict* v, uint64_t* sums);
    // A burst after one of mostly tunnels: one that goes on with the last
    // burst's tunnel run enters it straight, with no policy decode (as
    // plain_burst), where tunnel_burst_rest would try the run first.
    template <Mode kMode>
    [[gnu::always_inline]] uint16_t tunnel_burst(const RxPortPolicy& rx, const TxPortPolicy& tx,
                                                 rte_mbuf** pkts, uint16_t n) {
        constexpr uint32_t kFull = 1u << static_cast<unsigned>(LayerProto::ipv4) |
                                   1u << static_cast<unsigned>(LayerProto::tcp) |
                                   1u << static_cast<unsigned>(LayerProto::udp);
        if ((kMode == Mode::verify || kMode == Mode::csum) &&
            tunnel_run->kind != TunnelRun::kNone && cfg.plain_fast_path &&
            !rx.complete_in_verdict && !rx.trusted && (rx.verify_mask & kFull) == kFull && n != 0) {
            const uint16_t done = tunnel_same_burst(pkts, n);  // all kept, in place
            return done == n ? n
                             : static_cast<uint16_t>(
                                   done + tunnel_burst_rest<kMode>(rx, tx, pkts + done, n - done));
        }
        // Fill mode: a burst that goes on with the last tunnel fill run's
        // template, from a port of the same trust (the verdict says it).
        if (kMode == Mode::fill && tunnel_fill->kind != TunnelRun::kNone && cfg.plain_fast_path &&
            !rx.complete_in_verdict &&
            TunnelOutcomes::key_trusted(tunnel_fill->key) == rx.trusted && n != 0) {
            const uint16_t done = tunnel_fill_burst(pkts, n);  // all kept, in place
            return done == n ? n
                             : static_cast<uint16_t>(
                                   done + tunnel_burst_rest<kMode>(rx, tx, pkts + done, n - done));
        }
        return tunnel_burst_rest<kMode>(rx, tx, pkts, n);
    }
    template <Mode kMode>
    uint16_t tunnel_burst_rest(const RxPortPolicy& rx, const TxPortPolicy& tx, rte_mbuf** pkts,
                               uint16_t n);
    uint16_t tunnel_good_run(rte_mbuf** pkts, uint16_t i, uint16_t n, uint16_t* kept);
    // The counts of the tunnel packets a mixed run took by each kind's
    // template (tunnel_runs), as tunnel_all_good counts each; returns how many.
    unsigned count_mixed_tunnels(const TunnelMixedTook& mt);
    // A linear tunnel packet of the common shape among plain ones: the lean
    // tunnel path's work, verdict and counts (common_tunnel_packet's, summed
    // once whatever its outcome), and if all good its kind's template
    // built, so that the plain mixed run takes the next ones of its shape.
    // kTunnelNone, with nothing written: any other packet.
    template <Mode kMode>
    int tunnel_among_plain(const LeanBurst& b, rte_mbuf* m);
    // Where a tunnel run stopped at a plain packet: the plain mixed run
    // (which takes tunnels by their templates too), by our sums or the
    // PMD's flags as the packet at i carries; the packets it takes moved up
    // to *kept... A plain packet whose sums are wrong stops it, its sum in
    // *known (never summed twice). Returns the first it did not take.
    uint16_t plain_among_tunnels(rte_mbuf** pkts, uint16_t i, uint16_t n, uint16_t* kept,
                                 KnownSum* known);
    // Whether the tunnel run kind m's bytes guess has a template.
    [[gnu::always_inline]] bool tunnel_template_for(const rte_mbuf* m) const {
        const int g = tunnel_run_kind_guess_any(m);
        return g != TunnelRun::kNone && tunnel_runs[g].kind == g;
    }
    // The last burst's tunnel run from a burst's first packet (as same_burst
    // for plain packets): returns the first it did not take.
    uint16_t tunnel_same_burst(rte_mbuf** pkts, uint16_t n);
    // Every run kind's last template (TunnelRun kinds 0..31): where inner
    // shapes alternate, each packet goes to its kind's run, not through the
    // per-packet path and a new template (tunnel_good_run). tunnel_run: the
    // one built last (kind kNone before any), where the next burst starts.
    TunnelRun tunnel_runs[TunnelRun::kKinds];
    const TunnelRun* tunnel_run = &tunnel_runs[0];
    // Fill mode's tunnel run (tunnel_fill_run.cpp): after a tunnel packet
    // the lean path filled, of the verify run's layout (tunnel_fill_key of
    // its outcome key), the packets of its shape, filled as it fills them.
    // Each kind's last template (at fill_index(kind)), as tunnel_runs
    // for the verify run: inner shapes that alternate each take their
    // kind's (tunnel_fill_cached); tunnel_fill: the one built last.
    TunnelRun tunnel_fills[8];
    const TunnelRun* tunnel_fill = &tunnel_fills[0];
    static bool tunnel_fill_key(uint32_t key) {
        // Not dropped, the inner L4 header at 84 (inner IPv4) or 104, 20
        // more under outer IPv6.
        const uint32_t il4 = ((key >> 17) & 1 ? 104u : 84u) + ((key >> 16) & 1 ? 20u : 0u);
        return (key & (1u << 19)) == 0 && (key >> 21) == il4;
    }
    unsigned tunnel_fill_start(rte_mbuf* m, uint32_t key, rte_mbuf** pkts, unsigned i, unsigned n,
                               uint16_t* kept);
    unsigned tunnel_fill_run(const TunnelRun& r, rte_mbuf** pkts, unsigned i, unsigned n,
                             uint16_t* kept);
    unsigned tunnel_fill_cached(rte_mbuf** pkts, unsigned i, unsigned n, uint16_t* kept,
                                bool trusted);
    unsigned tunnel_fill_mixed(bool wide, rte_mbuf** pkts, unsigned i, unsigned n, uint16_t* kept,
                               bool trusted);
    void fill_counts(const TunnelRun& r, uint64_t l4_sum, unsigned took);
    // The fill counts of the tunnels a mixed fill run took by each kind's
    // template (tunnel_fills, TunnelFillTook), as count_mixed_tunnels for
    // verify; returns how many.
    unsigned count_fill_tunnels(const KindTook<8>& mt);
    void fill_keep(rte_mbuf** pkts, unsigned i, unsigned took, uint16_t* kept);
    uint16_t tunnel_fill_burst(rte_mbuf** pkts, uint16_t n);
};
// The lean path's feed (verify mode, untrusted port): the key, sequence
// number and payload straight from the classified headers, no walker.
inline NvmeSegmentResult Engine::Impl::feed_nvme_shape(rte_mbuf* m, const PacketShape& s,
                                                       LayerStatus l4) {
    nvme_fed = true;
    if (l4 != LayerStatus::good && l4 != LayerStatus::partial) return {};  // as feed_nvme
    const uint8_t* ip = s.bytes + s.l3_off;
    const uint8_t* th = s.bytes + s.l4_off;
    const auto sport = static_cast<uint16_t>(th[0] << 8 | th[1]);
    const auto dport = static_cast<uint16_t>(th[2] << 8 | th[3]);
    // As nvme_flow_key_v4/v6 build it, without the call, in the 16/16/8-byte
    // stores the tracker's key compare loads: narrower stores under a wider
    // load stall it until they retire (store forwarding fails).
    NvmeFlowKey key;
    __m128i src, dst;
    if (s.v6) {
        src = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ip + 8));
        dst = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ip + 24));
    } else {
        uint32_t a, b;
        std::memcpy(&a, ip + 12, 4);
        std::memcpy(&b, ip + 16, 4);
        src = _mm_cvtsi32_si128(static_cast<int>(a));
        dst = _mm_cvtsi32_si128(static_cast<int>(b));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(key.src_addr), src);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(key.dst_addr), dst);
    const uint64_t tail = sport | uint64_t{dport} << 16 | uint64_t{s.v6 ? 6u : 4u} << 32;
    static_assert(offsetof(NvmeFlowKey, src_port) == 32 && sizeof(NvmeFlowKey) == 40);
    std::memcpy(&key.src_port, &tail, 8);
    return nvme->feed(key, be32_at(th + 4), th[13], m, uint32_t{s.l4_off} + s.l4_hdr,
                      s.l4_len - s.l4_hdr, burst_tsc);
}

}  // namespace csum
