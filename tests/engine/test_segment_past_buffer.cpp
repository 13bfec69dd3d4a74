// Bursts in which some packets' descriptors claim data past their buffer's
// end (buf_len one short of data_off + data_len, on the first or the last
// segment), behind a linear run of the same shape so that every run takes
// them in turn: the all-good linear runs (TCP/UDP, SCTP, VXLAN), the chain
// runs (short and long AVX-512 loops, gather_front), and the general path.
// The lean engine must match the walker-only one, which names each of them
// segment_past_buffer.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "gen/packet_builder.h"
#include "inet/inet_kernels.h"
#include "support/chain_builder.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class SegmentPastBuffer : public test::MbufTest {};

// len cut into `segs` near-equal segments.
std::vector<uint32_t> cut(uint32_t len, int segs) {
    std::vector<uint32_t> l;
    for (int i = 0; i < segs; ++i) l.push_back(len / segs + (i < int(len % segs) ? 1 : 0));
    return l;
}

TEST_F(SegmentPastBuffer, LiarsInEveryRunMatchTheWalker) {
    test::Filler fill(pool());
    const auto engs = test::lean_and_walker({Mode::verify, Mode::fill, Mode::csum});
    std::mt19937 rng(4711);
    constexpr int kN = 16;
    const uint64_t kFlags[] = {0, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD};
    const gen::Proto protos[] = {gen::Proto::tcp4, gen::Proto::udp4,  gen::Proto::tcp6,
                                 gen::Proto::udp6, gen::Proto::sctp4, gen::Proto::vxlan_tcp4};
    const uint32_t lens[] = {64, 100, 256, 1420};
    int burst_no = 0;
    for (gen::Proto proto : protos)
        for (uint32_t len : lens)
            for (int segs : {1, 2, 4})
                for (uint64_t flags : kFlags) {
                    const std::vector<uint8_t> frame = fill.frame(proto, len, 7);
                    const uint32_t n = uint32_t(frame.size());
                    // The run's shape first, linear, then the burst with liars.
                    std::vector<test::ChainSpec> lead(4, test::ChainSpec{frame, {n}, flags});
                    std::vector<test::ChainSpec> specs;
                    std::vector<std::string> what;
                    for (int i = 0; i < kN; ++i) {
                        test::ChainSpec s{frame, cut(n, segs), flags};
                        const unsigned r = rng() % 4;
                        if (i == 0 || i == kN - 1 || r == 0)
                            s.lie = (i + burst_no) % 2 ? test::Lie::head_past_buffer
                                                       : test::Lie::tail_past_buffer;
                        specs.push_back(s);
                        what.push_back(std::to_string(i) +
                                       (s.lie == test::Lie::none ? "" : " liar"));
                    }
                    const std::vector<std::string> lead_what(lead.size(), "lead");
                    for (size_t mi = 0; mi < engs.size() / 2; ++mi) {
                        RxPortPolicy rx;
                        rx.drop_bad = (burst_no + int(mi)) % 2 == 0;
                        SCOPED_TRACE("proto " + std::to_string(int(proto)) + " len " +
                                     std::to_string(len) + " segs " + std::to_string(segs) +
                                     " flags " + std::to_string(flags != 0) + " mode " +
                                     std::to_string(mi));
                        ASSERT_NO_FATAL_FAILURE(test::expect_same_burst(
                            *engs[2 * mi], *engs[2 * mi + 1], pool(), lead, rx, 0, lead_what));
                        ASSERT_NO_FATAL_FAILURE(
                            test::expect_same_burst(*engs[2 * mi], *engs[2 * mi + 1], pool(), specs,
                                                    rx, uint16_t(burst_no % 2), what));
                    }
                    ++burst_no;
                }
    // Every liar was named by both engines.
    for (const auto& e : engs)
        EXPECT_GT(e->stats().parse_error[int(ParseError::segment_past_buffer)].get(), 0u);
}

}  // namespace
}  // namespace csum
