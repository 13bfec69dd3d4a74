// Fill mode's same-shape run: plain linear TCP/UDP packets whose checksum
// fields the TX port leaves to software, filled with the lean path's bytes,
// verdict and counts, after a packet of their shape the lean path filled.

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/engine_impl.h"
#include "engine/run_parts.h"
#include "engine/run_sums.h"
#include "engine/sctp_crc.h"

namespace csum {

// Bit k (a good_key: 0/1 TCP/UDP over IPv4, 3/4 over IPv6): the port's
// offloads leave both of that shape's fields to software, as lean_work
// then fills them (any offload that takes one goes to the lean path).
uint32_t Engine::Impl::fill_sw_keys(uint64_t offloads) {
    constexpr uint64_t kIp = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM, kTcp = RTE_ETH_TX_OFFLOAD_TCP_CKSUM,
                       kUdp = RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
    constexpr uint64_t kSctp = RTE_ETH_TX_OFFLOAD_SCTP_CKSUM;
    return uint32_t{(offloads & (kIp | kTcp)) == 0} |
           uint32_t{(offloads & (kIp | kUdp)) == 0} << 1 |
           uint32_t{(offloads & (kIp | kSctp)) == 0} << 2 | uint32_t{(offloads & kTcp) == 0} << 3 |
           uint32_t{(offloads & kUdp) == 0} << 4 | uint32_t{(offloads & kSctp) == 0} << 5;
}

// The packets from i on that the run of shape k takes: filled, given the
// filled verdict, counted and moved to *kept.. (in the per-packet loop's
// order); returns the first it did not take.
unsigned Engine::Impl::fill_run(int k, rte_mbuf** pkts, unsigned i, unsigned n, uint16_t* kept,
                                bool trusted) {
    last_fill_key = k;  // the next burst starts on this shape (fill_burst)
    const int key = LeanOutcomes::kFilled + k;
    const PacketVerdict* v = &lean_outcomes.good_verdict(key);
    uint64_t sums = 0;
    unsigned e;
    const bool ports = shapes->tcp_ports;
    switch (k) {
        case 0:
            e = ports ? same_fill_run<false, false, true>(pkts, i, n, v, &sums)
                      : same_fill_run<false, false, false>(pkts, i, n, v, &sums);
            break;
        case 1:
            e = same_fill_run<false, true, false>(pkts, i, n, v, &sums);
            break;
        case 3:
            e = ports ? same_fill_run<true, false, true>(pkts, i, n, v, &sums)
                      : same_fill_run<true, false, false>(pkts, i, n, v, &sums);
            break;
        case 4:
            e = same_fill_run<true, true, false>(pkts, i, n, v, &sums);
            break;
        case 2:
            e = same_sctp_fill_run<false>(pkts, i, n, v, &sums);
            break;
        case 5:
            e = same_sctp_fill_run<true>(pkts, i, n, v, &sums);
            break;
        default:
            return i;
    }
    fill_took(k, pkts, i, e, sums & 0xFFFFFFFFu, sums >> 32, kept, trusted);
    return e;
}

void Engine::Impl::fill_took(int k, rte_mbuf** pkts, unsigned i, unsigned e, uint64_t bytes,
                             uint64_t l4_bytes, uint16_t* kept, bool trusted) {
    const unsigned took = e - i;
    if (took == 0) return;
    // As lean_work's fill counts them: the L4 bytes summed (SCTP's CRCed),
    // one field per layer filled, and a trusted port's packets as skipped.
    lean_outcomes.add_good(LeanOutcomes::kFilled + k, took, bytes);
    (k == 2 || k == 5 ? tally.crc_bytes : tally.sum_bytes) += l4_bytes;
    tally.sw_filled += took * (k >= 3 ? 1 : 2);
    if (trusted) tally.skipped_trusted += took;
    fill_keep(pkts, i, took, kept);  // after any dropped before the run
}

// A burst that goes on with the last fill run's shape, from its first
// packet (as same_burst): returns the first packet the run did not take.
[[gnu::noinline]] uint16_t Engine::Impl::fill_burst(rte_mbuf** pkts, uint16_t n, uint32_t keys,
                                                    bool trusted) {
    const unsigned first = n < run_parts::kRunAhead ? n : run_parts::kRunAhead;
    for (unsigned i = 0; i < first; ++i) rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    uint16_t kept = 0;
    return static_cast<uint16_t>(fill_runs(last_fill_key, keys, pkts, 0, n, &kept, trusted));
}

// The run's loop: each packet tested as same_good_run tests it (its shape
// on the bytes, no RX flag read), then both fields filled and the one
// verdict written. Refuses, writing nothing, any packet the test does not
// take. *sums: the bytes taken (low half) and the L4 bytes summed (high).
template <bool kV6, bool kUdp, bool kPorts>
unsigned Engine::Impl::same_fill_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                     const PacketVerdict* v, uint64_t* sums) {
    const ShapeConfig& sc = *shapes;
    const run_parts::RunVerdict verdict(v, verdict_off);
    const run_parts::RunMbufTest<kV6, true, true> mbuf_ok;
    // A burst of at most 65535 packets of at most 65535 bytes: no carry
    // from the low half into the high one.
    uint64_t sum = 0;
    const uint32_t plan = detail::inet_plan_now();  // for long packets' kernel calls
    auto take = [&sum, &sc, &verdict, &mbuf_ok, plan](rte_mbuf* m, uint8_t* const p)
                    [[gnu::always_inline]] {
                        constexpr int64_t kMinLen = (kV6 ? 54 : 34) + (kUdp ? 8 : 20);
                        if (!mbuf_ok.linear(m) || !run_parts::whole_at_hand<kMinLen>(m))
                            return false;
                        const uint32_t len = m->pkt_len;
                        uint32_t l4_len;
                        if (!same_plain_shape<kV6, kUdp, kPorts, true>(sc, p, len, &l4_len))
                            return false;
                        lean_detail::run_fill<kV6, kUdp>(plan, p, l4_len);
                        sum += len + (uint64_t{l4_len} << 32);
                        verdict.write(m);
                        return true;
                    };
    rte_mbuf** const e = run_parts::take_while_data(pkts + i, pkts + n, verdict.offset(), take);
    *sums = sum;
    return static_cast<unsigned>(e - pkts);
}

// SCTP's: each linear packet of the run's SCTP shape (same_sctp_shape, as
// same_sctp_run takes them) gets its CRC32C and, over IPv4, its header
// field. *sums: the bytes taken (low half) and the bytes CRCed (high).
template <bool kV6>
unsigned Engine::Impl::same_sctp_fill_run(rte_mbuf** pkts, unsigned i, unsigned n,
                                          const PacketVerdict* v, uint64_t* sums) {
    const run_parts::RunVerdict verdict(v, verdict_off);
    const run_parts::RunMbufTest<kV6, true, true> mbuf_ok;
    uint64_t sum = 0;
    auto take = [&sum, &verdict, &mbuf_ok](rte_mbuf* m, uint8_t* const p) [[gnu::always_inline]] {
        constexpr int64_t kMinLen = (kV6 ? 54 : 34) + 16;  // a common and a chunk header
        if (!mbuf_ok.linear(m) || !run_parts::whole_at_hand<kMinLen>(m)) return false;
        const uint32_t len = m->pkt_len;
        uint32_t l4_len;
        if (!same_sctp_shape<kV6>(m, p, len, len, &l4_len)) return false;
        sctp_linear_fill<kV6>(p, l4_len);
        sum += len + (uint64_t{l4_len} << 32);
        verdict.write(m);
        return true;
    };
    rte_mbuf** const e = run_parts::take_while_data(pkts + i, pkts + n, verdict.offset(), take);
    *sums = sum;
    return static_cast<unsigned>(e - pkts);
}

}  // namespace csum
