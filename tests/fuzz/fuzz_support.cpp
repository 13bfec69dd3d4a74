#include "fuzz_support.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <rte_eal.h>

#include "testkit/eal_args.h"

namespace csum::fuzz {

rte_mempool* pool() {
    static rte_mempool* mp = [] {
        if (csum::testkit::eal_init(
                {.prog = "fuzz", .file_prefix = "csumfuzz", .log_level = "lib.eal:crit"}) < 0)
            std::abort();
        return rte_pktmbuf_pool_create("fuzz", 1023, 0, 0, 2048 + RTE_PKTMBUF_HEADROOM,
                                       SOCKET_ID_ANY);
    }();
    return mp;
}

rte_mbuf* make_chain(const uint8_t* data, size_t len, uint32_t shape) {
    rte_mbuf *head = nullptr, *tail = nullptr;
    size_t pos = 0;
    do {
        // Segment lengths from the shape bits: 0, 1, a few, or as much as fits.
        uint32_t want;
        switch (shape & 3) {
            case 0:
                want = 0;
                break;
            case 1:
                want = 1;
                break;
            case 2:
                want = 1 + (shape >> 2) % 61;
                break;
            default:
                want = 2048;
                break;
        }
        shape = shape * 1103515245u + 12345u;
        if (head == nullptr && want == 0 && len > 0)
            want = 1;  // keep the head non-empty when we can
        rte_mbuf* m = rte_pktmbuf_alloc(pool());
        if (m == nullptr) {
            rte_pktmbuf_free(head);
            return nullptr;
        }
        const size_t n = std::min<size_t>({want, len - pos, rte_pktmbuf_tailroom(m)});
        std::memcpy(rte_pktmbuf_append(m, uint16_t(n)), data + pos, n);
        pos += n;
        if (head == nullptr) {
            head = tail = m;
        } else {
            tail->next = m, tail = m;
            head->nb_segs++, head->pkt_len += uint32_t(n);
        }
    } while (pos < len && head->nb_segs < 64);
    if (pos < len) {  // too many segments: put the rest in the last one if it fits
        const size_t n = std::min<size_t>(len - pos, rte_pktmbuf_tailroom(tail));
        std::memcpy(rte_pktmbuf_append(tail, uint16_t(n)), data + pos, n);
        head->pkt_len += uint32_t(n);
    }
    return head;
}

rte_mempool* linear_pool() {
    static rte_mempool* mp = [] {
        pool();
        return rte_pktmbuf_pool_create("fuzz_linear", 15, 0, 0, 16384 + RTE_PKTMBUF_HEADROOM,
                                       SOCKET_ID_ANY);
    }();
    return mp;
}

rte_mbuf* make_chain_split(const uint8_t* data, size_t len, const uint32_t* seg, size_t n_seg,
                           uint16_t headroom, rte_mempool* mp) {
    if (mp == nullptr) mp = pool();
    rte_mbuf *head = nullptr, *tail = nullptr;
    size_t pos = 0;
    for (size_t i = 0; i < n_seg; ++i) {
        rte_mbuf* m = rte_pktmbuf_alloc(mp);
        if (m == nullptr) {
            rte_pktmbuf_free(head);
            return nullptr;
        }
        m->data_off = std::min<uint16_t>(headroom, m->buf_len);
        const size_t n = std::min<size_t>({seg[i], len - pos, rte_pktmbuf_tailroom(m)});
        if (n) std::memcpy(rte_pktmbuf_append(m, uint16_t(n)), data + pos, n);
        pos += n;
        if (head == nullptr) {
            head = tail = m;
        } else {
            tail->next = m, tail = m;
            head->nb_segs++, head->pkt_len += uint32_t(n);
        }
    }
    if (head == nullptr || pos != len) {  // the split must cover the frame
        std::fprintf(stderr, "make_chain_split: %zu of %zu bytes placed\n", pos, len);
        std::abort();
    }
    return head;
}

void chain_bytes(const rte_mbuf* m, std::vector<uint8_t>* out) {
    out->clear();
    for (; m != nullptr; m = m->next) {
        const auto* p = rte_pktmbuf_mtod(m, const uint8_t*);
        out->insert(out->end(), p, p + m->data_len);
    }
}

void check_no_leak() {
    for (rte_mempool* mp : {pool(), linear_pool()}) {
        if (rte_mempool_in_use_count(mp) != 0) {
            std::fprintf(stderr, "mbuf leak: %u in use in %s\n", rte_mempool_in_use_count(mp),
                         mp->name);
            std::abort();
        }
    }
}

}  // namespace csum::fuzz
