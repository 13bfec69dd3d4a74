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

// SCTP chunks walked with their lengths checked, as the walker does. Chunk
// headers past the held bytes are read from the chain by a cursor that only
// moves forward, as the chunks do: one walk of the chain for all of them
// (read_bytes walked it from its head for each; SCTP 256 B with 4 chunks in
// 4 segments cost 2.5x the linear packet). The cursor visits at most
// nb_segs segments, each inside its buffer, and no byte past pkt_len.
bool sctp_chunks_ok(const rte_mbuf* m, const uint8_t* bytes, uint32_t held, uint32_t l4_off,
                    uint32_t l4_len) noexcept {
    const uint32_t end = l4_off + l4_len;
    const rte_mbuf* s = m;
    uint32_t s_off = 0;          // the packet offset of s's first byte
    uint32_t left = m->nb_segs;  // segments the cursor may visit, s among them
    bool s_ok = segment_in_buffer(m);
    // The byte at packet offset off (>= s_off), or -1.
    auto byte_at = [&](uint32_t off) -> int {
        while (off - s_off >= s->data_len) {
            if (s->next == nullptr || left <= 1) return -1;
            s_off += s->data_len, s = s->next, --left;
            s_ok = segment_in_buffer(s);
        }
        return s_ok ? rte_pktmbuf_mtod(s, const uint8_t*)[off - s_off] : -1;
    };
    for (uint32_t pos = l4_off + 12; pos < end;) {
        if (pos + 4 > end) return false;
        uint32_t clen;
        if (pos + 4 <= held) {
            clen = be16(bytes + pos + 2);
        } else {
            if (static_cast<uint64_t>(pos) + 4 > m->pkt_len) return false;
            const int hi = byte_at(pos + 2), lo = hi < 0 ? -1 : byte_at(pos + 3);
            if (lo < 0) return false;
            clen = static_cast<uint32_t>(hi << 8 | lo);
        }
        if (clen < 4 || pos + clen > end) return false;
        pos += (clen + 3) & ~3u;  // the last chunk's padding may be absent
    }
    return true;
}

}  // namespace shape_detail
}  // namespace csum
