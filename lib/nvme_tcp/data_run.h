// A run of segments of the tracker's last flow that only extend the current
// PDU's data digest (the data fast path), taken by a caller that checks each
// segment's TCP sum itself: the engine's NVMe run after a segment it fed.
// The caller tests each segment with in_order() and in_data(), feeds its
// payload to s->dcarry and calls took(); close() adds the run's counts where
// feed() would have. A segment that is not in_data() goes to feed().
#pragma once

#include <cstdint>

#include "csum/nvme_tcp.h"
#include "nvme_tcp/stream.h"

namespace csum::nvme {

struct DataRun {
    Stream* s = nullptr;  // null: the last flow is not in a trusted PDU (no run)
    void* conn = nullptr;
    // The flow's addresses and ports as they lie in the packet (IPv4: the
    // first 8 bytes of addr, source then destination).
    alignas(16) uint8_t addr[32] = {};
    uint32_t ports = 0;  // source and destination port bytes, as on the wire
    bool v6 = false;
    uint32_t segs = 0;
    uint64_t bytes = 0;

    // The next bytes in order, len > 0, while the stream is in sync on a
    // trusted PDU (a boundary segment fed through the tracker may change that).
    bool in_order(uint32_t seq, uint32_t len) const {
        return seq == s->next_seq && len != 0 && s->phase == Phase::sync && s->trusted;
    }
    // ... and lying strictly inside the data (not its first or last byte):
    // what stream_feed_data_fast takes.
    bool in_data(uint32_t len) const {
        const uint32_t pos = s->pos;
        return pos > s->cur.data_start && pos < s->cur.data_end && len < s->cur.data_end - pos;
    }
    // The segment's payload was fed to s->dcarry (if s->dd_on).
    void took(uint32_t len) {
        s->pos += len;
        s->next_seq += len;
        ++segs;
        bytes += len;
    }
};

struct TrackerAccess {
    // The last flow's run, if a segment of it could take the data fast path
    // now (trusted, in sync, not idle at `now`); else r.s == nullptr.
    static DataRun open(NvmeTracker& t, uint64_t now) noexcept;
    // A segment of the run that is not in_data() (a PDU boundary), of
    // payload_len > 0 bytes at payload_off in m: what feed() does with it
    // once it knows the flow (the last one, touched, not idle) and that the
    // data fast path does not take it.
    static NvmeSegmentResult feed_boundary(NvmeTracker& t, const DataRun& r, rte_mbuf* m,
                                           uint32_t seq, uint32_t payload_off, uint32_t payload_len,
                                           uint64_t now) noexcept;
    // Adds the run's bytes to the counts and expires idle flows as the
    // segments' feeds would have (two per segment).
    static void close(NvmeTracker& t, const DataRun& r, uint64_t now) noexcept;
};

}  // namespace csum::nvme
