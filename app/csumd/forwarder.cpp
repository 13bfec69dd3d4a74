#include "forwarder.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "capture.h"
#include "options.h"
#include "tsan.h"
#include "verdict_log.h"

namespace csumd {
namespace {

constexpr int kTxRetries = 8;
constexpr uint16_t kMaxBurst = Options::kMaxBurst;  // every packet array below holds it

uint64_t sum_pkt_len(rte_mbuf* const* pkts, uint16_t n) {
    uint64_t b = 0;
    for (uint16_t i = 0; i < n; ++i) b += pkts[i]->pkt_len;
    return b;
}

// Before mbufs go back to DPDK (TX, free): for ThreadSanitizer only.
void release(rte_mbuf* const* pkts, uint16_t n) {
    for (uint16_t i = 0; i < n; ++i) tsan_release_chain(pkts[i]);
}

// How many packets a burst takes: --burst, or fewer where the last burst's
// packets were long, so that a burst's bytes stay within burst_bytes. With
// a PMD that copies packets into mbufs on this core (pcap, af_packet, tap),
// the buffers the last burst freed are reused while still in L1, and the
// engine reads what the PMD just wrote from there (TCP 1420 B: 32 packets
// are 45 KiB of data in 64 KiB of buffers). At least kMinBurst packets:
// every burst costs a PMD call each way, and vector PMDs read descriptors
// in fours (a request for fewer gets none).
uint16_t burst_packets(const Worker& w, const Stream& s, uint16_t burst) {
    constexpr uint32_t kMinBurst = 4;
    if (w.burst_bytes == 0 || s.mean_packet_bytes == 0) return burst;
    const uint32_t k = w.burst_bytes / s.mean_packet_bytes;
    return static_cast<uint16_t>(k >= burst ? burst : k < kMinBurst ? kMinBurst : k);
}

void forward_once(Worker& w, Stream& s) {
    rte_mbuf* pkts[kMaxBurst];
    const uint16_t burst = burst_packets(w, s, w.burst < kMaxBurst ? w.burst : kMaxBurst);
    const uint16_t n = rte_eth_rx_burst(s.rx_port, s.rx_queue, pkts, burst);
    if (n == 0) return;
    for (uint16_t i = 0; i < n; ++i) tsan_acquire_chain(pkts[i]);
    const uint64_t seq = s.stats.rx_packets.get();
    s.stats.rx_packets.add(n);
    s.stats.rx_bursts.add(1);
    const uint64_t rx_bytes = sum_pkt_len(pkts, n);
    s.stats.rx_bytes.add(rx_bytes);
    if (w.burst_bytes != 0) s.mean_packet_bytes = static_cast<uint32_t>(rx_bytes / n);

    uint16_t to_send = n;
    if (w.engine) {
        const auto& es = w.engine->stats();
        const uint64_t bad0 = es.drop[int(csum::DropReason::bad_checksum)].get();
        const uint64_t mal0 = es.drop[int(csum::DropReason::malformed)].get();
        // The engine moves the packets it keeps to the front: the log and the
        // capture take them in RX order, so that seq is each packet's RX index.
        rte_mbuf* rx_order[kMaxBurst];
        const bool logged = w.verdict_log != nullptr || w.capture != nullptr;
        if (logged) std::memcpy(rx_order, pkts, n * sizeof(rte_mbuf*));
        to_send = w.engine->process(*s.rx_policy, *s.tx_policy, pkts, n);
        if (w.verdict_log)
            w.verdict_log->write_burst(s.rx_port, s.rx_queue, seq, rx_order, n,
                                       w.engine->verdict_field());
        if (w.capture) {
            for (uint16_t i = 0; i < n; ++i) {
                const std::string why = bad_reason(rx_order[i], w.engine->verdict_field());
                if (!why.empty()) w.capture->write(s.rx_port, s.rx_queue, rx_order[i], why);
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
    uint64_t bytes = to_send == n ? rx_bytes : sum_pkt_len(pkts, to_send);
    release(pkts, to_send);
    uint16_t sent = rte_eth_tx_burst(s.tx_port, s.tx_queue, pkts, to_send);
    for (int retry = 0; sent < to_send && retry < kTxRetries; ++retry)
        sent += rte_eth_tx_burst(s.tx_port, s.tx_queue, pkts + sent, to_send - sent);
    if (sent < to_send) {
        bytes -= sum_pkt_len(pkts + sent, to_send - sent);
        s.stats.drop_tx_full.add(to_send - sent);
        release(pkts + sent, to_send - sent);
        rte_pktmbuf_free_bulk(pkts + sent, to_send - sent);
    }
    s.stats.tx_packets.add(sent);
    s.stats.tx_bytes.add(bytes);
}

}  // namespace

uint32_t auto_burst_bytes() {
    const long l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    const long bytes = (l1d > 0 ? l1d : 32 * 1024) / 3;  // unknown: the smallest L1d of x86 peers
    return static_cast<uint32_t>(std::clamp(bytes, 4096L, 65536L));
}

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
