#include "case_file.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace csum::test {

std::vector<uint8_t> from_hex(const std::string& hex) {
    std::vector<uint8_t> out;
    if (hex == "-") return out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

const EngineCase& find_case(const std::string& name) {
    for (const auto& c : engine_cases())
        if (c.name == name) return c;
    throw std::runtime_error("no case " + name);
}

EngineConfig engine_config(Mode mode) {
    EngineConfig c;
    c.mode = mode;
    return c;
}

const std::vector<EngineCase>& engine_cases() {
    static const std::vector<EngineCase> cases = [] {
        std::vector<EngineCase> v;
        std::ifstream in(CSUM_ENGINE_CASES);
        if (!in) throw std::runtime_error("cannot open " CSUM_ENGINE_CASES);
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#') continue;
            std::vector<std::string> f;
            std::stringstream ss(line);
            for (std::string part; std::getline(ss, part, '|');) f.push_back(part);
            if (f.size() == 7) f.push_back("");  // empty trailing field
            if (f.size() != 8) throw std::runtime_error("bad case line: " + line);
            v.push_back({f[0], from_hex(f[1]), f[2], std::stoi(f[3]), f[4], f[5], from_hex(f[6]),
                         from_hex(f[7])});
        }
        return v;
    }();
    return cases;
}

Outcome run_engine(Engine& e, rte_mbuf* m, const RxPortPolicy& rx, const TxPortPolicy& tx) {
    rte_mbuf* pkts[1] = {m};
    Outcome o;
    o.forwarded = e.process(rx, tx, pkts, 1) == 1;
    const PacketVerdict* v = verdict_of(m, e.verdict_field());
    o.ip_summed = std::string(to_string(v->ip_summed));
    o.csum_level = v->csum_level;
    o.error = std::string(to_string(static_cast<ParseError>(v->error)));
    for (int i = 0; i < v->n_layers; ++i) {
        if (i) o.layers += ",";
        o.layers += std::string(to_string(v->layer(i).proto)) + ":" +
                    std::string(to_string(v->layer(i).status));
    }
    return o;
}

}  // namespace csum::test
