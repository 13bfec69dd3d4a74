// One direction of a connection: follows the byte stream by sequence number
// and walks PDUs region by region, carrying CRC state across segments.
#pragma once

#include <cstdint>

#include "csum/crc32c.h"
#include "csum/nvme_tcp.h"
#include "mbuf/crc32c_carry.h"
#include "nvme_tcp/byte_run.h"
#include "nvme_tcp/pdu_rules.h"

namespace csum::nvme {

enum class Phase : uint8_t {
    unknown,  // nothing seen yet
    sync,     // at a known position inside a PDU (trusted or tentative)
    scan,     // framing lost: searching for a header
    closed,   // FIN seen
};

// Staging: a header plus its digest (132), or while scanning the bytes of a
// possible header start that the next segment must complete.
inline constexpr uint32_t kStageLen = 136;

struct Stream {
    // The current PDU's data digest: folding state carried across segments,
    // reduced once when the data ends (first: its 64-byte alignment).
    detail::Crc32cCarry dcarry;
    uint32_t next_seq = 0;  // next byte expected
    uint32_t isn = 0;       // SYN's sequence number, to spot retransmitted SYNs
    bool have_isn = false;
    Phase phase = Phase::unknown;
    bool trusted = false;      // current PDU's framing is confirmed
    uint8_t confirm_left = 0;  // headers still to validate before trusting
    uint8_t carry_len = 0;     // scan: bytes of hdr[] still to search
    bool hdr_lost = false;     // bytes of this header were lost
    bool hd_lost = false;      // bytes covered by / holding HDGST were lost
    bool dd_lost = false;      // bytes covered by / holding DDGST were lost
    bool hd_done = false;      // HDGST verdict given
    bool dd_done = false;      // DDGST verdict given
    bool dd_on = false;        // dcarry holds this PDU's data so far
    NvmeDigestStatus hd_status = NvmeDigestStatus::none;
    NvmeDigestStatus dd_status = NvmeDigestStatus::none;
    uint32_t pos = 0;      // bytes of the current PDU consumed
    uint32_t pdu_seq = 0;  // sequence number of the current PDU (or carry) start
    uint32_t hcrc = 0;     // CRC32C of the header, once complete
    uint32_t dcrc = 0;     // CRC32C of the data, once it ended
    PduLayout cur;
    uint8_t dig[4] = {};
    uint8_t hdr[kStageLen] = {};
};

// What a stream needs from its connection and tracker while it runs.
struct StreamCtx {
    Negotiation* neg;  // shared by both directions of the connection
    uint32_t max_plen;
    NvmeMode mode;
    uint8_t resync_confirm;
    uint8_t dir;
    NvmeSegmentResult* r;
    // Counters are added where they happen: re-reading r's narrow fields
    // right after writing them stalls on store forwarding.
    NvmeTrackerStats* st;
    NvmeConnStats* cs;
    NvmePduLog* log;
};

// The stream at the start of a PDU at sequence seq, nothing of it seen:
// every path that begins a PDU (the tracker's and DataRun::boundary) does.
[[gnu::always_inline]] inline void begin_pdu(Stream& s, uint32_t seq) {
    s.pos = 0;
    s.pdu_seq = seq;
    s.hdr_lost = s.hd_lost = s.dd_lost = false;
    s.hd_done = s.dd_done = false;
    s.dd_on = false;
    s.hd_status = s.dd_status = NvmeDigestStatus::none;
    s.hcrc = s.dcrc = 0;
    s.cur = PduLayout{};
}

// Starts the stream at a PDU boundary (after SYN): next byte is seq.
void stream_start(Stream& s, uint32_t seq);

// Feeds new stream bytes (any sequence number; overlap and gaps handled):
// len bytes of m from packet offset off, the first at sequence number seq.
void stream_feed(Stream& s, StreamCtx& c, rte_mbuf* m, uint32_t off, uint32_t len, uint32_t seq);

// A segment that ends a trusted PDU's data (and its DDGST) and starts the
// next, in order, in verify mode, within the first mbuf: the PDU boundary in
// a straight line. False: nothing done, stream_feed() takes it.
bool stream_feed_boundary(Stream& s, StreamCtx& c, rte_mbuf* m, uint32_t off, uint32_t len,
                          uint32_t seq);

// The common case, inlined into the caller: in-order bytes that lie wholly
// inside the data of a trusted PDU only extend its CRC. False if the general
// path must run.
inline bool stream_feed_data_fast(Stream& s, rte_mbuf* m, uint32_t off, uint32_t len,
                                  uint32_t seq) {
    if (s.phase != Phase::sync || seq != s.next_seq || !s.trusted) return false;
    const uint32_t pos = s.pos;
    // Strictly inside the data: its first bytes start the carry, its last
    // reduce it (general path).
    if (pos <= s.cur.data_start || len >= s.cur.data_end - pos || pos >= s.cur.data_end)
        return false;
    if (s.dd_on) ByteRun::packet(m, off, len, seq).crc(0, len, s.dcarry);  // by pointer if it can
    s.pos = pos + len;
    s.next_seq = seq + len;
    return true;
}

}  // namespace csum::nvme
