// One packet's checksum work: verify and fill over a parse result.
#pragma once

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "engine/region_sum.h"
#include "engine/tally.h"
#include "parse/parser.h"

namespace csum {

struct PacketWork {
    rte_mbuf* m;
    ParseResult& pr;
    Tally& stats;
    RegionSum region;
    LayerStatus status[kMaxParsedLayers];
    bool trusted = false;  // a trusted port: skipped layers count as verified

    PacketWork(rte_mbuf* mbuf, ParseResult& parsed, Tally& t)
        : m(mbuf), pr(parsed), stats(t), region(mbuf, t.sum_bytes) {}

    // Statuses from parsing, the PMD's flags, or software.
    void verify(const RxPortPolicy& rx, const PacketVerdict* in_verdict);
    // Marks every layer that parsing didn't judge as skipped (trusted port).
    void skip_all();
    // Writes checksums in software or requests TX offload. csum mode fills
    // only what verification left partial, illegal or skipped.
    void fill(const TxPortPolicy& tx, bool fill_everything);
    // ip_summed / csum_level / layers into the dynfield.
    void write_verdict(PacketVerdict* v) const;
};

// True for checksums whose regions the region sum serves.
inline bool is_sum_l4(LayerProto p) {
    return p == LayerProto::tcp || p == LayerProto::udp || p == LayerProto::icmp ||
           p == LayerProto::icmpv6 || p == LayerProto::gre;
}

}  // namespace csum
