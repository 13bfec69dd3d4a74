// main() for test binaries that use DPDK: the EAL starts before any test and
// is cleaned up after all of them.
#include <gtest/gtest.h>

#include <rte_eal.h>

#include "support/eal_env.h"

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    csum::test::eal_init_once();
    int rc = RUN_ALL_TESTS();
    rte_eal_cleanup();
    return rc;
}
