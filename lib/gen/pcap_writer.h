// Classic pcap (microsecond, Ethernet) output, for replay by net_pcap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace csum::gen {

// Writes frames in order; returns false (with *err set) on I/O failure.
bool write_pcap(const std::string& path, const std::vector<std::vector<uint8_t>>& frames,
                std::string* err);

}  // namespace csum::gen
