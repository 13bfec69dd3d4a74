#include "support/eal_env.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <rte_eal.h>
#include <rte_errno.h>

#include "testkit/eal_args.h"

namespace csum::test {

std::vector<std::string> eal_test_args() {
    return testkit::eal_args(
        {.prog = "csum-test", .file_prefix = testkit::unique_prefix("csumtest_")});
}

void eal_init_once() {
    static bool done = false;
    if (done) return;
    if (testkit::eal_init_args(eal_test_args()) < 0) {
        std::fprintf(stderr, "test EAL failed to start: %s\n", rte_strerror(rte_errno));
        std::exit(1);
    }
    done = true;
}

}  // namespace csum::test
