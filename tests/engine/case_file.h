// The scapy-built cases of data/cases.txt, and a way to run the engine on one.
#pragma once

#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"

namespace csum::test {

struct EngineCase {
    std::string name;
    std::vector<uint8_t> bytes;
    std::string ip_summed;
    int csum_level = 0;
    std::string error;
    std::string layers;           // "proto:status,..."
    std::vector<uint8_t> zeroed;  // every checksum zeroed (empty: not a fill case)
    std::vector<uint8_t> filled;  // scapy's checksums for zeroed
};

const std::vector<EngineCase>& engine_cases();

// The case called `name`; throws std::runtime_error if there is none.
const EngineCase& find_case(const std::string& name);

// The default engine configuration in `mode`.
EngineConfig engine_config(Mode mode);

struct Outcome {
    std::string ip_summed;
    int csum_level = 0;
    std::string error;
    std::string layers;
    bool forwarded = true;
};

// Runs one packet through the engine and reads back its verdict.
Outcome run_engine(Engine& e, rte_mbuf* m, const RxPortPolicy& rx = {},
                   const TxPortPolicy& tx = {});

std::vector<uint8_t> from_hex(const std::string& hex);

}  // namespace csum::test
