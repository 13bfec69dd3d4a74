// TSC ticks per packet through Engine::process, by mode, protocol, size and
// segmentation, with software checks and with GOOD flags as a NIC sets them.
// Peer in the same run: DPDK's rte_ipv4/6_udptcp_cksum_mbuf_verify plus
// rte_ipv4_cksum, which is what testpmd's csum engine calls.
//
// usage: bench_engine [--reps N] [--csv FILE] [--json FILE] [--quick]
//                     [--proto P] [--size N] [--shape S] [--mode M] [--flags sw|good]
//        bench_engine --tunnels [--reps N] [--rounds N]
//        bench_engine --mixed [--reps N] [--rounds N]
//        bench_engine --chains [--reps N] [--rounds N] [--proto P] [--size N] [--mode M] [--flags
//        F] [--first-seg N]
//   --tunnels: VXLAN and GENEVE (inner TCP 64 and 1420 B) beside the plain TCP
//   packet of the same inner size, timed in alternation, min of the rounds' medians.
//   --chains: the same packet linear, in 2 and in 4 segments, timed in alternation
//   (min of the rounds' medians), with each chain's ratio to the linear packet;
//   --first-seg N: the chains' first segment holds N bytes, the others share the rest.
//   --mixed [--proto MIX] [--size N] [--flags F] [--mode fill]: bursts of interleaved kinds, one
//   flow a packet, beside the mean of the kinds' uniform bursts (timed in alternation, min of the
//   rounds' medians).
//   --drops [--proto P] [--size N] [--flags F]: bursts with bad packets dropped (drop_bad): one
//   bad second in the burst, every eighth bad, all bad, and all cut short by 4 bytes (malformed,
//   no flags), beside the clean burst.
//   --data-room N: the mbufs' data room (default 9216; DPDK's default pools have 2048).
//   --hugepages: the EAL's memory in 2-MB pages (--in-memory) instead of --no-huge's 4 KiB.
//   --packed: the pool from app/common/mbuf_pool.h (on 4-KiB pages, mbufs packed across page
//   boundaries rather than one at the start of each page, as csumd's pools are).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "common/mbuf_pool.h"
#include "csum/engine.h"
#include "csum/inet.h"
#include "gen/packet_builder.h"
#include "testkit/eal_args.h"

using namespace csum;

namespace {

constexpr int kBurst = 32;

struct Row {
    std::string proto, shape, mode, flags;
    uint32_t size;
    double ticks, dpdk_ticks;
};

// segs segments of equal size; or, with first > 0 and segs > 1, a first
// segment of `first` bytes and the rest split evenly over the others.
rte_mbuf* make_packet(rte_mempool* mp, const std::vector<uint8_t>& bytes, int segs,
                      size_t first = 0) {
    rte_mbuf *head = nullptr, *tail = nullptr;
    const size_t size = bytes.size();
    const bool split = first > 0 && segs > 1 && first < size;
    const size_t per = split ? (size - first + segs - 2) / (segs - 1) : (size + segs - 1) / segs;
    for (size_t pos = 0; pos < size;) {
        rte_mbuf* m = rte_pktmbuf_alloc(mp);
        const size_t n = std::min(split && pos == 0 ? first : per, size - pos);
        void* dst = m ? rte_pktmbuf_append(m, uint16_t(n)) : nullptr;
        if (dst == nullptr) {
            std::fprintf(stderr, "bench_engine: a %zu-byte segment does not fit an mbuf\n", n);
            std::exit(2);
        }
        std::memcpy(dst, bytes.data() + pos, n);
        if (!head)
            head = tail = m;
        else
            tail->next = m, tail = m, head->nb_segs++, head->pkt_len += uint32_t(n);
        pos += n;
    }
    return head;
}

double median(std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Ticks per packet for one engine pass over the burst, median of reps.
double time_engine(Engine& e, rte_mbuf** pkts, int reps, uint64_t rx_flags, uint32_t ptype) {
    std::vector<double> t;
    for (int r = -reps / 10; r < reps; ++r) {
        for (int i = 0; i < kBurst; ++i) pkts[i]->ol_flags = rx_flags, pkts[i]->packet_type = ptype;
        const uint64_t t0 = rte_rdtsc_precise();
        e.process({}, {}, pkts, kBurst);
        const uint64_t dt = rte_rdtsc_precise() - t0;
        if (r >= 0) t.push_back(double(dt) / kBurst);
    }
    return median(t);
}

// DPDK's software verification of a plain IPv4/IPv6 TCP/UDP packet: true if
// every checksum is right. The IP header through rte_pktmbuf_read, as a DPDK
// program must take it from a chain whose first segment may end inside it (a
// linear packet pays only its inline test that the header is in place).
[[gnu::always_inline]] inline bool dpdk_verify(const rte_mbuf* m, bool v6) {
    alignas(8) uint8_t copy[sizeof(rte_ipv6_hdr)];
    if (v6) {
        auto* ip =
            static_cast<const rte_ipv6_hdr*>(rte_pktmbuf_read(m, 14, sizeof(rte_ipv6_hdr), copy));
        return ip != nullptr && rte_ipv6_udptcp_cksum_mbuf_verify(m, ip, 54) == 0;
    }
    auto* ip =
        static_cast<const rte_ipv4_hdr*>(rte_pktmbuf_read(m, 14, sizeof(rte_ipv4_hdr), copy));
    if (ip == nullptr) return false;
    const uint16_t h = rte_ipv4_cksum(ip);
    return (h == 0xFFFF || h == 0) && rte_ipv4_udptcp_cksum_mbuf_verify(m, ip, 34) == 0;
}

// Its ticks per packet over the burst; 0 if it does not find every packet
// right (then it is no peer for this row).
[[gnu::noinline]] double time_dpdk(rte_mbuf** pkts, int reps, bool v6) {
    for (int i = 0; i < kBurst; ++i)
        if (!dpdk_verify(pkts[i], v6)) return 0.0;
    std::vector<double> t;
    int sink = 0;
    for (int r = -reps / 10; r < reps; ++r) {
        const uint64_t t0 = rte_rdtsc_precise();
        for (int i = 0; i < kBurst; ++i) sink += dpdk_verify(pkts[i], v6);
        const uint64_t dt = rte_rdtsc_precise() - t0;
        if (r >= 0) t.push_back(double(dt) / kBurst);
    }
    asm volatile("" : : "r"(sink));  // keep DPDK's results alive
    return median(t);
}

// time_dpdk over a burst of IPv4 and IPv6 packets: each packet's version
// from its first byte after Ethernet, as a program without ptype would.
[[gnu::noinline]] double time_dpdk_mixed(rte_mbuf** pkts, int reps) {
    auto v6 = [](const rte_mbuf* m) {
        return (*rte_pktmbuf_mtod_offset(m, const uint8_t*, 14) >> 4) == 6;
    };
    for (int i = 0; i < kBurst; ++i)
        if (!dpdk_verify(pkts[i], v6(pkts[i]))) return 0.0;
    std::vector<double> t;
    int sink = 0;
    for (int r = -reps / 10; r < reps; ++r) {
        const uint64_t t0 = rte_rdtsc_precise();
        for (int i = 0; i < kBurst; ++i) sink += dpdk_verify(pkts[i], v6(pkts[i]));
        const uint64_t dt = rte_rdtsc_precise() - t0;
        if (r >= 0) t.push_back(double(dt) / kBurst);
    }
    asm volatile("" : : "r"(sink));
    return median(t);
}

rte_mbuf* filled_burst(rte_mempool* mp, Engine& filler, gen::Proto proto, uint32_t size,
                       rte_mbuf** pkts) {
    const auto bytes = gen::build_frame({proto, size, 1, 1});
    for (int i = 0; i < kBurst; ++i) pkts[i] = make_packet(mp, bytes, 1);
    filler.process({}, {}, pkts, kBurst);  // checksums right from here on
    return pkts[0];
}

// The tunnel rows beside the plain packet of the same inner size: the three
// bursts are timed in turn, round after round, so that load on the machine
// falls on all of them; each figure is the lowest of the rounds' medians.
void tunnel_pairs(rte_mempool* mp, Engine& filler, int reps, int rounds) {
    constexpr uint32_t kOuter = 14 + 20 + 8 + 8;  // outer Ethernet, IPv4, UDP, VXLAN/GENEVE
    std::printf("%-6s %-6s %-5s %10s %10s %8s %10s %8s %12s\n", "inner", "mode", "flags",
                "tcp4 t/p", "vxlan t/p", "x plain", "geneve t/p", "x plain", "vxlan walker");
    const std::pair<Mode, const char*> modes[] = {
        {Mode::verify, "verify"}, {Mode::csum, "csum"}, {Mode::fill, "fill"}};
    for (uint32_t inner : {64u, 1420u}) {
        rte_mbuf *plain[kBurst], *vx[kBurst], *gn[kBurst];
        filled_burst(mp, filler, gen::Proto::tcp4, inner, plain);
        filled_burst(mp, filler, gen::Proto::vxlan_tcp4, inner + kOuter, vx);
        filled_burst(mp, filler, gen::Proto::geneve_tcp4, inner + kOuter, gn);
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
                double tp = 1e18, tv = 1e18, tg = 1e18, tw = 1e18;
                for (int r = 0; r < rounds; ++r) {
                    tp = std::min(tp, time_engine(e, plain, reps, f, 0));
                    tv = std::min(tv,
                                  time_engine(e, vx, reps, tf, good ? RTE_PTYPE_TUNNEL_VXLAN : 0));
                    tg = std::min(tg,
                                  time_engine(e, gn, reps, tf, good ? RTE_PTYPE_TUNNEL_GENEVE : 0));
                    tw = std::min(tw,
                                  time_engine(w, vx, reps, tf, good ? RTE_PTYPE_TUNNEL_VXLAN : 0));
                }
                std::printf("%-6u %-6s %-5s %10.1f %10.1f %8.2f %10.1f %8.2f %12.1f\n", inner,
                            mode_name, good ? "good" : "sw", tp, tv, tv / tp, tg, tg / tp, tw);
            }
        }
        rte_pktmbuf_free_bulk(plain, kBurst);
        rte_pktmbuf_free_bulk(vx, kBurst);
        rte_pktmbuf_free_bulk(gn, kBurst);
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
    };
    const P protos[] = {{gen::Proto::tcp4, "tcp4"},
                        {gen::Proto::udp4, "udp4"},
                        {gen::Proto::tcp6, "tcp6"},
                        {gen::Proto::udp6, "udp6"},
                        {gen::Proto::sctp4, "sctp4-1chunk"}};
    const std::pair<Mode, const char*> modes[] = {
        {Mode::verify, "verify"}, {Mode::fill, "fill"}, {Mode::csum, "csum"}};
    // The chain run's loop depends on it (AVX-512 kernels: the one-walk loop).
    std::printf("# inet kernel (1500-B class): %s\n",
                std::string(inet_kernel_name(inet_active_kernel())).c_str());
    if (first_seg != 0) std::printf("# first segment: %u bytes\n", first_seg);
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
            const auto bytes = gen::build_frame({p.proto, sz, 1, 1});
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
                    const uint64_t f =
                        good ? RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0;
                    const bool peer = mode == Mode::verify && !good && p.proto <= gen::Proto::udp6;
                    const bool v6 = p.proto == gen::Proto::tcp6 || p.proto == gen::Proto::udp6;
                    double t[3] = {1e18, 1e18, 1e18}, d[3] = {1e18, 1e18, 1e18};
                    for (int r = 0; r < rounds; ++r)
                        for (int k = 0; k < 3; ++k) {
                            t[k] = std::min(t[k], time_engine(e, b[k], reps, f, 0));
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
        bool in_vxlan = false;  // each kind the inner frame of a VXLAN packet
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
        {"vxlan(tcp4+udp4)", {Proto::tcp4, Proto::udp4}, false, true},
        {"vxlan(4plain)", {Proto::tcp4, Proto::udp4, Proto::tcp6, Proto::udp6}, false, true},
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
                const uint32_t len = p == Proto::vxlan_tcp4 ? size + 50 : size;
                auto f = gen::build_frame({p, len, 1, uint32_t(i + 1)});
                if (!x.in_vxlan) return f;
                // The outer headers of a VXLAN frame of the right lengths, then this one.
                auto t = gen::build_frame(
                    {Proto::vxlan_tcp4, uint32_t(f.size()) + 50, 1, uint32_t(i + 1)});
                std::copy(f.begin(), f.end(), t.begin() + 50);
                return t;
            };
            for (int i = 0; i < kBurst; ++i)
                mixed[i] = make_packet(mp, frame(x.kinds[order[i]], i), 1);
            filler.process({}, {}, mixed, kBurst);
            for (size_t k = 0; k < nk; ++k) {
                for (int i = 0; i < kBurst; ++i)
                    uni[k][i] = make_packet(mp, frame(x.kinds[k], i), 1);
                filler.process({}, {}, uni[k].data(), kBurst);
            }
            bool plain = !x.in_vxlan;
            for (Proto p : x.kinds) plain &= p <= Proto::udp6;
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
                // A PMD that says GOOD for the outer L4 layer saw the tunnel
                // (a mix of plain and tunnel packets: no packet type, as one
                // value serves the whole burst here).
                const uint32_t ptype = good && x.in_vxlan ? RTE_PTYPE_TUNNEL_VXLAN : 0;
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
double time_engine_ordered(Engine& e, const RxPortPolicy& rx, rte_mbuf* const* order, int reps,
                           uint64_t rx_flags, uint32_t ptype, uint32_t bad, uint64_t bad_flags) {
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
            const bool tunnel = proto == Proto::vxlan_tcp4 || proto == Proto::geneve_tcp4;
            rte_mbuf *clean[kBurst], *one[kBurst], *eighth[kBurst], *all[kBurst], *cut[kBurst];
            // cut: the bad packets lose their last 4 bytes instead (malformed).
            auto burst = [&](rte_mbuf** b, int bad_every, int bad_first, bool cut = false) {
                uint32_t bad = 0;
                for (int i = 0; i < kBurst; ++i) {
                    auto f =
                        gen::build_frame({proto, tunnel ? size + 50 : size, 1, uint32_t(i + 1)});
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

}  // namespace

int main(int argc, char** argv) {
    bool hugepages = false;
    for (int i = 1; i < argc; ++i) hugepages |= std::string(argv[i]) == "--hugepages";
    if (csum::testkit::eal_init({.prog = "bench_engine",
                                 .file_prefix = "bench_engine",
                                 .memory_mb = 512,
                                 .hugepages = hugepages}) < 0)
        return 1;
    int reps = 400, rounds = 7;
    bool quick = false, tunnels = false, chains = false, mixed = false, packed = false,
         drops = false;
    std::string csv, json, only_proto, only_mode, only_flags, only_shape;
    uint32_t only_size = 0, first_seg = 0, data_room = 9216;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--reps" && i + 1 < argc)
            reps = std::atoi(argv[++i]);
        else if (a == "--csv" && i + 1 < argc)
            csv = argv[++i];
        else if (a == "--json" && i + 1 < argc)
            json = argv[++i];
        else if (a == "--tunnels")
            tunnels = true;
        else if (a == "--chains")
            chains = true;
        else if (a == "--mixed")
            mixed = true;
        else if (a == "--drops")
            drops = true;
        else if (a == "--packed")
            packed = true;
        else if (a == "--rounds" && i + 1 < argc)
            rounds = std::atoi(argv[++i]);
        else if (a == "--quick")
            quick = true, reps = 50;
        else if (a == "--proto" && i + 1 < argc)
            only_proto = argv[++i];
        else if (a == "--size" && i + 1 < argc)
            only_size = uint32_t(std::atoi(argv[++i]));
        else if (a == "--mode" && i + 1 < argc)
            only_mode = argv[++i];
        else if (a == "--flags" && i + 1 < argc)
            only_flags = argv[++i];
        else if (a == "--first-seg" && i + 1 < argc)
            first_seg = uint32_t(std::atoi(argv[++i]));
        else if (a == "--shape" && i + 1 < argc)
            only_shape = argv[++i];
        else if (a == "--data-room" && i + 1 < argc)
            data_room = uint32_t(std::atoi(argv[++i]));
    }
    if (data_room < 1420 + 64 || data_room > 9216) {
        std::fprintf(stderr, "--data-room: 1484..9216 bytes\n");
        return 2;
    }
    const uint16_t room = uint16_t(data_room + RTE_PKTMBUF_HEADROOM);
    rte_mempool* mp = packed ? app::mbuf_pool_create("bench", 4095, 0, room, SOCKET_ID_ANY)
                             : rte_pktmbuf_pool_create("bench", 4095, 0, 0, room, SOCKET_ID_ANY);
    if (mp == nullptr) return 1;
    if (data_room != 9216) std::printf("# mbuf data room: %u + headroom\n", data_room);
    if (packed && app::mbuf_pool_packed()) std::printf("# mbufs packed across 4-KiB pages\n");
    EngineConfig fc;
    fc.mode = Mode::fill;
    Engine filler(fc);
    if (tunnels || chains || mixed || drops) {
        if (drops)
            drop_rows(mp, filler, reps, rounds, only_proto, only_size, only_flags);
        else if (mixed)
            mixed_rows(mp, filler, reps, rounds, only_proto, only_size, only_flags, only_mode);
        else if (tunnels)
            tunnel_pairs(mp, filler, reps, rounds);
        else
            chain_pairs(mp, filler, reps, rounds, only_proto, only_size, only_mode, only_flags,
                        first_seg);
        rte_mempool_free(mp);
        rte_eal_cleanup();
        return 0;
    }

    struct P {
        gen::Proto proto;
        uint16_t chunks;
        const char* name;
    };
    const P protos[] = {{gen::Proto::tcp4, 1, "tcp4"},
                        {gen::Proto::udp4, 1, "udp4"},
                        {gen::Proto::tcp6, 1, "tcp6"},
                        {gen::Proto::udp6, 1, "udp6"},
                        {gen::Proto::sctp4, 1, "sctp4-1chunk"},
                        {gen::Proto::sctp4, 4, "sctp4-4chunks"},
                        {gen::Proto::vxlan_tcp4, 1, "vxlan-tcp4"},
                        {gen::Proto::geneve_tcp4, 1, "geneve-tcp4"}};
    const uint32_t sizes[] = {64, 256, 1420, 9000};
    const std::pair<int, const char*> shapes[] = {{1, "linear"}, {2, "2seg"}, {4, "4seg"}};
    const std::pair<Mode, const char*> modes[] = {
        {Mode::verify, "verify"}, {Mode::fill, "fill"}, {Mode::csum, "csum"}};
    std::vector<Row> rows;
    std::printf("%-14s %5s %-6s %-6s %-5s %10s %9s %10s %8s\n", "proto", "size", "shape", "mode",
                "flags", "ticks/pkt", "B/tick", "dpdk t/p", "x dpdk");
    std::vector<uint32_t> size_list;
    for (uint32_t s : sizes)
        if (s <= data_room) size_list.push_back(s);  // linear rows must fit one mbuf
    if (only_size) size_list = {only_size};          // any size, e.g. a tunnel's outer frame
    for (const P& p : protos) {
        for (uint32_t size : size_list) {
            if (!only_proto.empty() && only_proto != p.name) continue;
            for (auto [segs, shape] : shapes) {
                if (quick && segs != 1 && size != 1420) continue;
                if (!only_shape.empty() && only_shape != shape) continue;
                const auto bytes = gen::build_frame({p.proto, size, p.chunks, 1});
                rte_mbuf* pkts[kBurst];
                for (auto& m : pkts) m = make_packet(mp, bytes, segs);
                filler.process({}, {}, pkts, kBurst);  // checksums right from here on
                const bool plain = p.proto <= gen::Proto::udp6;
                const bool v6 = p.proto == gen::Proto::tcp6 || p.proto == gen::Proto::udp6;
                const double dpdk = plain ? time_dpdk(pkts, reps, v6) : 0.0;
                for (auto [mode, mode_name] : modes) {
                    if (!only_mode.empty() && only_mode != mode_name) continue;
                    EngineConfig c;
                    c.mode = mode;
                    Engine e(c);
                    for (int good = 0; good < 2; ++good) {
                        if (!only_flags.empty() && only_flags != (good ? "good" : "sw")) continue;
                        const bool tunnel =
                            p.proto == gen::Proto::vxlan_tcp4 || p.proto == gen::Proto::geneve_tcp4;
                        uint64_t flags =
                            good ? RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0;
                        if (good && tunnel) flags |= RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
                        const uint32_t ptype = !(good && tunnel) ? 0
                                               : p.proto == gen::Proto::vxlan_tcp4
                                                   ? RTE_PTYPE_TUNNEL_VXLAN
                                                   : RTE_PTYPE_TUNNEL_GENEVE;
                        const double t = time_engine(e, pkts, reps, flags, ptype);
                        Row r{p.name,
                              shape,
                              mode_name,
                              good ? "good" : "sw",
                              size,
                              t,
                              mode == Mode::verify && !good ? dpdk : 0};
                        std::printf("%-14s %5u %-6s %-6s %-5s %10.1f %9.2f", r.proto.c_str(), size,
                                    shape, mode_name, r.flags.c_str(), t, double(bytes.size()) / t);
                        if (r.dpdk_ticks > 0)
                            std::printf(" %10.1f %8.2f", r.dpdk_ticks, r.dpdk_ticks / t);
                        std::printf("\n");
                        rows.push_back(r);
                    }
                }
                rte_pktmbuf_free_bulk(pkts, kBurst);
            }
        }
    }
    if (!csv.empty()) {
        FILE* f = std::fopen(csv.c_str(), "w");
        std::fprintf(f, "proto,size,shape,mode,flags,ticks_per_packet,dpdk_ticks_per_packet\n");
        for (const Row& r : rows)
            std::fprintf(f, "%s,%u,%s,%s,%s,%.2f,%.2f\n", r.proto.c_str(), r.size, r.shape.c_str(),
                         r.mode.c_str(), r.flags.c_str(), r.ticks, r.dpdk_ticks);
        std::fclose(f);
    }
    if (!json.empty()) {
        FILE* f = std::fopen(json.c_str(), "w");
        std::fprintf(f, "{\"tsc_hz\": %" PRIu64 ", \"rows\": [", rte_get_tsc_hz());
        for (size_t i = 0; i < rows.size(); ++i) {
            const Row& r = rows[i];
            std::fprintf(f,
                         "%s{\"proto\": \"%s\", \"size\": %u, \"shape\": \"%s\", \"mode\": \"%s\", "
                         "\"flags\": \"%s\", "
                         "\"ticks_per_packet\": %.2f, \"dpdk_ticks_per_packet\": %.2f}",
                         i ? ", " : "", r.proto.c_str(), r.size, r.shape.c_str(), r.mode.c_str(),
                         r.flags.c_str(), r.ticks, r.dpdk_ticks);
        }
        std::fprintf(f, "]}\n");
        std::fclose(f);
    }
    rte_mempool_free(mp);
    rte_eal_cleanup();
    return 0;
}
