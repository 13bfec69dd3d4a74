// TSC ticks per packet through Engine::process, by mode, protocol, size and
// segmentation, with software checks and with GOOD flags as a NIC sets them.
// Peer in the same run: DPDK's rte_ipv4/6_udptcp_cksum_mbuf_verify plus
// rte_ipv4_cksum, which is what testpmd's csum engine calls.
//
// usage: bench_engine [--reps N] [--csv FILE] [--json FILE] [--quick]
//                     [--proto P] [--size N] [--shape S] [--mode M] [--flags sw|good]
//        bench_engine --tunnels [--reps N] [--rounds N] [--size N]
//        bench_engine --mixed [--reps N] [--rounds N]
//        bench_engine --chains [--reps N] [--rounds N] [--proto P] [--size N] [--mode M] [--flags
//        F] [--first-seg N]
//   --tunnels: VXLAN and GENEVE (inner TCP 64 and 1420 B, or --size's) beside the plain TCP
//   packet of the same inner size, timed in alternation, min of the rounds' medians.
//   --chains: the same packet linear, in 2 and in 4 segments, timed in alternation
//   (min of the rounds' medians), with each chain's ratio to the linear packet (tunnels:
//   --proto vxlan-tcp4|geneve-tcp4, the size the inner frame's);
//   --first-seg N: the chains' first segment holds N bytes, the others share the rest.
//   --walk-floor: TCP/IPv4 64, 256 and 1420 B linear and in 2 and 4 segments: a bare walk
//   of each chain (links; links and one masked load a segment; the same four chains a
//   step) and an empty timed call, beside the engine's verify of the same chains.
//   --mixed [--proto MIX] [--size N] [--flags F] [--mode fill]: bursts of interleaved kinds, one
//   flow a packet, beside the mean of the kinds' uniform bursts (timed in alternation, min of the
//   rounds' medians).
//   --sizes [--proto P] [--mode verify|fill]: bursts of one protocol in mixed sizes (IMIX,
//   uniform spreads), beside the mean of uniform bursts of the same sizes and DPDK's bare
//   verify of the same burst.
//   --bursts [--proto P] [--size 64|1420] [--flags F] [--mode verify|csum]: short bursts (1, 2,
//   4 .. 32 packets a call), beside DPDK's bare verify of the same packets.
//   --drops [--proto P] [--size N] [--flags F]: bursts with bad packets dropped (drop_bad): one
//   bad second in the burst, every eighth bad, all bad, and all cut short by 4 bytes (malformed,
//   no flags), beside the clean burst.
//   --seg-bytes N: also a "scatter" shape, each frame in segments of N bytes but the last, as a
//   scatter-RX PMD leaves frames longer than its mbufs' N-byte data room (e.g. 9000 B jumbo
//   frames in DPDK's default 2048-B mbufs: --size 9000 --seg-bytes 2048).
//   --data-room N: the mbufs' data room (default 9216; DPDK's default pools have 2048).
//   --hugepages: the EAL's memory in 2-MB pages (--in-memory) instead of --no-huge's 4 KiB.
//   --packed: the pool from app/common/mbuf_pool.h (on 4-KiB pages, mbufs packed across page
//   boundaries rather than one at the start of each page, as csumd's pools are).
//   --untouched: DPDK's pool's pages left as DPDK leaves them on --no-huge, unmapped until
//   written (by default every page is read once, app::mbuf_pool_prefault, as csumd's pools
//   are: a masked load whose disabled lanes reach an unmapped page takes a microcode assist).
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

#include "bench_common.h"
#include "common/mbuf_pool.h"
#include "csum/engine.h"
#include "csum/inet.h"
#include "csum/kernels.h"
#include "gen/packet_builder.h"
#include "testkit/eal_args.h"

#ifdef CSUM_BENCH_LAYOUT_PAD
// A layout sweep's build (scripts/layout-sweep.sh): the code linked after
// this file, libcsum's included, moves by this many bytes.
#define CSUM_PAD_STR2(x) #x
#define CSUM_PAD_STR(x) CSUM_PAD_STR2(x)
asm(".text\n.skip " CSUM_PAD_STR(CSUM_BENCH_LAYOUT_PAD) ", 0xcc\n.previous\n");
#endif

using namespace csum;
using namespace csum::bench;

namespace {

struct Row {
    std::string proto, shape, mode, flags;
    uint32_t size;
    double ticks, dpdk_ticks;
};

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
         walk_floor = false, untouched = false, drops = false, size_mix = false,
         short_bursts = false;
    std::string csv, json, only_proto, only_mode, only_flags, only_shape;
    uint32_t only_size = 0, first_seg = 0, data_room = 9216, seg_bytes = 0;
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
        else if (a == "--walk-floor")
            walk_floor = true;
        else if (a == "--mixed")
            mixed = true;
        else if (a == "--drops")
            drops = true;
        else if (a == "--sizes")
            size_mix = true;
        else if (a == "--bursts")
            short_bursts = true;
        else if (a == "--packed")
            packed = true;
        else if (a == "--untouched")
            untouched = true;
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
        else if (a == "--seg-bytes" && i + 1 < argc)
            seg_bytes = uint32_t(std::atoi(argv[++i]));
        else if (a == "--data-room" && i + 1 < argc)
            data_room = uint32_t(std::atoi(argv[++i]));
    }
    if (data_room < 1420 + 64 || data_room > 9216) {
        std::fprintf(stderr, "--data-room: 1484..9216 bytes\n");
        return 2;
    }
    if (seg_bytes > data_room) {
        std::fprintf(stderr, "--seg-bytes: at most the data room (%u)\n", data_room);
        return 2;
    }
    const uint16_t room = uint16_t(data_room + RTE_PKTMBUF_HEADROOM);
    rte_mempool* mp = packed ? app::mbuf_pool_create("bench", 4095, 0, room, SOCKET_ID_ANY)
                             : rte_pktmbuf_pool_create("bench", 4095, 0, 0, room, SOCKET_ID_ANY);
    if (mp == nullptr) return 1;
    // mbuf_pool_create maps its pools' pages itself.
    if (!packed && !untouched) app::mbuf_pool_prefault(mp);
    if (!packed && untouched) std::printf("# pool pages untouched\n");
    if (data_room != 9216) std::printf("# mbuf data room: %u + headroom\n", data_room);
    if (packed && app::mbuf_pool_packed()) std::printf("# mbufs packed across 4-KiB pages\n");
    EngineConfig fc;
    fc.mode = Mode::fill;
    Engine filler(fc);
    // Every figure below includes it; "net" columns do not.
    const double timer = timer_ticks(reps);
    std::printf("# timer: %.1f ticks per timed burst of %d (%.2f a packet), inside every figure\n",
                timer * kBurst, kBurst, timer);
    // Calibration's choices can differ by process where two kernels tie (the
    // SCTP chain loops follow the CRC32C plan): every table with its own.
    std::printf("# kernels: %s\n", kernel_choice_summary().c_str());
    if (tunnels || chains || mixed || drops || walk_floor || size_mix || short_bursts) {
        if (short_bursts)
            burst_rows(mp, filler, reps, rounds, only_proto, only_size, only_flags, only_mode);
        else if (walk_floor)
            walk_floor_rows(mp, filler, reps, rounds);
        else if (drops)
            drop_rows(mp, filler, reps, rounds, only_proto, only_size, only_flags);
        else if (size_mix)
            size_rows(mp, filler, reps, rounds, only_proto, only_mode);
        else if (mixed)
            mixed_rows(mp, filler, reps, rounds, only_proto, only_size, only_flags, only_mode);
        else if (tunnels)
            tunnel_pairs(mp, filler, reps, rounds, only_size);
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
                        {gen::Proto::geneve_tcp4, 1, "geneve-tcp4"},
                        {gen::Proto::vxlan6_tcp4, 1, "vxlan6-tcp4"}};
    const uint32_t sizes[] = {64, 256, 1420, 9000};
    // segs 0: scattered into seg_bytes segments.
    std::vector<std::pair<int, const char*>> shapes = {{1, "linear"}, {2, "2seg"}, {4, "4seg"}};
    if (seg_bytes != 0) {
        shapes.push_back({0, "scatter"});
        std::printf("# scatter: segments of %u bytes but the last\n", seg_bytes);
    }
    const std::pair<Mode, const char*> modes[] = {
        {Mode::verify, "verify"}, {Mode::fill, "fill"}, {Mode::csum, "csum"}};
    std::vector<Row> rows;
    std::printf("%-14s %5s %-7s %-6s %-5s %10s %8s %9s %10s %8s\n", "proto", "size", "shape",
                "mode", "flags", "ticks/pkt", "net t/p", "B/tick", "dpdk t/p", "x dpdk");
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
                for (auto& m : pkts)
                    m = segs == 0 ? make_scattered(mp, bytes, seg_bytes)
                                  : make_packet(mp, bytes, segs);
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
                        const bool tunnel = gen::is_tunnel(p.proto);
                        uint64_t flags =
                            good ? RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0;
                        if (good && tunnel) flags |= RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
                        const uint32_t ptype = !(good && tunnel) ? 0
                                               : p.proto == gen::Proto::geneve_tcp4
                                                   ? RTE_PTYPE_TUNNEL_GENEVE
                                                   : RTE_PTYPE_TUNNEL_VXLAN;
                        const double t = time_engine(e, pkts, reps, flags, ptype);
                        Row r{p.name,
                              shape,
                              mode_name,
                              good ? "good" : "sw",
                              size,
                              t,
                              mode == Mode::verify && !good ? dpdk : 0};
                        std::printf("%-14s %5u %-7s %-6s %-5s %10.1f %8.1f %9.2f", r.proto.c_str(),
                                    size, shape, mode_name, r.flags.c_str(), t, t - timer,
                                    double(bytes.size()) / t);
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
        std::fprintf(f, "{\"tsc_hz\": %" PRIu64 ", \"timer_ticks_per_packet\": %.2f, \"rows\": [",
                     rte_get_tsc_hz(), timer);
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
