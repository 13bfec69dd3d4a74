// bench_engine's bursts and timings (bench_common.h).
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

namespace {

// A chain of bytes cut into pieces of piece(pos) bytes from packet offset pos.
template <typename Piece>
rte_mbuf* chain_of(rte_mempool* mp, const std::vector<uint8_t>& bytes, Piece piece) {
    rte_mbuf *head = nullptr, *tail = nullptr;
    const size_t size = bytes.size();
    for (size_t pos = 0; pos < size;) {
        rte_mbuf* m = rte_pktmbuf_alloc(mp);
        const size_t n = std::min(piece(pos), size - pos);
        void* dst = m ? rte_pktmbuf_append(m, uint16_t(n)) : nullptr;
        if (dst == nullptr) {
            std::fprintf(stderr, "bench_engine: no mbuf for a %zu-byte segment\n", n);
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

}  // namespace

rte_mbuf* make_packet(rte_mempool* mp, const std::vector<uint8_t>& bytes, int segs, size_t first) {
    const size_t size = bytes.size();
    const bool split = first > 0 && segs > 1 && first < size;
    const size_t per = split ? (size - first + segs - 2) / (segs - 1) : (size + segs - 1) / segs;
    return chain_of(mp, bytes, [&](size_t pos) { return split && pos == 0 ? first : per; });
}

rte_mbuf* make_scattered(rte_mempool* mp, const std::vector<uint8_t>& bytes, size_t seg_bytes) {
    return chain_of(mp, bytes, [seg_bytes](size_t) { return seg_bytes; });
}

double median(std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double timer_ticks(int reps) {
    std::vector<double> t;
    for (int r = -reps / 10; r < reps; ++r) {
        const uint64_t t0 = rte_rdtsc_precise();
        const uint64_t dt = rte_rdtsc_precise() - t0;
        if (r >= 0) t.push_back(double(dt) / kBurst);
    }
    return median(t);
}

double time_engine(Engine& e, rte_mbuf** pkts, int reps, uint64_t rx_flags, uint32_t ptype,
                   int per_call) {
    std::vector<double> t;
    for (int r = -reps / 10; r < reps; ++r) {
        for (int i = 0; i < kBurst; ++i) {
            pkts[i]->ol_flags = rx_flags;
            if (ptype != kOwnPtype) pkts[i]->packet_type = ptype;
        }
        const uint64_t t0 = rte_rdtsc_precise();
        for (int i = 0; i < kBurst; i += per_call)
            e.process({}, {}, pkts + i, uint16_t(std::min(per_call, kBurst - i)));
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

}  // namespace csum::bench
