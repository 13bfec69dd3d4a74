// An Engine chooses both kernel plans when it is made, so that no packet
// pays for calibration (a few hundred µs: the demo's first SCTP packet did,
// and an inline port's RX ring fills meanwhile). The plans are chosen once
// per process, so this runs in a process of its own (the ctest entry
// engine_start_chooses_kernels), before anything else sums.
#include <gtest/gtest.h>

#include <cstdlib>

#include "csum/engine.h"
#include "dispatch/select.h"

namespace csum {
namespace {

TEST(EngineStartChild, ConstructionChoosesBothKernelPlans) {
    if (std::getenv("CSUM_ENGINE_START_CHILD") == nullptr)
        GTEST_SKIP() << "runs only under the engine_start_chooses_kernels ctest entry";
    ASSERT_FALSE(detail::crc32c_plan_chosen()) << "something summed before the engine was made";
    ASSERT_FALSE(detail::inet_plan_chosen()) << "something summed before the engine was made";
    EngineConfig cfg;
    cfg.mode = Mode::verify;
    Engine e(cfg);
    EXPECT_TRUE(detail::crc32c_plan_chosen());
    EXPECT_TRUE(detail::inet_plan_chosen());
}

}  // namespace
}  // namespace csum
