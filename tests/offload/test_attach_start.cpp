// csum_port_attach chooses both kernel plans, so that a TX-only attach (no
// Engine made) does not leave calibration (a few hundred µs) to its first
// burst. The plans are chosen once per process, so this runs in a process of
// its own (the ctest entry attach_start_chooses_kernels).
#include <gtest/gtest.h>

#include <cstdlib>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "csum/csum.h"
#include "dispatch/select.h"
#include "support/mbuf_helpers.h"

namespace csum::test {
namespace {

TEST(AttachStartChild, TxOnlyAttachChoosesBothKernelPlans) {
    if (std::getenv("CSUM_ATTACH_START_CHILD") == nullptr)
        GTEST_SKIP() << "runs only under the attach_start_chooses_kernels ctest entry";
    ASSERT_FALSE(detail::crc32c_plan_chosen()) << "something summed before the attach";
    ASSERT_FALSE(detail::inet_plan_chosen()) << "something summed before the attach";
    TestPool pool(255);
    rte_ring* r = rte_ring_create("as_r", 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    ASSERT_NE(r, nullptr);
    const int port = rte_eth_from_rings("asP", &r, 1, &r, 1, SOCKET_ID_ANY);
    ASSERT_GE(port, 0);
    rte_eth_conf conf{};
    ASSERT_EQ(rte_eth_dev_configure(uint16_t(port), 1, 1, &conf), 0);
    ASSERT_EQ(rte_eth_rx_queue_setup(uint16_t(port), 0, 64, SOCKET_ID_ANY, nullptr, pool.get()), 0);
    ASSERT_EQ(rte_eth_tx_queue_setup(uint16_t(port), 0, 64, SOCKET_ID_ANY, nullptr), 0);
    csum_port_opts o;
    csum_port_opts_init(&o);
    o.rx = 0;  // TX only: no Engine is made
    ASSERT_EQ(csum_port_attach(uint16_t(port), &o), 0);
    EXPECT_TRUE(detail::crc32c_plan_chosen());
    EXPECT_TRUE(detail::inet_plan_chosen());
    EXPECT_EQ(csum_port_detach(uint16_t(port)), 0);
    rte_eth_dev_close(uint16_t(port));
    rte_ring_free(r);
}

}  // namespace
}  // namespace csum::test
