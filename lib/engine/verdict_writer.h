// The one verdict writer: ip_summed, csum_level and the layer list from the
// layers' statuses, for the walker's packets and the lean path's alike.
#pragma once

#include <algorithm>
#include <cstdint>

#include "csum/verdict.h"

namespace csum {

struct VerdictLayer {
    LayerProto proto;
    LayerStatus status;
    uint32_t off, field_off;  // where the checksum's region and field start (PARTIAL)
};

inline bool counts_for_level(LayerProto p) {
    return p == LayerProto::tcp || p == LayerProto::udp || p == LayerProto::gre ||
           p == LayerProto::sctp;
}

// layer_at(i) gives the i-th of n layers, outermost first, as a VerdictLayer.
// trusted: the port vouches for what it skipped.
template <typename LayerAt>
void write_verdict(PacketVerdict* v, int n, ParseError error, bool trusted, LayerAt&& layer_at) {
    v->error = static_cast<uint8_t>(error);
    v->csum = v->csum_offset = 0;
    v->n_layers = static_cast<uint8_t>(n < kMaxVerdictLayers ? n : kMaxVerdictLayers);
    // UNNECESSARY counts checksums something verified (or a trusted port
    // vouched for); a layer skipped on policy stops the count, as a bad one does.
    auto verified = [&](LayerStatus s) {
        return s == LayerStatus::good || s == LayerStatus::zero || s == LayerStatus::filled ||
               (trusted && s == LayerStatus::skipped);
    };
    int level = 0;
    bool counting = true, wrong = false;
    int partial_l4 = -1;
    uint32_t partial_off = 0, partial_field = 0;
    for (int i = 0; i < n; ++i) {
        const VerdictLayer l = layer_at(i);
        const LayerProto p = l.proto;
        const LayerStatus s = l.status;
        if (i < kMaxVerdictLayers) v->set_layer(i, {p, s});
        wrong |= s == LayerStatus::bad || s == LayerStatus::illegal || s == LayerStatus::malformed;
        // TX: the offloaded L4. RX: an L4 the sender left for us (PMD flag NONE).
        if ((s == LayerStatus::offloaded || s == LayerStatus::partial) && p != LayerProto::ipv4 &&
            (partial_l4 < 0 || s == LayerStatus::offloaded))
            partial_l4 = i, partial_off = l.off, partial_field = l.field_off;
        if (!counting) continue;
        if (p == LayerProto::ipv4) {
            counting = verified(s) || s == LayerStatus::offloaded;
        } else if (counts_for_level(p)) {
            if (verified(s))
                ++level;
            else
                counting = false;
        }
    }
    if (partial_l4 >= 0 && !wrong) {
        v->ip_summed = IpSummed::partial;
        v->csum = static_cast<uint16_t>(partial_off);
        v->csum_offset = static_cast<uint16_t>(partial_field - partial_off);
        v->csum_level = 0;
    } else if (level > 0) {
        v->ip_summed = IpSummed::unnecessary;
        v->csum_level = static_cast<uint8_t>(std::min(level - 1, kMaxCsumLevel));
    } else {
        v->ip_summed = IpSummed::none;
        v->csum_level = 0;
    }
}

}  // namespace csum
