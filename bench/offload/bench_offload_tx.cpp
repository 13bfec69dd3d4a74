// TSC ticks per packet for the port attach's TX emulation (tx_emulate: what
// a NIC does with RTE_MBUF_F_TX_*_CKSUM), hot cache, bursts of 32. Peer in the
// same run: what testpmd's csum engine does per packet in software mode,
// rte_ipv4_cksum + rte_ipv4/6_udptcp_cksum, on chains the _mbuf variant
// (SCTP: testpmd computes nothing). Chains ("x2", "x4") hold the headers in
// the first segment and the payload split evenly over the others, as an
// application sending a header mbuf and payload mbufs builds them. IPv6
// rows take tx_emulate's general path, the IPv4 ones its plain fast path.
//
// usage: bench_offload_tx [--reps N] [--row NAME]   (NAME: one row only)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "offload/tx_emul.h"
#include "testkit/eal_args.h"

using namespace csum;

namespace {

constexpr int kBurst = 32;

struct Row {
    const char* name;
    uint8_t proto;  // 6: TCP (20 B header), 132: SCTP (12 B + a DATA chunk)
    bool v6;
    uint32_t frame, segs;
};

// Ethernet + IPv4/IPv6 + L4 of row.frame bytes in row.segs segments.
rte_mbuf* make(rte_mempool* mp, const Row& row) {
    const uint32_t frame = row.frame, l3 = row.v6 ? 40 : 20, l4_off = 14 + l3;
    std::vector<uint8_t> f(frame, 0);
    uint8_t* p = f.data();
    uint8_t* ip = p + 14;
    if (row.v6) {
        p[12] = 0x86, p[13] = 0xDD;
        const uint32_t plen = frame - l4_off;
        ip[0] = 0x60, ip[4] = uint8_t(plen >> 8), ip[5] = uint8_t(plen), ip[6] = row.proto;
        ip[7] = 64, ip[8] = 0x20, ip[23] = 1, ip[24] = 0x20, ip[39] = 2;
    } else {
        p[12] = 0x08;
        const uint32_t tot = frame - 14;
        ip[0] = 0x45, ip[2] = uint8_t(tot >> 8), ip[3] = uint8_t(tot), ip[8] = 64;
        ip[9] = row.proto, ip[12] = 10, ip[15] = 1, ip[16] = 10, ip[19] = 2;
    }
    uint8_t* l4 = p + l4_off;
    const uint32_t l4_len = frame - l4_off;
    l4[1] = 1, l4[3] = 2;
    if (row.proto == 6) l4[12] = 0x50;
    if (row.proto == 132) l4[14] = uint8_t((l4_len - 12) >> 8), l4[15] = uint8_t(l4_len - 12);
    for (uint32_t i = l4_off + 32; i < frame; ++i) p[i] = uint8_t(i * 13);
    const uint32_t head = row.segs == 1 ? frame : l4_off + (row.proto == 6 ? 20 : 12);
    rte_mbuf* m = nullptr;
    for (uint32_t s = 0, off = 0; s < row.segs; ++s) {
        const uint32_t rest = frame - head, k = row.segs - 1;
        const uint32_t n = s == 0 ? head : rest / k + (s == k ? rest % k : 0);
        rte_mbuf* g = rte_pktmbuf_alloc(mp);
        std::memcpy(rte_pktmbuf_append(g, uint16_t(n)), p + off, n);
        off += n;
        if (m == nullptr)
            m = g;
        else
            rte_pktmbuf_chain(m, g);
    }
    m->l2_len = 14, m->l3_len = uint16_t(l3);
    return m;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// One burst through tx_emulate, ticks per packet; *refused counts refusals
// (a row whose packets are refused measures nothing worth printing).
double emul_once(rte_mbuf** pkts, uint64_t flags, int* refused) {
    for (int i = 0; i < kBurst; ++i) pkts[i]->ol_flags = flags;
    int bad = 0;
    const uint64_t t0 = rte_rdtsc_precise();
    for (int i = 0; i < kBurst; ++i) {
        TxServed s;
        csum_tx_error e;
        bad += tx_emulate(pkts[i], kTxEmulatable, &s, &e) != 0;
    }
    const uint64_t t1 = rte_rdtsc_precise();
    *refused += bad;
    return double(t1 - t0) / kBurst;
}

// One burst of what testpmd's csum engine does in software mode (TCP).
double testpmd_sw_once(rte_mbuf** pkts, bool v6) {
    const uint64_t t0 = rte_rdtsc_precise();
    for (int i = 0; i < kBurst; ++i) {
        rte_mbuf* m = pkts[i];
        const bool chain = m->nb_segs != 1;
        if (v6) {
            auto* ip = rte_pktmbuf_mtod_offset(m, rte_ipv6_hdr*, 14);
            auto* tcp = reinterpret_cast<rte_tcp_hdr*>(ip + 1);
            tcp->cksum = 0;
            tcp->cksum =
                chain ? rte_ipv6_udptcp_cksum_mbuf(m, ip, 54) : rte_ipv6_udptcp_cksum(ip, tcp);
        } else {
            auto* ip = rte_pktmbuf_mtod_offset(m, rte_ipv4_hdr*, 14);
            auto* tcp = reinterpret_cast<rte_tcp_hdr*>(ip + 1);
            ip->hdr_checksum = 0;
            ip->hdr_checksum = rte_ipv4_cksum(ip);
            tcp->cksum = 0;
            tcp->cksum =
                chain ? rte_ipv4_udptcp_cksum_mbuf(m, ip, 34) : rte_ipv4_udptcp_cksum(ip, tcp);
        }
    }
    return double(rte_rdtsc_precise() - t0) / kBurst;
}

}  // namespace

int main(int argc, char** argv) {
    int reps = 2000;
    std::string only;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::string(argv[i]) == "--reps") reps = std::atoi(argv[i + 1]);
        if (std::string(argv[i]) == "--row") only = argv[i + 1];
    }
    if (csum::testkit::eal_init({.prog = "bench", .file_prefix = "bench_offload"}) < 0) return 1;
    rte_mempool* mp = rte_pktmbuf_pool_create("b", 511, 0, 0, 2048 + 128, SOCKET_ID_ANY);
    std::printf("%-10s %8s %14s %18s %8s\n", "row", "bytes", "tx_emulate", "testpmd sw peer",
                "ratio");
    const Row rows[] = {
        {"tcp64", 6, false, 64, 1},        {"tcp1420", 6, false, 1420, 1},
        {"sctp256", 132, false, 256, 1},   {"tcp64x2", 6, false, 64, 2},
        {"tcp1420x2", 6, false, 1420, 2},  {"tcp1420x4", 6, false, 1420, 4},
        {"sctp256x4", 132, false, 256, 4}, {"tcp6-78", 6, true, 78, 1},
        {"tcp6-1420", 6, true, 1420, 1},   {"tcp6-1420x4", 6, true, 1420, 4},
    };
    for (const Row& row : rows) {
        if (!only.empty() && only != row.name) continue;
        rte_mbuf* pkts[kBurst];
        for (auto& p : pkts) p = make(mp, row);
        const uint64_t l4 = row.proto == 6 ? RTE_MBUF_F_TX_TCP_CKSUM : RTE_MBUF_F_TX_SCTP_CKSUM;
        const uint64_t flags =
            row.v6 ? RTE_MBUF_F_TX_IPV6 | l4 : RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | l4;
        // Interleaved, so that a noisy neighbour hits both alike.
        std::vector<double> ours_t, peer_t;
        int refused = 0;
        for (int r = -reps / 10; r < reps; ++r) {
            const double o = emul_once(pkts, flags, &refused);
            const double p = row.proto == 6 ? testpmd_sw_once(pkts, row.v6) : 0.0;
            if (r >= 0) ours_t.push_back(o), peer_t.push_back(p);
        }
        if (refused != 0) {
            std::fprintf(stderr, "%s: tx_emulate refused %d packets\n", row.name, refused);
            return 1;
        }
        const double ours = median(ours_t), peer = median(peer_t);
        std::printf("%-10s %8u %14.1f %18.1f %8s\n", row.name, row.frame, ours, peer,
                    peer > 0 ? (std::to_string(ours / peer).substr(0, 4) + "x").c_str() : "-");
        rte_pktmbuf_free_bulk(pkts, kBurst);
    }
    rte_eal_cleanup();
    return 0;
}
