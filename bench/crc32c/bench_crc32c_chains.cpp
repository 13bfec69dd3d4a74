// Chains cut as asked, and the --sizes parser (bench_crc32c_parts.h).
#include <rte_mbuf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "bench_crc32c_parts.h"

namespace crc_bench {

rte_mbuf* chain(rte_mempool* mp, const uint8_t* src, const std::vector<size_t>& cuts,
                const std::vector<uint16_t>& skew) {
    rte_mbuf* head = nullptr;
    rte_mbuf* tail = nullptr;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        const size_t a = cuts[i], b = cuts[i + 1];
        rte_mbuf* s = rte_pktmbuf_alloc(mp);
        if (s != nullptr && i < skew.size()) s->data_off += skew[i];
        if (s == nullptr || b < a || b - a > rte_pktmbuf_tailroom(s)) {
            rte_pktmbuf_free(s);
            rte_pktmbuf_free(head);
            return nullptr;
        }
        std::memcpy(rte_pktmbuf_mtod(s, uint8_t*), src + a, b - a);
        s->data_len = static_cast<uint16_t>(b - a);
        s->pkt_len = static_cast<uint32_t>(b - a);
        if (head == nullptr) {
            head = tail = s;
        } else {
            tail->next = s;
            tail = s;
            head->nb_segs++;
            head->pkt_len += s->data_len;
        }
    }
    return head;
}

rte_mbuf* chain(rte_mempool* mp, const uint8_t* src, size_t n, unsigned nseg) {
    std::vector<size_t> cuts;
    for (unsigned i = 0; i <= nseg; ++i) cuts.push_back(n * i / nseg);
    return chain(mp, src, cuts);
}

std::vector<size_t> parse_sizes(const std::string& list) {
    std::vector<size_t> v;
    for (size_t i = 0; i < list.size();) {
        size_t a = 0, b = 0, step = 1;
        const size_t end = std::min(list.find(',', i), list.size());
        if (std::sscanf(list.substr(i, end - i).c_str(), "%zu-%zu/%zu", &a, &b, &step) < 2)
            b = a, step = 1;
        if (step == 0 || b < a || b > 65536) return {};
        for (size_t n = a; n <= b; n += step) v.push_back(n);
        i = end + 1;
    }
    return v;
}

}  // namespace crc_bench
