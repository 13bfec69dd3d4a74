// EAL start-up arguments for the project's tests, fuzz targets and
// benchmarks: no PCI, no hugepages, one lcore, no shared config, so any
// number of them run side by side on a machine with no NIC.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace csum::testkit {

struct EalArgs {
    std::string prog;          // argv[0]
    std::string file_prefix;   // --file-prefix
    unsigned memory_mb = 256;  // --no-huge -m N
    // --in-memory (2-MB pages, as deployments run) instead of --no-huge's 4-KiB pages.
    bool hugepages = false;
    std::string log_level = "lib.eal:error";
};

// base followed by this process's id: a prefix no other process uses.
std::string unique_prefix(std::string_view base);

// The argument list, argv[0] first.
std::vector<std::string> eal_args(const EalArgs& a);

// rte_eal_init over `args` (argv[0] first); its return value. The strings
// are kept for the life of the process, since the EAL may keep pointers.
int eal_init_args(std::vector<std::string> args);
inline int eal_init(const EalArgs& a) {
    return eal_init_args(eal_args(a));
}

}  // namespace csum::testkit
