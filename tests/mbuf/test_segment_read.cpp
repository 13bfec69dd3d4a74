#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "mbuf/segment_read.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::make_chain;

class SegmentRead : public test::MbufTest {};

TEST_F(SegmentRead, ThreeSegmentChainIsBuiltAndFreed) {
    std::vector<uint8_t> bytes(300);
    std::iota(bytes.begin(), bytes.end(), 0);
    const uint32_t lens[] = {100, 0, 200};
    rte_mbuf* m = make_chain(pool(), bytes, lens);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->nb_segs, 3);
    EXPECT_EQ(m->pkt_len, 300u);
    EXPECT_EQ(test::chain_bytes(m), bytes);
    rte_pktmbuf_free(m);  // TearDown asserts the pool is whole again.
}

TEST_F(SegmentRead, ReadsAcrossEverySplitOfA100BytePacket) {
    std::vector<uint8_t> bytes(100);
    std::iota(bytes.begin(), bytes.end(), 1);
    for (uint32_t cut = 0; cut <= 100; ++cut) {
        const uint32_t lens[] = {cut, 100 - cut};
        rte_mbuf* m = make_chain(pool(), bytes, lens);
        ASSERT_NE(m, nullptr);
        for (uint32_t off = 0; off < 100; off += 7) {
            uint8_t buf[32];
            uint32_t len = std::min<uint32_t>(32, 100 - off);
            const auto* p = static_cast<const uint8_t*>(read_bytes(m, off, len, buf));
            ASSERT_NE(p, nullptr) << "cut " << cut << " off " << off;
            EXPECT_EQ(0, std::memcmp(p, bytes.data() + off, len))
                << "cut " << cut << " off " << off;
        }
        rte_pktmbuf_free(m);
    }
}

TEST_F(SegmentRead, RefusesReadsPastPktLen) {
    std::vector<uint8_t> bytes(64, 0xAB);
    const uint32_t lens[] = {10, 54};
    rte_mbuf* m = make_chain(pool(), bytes, lens);
    uint8_t buf[16];
    EXPECT_EQ(read_bytes(m, 60, 5, buf), nullptr);
    EXPECT_EQ(read_bytes(m, UINT32_MAX, 2, buf), nullptr);
    EXPECT_NE(read_bytes(m, 60, 4, buf), nullptr);
    rte_pktmbuf_free(m);
}

TEST_F(SegmentRead, RefusesAChainShorterThanItsPktLen) {
    std::vector<uint8_t> bytes(64, 0x11);
    const uint32_t lens[] = {32, 32};
    rte_mbuf* m = make_chain(pool(), bytes, lens);
    m->pkt_len = 80;  // a lying length: the chain holds only 64 bytes
    uint8_t buf[32];
    EXPECT_EQ(read_bytes(m, 50, 20, buf), nullptr);
    EXPECT_EQ(read_bytes(m, 70, 4, buf), nullptr);
    m->pkt_len = 64;
    rte_pktmbuf_free(m);
}

TEST_F(SegmentRead, NeverCopiesMoreThanTheDestinationHoldsWhateverTheSegmentation) {
    // The 2110-byte frame of issue 13 read 2048 bytes into 256: a read longer
    // than its buffer is refused, linear or split, and the guard bytes stay.
    std::vector<uint8_t> bytes(2110, 0x5C);
    for (uint32_t cut : {60u, 500u, 1000u}) {  // within the test pool's data room
        const uint32_t lens[] = {cut, 1100, 2110 - 1100 - cut};
        rte_mbuf* m = make_chain(pool(), bytes, lens);
        ASSERT_NE(m, nullptr);
        struct {
            uint8_t buf[256];
            uint8_t guard[64];
        } s;
        std::memset(s.guard, 0xEE, sizeof s.guard);
        EXPECT_EQ(read_bytes(m, 54, 2048, std::span<uint8_t>(s.buf)), nullptr) << cut;
        EXPECT_EQ(read_bytes(m, 54, 257, std::span<uint8_t>(s.buf)), nullptr) << cut;
        EXPECT_NE(read_bytes(m, 54, 256, std::span<uint8_t>(s.buf)), nullptr) << cut;
        for (uint8_t g : s.guard) ASSERT_EQ(g, 0xEE);
        rte_pktmbuf_free(m);
    }
}

TEST_F(SegmentRead, WritesAcrossSegmentsAndRefusesPastPktLen) {
    std::vector<uint8_t> bytes(64, 0);
    const uint32_t lens[] = {31, 0, 33};
    rte_mbuf* m = make_chain(pool(), bytes, lens);
    const uint32_t v = 0xA1B2C3D4;
    EXPECT_TRUE(write_value(m, 29, v));
    EXPECT_FALSE(write_value(m, 61, v));
    const auto out = test::chain_bytes(m);
    EXPECT_EQ(0, std::memcmp(out.data() + 29, &v, 4));
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum
