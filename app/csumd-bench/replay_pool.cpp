#include "replay_pool.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include <rte_mbuf.h>

#include "common/mbuf_pool.h"

namespace bench {
namespace {

// Address of packet byte `off` in a chain (segment-aware).
uint8_t* byte_at(rte_mbuf* m, uint32_t off) {
    for (; m != nullptr; m = m->next) {
        if (off < m->data_len) return rte_pktmbuf_mtod_offset(m, uint8_t*, off);
        off -= m->data_len;
    }
    return nullptr;
}

rte_mbuf* build_chain(rte_mempool* mp, const std::vector<uint8_t>& bytes,
                      const std::vector<uint32_t>& segs) {
    rte_mbuf *head = nullptr, *tail = nullptr;
    uint32_t pos = 0;
    for (uint32_t len : segs) {
        rte_mbuf* m = rte_pktmbuf_alloc(mp);
        if (m == nullptr) return rte_pktmbuf_free(head), nullptr;
        std::memcpy(rte_pktmbuf_append(m, uint16_t(len)), bytes.data() + pos, len);
        pos += len;
        if (head == nullptr)
            head = tail = m;
        else
            tail->next = m, tail = m, head->nb_segs++, head->pkt_len += len;
    }
    return head;
}

}  // namespace

std::unique_ptr<ReplayPool> ReplayPool::create(const csum::gen::Profile& p,
                                               const std::vector<csum::gen::Frame>& frames,
                                               uint16_t max_burst, int socket, std::string* err) {
    std::unique_ptr<ReplayPool> rp(new ReplayPool);
    uint32_t max_seg = 0, n_segs = 0;
    for (const auto& f : frames)
        for (uint32_t s : csum::gen::segment_lengths(p, uint32_t(f.bytes.size())))
            max_seg = std::max(max_seg, s), ++n_segs;
    static std::atomic<unsigned> seq{0};
    const std::string name = "replay" + std::to_string(seq++);
    rp->mp_ = csum::app::mbuf_pool_create(name.c_str(), n_segs + 64, 0,
                                          uint16_t(max_seg + RTE_PKTMBUF_HEADROOM), socket);
    if (rp->mp_ == nullptr)
        return *err = "mempool for " + std::to_string(n_segs) + " segments failed", nullptr;

    rp->size_ = uint32_t(frames.size());
    const uint32_t total = rp->size_ + max_burst;
    rp->ring_.resize(total);
    rp->cum_bytes_.assign(total + 1, 0), rp->cum_corrupt_.assign(total + 1, 0),
        rp->cum_nvme_.assign(total + 1, 0);
    rp->patch_begin_.push_back(0);
    for (uint32_t i = 0; i < rp->size_; ++i) {
        const auto& f = frames[i];
        rte_mbuf* m =
            build_chain(rp->mp_, f.bytes, csum::gen::segment_lengths(p, uint32_t(f.bytes.size())));
        if (m == nullptr) return *err = "out of mbufs building the pool", nullptr;
        rp->ring_[i] = m;
        for (const auto& c : f.fields)
            for (uint32_t b = 0; b < c.len; ++b)
                rp->patches_.push_back({byte_at(m, c.off + b), f.bytes[c.off + b]});
        rp->patch_begin_.push_back(uint32_t(rp->patches_.size()));
    }
    for (uint32_t i = 0; i < total; ++i) {
        const auto& f = frames[i % rp->size_];
        if (i >= rp->size_) rp->ring_[i] = rp->ring_[i - rp->size_];
        rp->cum_bytes_[i + 1] = rp->cum_bytes_[i] + f.bytes.size();
        rp->cum_corrupt_[i + 1] = rp->cum_corrupt_[i] + f.corrupt;
        rp->cum_nvme_[i + 1] = rp->cum_nvme_[i] + f.nvme_data;
    }
    return rp;
}

ReplayPool::~ReplayPool() {
    for (uint32_t i = 0; i < size_; ++i) rte_pktmbuf_free(ring_[i]);
    rte_mempool_free(mp_);
}

void ReplayPool::restore_fields(uint32_t at, uint16_t n) noexcept {
    for (uint16_t i = 0; i < n; ++i) {
        const uint32_t f = at + i >= size_ ? at + i - size_ : at + i;
        for (uint32_t k = patch_begin_[f]; k < patch_begin_[f + 1]; ++k)
            *patches_[k].addr = patches_[k].value;
    }
}

}  // namespace bench
