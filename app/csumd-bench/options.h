// csumd-bench's command line (the part after "--").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "csum/engine.h"
#include "gen/profile.h"

namespace bench {

struct Options {
    // The sweep: every combination of these is one profile x mode.
    std::vector<csum::gen::Traffic> protos{csum::gen::Traffic::tcp4};
    std::vector<std::string> sizes{"64"};
    std::vector<std::string> segs{"linear"};
    std::vector<std::string> csums{"correct"};
    std::vector<csum::Mode> modes{csum::Mode::verify};
    uint16_t sctp_chunks = 1;
    uint32_t flows = 1;
    uint32_t nvme_pdu = 128 * 1024;
    uint32_t nvme_mss = 1448;

    uint32_t pool = 1024;  // frames built once and replayed
    uint16_t burst = 32;
    uint32_t warmup_ms = 200;
    uint32_t runs = 5;
    uint32_t run_ms = 500;

    std::string json, csv, write_pcap;
    bool quiet = false;
};

std::optional<std::string> parse_options(int argc, char** argv, Options* out);
void print_usage();

// Every profile of the sweep, in command-line order (protos outermost).
std::vector<csum::gen::Profile> profiles_of(const Options& o);

}  // namespace bench
