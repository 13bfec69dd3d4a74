// One EAL per test binary, with settings that let binaries run in parallel.
#pragma once

#include <string>
#include <vector>

namespace csum::test {

// Arguments the test EAL starts with: --no-pci --no-huge -m 256 --no-shconf
// and a --file-prefix unique to this process.
std::vector<std::string> eal_test_args();

// Initialises the EAL once; later calls are no-ops. Aborts the binary with a
// message if the EAL can't start, since no test could run.
void eal_init_once();

}  // namespace csum::test
