#include "support/eal_env.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <rte_eal.h>
#include <rte_errno.h>

namespace csum::test {

std::vector<std::string> eal_test_args() {
    return {"csum-test",
            "--no-pci",
            "--no-huge",
            "-m",
            "256",
            "--no-shconf",
            "--no-telemetry",
            "-l",
            "0",
            "--log-level=lib.eal:error",
            "--file-prefix=csumtest_" + std::to_string(getpid())};
}

void eal_init_once() {
    static bool done = false;
    if (done) return;
    std::vector<std::string> args = eal_test_args();
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    if (rte_eal_init(static_cast<int>(argv.size()), argv.data()) < 0) {
        std::fprintf(stderr, "test EAL failed to start: %s\n", rte_strerror(rte_errno));
        std::exit(1);
    }
    done = true;
}

}  // namespace csum::test
