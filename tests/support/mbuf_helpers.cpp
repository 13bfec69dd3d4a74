#include "support/mbuf_helpers.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

#include <rte_errno.h>

namespace csum::test {

TestPool::TestPool(unsigned n_mbufs, uint16_t data_room) {
    static std::atomic<unsigned> seq{0};
    std::string name = "tpool" + std::to_string(seq++);
    pool_ = rte_pktmbuf_pool_create(name.c_str(), n_mbufs, 0, 0, data_room, SOCKET_ID_ANY);
    if (pool_ == nullptr)
        throw std::runtime_error("mempool: " + std::string(rte_strerror(rte_errno)));
    size_ = n_mbufs;
}

TestPool::~TestPool() {
    rte_mempool_free(pool_);
}

unsigned TestPool::in_use() const {
    return size_ - rte_mempool_avail_count(pool_);
}

rte_mbuf* make_chain(rte_mempool* pool, std::span<const uint8_t> bytes,
                     std::span<const uint32_t> seg_lens, uint16_t misalign) {
    rte_mbuf* head = nullptr;
    rte_mbuf* tail = nullptr;
    size_t pos = 0;
    for (uint32_t len : seg_lens) {
        rte_mbuf* seg = rte_pktmbuf_alloc(pool);
        if (seg == nullptr) {
            rte_pktmbuf_free(head);
            return nullptr;
        }
        seg->data_off = static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + misalign);
        if (len > rte_pktmbuf_tailroom(seg)) {
            rte_pktmbuf_free(seg);
            rte_pktmbuf_free(head);
            throw std::invalid_argument("segment larger than mbuf data room");
        }
        if (len != 0) std::memcpy(rte_pktmbuf_mtod(seg, uint8_t*), bytes.data() + pos, len);
        seg->data_len = static_cast<uint16_t>(len);
        seg->pkt_len = len;
        pos += len;
        if (head == nullptr) {
            head = tail = seg;
        } else {
            tail->next = seg;
            tail = seg;
            head->nb_segs++;
            head->pkt_len += len;
        }
    }
    if (pos != bytes.size()) {
        rte_pktmbuf_free(head);
        throw std::invalid_argument("segment lengths don't sum to the byte count");
    }
    return head;
}

rte_mbuf* make_linear(rte_mempool* pool, std::span<const uint8_t> bytes, uint16_t misalign) {
    const uint32_t len = static_cast<uint32_t>(bytes.size());
    return make_chain(pool, bytes, std::span<const uint32_t>(&len, 1), misalign);
}

std::vector<uint8_t> chain_bytes(const rte_mbuf* m) {
    std::vector<uint8_t> out;
    out.reserve(m->pkt_len);
    for (const rte_mbuf* s = m; s != nullptr; s = s->next) {
        const auto* p = rte_pktmbuf_mtod(s, const uint8_t*);
        out.insert(out.end(), p, p + s->data_len);
    }
    return out;
}

std::vector<uint32_t> random_split(uint32_t total, unsigned n, std::mt19937& rng,
                                   bool allow_empty) {
    std::vector<uint32_t> cuts{0, total};
    std::uniform_int_distribution<uint32_t> pick(
        allow_empty ? 0 : 1, total == 0 ? 0 : (allow_empty ? total : total - 1));
    for (unsigned i = 1; i < n; ++i) cuts.push_back(pick(rng));
    std::sort(cuts.begin(), cuts.end());
    std::vector<uint32_t> lens;
    for (size_t i = 1; i < cuts.size(); ++i) lens.push_back(cuts[i] - cuts[i - 1]);
    return lens;
}

std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
}

void MbufTest::SetUp() {
    pool_ = std::make_unique<TestPool>();
}

void MbufTest::TearDown() {
    EXPECT_EQ(pool_->in_use(), 0u) << "mbufs leaked from the test pool";
    pool_.reset();
}

}  // namespace csum::test
