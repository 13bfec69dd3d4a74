// --burst: crc32c_mbuf as the engine meets it (bench_crc32c_parts.h).
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "bench_crc32c_parts.h"
#include "csum/crc32c.h"

namespace crc_bench {
namespace {

using namespace csum;

volatile uint32_t g_sink;

// Every piece through crc32c(), the state chained from one into the next
// (sctp_crc_chain_rest's way for two long pieces).
uint32_t chained_pieces(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t crc) {
    const rte_mbuf* s = m;
    while (s != nullptr && off >= s->data_len) off -= s->data_len, s = s->next;
    for (; len != 0 && s != nullptr; off = 0, s = s->next) {
        const uint32_t n = std::min<uint32_t>(s->data_len - off, len);
        crc = crc32c(rte_pktmbuf_mtod_offset(s, const uint8_t*, off), n, crc);
        len -= n;
    }
    return crc;
}

}  // namespace

// --burst: the engine's setting (bench_engine --chains): bursts of 32
// packets in a 9216 + HEADROOM pool, linear and cut into 2 and 4 equal
// segments, the CRC of [46, size) of each (an SCTP/IPv4 packet's range past
// the common header); calls independent, as a run of packets makes them.
// "32 pkts": each burst's own packets (data and descriptors from L1/L2 as
// the burst's footprint allows); "1 pkt": one packet of each shape 32 times
// (all hot). Ticks per packet, median of rounds; all shapes every round.
void burst(unsigned rounds) {
    constexpr unsigned kBurst = 32;
    rte_mempool* mp =
        rte_pktmbuf_pool_create("crcburst", 1023, 0, 0, 9216 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
    if (mp == nullptr) return;
    std::mt19937 rng(7);
    std::printf("\n--burst: CRC32C of [46, size) per packet, bursts of %u, ticks/packet (median)\n",
                kBurst);
    std::printf("%6s %-7s %8s %8s %6s %8s %6s %10s %6s\n", "size", "set", "linear", "2seg", "x lin",
                "4seg", "x lin", "2seg crc32c", "x lin");
    using Fn = uint32_t (*)(const rte_mbuf*, uint32_t, uint32_t, uint32_t);
    const Fn mbuf = [](const rte_mbuf* m, uint32_t o, uint32_t l, uint32_t c) {
        return crc32c_mbuf(m, o, l, c);
    };
    for (const size_t n : {size_t{256}, size_t{1420}}) {
        std::vector<uint8_t> bytes(n);
        for (auto& b : bytes) b = static_cast<uint8_t>(rng());
        rte_mbuf* b[3][kBurst];
        for (unsigned k = 0; k < 3; ++k)
            for (auto& m : b[k]) m = chain(mp, bytes.data(), n, 1u << k);
        const auto len = static_cast<uint32_t>(n - 46);
        for (const bool hot : {false, true}) {
            // linear, 2seg, 4seg by crc32c_mbuf; 2seg piece by piece
            const std::pair<unsigned, Fn> rows[] = {
                {0, mbuf}, {1, mbuf}, {2, mbuf}, {1, chained_pieces}};
            std::vector<double> t[4];
            for (unsigned r = 0; r < rounds; ++r)
                for (unsigned k = 0; k < 4; ++k) {
                    const auto [shape, fn] = rows[k];
                    uint32_t x = 0;
                    const uint64_t t0 = rte_rdtsc_precise();
                    for (unsigned i = 0; i < kBurst; ++i)
                        x ^= fn(b[shape][hot ? 0 : i], 46, len, 0);
                    t[k].push_back(static_cast<double>(rte_rdtsc_precise() - t0) / kBurst);
                    g_sink = x;
                }
            double med[4];
            for (unsigned k = 0; k < 4; ++k) med[k] = pct(t[k], 0.5);
            std::printf("%6zu %-7s %8.1f %8.1f %6.2f %8.1f %6.2f %10.1f %6.2f\n", n,
                        hot ? "1 pkt" : "32 pkts", med[0], med[1], med[1] / med[0], med[2],
                        med[2] / med[0], med[3], med[3] / med[0]);
        }
        for (auto& k : b) rte_pktmbuf_free_bulk(k, kBurst);
    }
    rte_mempool_free(mp);
}

}  // namespace crc_bench
