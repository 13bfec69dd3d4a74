#include "forwarder.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "capture.h"
#include "tsan.h"
#include "verdict_log.h"

namespace csumd {
namespace {

constexpr int kTxRetries = 8;

uint64_t burst_bytes(rte_mbuf* const* pkts, uint16_t n) {
    uint64_t b = 0;
    for (uint16_t i = 0; i < n; ++i) b += pkts[i]->pkt_len;
    return b;
}

// Before mbufs go back to DPDK (TX, free): for ThreadSanitizer only.
void release(rte_mbuf* const* pkts, uint16_t n) {
    for (uint16_t i = 0; i < n; ++i) tsan_release_chain(pkts[i]);
}

void forward_once(Worker& w, Stream& s) {
    rte_mbuf* pkts[512];
    const uint16_t n = rte_eth_rx_burst(s.rx_port, s.rx_queue, pkts, w.burst);
    if (n == 0) return;
    for (uint16_t i = 0; i < n; ++i) tsan_acquire_chain(pkts[i]);
    const uint64_t seq = s.stats.rx_packets.get();
    s.stats.rx_packets.add(n);
    const uint64_t rx_bytes = burst_bytes(pkts, n);
    s.stats.rx_bytes.add(rx_bytes);

    uint16_t to_send = n;
    if (w.engine) {
        const auto& es = w.engine->stats();
        const uint64_t bad0 = es.drop[int(csum::DropReason::bad_checksum)].get();
        const uint64_t mal0 = es.drop[int(csum::DropReason::malformed)].get();
        to_send = w.engine->process(*s.rx_policy, *s.tx_policy, pkts, n);
        if (w.verdict_log)
            w.verdict_log->write_burst(s.rx_port, s.rx_queue, seq, pkts, n,
                                       w.engine->verdict_field());
        if (w.capture) {
            for (uint16_t i = 0; i < n; ++i) {
                const std::string why = bad_reason(pkts[i], w.engine->verdict_field());
                if (!why.empty()) w.capture->write(s.rx_port, s.rx_queue, pkts[i], why);
            }
        }
        if (to_send < n) {
            s.stats.drop_bad_checksum.add(es.drop[int(csum::DropReason::bad_checksum)].get() -
                                          bad0);
            s.stats.drop_malformed.add(es.drop[int(csum::DropReason::malformed)].get() - mal0);
            release(pkts + to_send, n - to_send);
            rte_pktmbuf_free_bulk(pkts + to_send, n - to_send);
        }
        // PMDs that need it write pseudo-headers for offloaded checksums here.
        if (s.tx_policy->offloads != 0) {
            const uint16_t ok = rte_eth_tx_prepare(s.tx_port, s.tx_queue, pkts, to_send);
            if (ok < to_send) {
                s.stats.drop_tx_prepare.add(to_send - ok);
                release(pkts + ok, to_send - ok);
                rte_pktmbuf_free_bulk(pkts + ok, to_send - ok);
                to_send = ok;
            }
        }
    }

    // Sent mbufs belong to the PMD: count their bytes before handing them over
    // (the engine changes no packet's length: all kept, the burst's own count).
    uint64_t bytes = to_send == n ? rx_bytes : burst_bytes(pkts, to_send);
    release(pkts, to_send);
    uint16_t sent = rte_eth_tx_burst(s.tx_port, s.tx_queue, pkts, to_send);
    for (int retry = 0; sent < to_send && retry < kTxRetries; ++retry)
        sent += rte_eth_tx_burst(s.tx_port, s.tx_queue, pkts + sent, to_send - sent);
    if (sent < to_send) {
        bytes -= burst_bytes(pkts + sent, to_send - sent);
        s.stats.drop_tx_full.add(to_send - sent);
        release(pkts + sent, to_send - sent);
        rte_pktmbuf_free_bulk(pkts + sent, to_send - sent);
    }
    s.stats.tx_packets.add(sent);
    s.stats.tx_bytes.add(bytes);
}

}  // namespace

int worker_main(void* arg) {
    tsan_acquire(arg);  // what main set up before rte_eal_remote_launch
    auto* w = static_cast<Worker*>(arg);
    while (!w->stop->load(std::memory_order_relaxed)) {
        for (Stream* s : w->streams) forward_once(*w, *s);
    }
    tsan_release(arg);  // seen by main after rte_eal_mp_wait_lcore
    return 0;
}

}  // namespace csumd
