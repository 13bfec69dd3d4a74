#include "parse/classify.h"

#include <algorithm>
#include <cstring>

namespace csum {

ParseError chain_error(const rte_mbuf* m) noexcept {
    uint32_t held = 0, segs = 0;
    for (const rte_mbuf* s = m; s != nullptr; s = s->next) {
        if (!segment_in_buffer(s)) return ParseError::segment_past_buffer;
        held += s->data_len;
        if (++segs > RTE_MBUF_MAX_NB_SEGS) break;
    }
    if (held < m->pkt_len) return ParseError::chain_shorter_than_pkt_len;
    if (segs != m->nb_segs) return ParseError::nb_segs_mismatch;
    return ParseError::none;
}

namespace shape_detail {

// SCTP chunks walked with their lengths checked, as the walker does.
bool sctp_chunks_ok(const rte_mbuf* m, const uint8_t* bytes, uint32_t held, uint32_t l4_off,
                    uint32_t l4_len) noexcept {
    const uint32_t end = l4_off + l4_len;
    uint32_t pos = l4_off + 12;
    // The chunk headers at hand (a header past end but within held is read,
    // and its chunk then ends past end).
    for (; pos < end && pos + 4 <= held;)
        if ((pos = sctp_next_chunk(pos, be16(bytes + pos + 2), end)) == 0) return false;
    return pos >= end || sctp_chunks_rest(m, pos, end);
}

// The chunk headers from pos on, read from the chain by a cursor that only
// moves forward, as the chunks do: one walk of the chain for all of them
// (read_bytes walked it from its head for each; SCTP 256 B with 4 chunks in
// 4 segments cost 2.5x the linear packet). The cursor visits at most
// nb_segs segments, each inside its buffer, and no byte past pkt_len.
bool sctp_chunks_rest(const rte_mbuf* m, uint32_t pos, uint32_t end) noexcept {
    // The cursor's segment s holds the packet's bytes [s_off, s_end) at d
    // (nullptr: s lies outside its buffer).
    const rte_mbuf* s = m;
    uint32_t s_off = 0, s_end = m->data_len, left = m->nb_segs;
    const uint8_t* d = segment_in_buffer(m) ? rte_pktmbuf_mtod(m, const uint8_t*) : nullptr;
    // Moves s on to the segment that holds offset o (s_end stays below
    // 2^32: it passes o < 2^17 by at most one segment's 65535 bytes).
    auto reach = [&s, &s_off, &s_end, &left, &d ](uint32_t o) __attribute__((always_inline)) {
        while (o >= s_end) {
            if (s->next == nullptr || left <= 1) return false;
            s = s->next, --left, s_off = s_end, s_end += s->data_len;
            d = segment_in_buffer(s) ? rte_pktmbuf_mtod(s, const uint8_t*) : nullptr;
        }
        return d != nullptr;
    };
    const uint32_t pkt_len = m->pkt_len;
    for (;;) {
        if (pos + 4 > end || pos + 4 > pkt_len || !reach(pos + 2)) return false;
        uint32_t clen;
        if (pos + 3 < s_end) {
            clen = be16(d + (pos + 2 - s_off));  // both bytes in s: one load
        } else {
            const uint32_t hi = d[pos + 2 - s_off];
            if (!reach(pos + 3)) return false;
            clen = hi << 8 | d[pos + 3 - s_off];
        }
        if ((pos = sctp_next_chunk(pos, clen, end)) == 0) return false;
        if (pos >= end) return true;
    }
}

}  // namespace shape_detail
}  // namespace csum
