#include "forwarder.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>

namespace csumd {
namespace {

constexpr int kTxRetries = 8;

uint64_t burst_bytes(rte_mbuf* const* pkts, uint16_t n) {
    uint64_t b = 0;
    for (uint16_t i = 0; i < n; ++i) b += pkts[i]->pkt_len;
    return b;
}

void forward_once(Stream& s, uint16_t burst) {
    rte_mbuf* pkts[512];
    const uint16_t n = rte_eth_rx_burst(s.rx_port, s.rx_queue, pkts, burst);
    if (n == 0) return;
    s.stats.rx_packets.add(n);
    s.stats.rx_bytes.add(burst_bytes(pkts, n));

    uint16_t sent = rte_eth_tx_burst(s.tx_port, s.tx_queue, pkts, n);
    for (int retry = 0; sent < n && retry < kTxRetries; ++retry)
        sent += rte_eth_tx_burst(s.tx_port, s.tx_queue, pkts + sent, n - sent);
    s.stats.tx_packets.add(sent);
    s.stats.tx_bytes.add(burst_bytes(pkts, sent));
    if (sent < n) {
        s.stats.drop_tx_full.add(n - sent);
        rte_pktmbuf_free_bulk(pkts + sent, n - sent);
    }
}

}  // namespace

int worker_main(void* arg) {
    auto* w = static_cast<Worker*>(arg);
    while (!w->stop->load(std::memory_order_relaxed)) {
        for (Stream* s : w->streams) forward_once(*s, w->burst);
    }
    return 0;
}

}  // namespace csumd
