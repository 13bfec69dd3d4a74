// The data digest's folding state is carried across TCP segments and reduced
// once per PDU: PDUs cut at every awkward place (1-byte segments, a digest
// straddling segments, a PDU boundary inside a segment, chained mbufs,
// overlapping retransmits) must verify exactly as a one-shot crc32c says
// (the builder's digests), under every CRC32C kernel.
#include "nvme_tcp/nvme_test.h"
#include "support/crc32c_kernels.h"

namespace csum::test {
namespace {

// NvmeTest under every CRC32C kernel (avx512 carries folding state, the
// others a 32-bit CRC).
using CarryTest = Crc32cKernelsTest<NvmeTest>;

// Data lengths around the 64-byte unit and the 256-byte group.
std::vector<Pdu> awkward_pdus(std::mt19937& rng, bool corrupt) {
    std::vector<Pdu> p = {icresp(3)};
    const uint32_t lens[] = {1, 63, 64, 65, 255, 256, 300, 3};
    int i = 0;
    for (uint32_t n : lens) {
        const Bytes d = random_bytes(n, rng);
        p.push_back(i % 3 == 0   ? c2h_data(true, true, d)
                    : i % 3 == 1 ? h2c_data(true, true, d, 4)
                                 : capsule_cmd(true, true, d));
        if (corrupt && i % 2 == 1) corrupt_ddgst(p.back());
        ++i;
    }
    p.push_back(capsule_resp(true));
    return p;
}

unsigned count_dd(const std::vector<Pdu>& p, bool ok) {
    unsigned n = 0;
    for (const Pdu& x : p) n += x.dd && x.dd_ok == ok;
    return n;
}

// Feeds `s` cut at `cuts` to a fresh connection; returns the totals.
Totals feed_cuts(NvmeTracker& t, rte_mempool* pool, uint16_t port, const Bytes& s,
                 const std::vector<uint32_t>& cuts, unsigned mbufs) {
    Wire w(t, pool, test_key(port));
    w.rng.seed(port);
    w.syn();
    Totals tot;
    for (size_t k = 0; k + 1 < cuts.size(); ++k)
        tot.add(w.send(s, cuts[k], cuts[k + 1] - cuts[k], mbufs));
    w.ctl(kTcpRst);
    return tot;
}

TEST_F(CarryTest, EveryTwoAndThreeWayCutVerifies) {
    std::mt19937 rng(41);
    for (bool corrupt : {false, true}) {
        const auto pdus = awkward_pdus(rng, corrupt);
        const Bytes s = concat(pdus);
        const auto len = uint32_t(s.size());
        const unsigned good = count_dd(pdus, true), bad = count_dd(pdus, false);
        for_each_kernel([&] {
            NvmeTracker& t = tracker(NvmeTrackerConfig{.capacity = 4});
            uint16_t port = 1;
            for (uint32_t k = 1; k < len; ++k) {
                for (uint32_t j : {0u, 1u, 3u, 5u, 64u}) {
                    std::vector<uint32_t> cuts = {0, k};
                    if (j != 0 && k + j < len) cuts.push_back(k + j);
                    cuts.push_back(len);
                    const Totals tot = feed_cuts(t, pool(), port++, s, cuts, 1);
                    ASSERT_EQ(tot.dd.good, good) << "cut " << k << " +" << j;
                    ASSERT_EQ(tot.dd.bad, bad) << "cut " << k << " +" << j;
                    ASSERT_EQ(tot.dd.unverifiable, 0u);
                }
            }
        });
    }
}

TEST_F(CarryTest, OneByteSegmentsVerify) {
    std::mt19937 rng(42);
    const auto pdus = awkward_pdus(rng, true);
    const Bytes s = concat(pdus);
    std::vector<uint32_t> cuts;
    for (uint32_t i = 0; i <= s.size(); ++i) cuts.push_back(i);
    for_each_kernel([&] {
        NvmeTracker& t = tracker();
        const Totals tot = feed_cuts(t, pool(), 7, s, cuts, 1);
        EXPECT_EQ(tot.dd.good, count_dd(pdus, true));
        EXPECT_EQ(tot.dd.bad, count_dd(pdus, false));
        EXPECT_EQ(t.stats().desyncs, 0u);
    });
}

// Large PDUs in random segments of random mbuf chains (several PDUs and
// boundaries per segment, or many segments per PDU).
TEST_F(CarryTest, RandomCutsOfChainedMbufsVerify) {
    std::mt19937 rng(43);
    for_each_kernel([&] {
        NvmeTracker& t = tracker();
        for (int round = 0; round < 30; ++round) {
            std::vector<Pdu> pdus = {icresp(uint8_t(2 | (round & 1)))};
            for (int i = 0; i < 6; ++i) {
                const Bytes d = random_bytes(1 + rng() % (round % 3 == 0 ? 200 : 20000), rng);
                pdus.push_back(c2h_data(round & 1, true, d, uint8_t(rng() % 2 * 4)));
                if (rng() % 4 == 0) corrupt_ddgst(pdus.back());
            }
            const Bytes s = concat(pdus);
            std::vector<uint32_t> cuts = {0};
            while (cuts.back() < s.size()) {
                const uint32_t n = rng() % 3 == 0 ? 1 + rng() % 8 : 1 + rng() % 1448;
                cuts.push_back(std::min<uint32_t>(uint32_t(s.size()), cuts.back() + n));
            }
            const Totals tot =
                feed_cuts(t, pool(), uint16_t(100 + round), s, cuts, 1 + unsigned(rng() % 4));
            ASSERT_EQ(tot.dd.good, count_dd(pdus, true)) << "round " << round;
            ASSERT_EQ(tot.dd.bad, count_dd(pdus, false)) << "round " << round;
        }
    });
}

// Retransmits that overlap new bytes at random places: only the new bytes
// are fed, so the digests still verify.
TEST_F(CarryTest, OverlappingRetransmitsVerify) {
    std::mt19937 rng(44);
    for_each_kernel([&] {
        NvmeTracker& t = tracker();
        std::vector<Pdu> pdus = {icresp(3)};
        for (int i = 0; i < 8; ++i)
            pdus.push_back(c2h_data(true, true, random_bytes(1 + rng() % 5000, rng)));
        const Bytes s = concat(pdus);
        Wire w = connect(t, 555);
        Totals tot;
        uint32_t sent = 0;
        while (sent < s.size()) {
            const uint32_t back = std::min<uint32_t>(sent, rng() % 2 ? rng() % 200 : 0);
            const uint32_t n =
                std::min<uint32_t>(uint32_t(s.size()) - (sent - back), back + 1 + rng() % 1500);
            tot.add(w.send(s, sent - back, n, 1 + unsigned(rng() % 3)));
            sent = sent - back + n;
        }
        EXPECT_EQ(tot.dd.good, 8u);
        EXPECT_EQ(tot.dd.bad + tot.dd.unverifiable, 0u);
        EXPECT_GT(t.stats().retransmitted_bytes, 0u);
    });
}

// A PDU whose data start was never seen (the gap ends inside the data) has
// no digest verdict but unverifiable, and the next PDU starts a fresh carry.
TEST_F(CarryTest, DataStartLostIsUnverifiableAndNextPduVerifies) {
    std::mt19937 rng(45);
    for_each_kernel([&] {
        NvmeTracker& t = tracker();
        std::vector<Pdu> pdus = {icresp(3), c2h_data(true, true, random_bytes(3000, rng)),
                                 c2h_data(true, true, random_bytes(3000, rng))};
        const Bytes s = concat(pdus);
        const uint32_t p1 = uint32_t(pdus[0].bytes.size());
        Wire w = connect(t, 556);
        Totals tot;
        tot.add(w.send(s, 0, p1 + 100));  // header + 72 data bytes; 400 lost
        for (uint32_t at = p1 + 500; at < s.size(); at += 1000)
            tot.add(w.send(s, at, std::min<uint32_t>(1000, uint32_t(s.size()) - at)));
        EXPECT_EQ(tot.dd.unverifiable, 1u);
        EXPECT_EQ(tot.dd.good, 1u);
        EXPECT_EQ(tot.dd.bad, 0u);
    });
}

}  // namespace
}  // namespace csum::test
