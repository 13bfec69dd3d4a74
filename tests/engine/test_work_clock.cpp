// EngineStats::work_tsc: the engine times every burst at first, then one
// burst per ~256 packets, and counts that burst's ticks per packet for the
// packets it did not time. The estimate must cover every packet, however
// the packets come: in bursts of 32 or one a call.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include <rte_mbuf.h>

#include "case_file.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class WorkClock : public test::MbufTest {
  protected:
    // Ticks per packet over `calls` calls of `per_call` packets each, from
    // the growth of work_tsc (the first calls' all-timed phase passed).
    double ticks_per_packet(Engine& e, int calls, uint16_t per_call) {
        std::vector<rte_mbuf*> pkts(per_call);
        for (auto& m : pkts) m = test::make_linear(pool(), test::find_case("v4_tcp_300").bytes);
        const uint64_t t0 = e.stats().work_tsc.get();
        const uint64_t p0 = e.stats().packets.get();
        for (int c = 0; c < calls; ++c) e.process({}, {}, pkts.data(), per_call);
        const uint64_t dt = e.stats().work_tsc.get() - t0;
        EXPECT_EQ(e.stats().packets.get() - p0, uint64_t(calls) * per_call);
        for (rte_mbuf* m : pkts) rte_pktmbuf_free(m);
        return double(dt) / (double(calls) * per_call);
    }
};

// The median of three runs: one timed call that a host interrupt lands in
// is scaled by up to 257.
double median3(double a, double b, double c) {
    return std::max(std::min(a, b), std::min(std::max(a, b), c));
}

TEST_F(WorkClock, SampledEstimateCoversEveryPacketInBurstsOfOneAndOf32) {
    Engine e(test::engine_config(Mode::verify));
    // The all-timed phase: every call timed.
    const double timed = ticks_per_packet(e, 64, 32);
    ASSERT_GT(timed, 0.0);
    // Sampled, in bursts of 32: one call in nine timed, scaled by nine.
    auto b32 = [&] { return ticks_per_packet(e, 900, 32); };
    const double sampled32 = median3(b32(), b32(), b32());
    // Sampled, one packet a call: one call in 257 timed, scaled by 257.
    // A call's fixed cost falls on its one packet, so each costs more.
    auto b1 = [&] { return ticks_per_packet(e, 257 * 40, 1); };
    const double sampled1 = median3(b1(), b1(), b1());
    // Unscaled, the estimate would be a ninth or a 257th of the truth, and
    // scaled twice, 9 or 257 times it; the bounds leave room for noise,
    // sanitizers and a busy host.
    EXPECT_GT(sampled32, timed / 4);
    EXPECT_LT(sampled32, timed * 4);
    EXPECT_GT(sampled1, timed / 4);
    EXPECT_LT(sampled1, timed * 40);
}

}  // namespace
}  // namespace csum
