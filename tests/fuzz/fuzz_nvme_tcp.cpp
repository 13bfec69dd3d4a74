// The NVMe/TCP tracker fed a stream of segments with fuzzer-chosen sequence
// numbers, flags, directions, lengths, payload and segmentation.
// Input: [mode] then records [dir|flags][seq delta: 2][len: 2][shape: 1][payload...].
#include <cstring>

#include "csum/nvme_tcp.h"
#include "fuzz_support.h"

using namespace csum;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    fuzz::pool();
    static NvmeTracker* trackers[2] = {};
    const int mode = data[0] & 1;
    if (trackers[mode] == nullptr) {
        NvmeTrackerConfig c;
        c.capacity = 16;  // small: eviction gets exercised
        c.mode = mode ? NvmeMode::fill : NvmeMode::verify;
        c.idle_timeout_tsc = 1000;
        trackers[mode] = new NvmeTracker(c);
    }
    NvmeTracker& t = *trackers[mode];
    const uint8_t a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};
    const NvmeFlowKey keys[2] = {nvme_flow_key_v4(a, b, 40000, 4420),
                                 nvme_flow_key_v4(b, a, 4420, 40000)};
    uint32_t seq[2] = {1000, 5000};
    uint64_t now = 0;
    size_t pos = 1;
    while (pos + 6 <= size) {
        const uint8_t head = data[pos];
        const int dir = head >> 7;
        const uint8_t flags = head & 0x17;  // FIN SYN RST ACK
        int16_t delta;
        uint16_t len;
        std::memcpy(&delta, data + pos + 1, 2);
        std::memcpy(&len, data + pos + 3, 2);
        const uint8_t shape = data[pos + 5];
        pos += 6;
        len = static_cast<uint16_t>(len % 1600);
        if (len > size - pos) len = static_cast<uint16_t>(size - pos);
        rte_mbuf* m = fuzz::make_chain(data + pos, len, shape * 2654435761u);
        if (m == nullptr) break;
        seq[dir] += static_cast<uint32_t>(static_cast<int32_t>(delta) % 4096);
        now += shape;
        t.feed(keys[dir], seq[dir], flags, m, 0, m->pkt_len, now);
        seq[dir] += len;
        pos += len;
        rte_pktmbuf_free(m);
    }
    fuzz::check_no_leak();
    return 0;
}
