// crc32c_mbuf over real chains from a real mempool, under every kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "crc32c_test_util.h"
#include "dispatch/select.h"
#include "support/crc32c_kernels.h"

namespace csum {
namespace {

using test::make_chain;

using Crc32cMbuf = test::Crc32cMbufTest;

TEST_F(Crc32cMbuf, RandomChainsOf1To16SegmentsWithTinyAndEmptyOnes) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for_each_kernel([&] {
        for (int i = 0; i < 40; ++i) {
            const unsigned nseg = 1 + rng() % 16;
            const uint32_t total = rng() % ((nseg > 2 ? nseg - 2 : nseg) * 1000 + 1);
            // With 3+ segments, one is a single byte and one is empty.
            const bool tiny = nseg >= 3 && total >= 1;  // others average <= 1000 B
            std::vector<uint32_t> lens;
            do {  // segments must fit the 2 KiB data room
                lens = test::random_split(total - tiny, nseg - 2 * tiny, rng);
            } while (*std::max_element(lens.begin(), lens.end()) > 1900);
            if (tiny) {
                lens.insert(lens.begin() + rng() % lens.size(), 0u);
                lens.insert(lens.begin() + rng() % lens.size(), 1u);
            }
            const auto bytes = test::random_bytes(total, rng);
            rte_mbuf* m = make_chain(pool(), bytes, lens, static_cast<uint16_t>(rng() % 64));
            ASSERT_NE(m, nullptr);
            const uint32_t init = rng();
            EXPECT_EQ(crc32c_mbuf(m, 0, total, init), crc32c(bytes.data(), total, init));
            const uint32_t off = total ? rng() % total : 0;
            const uint32_t len = total ? rng() % (total - off + 1) : 0;
            EXPECT_EQ(crc32c_mbuf(m, off, len), crc32c(bytes.data() + off, len))
                << "off " << off << " len " << len;
            uint32_t c = 0;
            EXPECT_EQ(crc32c_mbuf_checked(m, off, len, &c), 0);
            EXPECT_EQ(c, crc32c(bytes.data() + off, len));
            rte_pktmbuf_free(m);
        }
    });
}

TEST_F(Crc32cMbuf, OneByteSegments) {
    std::vector<uint8_t> bytes(16);
    std::iota(bytes.begin(), bytes.end(), 100);
    const std::vector<uint32_t> lens(16, 1);
    for_each_kernel([&] {
        rte_mbuf* m = make_chain(pool(), bytes, lens);
        ASSERT_NE(m, nullptr);
        for (uint32_t off = 0; off <= 16; ++off)
            EXPECT_EQ(crc32c_mbuf(m, off, 16 - off), crc32c(bytes.data() + off, 16 - off)) << off;
        rte_pktmbuf_free(m);
    });
}

TEST_F(Crc32cMbuf, EverySplitOfA100BytePacketAndEveryRange) {
    std::vector<uint8_t> bytes(100);
    std::iota(bytes.begin(), bytes.end(), 7);
    for_each_kernel([&] {
        for (uint32_t cut = 0; cut <= 100; ++cut) {
            const uint32_t lens[] = {cut, 0, 100 - cut};
            rte_mbuf* m = make_chain(pool(), bytes, lens, static_cast<uint16_t>(cut % 8));
            ASSERT_NE(m, nullptr);
            for (uint32_t off = 0; off <= 100; off += 3)
                for (uint32_t len = 0; off + len <= 100; len += 11)
                    ASSERT_EQ(crc32c_mbuf(m, off, len, 1), crc32c(bytes.data() + off, len, 1))
                        << "cut " << cut << " off " << off << " len " << len;
            rte_pktmbuf_free(m);
        }
    });
}

TEST_F(Crc32cMbuf, RangePastPktLen) {
    std::mt19937 rng(3);
    const auto bytes = test::random_bytes(300, rng);
    const uint32_t lens[] = {120, 0, 180};
    rte_mbuf* m = make_chain(pool(), bytes, lens);
    ASSERT_NE(m, nullptr);
    for_each_kernel([&] {
        // Plain variant: covers only the bytes that exist.
        EXPECT_EQ(crc32c_mbuf(m, 250, 100), crc32c(bytes.data() + 250, 50));
        EXPECT_EQ(crc32c_mbuf(m, 0, UINT32_MAX, 9), crc32c(bytes.data(), 300, 9));
        EXPECT_EQ(crc32c_mbuf(m, 300, 5, 0x1234u), 0x1234u);
        EXPECT_EQ(crc32c_mbuf(m, UINT32_MAX, UINT32_MAX, 0x1234u), 0x1234u);
        // Checked variant: reports and leaves *crc alone.
        uint32_t c = 0xABCDu;
        EXPECT_EQ(crc32c_mbuf_checked(m, 250, 51, &c), -1);
        EXPECT_EQ(crc32c_mbuf_checked(m, UINT32_MAX, 2, &c), -1);
        EXPECT_EQ(crc32c_mbuf_checked(m, 1, UINT32_MAX, &c), -1);
        EXPECT_EQ(c, 0xABCDu);
        EXPECT_EQ(crc32c_mbuf_checked(m, 250, 50, &c), 0);
        EXPECT_EQ(c, crc32c(bytes.data() + 250, 50, 0xABCDu));
        c = 5;
        EXPECT_EQ(crc32c_mbuf_checked(m, 300, 0, &c), 0);
        EXPECT_EQ(c, 5u);
    });
    rte_pktmbuf_free(m);
}

// pkt_len claims more than the segments hold: never walk off the chain.
TEST_F(Crc32cMbuf, ChainShorterThanPktLen) {
    std::mt19937 rng(4);
    const auto bytes = test::random_bytes(64, rng);
    const uint32_t lens[] = {32, 0, 32};
    rte_mbuf* m = make_chain(pool(), bytes, lens);
    ASSERT_NE(m, nullptr);
    m->pkt_len = 1000;
    m->nb_segs = 9;
    for_each_kernel([&] {
        EXPECT_EQ(crc32c_mbuf(m, 0, 1000), crc32c(bytes.data(), 64));
        EXPECT_EQ(crc32c_mbuf(m, 40, 500), crc32c(bytes.data() + 40, 24));
        EXPECT_EQ(crc32c_mbuf(m, 64, 10, 77), 77u);
        EXPECT_EQ(crc32c_mbuf(m, 500, 10, 77), 77u);
        uint32_t c = 0x55u;
        EXPECT_EQ(crc32c_mbuf_checked(m, 0, 65, &c), -1);
        EXPECT_EQ(crc32c_mbuf_checked(m, 100, 1, &c), -1);
        EXPECT_EQ(c, 0x55u);
        EXPECT_EQ(crc32c_mbuf_checked(m, 0, 64, &c), 0);
        EXPECT_EQ(c, crc32c(bytes.data(), 64, 0x55u));
    });
    m->pkt_len = 64;
    m->nb_segs = 3;
    rte_pktmbuf_free(m);
}

// The carried-state walk (avx512 plans): the folding state crosses segment
// boundaries and is reduced once, so every split and every range length
// around the 64-byte unit and 256-byte block must agree with the linear CRC.
TEST_F(Crc32cMbuf, CarriedStateMatchesLinearForAnySplit) {
    if (!test::cpu_has(Crc32cKernel::avx512)) GTEST_SKIP() << "no AVX-512 here: no carried state";
    ASSERT_TRUE(crc32c_force_kernel(Crc32cKernel::avx512));
    ASSERT_TRUE(detail::crc32c_plan_now() & detail::kPlanStream);
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const auto bytes = test::random_bytes(6000, rng);
    // Every total 0..600 in 2 and 4 random pieces (zero-length and 1-byte
    // ones forced in turn), odd misalignment, random initial CRC.
    for (uint32_t total = 0; total <= 600; ++total) {
        for (unsigned nseg : {2u, 4u}) {
            std::vector<uint32_t> lens = test::random_split(total, nseg, rng);
            if (total % 3 == 0) lens[rng() % nseg] = 0, lens.back() = 0;
            if (total % 3 == 1 && total > nseg) lens.assign(nseg - 1, 1), lens.push_back(0);
            uint32_t sum = 0;
            for (auto l : lens) sum += l;
            lens.back() += total - sum;
            rte_mbuf* m = make_chain(pool(), std::span(bytes).first(total), lens,
                                     static_cast<uint16_t>(rng() % 64));
            ASSERT_NE(m, nullptr);
            const uint32_t init = rng();
            ASSERT_EQ(crc32c_mbuf(m, 0, total, init), crc32c(bytes.data(), total, init))
                << "total " << total << " segs " << nseg;
            const uint32_t off = total ? rng() % total : 0;
            uint32_t c = init;
            ASSERT_EQ(crc32c_mbuf_checked(m, off, total - off, &c), 0);
            ASSERT_EQ(c, crc32c(bytes.data() + off, total - off, init)) << "off " << off;
            rte_pktmbuf_free(m);
        }
    }
    // Long chains: up to 6000 bytes in 2..8 pieces of at most 1900.
    for (int i = 0; i < 300; ++i) {
        const unsigned nseg = 2 + rng() % 7;
        const uint32_t total = rng() % (std::min(nseg * 900u, 6000u) + 1);
        std::vector<uint32_t> lens;
        do lens = test::random_split(total, nseg, rng);
        while (*std::max_element(lens.begin(), lens.end()) > 1900);
        rte_mbuf* m = make_chain(pool(), std::span(bytes).first(total), lens,
                                 static_cast<uint16_t>(rng() % 64));
        ASSERT_NE(m, nullptr);
        const uint32_t init = rng();
        ASSERT_EQ(crc32c_mbuf(m, 0, total, init), crc32c(bytes.data(), total, init)) << total;
        rte_pktmbuf_free(m);
    }
    // The shape from issue 14: 2 x 128 B, ranges at offset 0 and 1.
    const uint32_t two[] = {128, 128};
    rte_mbuf* m = make_chain(pool(), std::span(bytes).first(256), two, 1);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(crc32c_mbuf(m, 0, 256), crc32c(bytes.data(), 256));
    EXPECT_EQ(crc32c_mbuf(m, 1, 255), crc32c(bytes.data() + 1, 255));
    rte_pktmbuf_free(m);
}

// Short chains (up to 256 B) take the register gather under avx512 plans and
// the serial or per-segment walks under the others. Every cut of every length
// to 256 into 2 pieces, every cut into 3 pieces of the lengths around the
// 64-byte units, each segment at its own odd offset, plus a range starting
// mid-chain and ending before its end.
TEST_F(Crc32cMbuf, ShortChainsEveryCutInto2And3Pieces) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const auto bytes = test::random_bytes(256, rng);
    // One 3-segment chain, rewritten in place for each cut.
    rte_mbuf* seg[3];
    for (auto*& x : seg) ASSERT_NE(x = rte_pktmbuf_alloc(pool()), nullptr);
    seg[0]->next = seg[1];
    seg[1]->next = seg[2];
    seg[0]->nb_segs = 3;
    rte_mbuf* m = seg[0];
    auto cut = [&](uint32_t a, uint32_t b, uint32_t total) {
        const uint32_t lens[3] = {a, b - a, total - b};
        uint32_t at = 0;
        for (int i = 0; i < 3; ++i) {
            seg[i]->data_off = static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + rng() % 64);
            seg[i]->data_len = static_cast<uint16_t>(lens[i]);
            std::memcpy(rte_pktmbuf_mtod(seg[i], uint8_t*), bytes.data() + at, lens[i]);
            at += lens[i];
        }
        m->pkt_len = total;
    };
    // False on the first mismatch (reported), so a broken path stops early.
    auto check = [&](uint32_t total, const char* what, uint32_t a, uint32_t b) {
        const uint32_t init = rng();
        const uint32_t off = rng() % total, len = rng() % (total - off + 1);
        const bool whole = crc32c_mbuf(m, 0, total, init) == crc32c(bytes.data(), total, init);
        const bool part = crc32c_mbuf(m, off, len, init) == crc32c(bytes.data() + off, len, init);
        uint32_t c = init;
        const bool checked = crc32c_mbuf_checked(m, off, total - off, &c) == 0 &&
                             c == crc32c(bytes.data() + off, total - off, init);
        EXPECT_TRUE(whole && part && checked)
            << what << " total " << total << " cuts " << a << "," << b << " off " << off << " len "
            << len << " (whole " << whole << " part " << part << " checked " << checked << ")";
        return whole && part && checked;
    };
    for_each_kernel([&] {
        for (uint32_t total = 1; total <= 256; ++total)
            for (uint32_t a = 0; a <= total; ++a) {
                cut(a, total, total);  // third segment empty
                if (!check(total, "2 pieces", a, total)) return;
            }
        for (uint32_t total : {1u, 2u, 5u, 63u, 64u, 65u, 127u, 128u, 129u, 192u, 193u, 255u, 256u})
            for (uint32_t a = 0; a <= total; ++a)
                for (uint32_t b = a; b <= total; b += 1 + (total > 128) * (rng() % 3)) {
                    cut(a, b, total);
                    if (!check(total, "3 pieces", a, b)) return;
                }
    });
    rte_pktmbuf_free(m);
}

// Every cut into 4 pieces (any piece empty or 1 byte) of totals up to 65
// around 16-byte lanes and 64-byte units, and random 4-way cuts of totals
// 66..256 (one end piece of 1 byte in a quarter of them), each piece at
// its own odd offset in a 2 KiB segment with garbage around it, under every
// kernel: whole range, a random sub-range, the checked variant, and now and
// then a pkt_len that claims more than the chain holds.
TEST_F(Crc32cMbuf, ShortChainsEveryCutInto4Pieces) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const auto bytes = test::random_bytes(256, rng);
    rte_mbuf* seg[4];
    for (auto*& x : seg) ASSERT_NE(x = rte_pktmbuf_alloc(pool()), nullptr);
    for (int i = 0; i < 3; ++i) seg[i]->next = seg[i + 1];
    seg[0]->nb_segs = 4;
    rte_mbuf* m = seg[0];
    // Data at headroom + 1, 3, 5 or 7 (+ 8 k), 64 bytes of garbage either side.
    auto cut = [&](const uint32_t(&c)[5]) {
        for (int i = 0; i < 4; ++i) {
            const uint32_t n = c[i + 1] - c[i];
            const uint16_t at =
                static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + 2 * i + 1 + 8 * (rng() % 4));
            seg[i]->data_off = at;
            seg[i]->data_len = static_cast<uint16_t>(n);
            uint8_t* d = rte_pktmbuf_mtod(seg[i], uint8_t*);
            std::memset(d - 64, 0xA5 + i, 64);
            std::memcpy(d, bytes.data() + c[i], n);
            std::memset(d + n, 0x5A + i, 64);
        }
        m->pkt_len = c[4];
    };
    uint64_t checks = 0;
    auto check = [&](const uint32_t(&c)[5]) {
        const uint32_t total = c[4], init = rng();
        ++checks;
        if (crc32c_mbuf(m, 0, total, init) != crc32c(bytes.data(), total, init)) {
            ADD_FAILURE() << "whole, cuts " << c[1] << "," << c[2] << "," << c[3] << " of "
                          << total;
            return false;
        }
        const uint32_t off = rng() % total, len = rng() % (total - off + 1);
        uint32_t got = init;
        const bool ok = crc32c_mbuf(m, off, len, init) == crc32c(bytes.data() + off, len, init) &&
                        crc32c_mbuf_checked(m, off, len, &got) == 0 &&
                        got == crc32c(bytes.data() + off, len, init);
        if (!ok) {
            ADD_FAILURE() << "range " << off << "+" << len << ", cuts " << c[1] << "," << c[2]
                          << "," << c[3] << " of " << total;
            return false;
        }
        if (checks % 61 == 0) {  // pkt_len says more than the chain holds
            m->pkt_len = total + 1 + rng() % 300;
            const uint32_t want = crc32c(bytes.data() + off, total - off, init);
            uint32_t c2 = init;
            const bool lie = crc32c_mbuf(m, off, m->pkt_len - off, init) == want &&
                             crc32c_mbuf_checked(m, off, m->pkt_len - off, &c2) == -1 &&
                             c2 == init && crc32c_mbuf(m, total + 1, 5, init) == init;
            m->pkt_len = total;
            if (!lie) {
                ADD_FAILURE() << "short chain, off " << off << ", cuts " << c[1] << "," << c[2]
                              << "," << c[3] << " of " << total;
                return false;
            }
        }
        return true;
    };
    for_each_kernel([&] {
        for (uint32_t total : {1u,  2u,  3u,  4u,  5u,  7u,  8u,  9u,  15u, 16u,
                               17u, 31u, 32u, 33u, 47u, 48u, 49u, 63u, 64u, 65u})
            for (uint32_t a = 0; a <= total; ++a)
                for (uint32_t b = a; b <= total; ++b)
                    for (uint32_t d = b; d <= total; ++d) {
                        const uint32_t c[5] = {0, a, b, d, total};
                        cut(c);
                        if (!check(c)) return;
                    }
        for (int i = 0; i < 20000; ++i) {
            const uint32_t total = 66 + static_cast<uint32_t>(rng() % 191);
            auto any = [&] { return static_cast<uint32_t>(rng() % (total + 1)); };
            uint32_t x[3] = {any(), any(), any()};
            if (i % 4 == 0) x[rng() % 3] = rng() % 2 ? 1 : total - 1;  // a 1-byte end piece
            std::sort(x, x + 3);
            const uint32_t c[5] = {0, x[0], x[1], x[2], total};
            cut(c);
            if (!check(c)) return;
        }
    });
    m->pkt_len = 0;
    for (auto* x : seg) x->data_len = 0;
    rte_pktmbuf_free(m);
}

// CRC32C bit by bit: the reference that shares no code with any kernel.
uint32_t crc32c_bitwise(const uint8_t* p, size_t n, uint32_t crc) {
    uint32_t s = ~crc;
    for (size_t i = 0; i < n; ++i) {
        s ^= p[i];
        for (int b = 0; b < 8; ++b) s = (s >> 1) ^ (0x82F63B78u & (0u - (s & 1u)));
    }
    return ~s;
}

// Ranges over 256 B whose first pieces fill less than one 64-byte unit (a
// 1-byte first segment): the unit walk keeps its accumulators zero until a
// piece completes the first unit. Every cut of the first two pieces around
// that unit, at odd offsets with garbage either side, also from inside the
// first piece, and chains that end before pkt_len (inside those pieces too).
TEST_F(Crc32cMbuf, LongRangesWhoseFirstPiecesFillLessThanAUnit) {
    const uint32_t seed = test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const auto bytes = test::random_bytes(1900, rng);
    rte_mbuf* seg[4];
    for (auto*& x : seg) ASSERT_NE(x = rte_pktmbuf_alloc(pool()), nullptr);
    for (int i = 0; i < 3; ++i) seg[i]->next = seg[i + 1];
    seg[0]->nb_segs = 4;
    rte_mbuf* m = seg[0];
    auto cut = [&](const uint32_t(&c)[5]) {
        for (int i = 0; i < 4; ++i) {
            const uint32_t n = c[i + 1] - c[i];
            seg[i]->data_off = static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + 2 * i + 1);
            seg[i]->data_len = static_cast<uint16_t>(n);
            uint8_t* d = rte_pktmbuf_mtod(seg[i], uint8_t*);
            std::memset(d - 64, 0xA5 + i, 64);
            std::memcpy(d, bytes.data() + c[i], n);
            std::memset(d + n, 0x5A + i, 64);
        }
        m->pkt_len = c[4];
    };
    for_each_kernel([&] {
        for (uint32_t total : {257u, 300u, 449u, 1420u, 1900u}) {
            const uint32_t init = rng();
            const uint32_t whole = crc32c_bitwise(bytes.data(), total, init);
            const uint32_t from1 = crc32c_bitwise(bytes.data() + 1, total - 1, init);
            for (uint32_t a = 0; a <= 66; ++a)
                for (uint32_t b = 0; a + b <= 68; ++b) {
                    // The rest in two pieces, the last one 1 byte every other time.
                    const uint32_t d =
                        (a + b) % 2 ? total - 1 : a + b + (total - a - b) / 2 + rng() % 7;
                    const uint32_t c[5] = {0, a, a + b, d, total};
                    cut(c);
                    ASSERT_EQ(crc32c_mbuf(m, 0, total, init), whole)
                        << "cuts " << a << "," << a + b << "," << d << " of " << total;
                    ASSERT_EQ(crc32c_mbuf(m, 1, total - 1, init), from1)
                        << "from 1, cuts " << a << "," << a + b << "," << d << " of " << total;
                    // pkt_len says more than the chain holds; then the chain
                    // ends after the first two pieces.
                    m->pkt_len = total + 1 + rng() % 3000;
                    ASSERT_EQ(crc32c_mbuf(m, 0, m->pkt_len, init), whole)
                        << "lying pkt_len, cuts " << a << "," << a + b << "," << d;
                    seg[1]->next = nullptr;
                    m->pkt_len = total;
                    ASSERT_EQ(crc32c_mbuf(m, 0, total, init),
                              crc32c_bitwise(bytes.data(), a + b, init))
                        << "chain of " << a + b << " bytes, pkt_len " << total;
                    seg[1]->next = seg[2];
                }
        }
    });
    m->pkt_len = 0;
    for (auto* x : seg) x->data_len = 0;
    rte_pktmbuf_free(m);
}

// 1-byte segments, odd offsets, ranges anywhere in a chain longer than them.
TEST_F(Crc32cMbuf, ShortRangesOverOneByteSegments) {
    std::mt19937 rng(12);
    const auto bytes = test::random_bytes(300, rng);
    std::vector<uint32_t> lens(300, 1);
    for (int i = 0; i < 300; i += 37) lens[i] = 0, lens[i + 1] = 2;  // empty ones too
    rte_mbuf* m = make_chain(pool(), bytes, lens, 7);
    ASSERT_NE(m, nullptr);
    for_each_kernel([&] {
        for (uint32_t len = 0; len <= 260; ++len) {
            const uint32_t off = rng() % (300 - len + 1), init = rng();
            ASSERT_EQ(crc32c_mbuf(m, off, len, init), crc32c(bytes.data() + off, len, init))
                << "off " << off << " len " << len;
        }
    });
    rte_pktmbuf_free(m);
}

// pkt_len claims more than a short chain holds: the CRC of the bytes that
// exist, and the checked variant refuses.
TEST_F(Crc32cMbuf, ShortRangeOverAChainShorterThanPktLen) {
    std::mt19937 rng(13);
    const auto bytes = test::random_bytes(100, rng);
    const uint32_t lens[] = {30, 0, 70};
    rte_mbuf* m = make_chain(pool(), bytes, lens, 3);
    ASSERT_NE(m, nullptr);
    m->pkt_len = 400;
    for_each_kernel([&] {
        EXPECT_EQ(crc32c_mbuf(m, 0, 200, 5), crc32c(bytes.data(), 100, 5));
        EXPECT_EQ(crc32c_mbuf(m, 10, 60, 5), crc32c(bytes.data() + 10, 60, 5));
        EXPECT_EQ(crc32c_mbuf(m, 31, 256, 5), crc32c(bytes.data() + 31, 69, 5));
        EXPECT_EQ(crc32c_mbuf(m, 150, 40, 5), 5u);  // starts past the last byte
        uint32_t c = 9;
        EXPECT_EQ(crc32c_mbuf_checked(m, 0, 101, &c), -1);
        EXPECT_EQ(crc32c_mbuf_checked(m, 120, 10, &c), -1);
        EXPECT_EQ(c, 9u);
        EXPECT_EQ(crc32c_mbuf_checked(m, 20, 80, &c), 0);
        EXPECT_EQ(c, crc32c(bytes.data() + 20, 80, 9u));
    });
    m->pkt_len = 100;
    rte_pktmbuf_free(m);
}

// Chaining across calls: CRC of one range continues into the next.
TEST_F(Crc32cMbuf, ExtendsAcrossCalls) {
    std::mt19937 rng(8);
    const auto bytes = test::random_bytes(3000, rng);
    const uint32_t lens[] = {1000, 1, 999, 1000};
    rte_mbuf* m = make_chain(pool(), bytes, lens);
    ASSERT_NE(m, nullptr);
    for_each_kernel([&] {
        const uint32_t first = crc32c_mbuf(m, 0, 1500);
        EXPECT_EQ(crc32c_mbuf(m, 1500, 1500, first), crc32c(bytes.data(), 3000));
    });
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum
