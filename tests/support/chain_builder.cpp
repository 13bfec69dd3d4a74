#include "support/chain_builder.h"

#include <gtest/gtest.h>

#include "support/mbuf_helpers.h"

namespace csum::test {
void shrink_buffer(rte_mbuf* seg) {
    const uint32_t end = uint32_t{seg->data_off} + seg->data_len;
    seg->buf_len = static_cast<uint16_t>(end - 1);
}
void restore_buffer(rte_mbuf* seg) {
    seg->buf_len = rte_pktmbuf_data_room_size(seg->pool);
}

ChainBurst::~ChainBurst() {
    undo_lies();
    if (!orig_.empty()) rte_pktmbuf_free_bulk(orig_.data(), unsigned(orig_.size()));
}

void ChainBurst::build(rte_mempool* pool, std::span<const ChainSpec> specs, uint16_t misalign) {
    for (size_t i = 0; i < specs.size(); ++i) {
        const ChainSpec& s = specs[i];
        rte_mbuf* m = make_chain(pool, s.bytes, s.lens, misalign);
        ASSERT_NE(m, nullptr) << "pool dry at packet " << i;
        m->ol_flags = s.ol_flags;
        m->packet_type = s.packet_type;
        rte_mbuf* tail = rte_pktmbuf_lastseg(m);
        orig_.push_back(m), burst_.push_back(m), tails_.push_back(tail), lies_.push_back(s.lie);
        switch (s.lie) {
            case Lie::segs_high:
                m->nb_segs += 1;
                break;
            case Lie::segs_low:
                m->nb_segs -= 1;
                break;
            case Lie::pkt_len_past:
                m->pkt_len += 1 + uint32_t(i % 7);
                break;
            case Lie::last_cut:
                tail->data_len -= 1;
                break;
            case Lie::loop_to_head:
                tail->next = m;
                break;
            case Lie::loop_to_self:
                tail->next = tail;
                break;
            case Lie::head_past_buffer:
                shrink_buffer(m);
                break;
            case Lie::tail_past_buffer:
                shrink_buffer(tail);
                break;
            case Lie::none:
                break;
        }
    }
}

void ChainBurst::undo_lies() {
    for (size_t i = 0; i < lies_.size(); ++i) {
        rte_mbuf* m = orig_[i];
        switch (lies_[i]) {
            case Lie::segs_high:
                m->nb_segs -= 1;
                break;
            case Lie::segs_low:
                m->nb_segs += 1;
                break;
            case Lie::pkt_len_past:
                m->pkt_len -= 1 + uint32_t(i % 7);
                break;
            case Lie::last_cut:
                tails_[i]->data_len += 1;
                break;
            case Lie::loop_to_head:
            case Lie::loop_to_self:
                tails_[i]->next = nullptr;
                break;
            case Lie::head_past_buffer:
                restore_buffer(m);
                break;
            case Lie::tail_past_buffer:
                restore_buffer(tails_[i]);
                break;
            case Lie::none:
                break;
        }
        lies_[i] = Lie::none;
    }
}

namespace {

EngineConfig fill_config() {
    EngineConfig c;
    c.mode = Mode::fill;
    return c;
}

// specs as one burst through e.process: the lies taken back, then recorded.
void run_burst(Engine& e, rte_mempool* pool, std::span<const ChainSpec> specs,
               const RxPortPolicy& rx, const TxPortPolicy& tx, uint16_t misalign,
               const std::vector<std::string>& what, BurstRecord* rec) {
    ChainBurst b;
    ASSERT_NO_FATAL_FAILURE(b.build(pool, specs, misalign));
    const uint16_t k = e.process(rx, tx, b.burst(), b.size());
    b.undo_lies();
    *rec = record_burst(e, b.orig(), b.burst(), b.size(), k, what);
}

}  // namespace

void expect_same_burst(Engine& lean, Engine& walker, rte_mempool* pool,
                       std::span<const ChainSpec> specs, const RxPortPolicy& rx, uint16_t misalign,
                       const std::vector<std::string>& what, const TxPortPolicy& tx) {
    BurstRecord rec[2];
    ASSERT_NO_FATAL_FAILURE(run_burst(lean, pool, specs, rx, tx, misalign, what, &rec[0]));
    ASSERT_NO_FATAL_FAILURE(run_burst(walker, pool, specs, rx, tx, misalign, what, &rec[1]));
    ASSERT_EQ(rec[0].order, rec[1].order);
    ASSERT_EQ(rec[0].verdicts, rec[1].verdicts);
    ASSERT_EQ(rec[0].bytes, rec[1].bytes);
    ASSERT_NO_FATAL_FAILURE(expect_same_counts(lean, walker));
}

Filler::Filler(rte_mempool* pool) : pool_(pool), engine_(fill_config()) {}

std::vector<uint8_t> Filler::operator()(std::vector<uint8_t> frame) {
    rte_mbuf* m = make_linear(pool_, frame);
    EXPECT_NE(m, nullptr);
    if (m == nullptr) return frame;
    rte_mbuf* one[1] = {m};
    engine_.process({}, {}, one, 1);
    frame = chain_bytes(m);
    rte_pktmbuf_free(m);
    return frame;
}

std::vector<uint8_t> Filler::frame(gen::Proto p, uint32_t len, uint32_t flow, uint16_t chunks) {
    return (*this)(gen::build_frame({p, len, chunks, flow}));
}

std::vector<uint8_t> Filler::sctp6(uint32_t len, uint32_t flow, uint16_t chunks) {
    const auto frame = gen::build_frame({gen::Proto::sctp4, len - 20, chunks, flow});
    std::vector<uint8_t> f6(frame.begin(), frame.begin() + 12);
    const size_t l4_len = frame.size() - 34;
    const uint8_t ip6[] = {
        0x86, 0xDD, 0x60, 0, 0, uint8_t(flow), uint8_t(l4_len >> 8), uint8_t(l4_len), 132, 64};
    f6.insert(f6.end(), ip6, ip6 + sizeof ip6);
    for (int i = 0; i < 32; ++i) f6.push_back(uint8_t(0x20 + i + flow));
    f6.insert(f6.end(), frame.begin() + 34, frame.end());
    return (*this)(f6);
}

}  // namespace csum::test
