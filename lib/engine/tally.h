// Per-burst counts in plain integers, added to the shared EngineStats once
// per burst: per packet an increment costs one instruction, not an atomic
// load and store that the compiler may not merge.
#pragma once

#include <cstdint>
#include <cstring>

#include "csum/engine.h"

namespace csum {

struct Tally {
    uint32_t packets, drop[kDropReasonCount];
    uint64_t bytes, sum_bytes, crc_bytes;
    uint32_t sw_filled, hw_offloaded, skipped_trusted;
    uint32_t layer[kLayerProtoCount][kLayerStatusCount];
    uint32_t ip_summed[4], csum_level[8], parse_error[kParseErrorCount];

    void clear() { std::memset(this, 0, sizeof *this); }

    void flush_into(EngineStats& s) const {
        s.packets.add(packets);
        s.bytes.add(bytes);
        if (sum_bytes) s.sum_bytes.add(sum_bytes);
        if (crc_bytes) s.crc_bytes.add(crc_bytes);
        if (sw_filled) s.sw_filled.add(sw_filled);
        if (hw_offloaded) s.hw_offloaded.add(hw_offloaded);
        if (skipped_trusted) s.skipped_trusted.add(skipped_trusted);
        for (int i = 0; i < kDropReasonCount; ++i)
            if (drop[i]) s.drop[i].add(drop[i]);
        for (int p = 0; p < kLayerProtoCount; ++p)
            for (int k = 0; k < kLayerStatusCount; ++k)
                if (layer[p][k]) s.layer[p][k].add(layer[p][k]);
        for (int i = 0; i < 4; ++i)
            if (ip_summed[i]) s.ip_summed[i].add(ip_summed[i]);
        for (int i = 0; i < 8; ++i)
            if (csum_level[i]) s.csum_level[i].add(csum_level[i]);
        for (int i = 0; i < kParseErrorCount; ++i)
            if (parse_error[i]) s.parse_error[i].add(parse_error[i]);
    }
};

}  // namespace csum
