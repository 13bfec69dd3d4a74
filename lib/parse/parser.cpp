#include "parse/classify.h"
#include "parse/walker.h"

namespace csum {
namespace parse_detail {

namespace {
constexpr uint16_t kEthVlan = 0x8100, kEthQinQ = 0x88A8, kEthQinQOld = 0x9100;
constexpr int kMaxVlanTags = 2;
}  // namespace

bool parse_ether(Walker& w, uint32_t off, uint32_t end) {
    uint8_t buf[14];
    const uint8_t* eth = w.read(off, 14, end, buf);
    if (eth == nullptr) return w.fail(ParseError::l2_truncated);
    uint16_t type = be16(eth + 12);
    off += 14;
    for (int tags = 0; type == kEthVlan || type == kEthQinQ || type == kEthQinQOld; ++tags) {
        if (tags == kMaxVlanTags) return true;  // not a stack we parse: no checksums judged
        const uint8_t* tag = w.read(off, 4, end, buf);
        if (tag == nullptr) return w.fail(ParseError::l2_truncated);
        type = be16(tag + 2);
        off += 4;
    }
    if (type == kEthIpv4) return parse_ip(w, off, end, 4);
    if (type == kEthIpv6) return parse_ip(w, off, end, 6);
    return true;  // not IP: nothing to check
}

}  // namespace parse_detail

namespace {
void reset(ParseResult* out) {
    out->n = 0;
    out->error = ParseError::none;
    out->l3_off = 0;
    out->tx = TxGeometry{};
    out->tcp.present = false;
}
}  // namespace

void parse_packet_walker(const rte_mbuf* m, const ParserConfig& cfg, ParseResult* out) noexcept {
    reset(out);
    // Descriptor-level sanity first: the chain must hold what pkt_len says.
    if (m->next != nullptr || m->nb_segs != 1 || m->data_len < m->pkt_len ||
        !segment_in_buffer(m)) {
        out->error = chain_error(m);
        if (out->error != ParseError::none) return;
    }
    parse_detail::Walker w{m, cfg, *out};
    parse_detail::parse_ether(w, 0, m->pkt_len);
}

void parse_packet(const rte_mbuf* m, const ParserConfig& cfg, ParseResult* out) noexcept {
    uint8_t gather[kHeaderGather];
    PacketShape s;
    // classify() only reads; it takes a mutable mbuf to hand out a writable view.
    if (classify(const_cast<rte_mbuf*>(m), ShapeConfig(cfg), gather, &s)) {
        reset(out);
        parse_detail::shape_to_result(s, out);
        return;
    }
    parse_packet_walker(m, cfg, out);
}

}  // namespace csum
