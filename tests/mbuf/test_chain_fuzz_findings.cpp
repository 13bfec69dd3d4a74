// Findings of fuzz_chain_calls (tests/fuzz/fuzz_chain_calls.cpp), reduced.
//
// A zero-length range at an offset past the first segment, on a chain with
// an empty segment linked to itself and pkt_len claiming more: range_ok
// takes the empty range as held (range_in_buffers is true for len 0), and
// walk() then seeks the offset with the unbounded seek_segment, which never
// leaves the empty segment. raw_cksum_mbuf, partial_sum_mbuf and
// csum_inet_mbuf did not return (fixed: an empty range is summed without a
// walk). Each call runs in a child with a 5 s alarm, so a regression fails
// the test rather than hanging it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <numeric>
#include <vector>

#include "csum/crc32c.h"
#include "csum/csum.h"
#include "csum/inet.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class ChainFuzzFindings : public test::MbufTest {};

TEST_F(ChainFuzzFindings, EmptyRangePastAnEmptySelfLoopReturns) {
    GTEST_FLAG_SET(death_test_style, "fast");
    std::vector<uint8_t> bytes(600);
    std::iota(bytes.begin(), bytes.end(), 7);
    const std::vector<uint32_t> lens = {100, 0, 500};
    rte_mbuf* m = test::make_chain(pool(), bytes, lens);
    ASSERT_NE(m, nullptr);
    rte_mbuf* const empty = m->next;
    rte_mbuf* const after = empty->next;
    empty->next = empty;
    m->pkt_len += 400;
    // Returning is what is asked; a refusal (-1) or the empty sum both do.
    auto returns = [&](const char* what, auto call) {
        EXPECT_EXIT(
            {
                alarm(5);
                call();
                std::_Exit(0);
            },
            testing::ExitedWithCode(0), "")
            << what << "(off 300, len 0)";
    };
    uint16_t raw = 0;
    uint32_t sum = 0;
    returns("raw_cksum_mbuf", [&] { raw_cksum_mbuf(m, 300, 0, &raw); });
    returns("partial_sum_mbuf", [&] { partial_sum_mbuf(m, 300, 0, &sum); });
    returns("csum_inet_mbuf", [&] { csum_inet_mbuf(m, 300, 0, &raw); });
    returns("crc32c_mbuf_checked", [&] { crc32c_mbuf_checked(m, 300, 0, &sum); });
    empty->next = after;
    m->pkt_len -= 400;
    rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace csum
