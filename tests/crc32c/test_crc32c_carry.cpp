// The carried CRC32C (mbuf/crc32c_carry.h): a range fed in pieces, from
// buffers and from mbuf chains, equals crc32c() over it in one piece, under
// every kernel (the avx512 plan carries folding state, the others a CRC).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "crc32c_test_util.h"
#include "dispatch/cpu_features.h"
#include "mbuf/crc32c_carry.h"
#include "support/crc32c_kernels.h"

namespace csum {
namespace {

using detail::Crc32cCarry;

using Crc32cCarryTest = test::Crc32cMbufTest;

// Pieces of 1, 2, ... 70 bytes and random ones, fed from a buffer.
TEST_F(Crc32cCarryTest, BufferPiecesOfEverySizeEqualOneShot) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for_each_kernel([&] {
        for (uint32_t total :
             {0u, 1u, 3u, 63u, 64u, 65u, 127u, 255u, 256u, 257u, 1448u, 4096u, 4100u, 9001u}) {
            const auto bytes = test::random_bytes(total, rng);
            const uint32_t want = crc32c(bytes.data(), total);
            for (uint32_t step : {1u, 2u, 7u, 63u, 64u, 65u, 200u, 0u}) {
                Crc32cCarry c;
                detail::crc32c_carry_begin(c, total);
                for (uint32_t at = 0; at < total;) {
                    uint32_t n = step != 0 ? step : 1 + rng() % 300;
                    n = std::min(n, total - at);
                    detail::crc32c_carry_feed(c, bytes.data() + at, n);
                    at += n;
                }
                ASSERT_TRUE(detail::crc32c_carry_complete(c)) << total << " step " << step;
                ASSERT_EQ(detail::crc32c_carry_end(c), want) << total << " step " << step;
            }
        }
    });
}

// Every 2-way and 3-way cut of ranges around the unit and 256-byte
// boundaries: each piece lands at every place in a unit.
TEST_F(Crc32cCarryTest, EveryTwoAndThreeWayCutEqualsOneShot) {
    std::mt19937 rng(7);
    const auto bytes = test::random_bytes(600, rng);
    auto carried = [&](uint32_t total, uint32_t a, uint32_t b) {
        Crc32cCarry c;
        detail::crc32c_carry_begin(c, total);
        detail::crc32c_carry_feed(c, bytes.data(), a);
        detail::crc32c_carry_feed(c, bytes.data() + a, b - a);
        detail::crc32c_carry_feed(c, bytes.data() + b, total - b);
        EXPECT_TRUE(detail::crc32c_carry_complete(c));
        return detail::crc32c_carry_end(c);
    };
    for_each_kernel([&] {
        for (uint32_t total : {65u, 130u, 200u, 320u, 577u}) {
            const uint32_t want = crc32c(bytes.data(), total);
            for (uint32_t a = 0; a <= total; ++a)
                ASSERT_EQ(carried(total, a, a), want) << total << " cut " << a;
            if (total > 200) continue;
            for (uint32_t a = 0; a <= total; ++a)
                for (uint32_t b = a; b <= total; ++b)
                    ASSERT_EQ(carried(total, a, b), want) << total << " cuts " << a << " " << b;
        }
    });
}

// Pieces taken from mbuf chains (1-byte and empty segments, odd offsets),
// mixed with buffer pieces: the state crosses both.
TEST_F(Crc32cCarryTest, ChainPiecesEqualOneShot) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for_each_kernel([&] {
        for (int iter = 0; iter < 60; ++iter) {
            const uint32_t total = rng() % 6000;
            const auto bytes = test::random_bytes(total, rng);
            const uint32_t want = crc32c(bytes.data(), total);
            Crc32cCarry c;
            detail::crc32c_carry_begin(c, total);
            for (uint32_t at = 0; at < total;) {
                const uint32_t n = std::min<uint32_t>(total - at, 1 + rng() % 1800);
                if (rng() % 4 == 0) {
                    detail::crc32c_carry_feed(c, bytes.data() + at, n);
                } else {
                    // n bytes after `lead` bytes of other data, in up to 4 segments.
                    const uint32_t lead = rng() % 70;
                    std::vector<uint8_t> pkt(lead + n);
                    std::copy_n(bytes.begin() + at, n, pkt.begin() + lead);
                    const unsigned nseg = 1 + rng() % 4;
                    std::vector<uint32_t> lens;
                    do {
                        lens = test::random_split(lead + n, nseg, rng);
                    } while (*std::max_element(lens.begin(), lens.end()) > 1900);
                    if (rng() % 3 == 0) lens.insert(lens.begin() + rng() % lens.size(), 0u);
                    rte_mbuf* m = test::make_chain(pool(), pkt, lens, rng() % 64);
                    ASSERT_NE(m, nullptr);
                    detail::crc32c_carry_feed(c, m, lead, n);
                    rte_pktmbuf_free(m);
                }
                at += n;
            }
            ASSERT_TRUE(detail::crc32c_carry_complete(c));
            ASSERT_EQ(detail::crc32c_carry_end(c), want) << "total " << total;
        }
    });
}

// A PDU boundary's two calls: begin_feed (begin, then the first piece) and
// feed_end (the last piece, then the end) equal the steps they stand for,
// with every first and last piece length around the unit, and refuse what
// the steps would not call complete.
TEST_F(Crc32cCarryTest, BeginFeedAndFeedEndEqualTheSteps) {
    std::mt19937 rng(11);
    const auto bytes = test::random_bytes(5000, rng);
    for_each_kernel([&] {
        for (uint32_t total : {1u, 2u, 63u, 64u, 65u, 200u, 1448u, 4096u, 4100u}) {
            const uint32_t want = crc32c(bytes.data(), total);
            for (int k = 0; k < 24; ++k) {
                // [0, a) by begin_feed, [a, b) by feed, [b, total) by feed_end.
                const uint32_t a = k < 8 ? std::min<uint32_t>(k, total) : rng() % (total + 1);
                const uint32_t b = a + rng() % (total - a + 1);
                Crc32cCarry c;
                detail::crc32c_carry_begin_feed(c, total, bytes.data(), a);
                ASSERT_EQ(c.left, total - a);
                detail::crc32c_carry_feed(c, bytes.data() + a, b - a);
                uint32_t got = 0;
                if (b == total) {  // nothing left: feed_end of 0 bytes
                    ASSERT_TRUE(detail::crc32c_carry_feed_end(c, bytes.data() + b, 0, &got));
                } else {
                    ASSERT_TRUE(detail::crc32c_carry_feed_end(c, bytes.data() + b, total - b, &got))
                        << total << " " << a << " " << b;
                }
                ASSERT_EQ(got, want) << total << " " << a << " " << b;
            }
            // One byte short, or one too many: not complete, as the steps say.
            Crc32cCarry c;
            detail::crc32c_carry_begin_feed(c, total, bytes.data(), 0);
            uint32_t got = 0;
            if (total > 1) {
                ASSERT_FALSE(detail::crc32c_carry_feed_end(c, bytes.data(), total - 1, &got));
            }
            detail::crc32c_carry_begin_feed(c, total, bytes.data(), 0);
            ASSERT_FALSE(detail::crc32c_carry_feed_end(c, bytes.data(), total + 1, &got));
            detail::crc32c_carry_begin_feed(c, total, bytes.data(), total + 1);
            ASSERT_FALSE(detail::crc32c_carry_complete(c));
        }
    });
}

// begin_feed's first piece moves its first units into the zero accumulators
// without a fold: every first piece length up to 450 B, with the front pad
// (o = -total mod 64) at 0..5, 60 and 63, where the ~0 prefix sits in the
// unit before (o < 4) or in the partial unit.
TEST_F(Crc32cCarryTest, BeginFeedEveryFirstPieceLength) {
    std::mt19937 rng(13);
    const auto bytes = test::random_bytes(5000, rng);
    for_each_kernel([&] {
        for (uint32_t total : {4096u, 4095u, 4094u, 4093u, 4092u, 4091u, 4036u, 4033u, 1000u}) {
            const uint32_t want = crc32c(bytes.data(), total);
            for (uint32_t a = 0; a <= 450; ++a) {
                Crc32cCarry c;
                detail::crc32c_carry_begin_feed(c, total, bytes.data(), a);
                uint32_t got = 0;
                ASSERT_TRUE(detail::crc32c_carry_feed_end(c, bytes.data() + a, total - a, &got));
                ASSERT_EQ(got, want) << total << " " << a;
            }
        }
    });
}

// Bytes past the range are refused, and a short feed is not complete.
TEST_F(Crc32cCarryTest, OverfeedAndUnderfeedAreNotComplete) {
    std::mt19937 rng(5);
    const auto bytes = test::random_bytes(300, rng);
    for_each_kernel([&] {
        Crc32cCarry c;
        detail::crc32c_carry_begin(c, 200);
        detail::crc32c_carry_feed(c, bytes.data(), 150);
        EXPECT_FALSE(detail::crc32c_carry_complete(c));
        detail::crc32c_carry_feed(c, bytes.data() + 150, 150);  // 100 too many
        EXPECT_FALSE(detail::crc32c_carry_complete(c));
        EXPECT_EQ(c.left, 0u);

        detail::crc32c_carry_begin(c, 200);
        detail::crc32c_carry_feed(c, bytes.data(), 200);
        EXPECT_TRUE(detail::crc32c_carry_complete(c));
        EXPECT_EQ(detail::crc32c_carry_end(c), crc32c(bytes.data(), 200));
    });
}

// A chain that holds fewer bytes than its pkt_len says.
TEST_F(Crc32cCarryTest, ShortChainIsNotComplete) {
    std::mt19937 rng(6);
    const auto bytes = test::random_bytes(1000, rng);
    const uint32_t lens[] = {600, 400};
    for_each_kernel([&] {
        rte_mbuf* m = test::make_chain(pool(), bytes, lens);
        ASSERT_NE(m, nullptr);
        m->next->data_len = 100;  // pkt_len still claims 1000
        Crc32cCarry c;
        detail::crc32c_carry_begin(c, 900);
        detail::crc32c_carry_feed(c, m, 50, 900);
        EXPECT_FALSE(detail::crc32c_carry_complete(c));
        m->next->data_len = 400;
        rte_pktmbuf_free(m);
    });
}

}  // namespace
}  // namespace csum

namespace csum {
namespace {

// Short chains (the combine-once walk below 257 bytes, the carried state
// above): every two-way split of every length up to 300, three- and four-way
// splits with empty and 1-byte segments, odd start offsets and an incoming
// CRC, against crc32c() over the same bytes, under every kernel.
using ShortChain = test::Crc32cMbufTest;

TEST_F(ShortChain, EverySplitEqualsLinear) {
    std::mt19937 rng(test::fresh_seed());
    const auto bytes = test::random_bytes(400, rng);
    for_each_kernel([&] {
        for (uint32_t total = 0; total <= 300; ++total) {
            const uint32_t lead = total % 7;  // bytes before the range
            const uint32_t seed = rng();
            const uint32_t want = crc32c(bytes.data() + lead, total, seed);
            const std::vector<uint8_t> pkt(bytes.begin(), bytes.begin() + lead + total + 3);
            const auto n = uint32_t(pkt.size());
            std::vector<std::vector<uint32_t>> splits;
            for (uint32_t a = 0; a <= n; a += (n > 100 ? 1 + rng() % 5 : 1))
                splits.push_back({a, n - a});
            for (int i = 0; i < 6; ++i) {
                auto l = test::random_split(n, 3 + i % 2, rng);
                if (i == 2) l.insert(l.begin() + rng() % l.size(), 0u);
                if (i == 3 && n > 2) l = {1, 1, n - 2};
                splits.push_back(l);
            }
            for (const auto& l : splits) {
                rte_mbuf* m = test::make_chain(pool(), pkt, l, uint16_t(rng() % 64));
                ASSERT_NE(m, nullptr);
                ASSERT_EQ(crc32c_mbuf(m, lead, total, seed), want)
                    << "total " << total << " first seg " << l[0];
                uint32_t c = seed;
                ASSERT_EQ(crc32c_mbuf_checked(m, lead, total, &c), 0);
                ASSERT_EQ(c, want);
                rte_pktmbuf_free(m);
            }
        }
    });
}

}  // namespace
}  // namespace csum

namespace csum {
namespace {

// The Internet sum of b's 16-bit words in memory order (an odd last byte is
// the low byte of a word), modulo 0xFFFF: written out here, independent of
// every kernel.
uint64_t sum_mod_ffff(const uint8_t* b, uint32_t n) {
    uint64_t s = 0;
    for (uint32_t i = 0; i + 1 < n; i += 2) s += b[i] | uint32_t{b[i + 1]} << 8;
    if (n & 1) s += b[n - 1];
    return s % 0xFFFF;
}

using Crc32cCarrySummed = test::Crc32cMbufTest;

// The one-pass sum-and-fold kernel and its reference, at every length to
// 1600 and beyond, every alignment of the piece in memory and every fill of
// the partial unit before it: the same sum (modulo 0xFFFF), fed only when
// the checksum it completes is right, and then the range's CRC equals
// crc32c() over it; when not, the carry is byte for byte as before.
TEST_F(Crc32cCarrySummed, KernelAndReferenceAtEveryLengthAndAlignment) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const bool vnni = detail::cpu().can_inet_avx512_vnni() && test::cpu_has(Crc32cKernel::avx512);
    std::vector<uint32_t> lens;
    for (uint32_t n = 1; n <= 1600; ++n) lens.push_back(n);
    for (uint32_t n = 1601; n < 65536; n += 997 + rng() % 300) lens.push_back(n);
    lens.push_back(65535);
    const auto bytes = test::random_bytes(65535 + 64 + 128, rng);
    bool ran_vec = false;
    // c.vec follows the plan, and calibration may not choose avx512 at 1420 B
    // on a noisy machine: each plan is forced, the 32-bit carry's (sse42) and
    // the vector carry's (avx512), wherever the CPU runs it.
    for (const Crc32cKernel plan : {Crc32cKernel::sse42, Crc32cKernel::avx512}) {
        if (!test::cpu_has(plan)) continue;
        ASSERT_TRUE(crc32c_force_kernel(plan));
        SCOPED_TRACE(std::string("plan ") + std::string(crc32c_kernel_name(plan)));
        for (uint32_t n : lens) {
            for (int t = 0; t < (n <= 1600 ? 6 : 2); ++t) {
                const uint32_t align = rng() % 64;
                // The bytes before the piece in the range: every fill of the unit.
                const uint32_t pre = t < 2 ? t * 63 : rng() % 130;
                const uint32_t post = rng() % 3 == 0 ? 0 : rng() % 70;
                const uint32_t total = pre + n + post;
                const uint8_t* r = bytes.data() + align;  // the range
                const uint32_t want_crc = crc32c(r, total);
                const uint64_t sum = sum_mod_ffff(r + pre, n);
                for (bool right : {true, false}) {
                    // base + sum is 0 mod 0xFFFF, or 1.
                    const uint64_t base =
                        (0xFFFF - sum) % 0xFFFF + 0xFFFF * uint64_t(rng() % 1000) + (right ? 0 : 1);
                    for (int k = 0; k < 2; ++k) {
                        if (k == 0 && !vnni) continue;
                        detail::Crc32cCarry c;
                        detail::crc32c_carry_begin(c, total);
                        if (k == 0 && !c.vec) continue;
                        ran_vec |= k == 0;
                        detail::crc32c_carry_feed(c, r, pre);
                        const detail::Crc32cCarry before = c;
                        bool kept = !right;
                        const uint32_t got =
                            k == 0
                                ? detail::crc32c_carry_feed_summed_vnni(c, r + pre, n, base, &kept)
                                : detail::crc32c_carry_feed_summed_ref(c, r + pre, n, base, &kept);
                        SCOPED_TRACE("kernel " + std::to_string(k) + " n " + std::to_string(n) +
                                     " align " + std::to_string(align) + " pre " +
                                     std::to_string(pre) + " right " + std::to_string(right));
                        ASSERT_EQ(got % 0xFFFF, sum);
                        ASSERT_EQ(kept, right);
                        if (!right) {
                            ASSERT_EQ(0, std::memcmp(c.acc, before.acc, sizeof c.acc));
                            ASSERT_EQ(c.o, before.o);
                            ASSERT_EQ(c.left, before.left);
                            ASSERT_EQ(c.crc, before.crc);
                            continue;
                        }
                        detail::crc32c_carry_feed(c, r + pre + n, post);
                        ASSERT_TRUE(detail::crc32c_carry_complete(c));
                        ASSERT_EQ(detail::crc32c_carry_end(c), want_crc);
                    }
                }
            }
        }
    }
    if (vnni) {
        ASSERT_TRUE(ran_vec);
    }
}

}  // namespace
}  // namespace csum
