// Per-burst counts in plain integers, added to the shared EngineStats once
// per burst: per packet an increment costs one instruction, not an atomic
// load and store that the compiler may not merge.
#pragma once

#include <cstdint>
#include <cstring>

#include "csum/engine.h"
#include "engine/verdict_writer.h"

namespace csum {

inline void bump(uint32_t& x, uint64_t n) {
    x += static_cast<uint32_t>(n);
}
inline void bump(uint64_t& x, uint64_t n) {
    x += n;
}
inline void bump(Counter& c, uint64_t n) {
    c.add(n);
}

// The one tally of a verdict: `times` packets of `bytes` bytes in all, with
// n layers from layer_at (as write_verdict takes them) and this verdict.
// Sink is the per-burst Tally or EngineStats itself.
template <typename Sink, typename LayerAt>
void count_verdict(Sink& s, const PacketVerdict& v, int n, LayerAt&& layer_at, uint64_t times,
                   uint64_t bytes, int drop_reason) {
    bump(s.packets, times);
    bump(s.bytes, bytes);
    if (v.error != 0) bump(s.parse_error[v.error], times);
    for (int i = 0; i < n; ++i) {
        const VerdictLayer l = layer_at(i);
        bump(s.layer[static_cast<int>(l.proto)][static_cast<int>(l.status)], times);
    }
    bump(s.ip_summed[static_cast<int>(v.ip_summed)], times);
    if (v.ip_summed == IpSummed::unnecessary) bump(s.csum_level[v.csum_level], times);
    if (drop_reason >= 0) bump(s.drop[drop_reason], times);
}

// A verdict already written (its layers as stored), counted `times` times:
// the per-burst outcome groups flush this way.
template <typename Sink>
void count_stored_verdict(Sink& s, const PacketVerdict& v, uint64_t times, uint64_t bytes,
                          int drop_reason) {
    count_verdict(
        s, v, v.n_layers,
        [&](int i) {
            const LayerVerdict l = v.layer(i);
            return VerdictLayer{l.proto, l.status, 0, 0};
        },
        times, bytes, drop_reason);
}

struct Tally {
    uint32_t packets, drop[kDropReasonCount];
    uint64_t bytes, sum_bytes, crc_bytes;
    uint32_t sw_filled, hw_offloaded, skipped_trusted;
    uint32_t layer[kLayerProtoCount][kLayerStatusCount];
    uint32_t ip_summed[4], csum_level[8], parse_error[kParseErrorCount];
    bool dirty;  // the per-verdict arrays above hold counts (the walker ran)

    Tally() { std::memset(static_cast<void*>(this), 0, sizeof *this); }

    // The scalars always; the arrays only if this burst touched them.
    void clear() {
        if (dirty) {
            std::memset(static_cast<void*>(this), 0, sizeof *this);
            return;
        }
        sum_bytes = crc_bytes = 0;
        sw_filled = hw_offloaded = skipped_trusted = 0;
    }

    template <typename LayerAt>
    void count(const PacketVerdict& v, int n, LayerAt&& layer_at, uint64_t bytes_,
               int drop_reason) {
        dirty = true;
        count_verdict(*this, v, n, layer_at, 1, bytes_, drop_reason);
    }

    void flush_into(EngineStats& s) const {
        if (sum_bytes) s.sum_bytes.add(sum_bytes);
        if (crc_bytes) s.crc_bytes.add(crc_bytes);
        if (sw_filled) s.sw_filled.add(sw_filled);
        if (hw_offloaded) s.hw_offloaded.add(hw_offloaded);
        if (skipped_trusted) s.skipped_trusted.add(skipped_trusted);
        if (!dirty) return;
        s.packets.add(packets);
        s.bytes.add(bytes);
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
