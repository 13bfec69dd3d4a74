// --config FILE: an INI file (read with rte_cfgfile) that can hold the EAL
// arguments, csumd's options and per-port policy, so one command starts a
// setup. Every key is documented in drivers-config/README.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace csumd {

enum class BadAction : uint8_t { forward, drop, capture };

// Per-port settings; unset fields fall back to the global options.
struct PortConfig {
    std::optional<uint16_t> peer;
    std::optional<bool> trusted;
    std::optional<BadAction> bad;
    std::optional<uint16_t> verify_mask;  // bit per csum::LayerProto
    std::optional<bool> hw_offload;
    std::string where;  // "file:line" of the section, for messages
};

struct ConfigFile {
    std::string path;
    std::vector<std::string> eal_args;   // [eal] args + one --vdev per vdev entry
    std::vector<std::string> app_args;   // [csumd] key = value as --key=value
    std::vector<std::string> app_where;  // "file:line" of each app_args entry, same index
    std::map<uint16_t, PortConfig> ports;
};

// Loads and checks a file. On error returns a one-line message naming the
// file, the line and the key.
std::optional<std::string> load_config(const std::string& path, ConfigFile* out);

// Parses "ipv4,tcp,udp" / "all" / "none" into a verify mask.
bool parse_verify_list(const std::string& list, uint16_t* mask);

}  // namespace csumd
