// Builds NVMe/TCP PDUs byte by byte, with digests from csum::crc32c, and
// feeds byte streams to a tracker as TCP segments made of mbuf chains.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <rte_mbuf.h>

#include "csum/nvme_tcp.h"

namespace csum::test {

using Bytes = std::vector<uint8_t>;

struct Pdu {
    Bytes bytes;
    uint8_t type = 0;
    bool hd = false;  // carries HDGST
    bool dd = false;  // carries DDGST
    bool hd_ok = true, dd_ok = true;
};

// Common pieces. `pad` adds PDO padding between header(+HDGST) and data.
Pdu make_pdu(uint8_t type, uint8_t hlen, bool hd, bool dd, std::span<const uint8_t> specific,
             std::span<const uint8_t> data, uint8_t pad = 0, uint8_t extra_flags = 0);

Pdu icreq(uint8_t dgst);
Pdu icresp(uint8_t dgst);
Pdu capsule_cmd(bool hd, bool dd, std::span<const uint8_t> data, uint8_t pad = 0);
Pdu capsule_resp(bool hd);
Pdu h2c_data(bool hd, bool dd, std::span<const uint8_t> data, uint8_t pad = 0);
Pdu c2h_data(bool hd, bool dd, std::span<const uint8_t> data, uint8_t pad = 0);
Pdu r2t(bool hd);
Pdu term_req(bool c2h, std::span<const uint8_t> err);

// Flips a bit of the stored digest.
void corrupt_hdgst(Pdu& p);
void corrupt_ddgst(Pdu& p);
// Zeroes the digests (what a sender relying on fill mode sends).
void zero_digests(Pdu& p);

Bytes concat(std::span<const Pdu> pdus);

// Sums of results over many segments.
struct Totals {
    unsigned pdus = 0, desyncs = 0, resyncs = 0;
    NvmeDigestCounts hd, dd;
    void add(const NvmeSegmentResult& r);
    void add(const Totals& o);
};

// One direction of a connection, fed segment by segment.
class Wire {
  public:
    Wire(NvmeTracker& t, rte_mempool* pool, NvmeFlowKey key, uint32_t isn = 1000);

    NvmeSegmentResult syn(uint8_t flags = kTcpSyn, uint64_t now = 0);
    NvmeSegmentResult ctl(uint8_t flags, uint64_t now = 0);  // FIN/RST at the stream end
    // Sends stream bytes [from, from + n) of `stream` as one TCP segment
    // split into `mbuf_segs` mbufs at random points (rng), behind
    // `hdr_room` bytes of fake L2-L4 header.
    NvmeSegmentResult send(std::span<const uint8_t> stream, uint32_t from, uint32_t n,
                           unsigned mbuf_segs = 1, uint64_t now = 0);
    // Sends stream bytes [from, to) as segments of at most `seg` bytes, each
    // as send() does; returns the summed results.
    Totals send_range(std::span<const uint8_t> stream, uint32_t from, uint32_t to, uint32_t seg,
                      unsigned mbuf_segs = 1);
    // Same as send(), but keeps the mbuf (fill mode writes into it); caller frees.
    rte_mbuf* build(std::span<const uint8_t> stream, uint32_t from, uint32_t n, unsigned mbuf_segs);
    NvmeSegmentResult feed_mbuf(rte_mbuf* m, uint32_t from, uint32_t n, uint64_t now = 0);

    const NvmeFlowKey& key() const { return key_; }
    uint32_t isn() const { return isn_; }
    std::mt19937 rng{7};
    static constexpr uint32_t kHdrRoom = 54;
    uint32_t base = 0;  // stream offset of byte 0 of the spans passed to send()

  private:
    NvmeTracker& t_;
    rte_mempool* pool_;
    NvmeFlowKey key_;
    uint32_t isn_;
};

NvmeFlowKey test_key(uint16_t sport, uint16_t dport = 4420);
NvmeFlowKey reverse(const NvmeFlowKey& k);

}  // namespace csum::test
