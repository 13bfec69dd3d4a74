// bench_engine --tunnels and --chains: each row beside the plain or linear
// packet of the same bytes, timed in alternation.
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

// The tunnel rows beside the plain packet of the same inner size: the three
// bursts are timed in turn, round after round, so that load on the machine
// falls on all of them; each figure is the lowest of the rounds' medians.
// Inner sizes 64 and 1420 B, or `size` alone.
void tunnel_pairs(rte_mempool* mp, Engine& filler, int reps, int rounds, uint32_t size) {
    std::printf("%-6s %-6s %-5s %10s %10s %8s %10s %8s %11s %8s %12s\n", "inner", "mode", "flags",
                "tcp4 t/p", "vxlan t/p", "x plain", "geneve t/p", "x plain", "vxlan6 t/p",
                "x plain", "vxlan walker");
    const std::pair<Mode, const char*> modes[] = {
        {Mode::verify, "verify"}, {Mode::csum, "csum"}, {Mode::fill, "fill"}};
    const std::vector<uint32_t> inners =
        size != 0 ? std::vector<uint32_t>{size} : std::vector<uint32_t>{64, 1420};
    for (uint32_t inner : inners) {
        rte_mbuf *plain[kBurst], *vx[kBurst], *gn[kBurst], *vx6[kBurst];
        filled_burst(mp, filler, gen::Proto::tcp4, inner, plain);
        using gen::outer_len;
        filled_burst(mp, filler, gen::Proto::vxlan_tcp4, inner + outer_len(gen::Proto::vxlan_tcp4),
                     vx);
        filled_burst(mp, filler, gen::Proto::geneve_tcp4,
                     inner + outer_len(gen::Proto::geneve_tcp4), gn);
        filled_burst(mp, filler, gen::Proto::vxlan6_tcp4,
                     inner + outer_len(gen::Proto::vxlan6_tcp4), vx6);
        for (auto [mode, mode_name] : modes) {
            EngineConfig c;
            c.mode = mode;
            Engine e(c);
            c.plain_fast_path = false;  // the general walker, for reference
            Engine w(c);
            for (int good = 0; good < (mode == Mode::fill ? 1 : 2); ++good) {
                const uint64_t f =
                    good ? RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0;
                const uint64_t tf = good ? f | RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD : 0;
                double tp = 1e18, tv = 1e18, tg = 1e18, tv6 = 1e18, tw = 1e18;
                for (int r = 0; r < rounds; ++r) {
                    tp = std::min(tp, time_engine(e, plain, reps, f, 0));
                    tv = std::min(tv,
                                  time_engine(e, vx, reps, tf, good ? RTE_PTYPE_TUNNEL_VXLAN : 0));
                    tg = std::min(tg,
                                  time_engine(e, gn, reps, tf, good ? RTE_PTYPE_TUNNEL_GENEVE : 0));
                    tv6 = std::min(
                        tv6, time_engine(e, vx6, reps, tf, good ? RTE_PTYPE_TUNNEL_VXLAN : 0));
                    tw = std::min(tw,
                                  time_engine(w, vx, reps, tf, good ? RTE_PTYPE_TUNNEL_VXLAN : 0));
                }
                std::printf("%-6u %-6s %-5s %10.1f %10.1f %8.2f %10.1f %8.2f %11.1f %8.2f %12.1f\n",
                            inner, mode_name, good ? "good" : "sw", tp, tv, tv / tp, tg, tg / tp,
                            tv6, tv6 / tp, tw);
            }
        }
        rte_pktmbuf_free_bulk(plain, kBurst);
        rte_pktmbuf_free_bulk(vx, kBurst);
        rte_pktmbuf_free_bulk(gn, kBurst);
        rte_pktmbuf_free_bulk(vx6, kBurst);
    }
}

// The chain rows beside the linear packet of the same bytes: the three
// bursts are timed in turn, round after round, as tunnel_pairs does.
void chain_pairs(rte_mempool* mp, Engine& filler, int reps, int rounds, const std::string& proto,
                 uint32_t size, const std::string& mode_only, const std::string& flags_only,
                 uint32_t first_seg) {
    struct P {
        gen::Proto proto;
        const char* name;
        uint16_t chunks = 1;  // SCTP's
    };
    const P protos[] = {{gen::Proto::tcp4, "tcp4"},
                        {gen::Proto::udp4, "udp4"},
                        {gen::Proto::tcp6, "tcp6"},
                        {gen::Proto::udp6, "udp6"},
                        {gen::Proto::sctp4, "sctp4-1chunk"},
                        {gen::Proto::sctp4, "sctp4-4chunks", 4},
                        {gen::Proto::vxlan_tcp4, "vxlan-tcp4"},
                        {gen::Proto::geneve_tcp4, "geneve-tcp4"},
                        {gen::Proto::vxlan6_tcp4, "vxlan6-tcp4"}};
    const std::pair<Mode, const char*> modes[] = {
        {Mode::verify, "verify"}, {Mode::fill, "fill"}, {Mode::csum, "csum"}};
    // The chain run's loop depends on it (AVX-512 kernels: the one-walk loop).
    std::printf("# inet kernel (1500-B class): %s\n",
                std::string(inet_kernel_name(inet_active_kernel())).c_str());
    if (first_seg != 0) std::printf("# first segment: %u bytes\n", first_seg);
    // Tunnels: the size is the inner frame's (as --tunnels), 50 bytes of
    // outer headers around it.
    // "/ dpdk": the engine's ticks over DPDK's bare verify of the same
    // packets (verify, software sums, TCP/UDP; "-" where DPDK finds a right
    // packet wrong: 22.11's rte_raw_cksum_mbuf cuts an odd-position
    // segment's sum to 16 bits before swapping it).
    std::printf("%-14s %5s %-6s %-5s %10s %10s %8s %10s %8s   %s\n", "proto", "size", "mode",
                "flags", "linear t/p", "2seg t/p", "x lin", "4seg t/p", "x lin",
                "/ dpdk: lin 2seg 4seg");
    for (const P& p : protos) {
        if (!proto.empty() && proto != p.name) continue;
        const std::vector<uint32_t> sizes =
            size != 0 ? std::vector<uint32_t>{size} : std::vector<uint32_t>{64, 256, 1420};
        for (uint32_t sz : sizes) {
            const bool tunnel = gen::is_tunnel(p.proto);
            const auto bytes =
                gen::build_frame({p.proto, sz + gen::outer_len(p.proto), p.chunks, 1});
            rte_mbuf* b[3][kBurst];
            for (int k = 0; k < 3; ++k) {
                for (auto& m : b[k]) m = make_packet(mp, bytes, 1 << k, first_seg);
                filler.process({}, {}, b[k], kBurst);
            }
            for (auto [mode, mode_name] : modes) {
                if (mode_only.empty() ? mode != Mode::verify : mode_only != mode_name) continue;
                EngineConfig c;
                c.mode = mode;
                Engine e(c);
                for (int good = 0; good < 2; ++good) {
                    if (flags_only.empty() ? good : flags_only != (good ? "good" : "sw")) continue;
                    uint64_t f =
                        good ? RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0;
                    if (good && tunnel) f |= RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
                    const uint32_t ptype = !(good && tunnel) ? 0
                                           : p.proto == gen::Proto::geneve_tcp4
                                               ? RTE_PTYPE_TUNNEL_GENEVE
                                               : RTE_PTYPE_TUNNEL_VXLAN;
                    const bool peer = mode == Mode::verify && !good && p.proto <= gen::Proto::udp6;
                    const bool v6 = p.proto == gen::Proto::tcp6 || p.proto == gen::Proto::udp6;
                    double t[3] = {1e18, 1e18, 1e18}, d[3] = {1e18, 1e18, 1e18};
                    for (int r = 0; r < rounds; ++r)
                        for (int k = 0; k < 3; ++k) {
                            t[k] = std::min(t[k], time_engine(e, b[k], reps, f, ptype));
                            if (peer) d[k] = std::min(d[k], time_dpdk(b[k], reps, v6));
                        }
                    std::printf("%-14s %5u %-6s %-5s %10.1f %10.1f %8.2f %10.1f %8.2f", p.name, sz,
                                mode_name, good ? "good" : "sw", t[0], t[1], t[1] / t[0], t[2],
                                t[2] / t[0]);
                    if (peer) {
                        std::printf("  ");
                        for (int k = 0; k < 3; ++k)
                            d[k] > 0 ? std::printf(" %5.2f", t[k] / d[k])
                                     : std::printf(" %5s", "-");
                    }
                    std::printf("\n");
                }
            }
            for (auto& k : b) rte_pktmbuf_free_bulk(k, kBurst);
        }
    }
}

}  // namespace csum::bench
