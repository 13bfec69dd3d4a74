// RFC 1624 incremental updates against full recomputation, and the zero
// rules.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include "csum/inet.h"
#include "inet/inet_reference.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

uint16_t load16(const uint8_t* p) {
    uint16_t w;
    std::memcpy(&w, p, 2);
    return w;
}
uint32_t load32(const uint8_t* p) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    return w;
}

TEST(InetRfc1624, ExampleGivesZeroNotFFFF) {
    // HC = 0xDD2F, m = 0x5555 -> m' = 0x3285. Eqn. 3 gives 0x0000, which full
    // recomputation agrees with; RFC 1141's eqn. 2 would give 0xFFFF.
    EXPECT_EQ(cksum_update16(0xDD2F, 0x5555, 0x3285), 0x0000);
    // Data with that checksum: words 0x5555 and X with ~(0x5555 + X) = 0xDD2F.
    const uint16_t x = static_cast<uint16_t>(~sum_fold(sum_add(0x5555, 0xDD2F)));
    EXPECT_EQ(static_cast<uint16_t>(~sum_fold(sum_add(0x5555, x))), 0xDD2F);
    EXPECT_EQ(static_cast<uint16_t>(~sum_fold(sum_add(0x3285, x))), 0x0000);
    // The verifier accepts the updated packet with either zero stored.
    EXPECT_TRUE(cksum_sum_ok(sum_add(sum_add(0x3285, x), 0x0000)));
    EXPECT_TRUE(cksum_sum_ok(sum_add(sum_add(0x3285, x), 0xFFFF)));
}

// An IPv4 header with a valid checksum; fields randomised.
std::array<uint8_t, 20> random_ipv4(std::mt19937& rng) {
    std::array<uint8_t, 20> h;
    for (auto& b : h) b = static_cast<uint8_t>(rng());
    h[0] = 0x45;
    const uint16_t c = ipv4_hdr_cksum(h.data(), 20);
    std::memcpy(&h[10], &c, 2);
    return h;
}

TEST(InetRfc1624, TtlDecrementAndAddressRewriteMatchRecomputation) {
    std::mt19937 rng(10);
    int zero_results = 0;
    for (int iter = 0; iter < 200000; ++iter) {
        auto h = random_ipv4(rng);
        const uint16_t old_c = load16(&h[10]);
        if (iter % 2 == 0) {
            const uint16_t old_w = load16(&h[8]);  // TTL and protocol
            --h[8];
            const uint16_t c = cksum_update16(old_c, old_w, load16(&h[8]));
            ASSERT_EQ(c, ipv4_hdr_cksum(h.data(), 20)) << iter;
            zero_results += c == 0;
        } else {
            const size_t at = rng() % 2 ? 12 : 16;  // source or destination
            const uint32_t old_w = load32(&h[at]);
            const uint32_t new_w = static_cast<uint32_t>(rng());
            std::memcpy(&h[at], &new_w, 4);
            const uint16_t c = cksum_update32(old_c, old_w, new_w);
            ASSERT_EQ(c, ipv4_hdr_cksum(h.data(), 20)) << iter;
            zero_results += c == 0;
        }
    }
    EXPECT_GT(zero_results, 0) << "no update landed on 0x0000; the edge went untested";
}

TEST(InetRfc1624, UpdatesLandingOnZeroAndFromFFFF) {
    // TTL decrement chosen so the new sum is exactly 0xFFFF: checksum 0x0000.
    std::array<uint8_t, 20> h{};
    h[0] = 0x45;
    h[8] = 0x41;  // TTL 65
    h[9] = 6;
    // Pick the source address so the header after --TTL sums to 0xFFFF.
    uint8_t after[20];
    std::memcpy(after, h.data(), 20);
    after[8] = 0x40;
    const uint16_t s = sum_fold(partial_sum(after, 20));
    const uint16_t fill = static_cast<uint16_t>(~s);  // makes the sum 0xFFFF
    std::memcpy(&h[12], &fill, 2);
    const uint16_t c0 = ipv4_hdr_cksum(h.data(), 20);
    std::memcpy(&h[10], &c0, 2);
    const uint16_t old_w = load16(&h[8]);
    --h[8];
    EXPECT_EQ(ipv4_hdr_cksum(h.data(), 20), 0x0000);
    EXPECT_EQ(cksum_update16(c0, old_w, load16(&h[8])), 0x0000);

    // A UDP field of 0xFFFF (a computed 0) updates like 0x0000 would.
    EXPECT_EQ(cksum_update16(0xFFFF, 0x1234, 0x1234), 0x0000);
    EXPECT_EQ(udp_cksum_nonzero(cksum_update16(0xFFFF, 0x1234, 0x1234)), 0xFFFF);
    EXPECT_EQ(cksum_update16(0xFFFF, 0x1234, 0x1235), cksum_update16(0x0000, 0x1234, 0x1235));
}

// A UDP/IPv4 datagram: port rewrite by update vs recomputation, with the UDP
// zero rule applied to both.
TEST(InetRfc1624, UdpPortRewriteMatchesRecomputation) {
    std::mt19937 rng(11);
    for (int iter = 0; iter < 20000; ++iter) {
        uint8_t ip[8];
        for (auto& b : ip) b = static_cast<uint8_t>(rng());
        std::vector<uint8_t> udp = test::random_bytes(8 + rng() % 64, rng);
        udp[6] = udp[7] = 0;
        const uint32_t len = static_cast<uint32_t>(udp.size());
        auto full = [&] {
            uint8_t save[2] = {udp[6], udp[7]};
            udp[6] = udp[7] = 0;
            const uint16_t c = udp_cksum_finish(
                partial_sum(udp.data(), len, ipv4_pseudo_sum(ip, ip + 4, 17, len)));
            udp[6] = save[0];
            udp[7] = save[1];
            return c;
        };
        uint16_t c = full();
        std::memcpy(&udp[6], &c, 2);
        const size_t at = rng() % 2 ? 0 : 2;
        const uint16_t old_port = load16(&udp[at]);
        const uint16_t new_port = static_cast<uint16_t>(rng());
        std::memcpy(&udp[at], &new_port, 2);
        const uint16_t upd = udp_cksum_nonzero(cksum_update16(c, old_port, new_port));
        ASSERT_EQ(upd, full()) << iter;
        std::memcpy(&udp[6], &upd, 2);
        ASSERT_TRUE(
            cksum_sum_ok(partial_sum(udp.data(), len, ipv4_pseudo_sum(ip, ip + 4, 17, len))));
    }
}

TEST(InetZeroRules, UdpFinishNeverEmitsZero) {
    // A sum of 0xFFFF complements to 0: UDP sends 0xFFFF, TCP sends 0.
    EXPECT_EQ(cksum_finish(0xFFFF), 0x0000);
    EXPECT_EQ(udp_cksum_finish(0xFFFF), 0xFFFF);
    EXPECT_EQ(udp_cksum_finish(0xFFFEu + 1u), 0xFFFF);
    EXPECT_EQ(udp_cksum_finish(0x1234), static_cast<uint16_t>(~0x1234));
    EXPECT_EQ(udp_cksum_finish(0x0001FFFEu), 0xFFFF);  // folds to 0xFFFF first
}

TEST(InetZeroRules, UdpStates) {
    const uint32_t good = 0xFFFF, bad = 0x1234;
    EXPECT_EQ(udp_cksum_state(0x5A5A, good, false), UdpCsumState::good);
    EXPECT_EQ(udp_cksum_state(0x5A5A, bad, false), UdpCsumState::bad);
    EXPECT_EQ(udp_cksum_state(0xFFFF, good, true), UdpCsumState::good);
    EXPECT_EQ(udp_cksum_state(0, bad, false), UdpCsumState::none);
    EXPECT_EQ(udp_cksum_state(0, bad, true), UdpCsumState::illegal);
    EXPECT_EQ(udp_cksum_state(0, bad, true, true), UdpCsumState::none);
    EXPECT_FALSE(cksum_sum_ok(0xFFFE));
    EXPECT_TRUE(cksum_sum_ok(0x0001FFFEu));  // folds to 0xFFFF
}

}  // namespace
}  // namespace csum
