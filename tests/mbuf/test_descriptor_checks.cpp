// The public chain calls with an error channel (crc32c_mbuf_checked,
// raw_cksum_mbuf, partial_sum_mbuf, read_bytes/write_bytes, and the C API
// over them) refuse a range that reaches a segment whose descriptor claims
// data past its buffer, or that the chain does not hold within its head's
// nb_segs segments (links that loop), and give the right value for a range
// that does not, with every Internet-sum kernel this CPU runs.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "csum/crc32c.h"
#include "csum/csum.h"
#include "csum/inet.h"
#include "mbuf/segment_read.h"
#include "support/chain_builder.h"
#include "support/kernel_restore.h"

namespace csum {
namespace {

class DescriptorChecks : public test::InetKernelTest {};

// The range [off, off + len) with every checked call: all refuse it (-1) or
// all give the bytes' values.
void expect_all(rte_mbuf* m, uint32_t off, uint32_t len, bool refused,
                const std::vector<uint8_t>& bytes) {
    SCOPED_TRACE("range " + std::to_string(off) + "+" + std::to_string(len));
    uint16_t raw = 0, c_raw = 0;
    uint32_t part = 0, crc = 0, c_crc = 0;
    uint8_t buf[1024];
    std::vector<uint8_t> src(len, 0xA5);
    const int rc_raw = raw_cksum_mbuf(m, off, len, &raw);
    const int rc_part = partial_sum_mbuf(m, off, len, &part);
    const int rc_crc = crc32c_mbuf_checked(m, off, len, &crc);
    const void* read = read_bytes(m, off, len, std::span<uint8_t>(buf));
    const int rc_c_crc = csum_crc32c_mbuf(m, off, len, &c_crc);
    const int rc_c_raw = csum_inet_mbuf(m, off, len, &c_raw);
    if (refused) {
        EXPECT_EQ(rc_raw, -1);
        EXPECT_EQ(rc_part, -1);
        EXPECT_EQ(rc_crc, -1);
        EXPECT_EQ(read, nullptr);
        EXPECT_LT(rc_c_crc, 0);
        EXPECT_LT(rc_c_raw, 0);
        EXPECT_FALSE(write_bytes(m, off, src));
    } else {
        const uint8_t* p = bytes.data() + off;
        EXPECT_EQ(rc_raw, 0);
        EXPECT_EQ(raw, raw_cksum(p, len));
        EXPECT_EQ(rc_part, 0);
        EXPECT_EQ(sum_fold(part), raw_cksum(p, len));
        EXPECT_EQ(rc_crc, 0);
        EXPECT_EQ(crc, crc32c(p, len));
        EXPECT_EQ(rc_c_crc, 0);
        EXPECT_EQ(c_crc, crc32c(p, len));
        EXPECT_EQ(rc_c_raw, 0);
        EXPECT_EQ(c_raw, raw_cksum(p, len));
        ASSERT_NE(read, nullptr);
        EXPECT_EQ(0, std::memcmp(read, p, len));
    }
}

TEST_F(DescriptorChecks, ChainCallsRefuseARangeOverASegmentPastItsBuffer) {
    std::vector<uint8_t> bytes(900);
    std::iota(bytes.begin(), bytes.end(), 3);
    const std::vector<uint32_t> lens = {100, 1, 300, 499};  // long pieces take the vector walks
    for (InetKernel k : inet_available_kernels()) {
        ASSERT_TRUE(inet_force_kernel(k));
        for (size_t bad = 0; bad < lens.size(); ++bad) {
            rte_mbuf* m = test::make_chain(pool(), bytes, lens);
            ASSERT_NE(m, nullptr);
            rte_mbuf* seg = m;
            uint32_t s0 = 0;
            for (size_t i = 0; i < bad; ++i) s0 += seg->data_len, seg = seg->next;
            const uint32_t s1 = s0 + seg->data_len;
            test::shrink_buffer(seg);
            const uint32_t ranges[][2] = {
                {0, 900}, {0, s0}, {s1, 900 - s1}, {s0, 1},      {s1 - 1, 1}, {s0 / 2, s1 - s0 / 2},
                {s1, 0},  {0, 64}, {836, 64},      {s0, s1 - s0}};
            for (const auto& r : ranges) {
                const uint32_t off = r[0], len = r[1];
                SCOPED_TRACE(std::string(inet_kernel_name(k)) + " bad segment " +
                             std::to_string(bad));
                const bool touches = len > 0 && off < s1 && off + len > s0;
                expect_all(m, off, len, touches, bytes);
            }
            test::restore_buffer(seg);
            rte_pktmbuf_free(m);
        }
    }
}

enum class Loop { empty_to_self, tail_to_head };

TEST_F(DescriptorChecks, ChainCallsEndAtTheHeadsSegmentCount) {
    std::vector<uint8_t> bytes(600);
    std::iota(bytes.begin(), bytes.end(), 7);
    for (Loop loop : {Loop::empty_to_self, Loop::tail_to_head}) {
        SCOPED_TRACE(loop == Loop::empty_to_self ? "empty segment linked to itself"
                                                 : "tail linked to the head");
        // empty_to_self: 100, 0 (looped), then a 500-B segment never reached;
        // tail_to_head: 100, 500, then the head again. pkt_len claims 600 + 400.
        const std::vector<uint32_t> lens = loop == Loop::empty_to_self
                                               ? std::vector<uint32_t>{100, 0, 500}
                                               : std::vector<uint32_t>{100, 500};
        rte_mbuf* m = test::make_chain(pool(), bytes, lens);
        ASSERT_NE(m, nullptr);
        rte_mbuf* const tail = rte_pktmbuf_lastseg(m);
        rte_mbuf* const empty = m->next;
        rte_mbuf* const after = empty->next;
        if (loop == Loop::empty_to_self)
            empty->next = empty;
        else
            tail->next = m;
        m->pkt_len += 400;
        const uint32_t reach = loop == Loop::empty_to_self ? 100 : 600;  // bytes before the loop
        for (uint32_t off : {0u, 50u, 99u, 100u, 300u, 599u, 600u, 700u})
            for (uint32_t len : {1u, 100u, 400u, 900u}) {
                if (off + len > m->pkt_len) continue;
                expect_all(m, off, len, off + len > reach, bytes);
            }
        if (loop == Loop::empty_to_self)
            empty->next = after;
        else
            tail->next = nullptr;
        m->pkt_len -= 400;
        rte_pktmbuf_free(m);
    }
}

}  // namespace
}  // namespace csum
