// The config loader and the option parser on arbitrary files.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "csumd/config_file.h"
#include "csumd/options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string path = "/tmp/csum-fuzz-config-" + std::to_string(getpid()) + ".ini";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    csumd::ConfigFile cfg;
    if (!csumd::load_config(path, &cfg)) {
        csumd::Options opt;
        for (auto& a : cfg.app_args) {
            char* arg[1] = {a.data()};
            (void)csumd::parse_options(1, arg, &opt);
        }
    }
    return 0;
}
