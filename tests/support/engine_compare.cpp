#include "support/engine_compare.h"

#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include "csum/verdict.h"
#include "support/mbuf_helpers.h"

namespace csum::test {

std::vector<std::unique_ptr<Engine>> lean_and_walker(std::initializer_list<Mode> modes) {
    std::vector<std::unique_ptr<Engine>> engs;
    for (Mode mode : modes) {
        EngineConfig lean, ref;
        lean.mode = ref.mode = mode;
        ref.plain_fast_path = false;
        engs.push_back(std::make_unique<Engine>(lean));
        engs.push_back(std::make_unique<Engine>(ref));
    }
    return engs;
}

OnePacket process_one(Engine& e, rte_mempool* pool, std::span<const uint8_t> frame,
                      std::span<const uint32_t> lens, uint64_t ol_flags, uint32_t ptype,
                      const RxPortPolicy& rx, const TxPortPolicy& tx) {
    rte_mbuf* m = make_chain(pool, frame, lens);
    EXPECT_NE(m, nullptr);
    OnePacket r{};
    if (m == nullptr) return r;
    m->ol_flags = ol_flags;
    m->packet_type = ptype;
    rte_mbuf* one[1] = {m};
    r.forwarded = e.process(rx, tx, one, 1) == 1;
    r.bytes = chain_bytes(m);
    std::memcpy(&r.verdict, verdict_of(m, e.verdict_field()), sizeof r.verdict);
    std::memset(r.verdict.layers + r.verdict.n_layers, 0, kMaxVerdictLayers - r.verdict.n_layers);
    r.ol_flags = m->ol_flags;
    r.lens[0] = m->l2_len, r.lens[1] = m->l3_len, r.lens[2] = m->l4_len;
    rte_pktmbuf_free(m);
    return r;
}

std::string verdict_key(const rte_mbuf* m, const Engine& e) {
    const PacketVerdict* v = verdict_of(m, e.verdict_field());
    return std::string(reinterpret_cast<const char*>(v), 4 + 4) +
           std::string(reinterpret_cast<const char*>(v->layers), v->n_layers);
}

BurstRecord record_burst(const Engine& e, rte_mbuf* const* orig, rte_mbuf* const* burst, int n,
                         int kept, const std::vector<std::string>& what) {
    BurstRecord r;
    for (int j = 0; j < kept; ++j)
        r.order.push_back(int(std::find(orig, orig + n, burst[j]) - orig));
    for (int i = 0; i < n; ++i) {
        const rte_mbuf* m = orig[i];
        // The descriptor fields an engine writes: RX flags taken in, TX
        // offload requests and the lengths they need.
        r.verdicts.push_back(what[i] + " " + verdict_key(m, e) + " flags " +
                             std::to_string(m->ol_flags) + " lens " + std::to_string(m->l2_len) +
                             "/" + std::to_string(m->l3_len) + "/" + std::to_string(m->l4_len));
        r.bytes.push_back(chain_bytes(orig[i]));
    }
    return r;
}

void expect_same_counts(const Engine& lean, const Engine& walker) {
    const EngineStats &a = lean.stats(), &b = walker.stats();
    for (int p = 0; p < kLayerProtoCount; ++p)
        for (int s = 0; s < kLayerStatusCount; ++s)
            ASSERT_EQ(a.layer[p][s].get(), b.layer[p][s].get()) << "layer " << p << " status " << s;
    for (int i = 0; i < 4; ++i) ASSERT_EQ(a.ip_summed[i].get(), b.ip_summed[i].get()) << i;
    for (int i = 0; i < 8; ++i) ASSERT_EQ(a.csum_level[i].get(), b.csum_level[i].get()) << i;
    for (int i = 0; i < kParseErrorCount; ++i)
        ASSERT_EQ(a.parse_error[i].get(), b.parse_error[i].get()) << "parse error " << i;
    for (int i = 0; i < kDropReasonCount; ++i)
        ASSERT_EQ(a.drop[i].get(), b.drop[i].get()) << "drop " << i;
    ASSERT_EQ(a.packets.get(), b.packets.get());
    ASSERT_EQ(a.bytes.get(), b.bytes.get());
    ASSERT_EQ(a.sw_filled.get(), b.sw_filled.get());
    ASSERT_EQ(a.hw_offloaded.get(), b.hw_offloaded.get());
    ASSERT_EQ(a.skipped_trusted.get(), b.skipped_trusted.get());
}

void expect_same_counts_and_work(const Engine& lean, const Engine& walker) {
    ASSERT_NO_FATAL_FAILURE(expect_same_counts(lean, walker));
    ASSERT_EQ(lean.stats().sum_bytes.get(), walker.stats().sum_bytes.get());
    ASSERT_EQ(lean.stats().crc_bytes.get(), walker.stats().crc_bytes.get());
}

}  // namespace csum::test
