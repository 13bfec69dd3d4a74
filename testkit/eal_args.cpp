#include "testkit/eal_args.h"

#include <rte_eal.h>
#include <unistd.h>

namespace csum::testkit {

std::string unique_prefix(std::string_view base) {
    return std::string(base) + std::to_string(getpid());
}

std::vector<std::string> eal_args(const EalArgs& a) {
    return {a.prog,
            "--no-pci",
            a.hugepages ? "--in-memory" : "--no-huge",
            "-m",
            std::to_string(a.memory_mb),
            "--no-shconf",
            "--no-telemetry",
            "-l",
            "0",
            "--log-level=" + a.log_level,
            "--file-prefix=" + a.file_prefix};
}

int eal_init_args(std::vector<std::string> args) {
    static std::vector<std::string> kept;
    static std::vector<char*> argv;
    kept = std::move(args);
    argv.clear();
    for (auto& s : kept) argv.push_back(s.data());
    return rte_eal_init(static_cast<int>(argv.size()), argv.data());
}

}  // namespace csum::testkit
