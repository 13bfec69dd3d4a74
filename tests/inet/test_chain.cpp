// Sums over mbuf chains: every split, random chains with odd, 1-byte and
// empty segments, DPDK 22.11's odd-split bug, and CHECKSUM_COMPLETE math.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <rte_ip.h>

#include "csum/inet.h"
#include "dispatch/select.h"
#include "inet/inet_kernels.h"
#include "inet/inet_reference.h"
#include "mbuf/inet_mbuf_chain.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::make_chain;
using test::ref_sum;

class InetChain : public test::MbufTest {};

TEST_F(InetChain, EverySplitOfA100BytePacketEveryRange) {
    std::vector<uint8_t> bytes(100);
    std::mt19937 rng(20);
    for (auto& b : bytes) b = static_cast<uint8_t>(0x80 | rng());  // big words, many carries
    for (uint32_t cut = 0; cut <= 100; ++cut) {
        const uint32_t lens[] = {cut, 100 - cut};
        rte_mbuf* m = make_chain(pool(), bytes, lens, static_cast<uint16_t>(cut % 3));
        ASSERT_NE(m, nullptr);
        for (uint32_t off = 0; off <= 100; ++off) {
            for (uint32_t len = 0; off + len <= 100; ++len) {
                uint16_t got = 0xBEEF;
                ASSERT_EQ(raw_cksum_mbuf(m, off, len, &got), 0);
                ASSERT_EQ(got, ref_sum(&bytes[off], len))
                    << "cut " << cut << " off " << off << " len " << len;
            }
        }
        rte_pktmbuf_free(m);
    }
}

// Run once per kernel: segments over 128 bytes go to the active kernel.
TEST_F(InetChain, RandomChainsWithOddOneByteAndEmptySegments) {
    const uint32_t before = detail::inet_plan_now();
    std::mt19937 rng(21);
    for (int iter = 0; iter < 3000; ++iter) {
        const auto ks = inet_available_kernels();
        ASSERT_TRUE(inet_force_kernel(ks[iter % ks.size()]));
        const uint32_t total = rng() % 6000;
        auto bytes = test::random_bytes(total, rng);
        bytes.reserve(1);  // make_chain copies from data(), which must not be null
        if (iter % 4 == 0) std::fill(bytes.begin(), bytes.end(), 0xFF);
        std::vector<uint32_t> lens;
        if (iter % 3 == 0) {
            // Runs of 1-byte and empty segments between bigger ones.
            uint32_t left = total;
            while (left > 0) {
                const uint32_t pick = rng() % 4 == 0 ? 0 : rng() % 2 ? 1 : 1 + rng() % 1500;
                const uint32_t n = std::min(pick, left);
                lens.push_back(n);
                left -= n;
            }
            if (lens.empty()) lens.push_back(0);
        } else {
            lens = test::random_split(total, 1 + rng() % 12, rng);
            if (std::any_of(lens.begin(), lens.end(), [](uint32_t l) { return l > 1900; }))
                continue;
        }
        if (lens.size() > 60) continue;
        rte_mbuf* m = make_chain(pool(), bytes, lens, static_cast<uint16_t>(rng() % 64));
        ASSERT_NE(m, nullptr);
        const uint32_t off = total ? rng() % (total + 1) : 0;
        const uint32_t len = rng() % (total - off + 1);
        const uint32_t init = static_cast<uint32_t>(rng());
        uint32_t s = init;
        ASSERT_EQ(partial_sum_mbuf(m, off, len, &s), 0);
        EXPECT_EQ(sum_fold(s), ref_sum(bytes.data() + off, len, init)) << iter;
        uint16_t r;
        ASSERT_EQ(raw_cksum_mbuf(m, off, len, &r), 0);
        EXPECT_EQ(r, ref_sum(bytes.data() + off, len)) << iter;
        rte_pktmbuf_free(m);
    }
    detail::inet_plan_set(before);
}

// Pieces of 129..767 bytes share one vector state along the chain (and
// pieces at odd positions are swapped as loaded): every kernel, lengths
// around the vector widths, odd and even positions, short pieces between,
// all-0xFF words (every carry), and chains long enough to reduce midway.
TEST_F(InetChain, CarriedVectorStateOverMidSizedPieces) {
    const uint32_t before = detail::inet_plan_now();
    std::mt19937 rng(24);
    const uint32_t kMid[] = {129, 130, 191, 192, 193, 255, 256, 257, 355, 383, 384,
                             385, 511, 512, 513, 639, 676, 710, 767, 768, 1420};
    for (int iter = 0; iter < 1500; ++iter) {
        const auto ks = inet_available_kernels();
        ASSERT_TRUE(inet_force_kernel(ks[iter % ks.size()]));
        std::vector<uint32_t> lens;
        const unsigned n = iter % 10 == 0 ? 40 + rng() % 20 : 1 + rng() % 6;
        for (unsigned i = 0; i < n; ++i)
            lens.push_back(rng() % 3 == 0 ? rng() % 129 : kMid[rng() % std::size(kMid)]);
        const uint32_t total = std::accumulate(lens.begin(), lens.end(), 0u);
        auto bytes = test::random_bytes(total, rng);
        bytes.reserve(1);
        if (iter % 3 == 0) std::fill(bytes.begin(), bytes.end(), 0xFF);
        rte_mbuf* m = make_chain(pool(), bytes, lens, static_cast<uint16_t>(rng() % 64));
        ASSERT_NE(m, nullptr);
        const uint32_t off = rng() % 2 ? 0 : rng() % (total + 1);
        const uint32_t len = rng() % 2 ? total - off : rng() % (total - off + 1);
        uint32_t s = 0;
        ASSERT_EQ(partial_sum_mbuf(m, off, len, &s), 0);
        EXPECT_EQ(sum_fold(s), ref_sum(bytes.data() + off, len))
            << iter << " kernel " << inet_kernel_name(ks[iter % ks.size()]) << " off " << off
            << " len " << len << " segs " << n;
        if (total > 300) {  // a lying pkt_len: the walk runs off the chain's end
            m->pkt_len = total + 200;
            EXPECT_EQ(partial_sum_mbuf(m, off, total + 200 - off, &s), -1) << iter;
            m->pkt_len = total;
        }
        rte_pktmbuf_free(m);
    }
    detail::inet_plan_set(before);
}

// On AVX-512 a chain's region over 128 bytes is summed by one walk that
// carries eight vector accumulators from piece to piece and reduces once:
// every kernel, every 2-segment cut of a small and a large packet (and
// 4-segment cuts around it), at offsets 0, 1 and 34, data at even and odd
// addresses, random and all-0xFF bytes, against the linear reference.
TEST_F(InetChain, CarriedStateAtEverySplitOfSmallAndLargePackets) {
    const uint32_t before = detail::inet_plan_now();
    std::mt19937 rng(25);
    for (const InetKernel k : inet_available_kernels()) {
        ASSERT_TRUE(inet_force_kernel(k));
        for (const uint32_t total : {200u, 1500u}) {
            for (int fill = 0; fill < 2; ++fill) {
                auto bytes = test::random_bytes(total, rng);
                if (fill) std::fill(bytes.begin(), bytes.end(), 0xFF);
                for (uint32_t cut = 0; cut <= total; ++cut) {
                    std::vector<uint32_t> lens = {cut, total - cut};
                    if (cut % 3 == 1) {  // four segments: this cut, then thirds of the rest
                        const uint32_t r = total - cut, a = (r + cut) % (r + 1);
                        const uint32_t b = (r - a) / 2;
                        lens = {cut, a, b, r - a - b};
                    }
                    rte_mbuf* m = make_chain(pool(), bytes, lens, static_cast<uint16_t>(cut % 2));
                    ASSERT_NE(m, nullptr);
                    for (const uint32_t off : {0u, 1u, 34u}) {
                        uint32_t s = 0x1234;
                        ASSERT_EQ(partial_sum_mbuf(m, off, total - off, &s), 0);
                        ASSERT_EQ(sum_fold(s), ref_sum(&bytes[off], total - off, 0x1234))
                            << inet_kernel_name(k) << " total " << total << " cut " << cut
                            << " segs " << lens.size() << " off " << off << " fill " << fill;
                    }
                    rte_pktmbuf_free(m);
                }
            }
        }
    }
    detail::inet_plan_set(before);
}

// The same sums over pieces (a chain walked once by the engine's chain run):
// every kernel, every 2-piece cut and 4-piece cuts around it, empty pieces,
// data at odd addresses, skips of 0, 1 and 34, and pieces too short.
TEST(InetPieces, SumAtEverySplitOnEveryKernel) {
    const uint32_t before = detail::inet_plan_now();
    std::mt19937 rng(27);
    for (const InetKernel k : inet_available_kernels()) {
        ASSERT_TRUE(inet_force_kernel(k));
        for (const uint32_t total : {200u, 1500u}) {
            for (int fill = 0; fill < 2; ++fill) {
                std::vector<uint8_t> store(total + 1);
                auto bytes = test::random_bytes(total, rng);
                if (fill) std::fill(bytes.begin(), bytes.end(), 0xFF);
                const uint32_t at = fill;  // odd addresses on the second pass
                std::copy(bytes.begin(), bytes.end(), store.begin() + at);
                for (uint32_t cut = 0; cut <= total; ++cut) {
                    std::vector<uint32_t> lens = {cut, total - cut};
                    if (cut % 3 == 1) {
                        const uint32_t r = total - cut, a = (r + cut) % (r + 1), b = (r - a) / 2;
                        lens = {cut, a, 0, b, r - a - b};
                    }
                    detail::InetPieces pc{};
                    uint32_t pos = 0;
                    for (const uint32_t l : lens) {
                        pc.p[pc.count] = store.data() + at + pos;
                        pc.n[pc.count++] = l;
                        pos += l;
                    }
                    for (const uint32_t skip : {0u, 1u, 34u}) {
                        uint64_t acc = 0x1234;
                        ASSERT_TRUE(detail::inet_pieces_sum(pc, skip, total - skip, &acc));
                        ASSERT_EQ(sum_fold(detail::fold64(acc)),
                                  ref_sum(&bytes[skip], total - skip, 0x1234))
                            << inet_kernel_name(k) << " total " << total << " cut " << cut
                            << " pieces " << pc.count << " skip " << skip;
                    }
                    uint64_t acc = 0;
                    EXPECT_FALSE(detail::inet_pieces_sum(pc, 1, total, &acc)) << cut;
                }
            }
        }
    }
    detail::inet_plan_set(before);
}

// Long enough that the carried vectors are reduced midway (every 1023
// vectors, about 65 KB): all-0xFF words load every lane most.
TEST_F(InetChain, CarriedStateReducedMidwayOverALongChain) {
    const uint32_t before = detail::inet_plan_now();
    std::mt19937 rng(26);
    for (const InetKernel k : inet_available_kernels()) {
        ASSERT_TRUE(inet_force_kernel(k));
        for (int iter = 0; iter < 6; ++iter) {
            std::vector<uint32_t> lens;
            for (int i = 0; i < 100; ++i) lens.push_back(iter % 2 ? 2000 : 1 + rng() % 2000);
            const uint32_t total = std::accumulate(lens.begin(), lens.end(), 0u);
            auto bytes = test::random_bytes(total, rng);
            if (iter < 4) std::fill(bytes.begin(), bytes.end(), 0xFF);
            rte_mbuf* m = make_chain(pool(), bytes, lens, static_cast<uint16_t>(iter));
            ASSERT_NE(m, nullptr);
            const uint32_t off = iter % 3;
            uint32_t s = 0;
            ASSERT_EQ(partial_sum_mbuf(m, off, total - off, &s), 0);
            EXPECT_EQ(sum_fold(s), ref_sum(&bytes[off], total - off))
                << inet_kernel_name(k) << " iter " << iter;
            rte_pktmbuf_free(m);
        }
    }
    detail::inet_plan_set(before);
}

TEST_F(InetChain, RefusesRangesPastPktLenAndShortChains) {
    std::vector<uint8_t> bytes(64, 0x5A);
    const uint32_t lens[] = {31, 33};
    rte_mbuf* m = make_chain(pool(), bytes, lens);
    uint32_t s = 7;
    uint16_t r = 9;
    EXPECT_EQ(partial_sum_mbuf(m, 60, 5, &s), -1);
    EXPECT_EQ(partial_sum_mbuf(m, UINT32_MAX, 2, &s), -1);
    EXPECT_EQ(raw_cksum_mbuf(m, 0, 65, &r), -1);
    EXPECT_EQ(s, 7u);
    EXPECT_EQ(r, 9);
    EXPECT_EQ(partial_sum_mbuf(m, 64, 0, &s), 0);
    EXPECT_EQ(s, 7u);
    m->pkt_len = 100;  // a lying pkt_len: the chain holds 64 bytes
    EXPECT_EQ(partial_sum_mbuf(m, 0, 100, &s), -1);
    EXPECT_EQ(partial_sum_mbuf(m, 40, 30, &s), -1);
    EXPECT_EQ(raw_cksum_mbuf(m, 70, 4, &r), -1);
    m->pkt_len = 64;
    rte_pktmbuf_free(m);
}

// DPDK 22.11's rte_raw_cksum_mbuf truncates a segment's 32-bit sum to 16 bits
// before swapping it for an odd start, dropping its carries. A second
// segment at an odd offset whose words sum past 0xFFFF shows it.
TEST_F(InetChain, DpdkRawCksumMbufIsWrongOnOddSplitsOursIsRight) {
    std::vector<uint8_t> bytes(100, 0xFF);
    bytes[0] = 0x12;
    const uint32_t lens[] = {61, 39};  // GSO-like odd segment
    rte_mbuf* m = make_chain(pool(), bytes, lens);
    const uint16_t want = ref_sum(bytes.data(), bytes.size());
    uint16_t ours = 0, dpdk = 0;
    ASSERT_EQ(raw_cksum_mbuf(m, 0, 100, &ours), 0);
    ASSERT_EQ(rte_raw_cksum_mbuf(m, 0, 100, &dpdk), 0);
    EXPECT_EQ(ours, want);
    EXPECT_NE(dpdk, want) << "DPDK got this odd split right: the bug is fixed?";
    rte_pktmbuf_free(m);
}

// Where DPDK is right (even splits, one segment) it agrees with us and with
// the reference: the reference is not merely agreeing with our own code.
TEST_F(InetChain, AgreesWithDpdkOnEvenSplits) {
    std::mt19937 rng(22);
    for (int iter = 0; iter < 500; ++iter) {
        const uint32_t total = 2 * (rng() % 1000);
        auto bytes = test::random_bytes(total, rng);
        std::vector<uint32_t> lens = test::random_split(total / 2, 1 + rng() % 5, rng);
        for (auto& l : lens) l *= 2;
        rte_mbuf* m = make_chain(pool(), bytes, lens);
        ASSERT_NE(m, nullptr);
        uint16_t ours = 0, dpdk = 1;
        ASSERT_EQ(raw_cksum_mbuf(m, 0, total, &ours), 0);
        ASSERT_EQ(rte_raw_cksum_mbuf(m, 0, total, &dpdk), 0);
        EXPECT_EQ(ours, dpdk);
        EXPECT_EQ(ours, ref_sum(bytes.data(), total));
        rte_pktmbuf_free(m);
    }
}

// CHECKSUM_COMPLETE: the sum of [k, end) from the whole-packet sum and the
// sum of [0, k), for every k, over random chains.
TEST_F(InetChain, CompleteSubPrefixMatchesRecomputationForEveryPrefix) {
    std::mt19937 rng(23);
    for (int iter = 0; iter < 60; ++iter) {
        const uint32_t total = 1 + rng() % 400;
        auto bytes = test::random_bytes(total, rng);
        if (iter % 5 == 0) std::fill(bytes.begin(), bytes.end(), 0xFF);
        auto lens = test::random_split(total, 1 + rng() % 6, rng);
        rte_mbuf* m = make_chain(pool(), bytes, lens, static_cast<uint16_t>(rng() % 8));
        ASSERT_NE(m, nullptr);
        uint32_t complete = 0;
        ASSERT_EQ(partial_sum_mbuf(m, 0, total, &complete), 0);
        for (uint32_t k = 0; k <= total; ++k) {
            uint32_t prefix = 0;
            ASSERT_EQ(partial_sum_mbuf(m, 0, k, &prefix), 0);
            const uint32_t rest = complete_sub_prefix(complete, prefix, k);
            const uint16_t want = ref_sum(bytes.data() + k, total - k);
            // Subtraction can leave -0 (0xFFFF) where the data sums to +0.
            if (want == 0)
                EXPECT_TRUE(sum_fold(rest) == 0 || sum_fold(rest) == 0xFFFF) << k;
            else
                EXPECT_EQ(sum_fold(rest), want) << "iter " << iter << " k " << k;
        }
        rte_pktmbuf_free(m);
    }
}

}  // namespace
}  // namespace csum
