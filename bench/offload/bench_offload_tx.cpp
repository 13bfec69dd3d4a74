// TSC ticks per packet for the port attach's TX emulation (tx_emulate: what
// a NIC does with RTE_MBUF_F_TX_*_CKSUM), hot cache, bursts of 32. Peer in the
// same run: what testpmd's csum engine does per packet in software mode,
// rte_ipv4_cksum + rte_ipv4_udptcp_cksum (SCTP: testpmd computes nothing).
//
// usage: bench_offload_tx [--reps N]
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

// Ethernet + IPv4 + TCP (20 B) or SCTP (12 B + DATA chunk) of `frame` bytes.
rte_mbuf* make(rte_mempool* mp, uint8_t proto, uint32_t frame) {
    rte_mbuf* m = rte_pktmbuf_alloc(mp);
    auto* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, uint16_t(frame)));
    std::memset(p, 0, frame);
    p[12] = 0x08;
    uint8_t* ip = p + 14;
    const uint32_t tot = frame - 14;
    ip[0] = 0x45, ip[2] = uint8_t(tot >> 8), ip[3] = uint8_t(tot), ip[8] = 64, ip[9] = proto;
    ip[12] = 10, ip[15] = 1, ip[16] = 10, ip[19] = 2;
    uint8_t* l4 = ip + 20;
    l4[1] = 1, l4[3] = 2;
    if (proto == 6) l4[12] = 0x50;
    if (proto == 132) l4[14] = uint8_t((tot - 32) >> 8), l4[15] = uint8_t(tot - 32);
    for (uint32_t i = 34 + 32; i < frame; ++i) p[i] = uint8_t(i * 13);
    m->l2_len = 14, m->l3_len = 20;
    return m;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// One burst through tx_emulate, ticks per packet.
double emul_once(rte_mbuf** pkts, uint64_t flags) {
    for (int i = 0; i < kBurst; ++i) pkts[i]->ol_flags = flags;
    const uint64_t t0 = rte_rdtsc_precise();
    for (int i = 0; i < kBurst; ++i) {
        TxServed s;
        csum_tx_error e;
        tx_emulate(pkts[i], kTxEmulatable, &s, &e);
    }
    return double(rte_rdtsc_precise() - t0) / kBurst;
}

// One burst of what testpmd's csum engine does in software mode.
double testpmd_sw_once(rte_mbuf** pkts) {
    const uint64_t t0 = rte_rdtsc_precise();
    for (int i = 0; i < kBurst; ++i) {
        auto* ip = rte_pktmbuf_mtod_offset(pkts[i], rte_ipv4_hdr*, 14);
        auto* tcp = reinterpret_cast<rte_tcp_hdr*>(ip + 1);
        ip->hdr_checksum = 0;
        ip->hdr_checksum = rte_ipv4_cksum(ip);
        tcp->cksum = 0;
        tcp->cksum = rte_ipv4_udptcp_cksum(ip, tcp);
    }
    return double(rte_rdtsc_precise() - t0) / kBurst;
}

}  // namespace

int main(int argc, char** argv) {
    int reps = 2000;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--reps") reps = std::atoi(argv[i + 1]);
    if (csum::testkit::eal_init({.prog = "bench", .file_prefix = "bench_offload"}) < 0) return 1;
    rte_mempool* mp = rte_pktmbuf_pool_create("b", 255, 0, 0, 2048 + 128, SOCKET_ID_ANY);
    std::printf("%-10s %8s %14s %18s %8s\n", "row", "bytes", "tx_emulate", "testpmd sw peer",
                "ratio");
    struct {
        const char* name;
        uint8_t proto;
        uint32_t frame;
    } rows[] = {{"tcp64", 6, 64}, {"tcp1420", 6, 1420}, {"sctp256", 132, 256}};
    for (auto& row : rows) {
        rte_mbuf* pkts[kBurst];
        for (auto& p : pkts) p = make(mp, row.proto, row.frame);
        const uint64_t l4 = row.proto == 6 ? RTE_MBUF_F_TX_TCP_CKSUM : RTE_MBUF_F_TX_SCTP_CKSUM;
        // Interleaved, so that a noisy neighbour hits both alike.
        std::vector<double> ours_t, peer_t;
        for (int r = -reps / 10; r < reps; ++r) {
            const double o = emul_once(pkts, RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | l4);
            const double p = row.proto == 6 ? testpmd_sw_once(pkts) : 0.0;
            if (r >= 0) ours_t.push_back(o), peer_t.push_back(p);
        }
        const double ours = median(ours_t), peer = median(peer_t);
        std::printf("%-10s %8u %14.1f %18.1f %8s\n", row.name, row.frame, ours, peer,
                    peer > 0 ? (std::to_string(ours / peer).substr(0, 4) + "x").c_str() : "-");
        rte_pktmbuf_free_bulk(pkts, kBurst);
    }
    rte_eal_cleanup();
    return 0;
}
