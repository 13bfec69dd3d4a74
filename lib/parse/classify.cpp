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

// SCTP chunks walked with their lengths checked, as the walker does; chunk
// headers past the gathered bytes are read from the chain, 4 bytes at a time.
bool sctp_chunks_ok(const rte_mbuf* m, const uint8_t* bytes, uint32_t held, uint32_t l4_off,
                    uint32_t l4_len) noexcept {
    const uint32_t end = l4_off + l4_len;
    uint8_t buf[4];
    for (uint32_t pos = l4_off + 12; pos < end;) {
        if (pos + 4 > end) return false;
        const uint8_t* c =
            pos + 4 <= held ? bytes + pos : static_cast<const uint8_t*>(read_bytes(m, pos, 4, buf));
        if (c == nullptr) return false;
        const uint32_t clen = be16(c + 2);
        if (clen < 4 || pos + clen > end) return false;
        pos += (clen + 3) & ~3u;  // the last chunk's padding may be absent
    }
    return true;
}

}  // namespace shape_detail
}  // namespace csum
