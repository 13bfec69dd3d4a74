// bench_engine --mixed and --drops: bursts as a port carries them (kinds
// interleaved) and as an attacker sends them (bad packets dropped).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "bench_common.h"
#include "csum/engine.h"
#include "csum/inet.h"
#include "gen/packet_builder.h"

namespace csum::bench {

// Mixed bursts, as a port carries them: kinds interleaved in one burst of
// 32, each packet its own flow (addresses and ports), against the mean of
// the same kinds' uniform bursts (also one flow a packet) in the same
// rounds; DPDK's bare verify of the mixed burst where every kind is plain.
void mixed_rows(rte_mempool* mp, Engine& filler, int reps, int rounds, const std::string& only,
                uint32_t only_size, const std::string& only_flags, const std::string& only_mode) {
    using gen::Proto;
    struct Mix {
        const char* name;
        std::vector<Proto> kinds;
        bool shuffled;
        // vxlan_tcp4 or vxlan6_tcp4: each kind the inner frame of a VXLAN
        // packet over IPv4 or IPv6.
        Proto outer = Proto::tcp4;
        bool in_vxlan() const { return gen::is_tunnel(outer); }
    };
    const Mix mixes[] = {
        {"tcp4+udp4", {Proto::tcp4, Proto::udp4}, false},
        {"tcp4+tcp6", {Proto::tcp4, Proto::tcp6}, false},
        {"4plain", {Proto::tcp4, Proto::udp4, Proto::tcp6, Proto::udp6}, false},
        {"4plain-shuffled", {Proto::tcp4, Proto::udp4, Proto::tcp6, Proto::udp6}, true},
        {"tcp4+vxlan", {Proto::tcp4, Proto::vxlan_tcp4}, false},
        {"3vxlan+tcp4",
         {Proto::vxlan_tcp4, Proto::vxlan_tcp4, Proto::vxlan_tcp4, Proto::tcp4},
         false},
        {"tcp4+sctp4", {Proto::tcp4, Proto::sctp4}, false},
        {"vxlan(tcp4+udp4)", {Proto::tcp4, Proto::udp4}, false, Proto::vxlan_tcp4},
        {"vxlan(4plain)",
         {Proto::tcp4, Proto::udp4, Proto::tcp6, Proto::udp6},
         false,
         Proto::vxlan_tcp4},
        {"vxlan6(tcp4+udp4)", {Proto::tcp4, Proto::udp4}, false, Proto::vxlan6_tcp4},
        {"vxlan6(4plain)",
         {Proto::tcp4, Proto::udp4, Proto::tcp6, Proto::udp6},
         false,
         Proto::vxlan6_tcp4},
    };
    std::printf("%-18s %5s %-5s %10s %12s %8s %10s\n", "mix", "size", "flags", "mixed t/p",
                "uniform t/p", "x unif", "/ dpdk");
    uint32_t rng = 12345;
    for (uint32_t size : {64u, 1420u}) {
        if (only_size != 0 && only_size != size) continue;
        for (const Mix& x : mixes) {
            if (!only.empty() && only != x.name) continue;
            const size_t nk = x.kinds.size();
            rte_mbuf* mixed[kBurst];
            std::vector<std::vector<rte_mbuf*>> uni(nk, std::vector<rte_mbuf*>(kBurst));
            std::vector<int> order(kBurst);
            for (int i = 0; i < kBurst; ++i) order[i] = i % int(nk);
            if (x.shuffled)
                for (int i = kBurst - 1; i > 0; --i) {
                    rng = rng * 1103515245u + 12345u;
                    std::swap(order[i], order[(rng >> 8) % uint32_t(i + 1)]);
                }
            auto frame = [&](Proto p, int i) {
                // A tunnel's inner packet of `size` bytes, as tunnel_pairs builds it.
                const uint32_t len = size + gen::outer_len(p);
                auto f = gen::build_frame({p, len, 1, uint32_t(i + 1)});
                if (!x.in_vxlan()) return f;
                // The outer headers of a VXLAN frame of the right lengths, then this one.
                const uint32_t outer = gen::outer_len(x.outer);
                auto t =
                    gen::build_frame({x.outer, uint32_t(f.size()) + outer, 1, uint32_t(i + 1)});
                std::copy(f.begin(), f.end(), t.begin() + outer);
                return t;
            };
            // With GOOD flags each packet's own type, as a PMD sets it: a
            // tunnel's says the PMD saw the tunnel (its outer L4 GOOD flag
            // speaks for the outer UDP checksum), a plain packet's nothing more.
            auto ptype_of = [&](Proto p) {
                return x.in_vxlan() || gen::is_tunnel(p) ? RTE_PTYPE_TUNNEL_VXLAN : 0u;
            };
            auto set_types = [&] {
                for (int i = 0; i < kBurst; ++i)
                    mixed[i]->packet_type = ptype_of(x.kinds[order[i]]);
                for (size_t k = 0; k < nk; ++k)
                    for (rte_mbuf* m : uni[k]) m->packet_type = ptype_of(x.kinds[k]);
            };
            for (int i = 0; i < kBurst; ++i)
                mixed[i] = make_packet(mp, frame(x.kinds[order[i]], i), 1);
            filler.process({}, {}, mixed, kBurst);
            for (size_t k = 0; k < nk; ++k) {
                for (int i = 0; i < kBurst; ++i)
                    uni[k][i] = make_packet(mp, frame(x.kinds[k], i), 1);
                filler.process({}, {}, uni[k].data(), kBurst);
            }
            bool plain = !x.in_vxlan();
            for (Proto p : x.kinds) plain &= p <= Proto::udp6;  // kinds DPDK verifies
            const bool fill = only_mode == "fill";
            EngineConfig c;
            c.mode = fill ? Mode::fill : Mode::verify;
            Engine e(c);
            for (int good = 0; good < (fill ? 1 : 2); ++good) {
                if (!only_flags.empty() && only_flags != (good ? "good" : "sw")) continue;
                const uint64_t f = good
                                       ? RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD |
                                             RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD
                                       : 0;
                // Software sums: no packet type; GOOD flags: each packet's own
                // (all kept: the bursts stay in order).
                if (good) set_types();
                const uint32_t ptype = good ? kOwnPtype : 0;
                double tm = 1e18, td = 1e18;
                std::vector<double> tu(nk, 1e18);
                for (int r = 0; r < rounds; ++r) {
                    tm = std::min(tm, time_engine(e, mixed, reps, f, ptype));
                    for (size_t k = 0; k < nk; ++k)
                        tu[k] = std::min(tu[k], time_engine(e, uni[k].data(), reps, f, ptype));
                    if (plain && !good && !fill) td = std::min(td, time_dpdk_mixed(mixed, reps));
                }
                double mean = 0;
                for (double t : tu) mean += t / double(nk);
                std::printf("%-18s %5u %-5s %10.1f %12.1f %8.2f", x.name, size,
                            fill   ? "fill"
                            : good ? "good"
                                   : "sw",
                            tm, mean, tm / mean);
                if (plain && !good && !fill)
                    td > 0 ? std::printf(" %10.2f", tm / td) : std::printf(" %10s", "-");
                std::printf("\n");
            }
            rte_pktmbuf_free_bulk(mixed, kBurst);
            for (auto& u : uni) rte_pktmbuf_free_bulk(u.data(), kBurst);
        }
    }
}

// Drops in a burst, as a port that drops bad packets (--bad drop) sees them
// under attack: a uniform burst with one bad packet second, and with every
// eighth bad, beside the clean burst, all with drop_bad. The burst's order
// is restored before each pass (the engine moves drops to the end).
static double time_engine_ordered(Engine& e, const RxPortPolicy& rx, rte_mbuf* const* order,
                                  int reps, uint64_t rx_flags, uint32_t ptype, uint32_t bad,
                                  uint64_t bad_flags) {
    std::vector<double> t;
    rte_mbuf* pkts[kBurst];
    for (int r = -reps / 10; r < reps; ++r) {
        for (int i = 0; i < kBurst; ++i) {
            pkts[i] = order[i], pkts[i]->packet_type = ptype;
            pkts[i]->ol_flags = bad >> i & 1 ? bad_flags : rx_flags;
        }
        const uint64_t t0 = rte_rdtsc_precise();
        e.process(rx, {}, pkts, kBurst);
        const uint64_t dt = rte_rdtsc_precise() - t0;
        if (r >= 0) t.push_back(double(dt) / kBurst);
    }
    return median(t);
}

void drop_rows(rte_mempool* mp, Engine& filler, int reps, int rounds, const std::string& only,
               uint32_t only_size, const std::string& only_flags) {
    using gen::Proto;
    const std::pair<Proto, const char*> protos[] = {{Proto::tcp4, "tcp4"},
                                                    {Proto::udp4, "udp4"},
                                                    {Proto::tcp6, "tcp6"},
                                                    {Proto::vxlan_tcp4, "vxlan-tcp4"},
                                                    {Proto::geneve_tcp4, "geneve-tcp4"}};
    std::printf("%-12s %5s %-5s %10s %12s %8s %12s %8s %12s %8s %12s %8s\n", "proto", "inner",
                "flags", "clean t/p", "1 bad t/p", "x clean", "1/8 bad t/p", "x clean",
                "all bad t/p", "x clean", "all cut t/p", "x clean");
    RxPortPolicy rx;
    rx.drop_bad = true;
    EngineConfig c;
    Engine e(c);
    for (uint32_t size : {64u, 1420u}) {
        if (only_size != 0 && only_size != size) continue;
        for (auto [proto, name] : protos) {
            if (!only.empty() && only != name) continue;
            const bool tunnel = gen::is_tunnel(proto);
            rte_mbuf *clean[kBurst], *one[kBurst], *eighth[kBurst], *all[kBurst], *cut[kBurst];
            // cut: the bad packets lose their last 4 bytes instead (malformed).
            auto burst = [&](rte_mbuf** b, int bad_every, int bad_first, bool cut = false) {
                uint32_t bad = 0;
                for (int i = 0; i < kBurst; ++i) {
                    auto f =
                        gen::build_frame({proto, size + gen::outer_len(proto), 1, uint32_t(i + 1)});
                    b[i] = make_packet(mp, f, 1);
                }
                filler.process({}, {}, b, kBurst);
                for (int i = bad_first; bad_every && i < kBurst; i += bad_every) {
                    if (cut)
                        rte_pktmbuf_trim(b[i], 4);
                    else
                        *rte_pktmbuf_mtod_offset(b[i], uint8_t*, b[i]->data_len - 1) ^= 0x5A;
                    bad |= 1u << i;
                }
                return bad;
            };
            burst(clean, 0, 0);
            const uint32_t bad1 = burst(one, kBurst, 1), bad8 = burst(eighth, 8, 3),
                           bad_all = burst(all, 1, 0), cut_all = burst(cut, 1, 0, true);
            for (int good = 0; good < 2; ++good) {
                if (!only_flags.empty() && only_flags != (good ? "good" : "sw")) continue;
                // GOOD rows: the PMD flags every packet GOOD but the bad ones BAD.
                const uint64_t f = good
                                       ? RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD |
                                             (tunnel ? RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD : 0)
                                       : 0;
                const uint64_t fb =
                    good ? (f & ~RTE_MBUF_F_RX_L4_CKSUM_MASK) | RTE_MBUF_F_RX_L4_CKSUM_BAD : 0;
                const uint32_t ptype = !(good && tunnel)            ? 0
                                       : proto == Proto::vxlan_tcp4 ? RTE_PTYPE_TUNNEL_VXLAN
                                                                    : RTE_PTYPE_TUNNEL_GENEVE;
                double tc = 1e18, t1 = 1e18, t8 = 1e18, ta = 1e18, tx = 1e18;
                for (int r = 0; r < rounds; ++r) {
                    tc = std::min(tc, time_engine_ordered(e, rx, clean, reps, f, ptype, 0, 0));
                    t1 = std::min(t1, time_engine_ordered(e, rx, one, reps, f, ptype, bad1, fb));
                    t8 = std::min(t8, time_engine_ordered(e, rx, eighth, reps, f, ptype, bad8, fb));
                    ta = std::min(ta, time_engine_ordered(e, rx, all, reps, f, ptype, bad_all, fb));
                    tx = std::min(tx, time_engine_ordered(e, rx, cut, reps, f, ptype, cut_all, 0));
                }
                std::printf(
                    "%-12s %5u %-5s %10.1f %12.1f %8.2f %12.1f %8.2f %12.1f %8.2f %12.1f %8.2f\n",
                    name, size, good ? "good" : "sw", tc, t1, t1 / tc, t8, t8 / tc, ta, ta / tc, tx,
                    tx / tc);
            }
            rte_pktmbuf_free_bulk(clean, kBurst);
            rte_pktmbuf_free_bulk(one, kBurst);
            rte_pktmbuf_free_bulk(eighth, kBurst);
            rte_pktmbuf_free_bulk(all, kBurst);
            rte_pktmbuf_free_bulk(cut, kBurst);
        }
    }
}

}  // namespace csum::bench
