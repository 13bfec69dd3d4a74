// app/common/mbuf_pool.h: on the tests' 4-KiB pages, a pool whose mbufs are
// packed across page boundaries (DPDK's own puts each at the start of a
// page), and whose mbufs are as rte_pktmbuf_pool_create makes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>

#include "common/mbuf_pool.h"

namespace {

constexpr unsigned kMbufs = 255, kTake = 64;
constexpr uint16_t kRoom = 2048 + RTE_PKTMBUF_HEADROOM;

struct Pool {
    rte_mempool* mp;
    ~Pool() { rte_mempool_free(mp); }
};

// The page offsets of kTake mbufs from mp, which are given back.
std::set<uintptr_t> page_offsets(rte_mempool* mp) {
    rte_mbuf* m[kTake];
    EXPECT_EQ(rte_pktmbuf_alloc_bulk(mp, m, kTake), 0);
    std::set<uintptr_t> at;
    for (rte_mbuf* x : m) at.insert(reinterpret_cast<uintptr_t>(x) & 4095);
    rte_pktmbuf_free_bulk(m, kTake);
    return at;
}

TEST(MbufPool, OnSmallPagesDpdksPoolAliasesAndOursDoesNot) {
    ASSERT_TRUE(csum::app::mbuf_pool_packed()) << "the tests' EAL runs with --no-huge";
    Pool dpdk{rte_pktmbuf_pool_create("mp_dpdk", kMbufs, 0, 0, kRoom, SOCKET_ID_ANY)};
    Pool ours{csum::app::mbuf_pool_create("mp_ours", kMbufs, 0, kRoom, SOCKET_ID_ANY)};
    ASSERT_NE(dpdk.mp, nullptr);
    ASSERT_NE(ours.mp, nullptr);
    // What the helper is for: DPDK's places every mbuf at one page offset.
    EXPECT_EQ(page_offsets(dpdk.mp).size(), 1u);
    EXPECT_GE(page_offsets(ours.mp).size(), kTake / 4);
}

TEST(MbufPool, MbufsAreWholeAndDisjoint) {
    Pool p{csum::app::mbuf_pool_create("mp_whole", kMbufs, 32, kRoom, SOCKET_ID_ANY)};
    ASSERT_NE(p.mp, nullptr);
    EXPECT_STREQ(rte_mempool_get_ops(p.mp->ops_index)->name, rte_mbuf_best_mempool_ops());
    EXPECT_EQ(rte_pktmbuf_data_room_size(p.mp), kRoom);
    EXPECT_EQ(rte_pktmbuf_priv_size(p.mp), 0);
    EXPECT_EQ(p.mp->size, kMbufs);
    // Every mbuf of the pool at once: each as rte_pktmbuf_alloc gives one,
    // its whole buffer writable, no two buffers overlapping.
    std::vector<rte_mbuf*> m(kMbufs);
    ASSERT_EQ(rte_pktmbuf_alloc_bulk(p.mp, m.data(), kMbufs), 0);
    EXPECT_EQ(rte_pktmbuf_alloc(p.mp), nullptr);
    std::vector<std::pair<uintptr_t, uintptr_t>> spans;
    for (unsigned i = 0; i < kMbufs; ++i) {
        rte_mbuf* x = m[i];
        rte_mbuf_sanity_check(x, 1);
        EXPECT_EQ(x->buf_len, kRoom);
        EXPECT_EQ(x->data_off, RTE_PKTMBUF_HEADROOM);
        EXPECT_EQ(x->pool, p.mp);
        EXPECT_EQ(x->nb_segs, 1);
        EXPECT_EQ(rte_pktmbuf_tailroom(x), kRoom - RTE_PKTMBUF_HEADROOM);
        EXPECT_EQ(static_cast<char*>(x->buf_addr), reinterpret_cast<char*>(x) + sizeof(rte_mbuf));
        std::memset(x->buf_addr, int(i & 0xFF), x->buf_len);
        spans.emplace_back(reinterpret_cast<uintptr_t>(x),
                           reinterpret_cast<uintptr_t>(x->buf_addr) + x->buf_len);
    }
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].second, spans[i].first);
    for (unsigned i = 0; i < kMbufs; ++i) {
        const auto* b = static_cast<const uint8_t*>(m[i]->buf_addr);
        ASSERT_TRUE(std::all_of(b, b + m[i]->buf_len, [&](uint8_t c) { return c == (i & 0xFF); }))
            << "mbuf " << i << "'s buffer was written over";
    }
    rte_pktmbuf_free_bulk(m.data(), kMbufs);
    EXPECT_EQ(rte_mempool_avail_count(p.mp), kMbufs);
}

// The pages of mp's memory that are not mapped (mincore), over all chunks.
size_t unmapped_pages(rte_mempool* mp) {
    size_t out = 0;
    rte_mempool_mem_iter(
        mp,
        [](rte_mempool*, void* arg, rte_mempool_memhdr* h, unsigned) {
            const uintptr_t pg = uintptr_t(sysconf(_SC_PAGESIZE));
            const uintptr_t lo = reinterpret_cast<uintptr_t>(h->addr) & ~(pg - 1);
            const uintptr_t hi = reinterpret_cast<uintptr_t>(h->addr) + h->len;
            std::vector<unsigned char> v((hi - lo + pg - 1) / pg);
            if (mincore(reinterpret_cast<void*>(lo), hi - lo, v.data()) != 0) {
                *static_cast<size_t*>(arg) += v.size();  // counted as unmapped: the test fails
                return;
            }
            for (unsigned char c : v) *static_cast<size_t*>(arg) += (c & 1) == 0;
        },
        &out);
    return out;
}

// A pool made here has every page mapped: a masked load whose disabled lanes
// reach an unmapped page takes a microcode assist each time (mbuf_pool.h).
// DPDK's own pool of 9-KiB mbufs, beside it, leaves the pages past the mbuf
// headers unmapped until written (recorded, not asserted: the EAL decides).
TEST(MbufPool, EveryPageIsMappedOnSmallPages) {
    constexpr uint16_t kJumbo = 9216 + RTE_PKTMBUF_HEADROOM;
    Pool dpdk{rte_pktmbuf_pool_create("mp_map_dpdk", kMbufs, 0, 0, kJumbo, SOCKET_ID_ANY)};
    Pool ours{csum::app::mbuf_pool_create("mp_map_ours", kMbufs, 0, kJumbo, SOCKET_ID_ANY)};
    Pool small{csum::app::mbuf_pool_create("mp_map_small", kMbufs, 0, kRoom, SOCKET_ID_ANY)};
    ASSERT_NE(dpdk.mp, nullptr);
    ASSERT_NE(ours.mp, nullptr);
    ASSERT_NE(small.mp, nullptr);
    EXPECT_EQ(unmapped_pages(ours.mp), 0u);
    EXPECT_EQ(unmapped_pages(small.mp), 0u);
    ::testing::Test::RecordProperty("dpdk_pool_unmapped_pages", int(unmapped_pages(dpdk.mp)));
}

TEST(MbufPool, TooManyMbufsFailWithAnError) {
    rte_errno = 0;
    // More than the EAL has (a ring of 2^22 fits, their buffers do not): populate fails.
    EXPECT_EQ(csum::app::mbuf_pool_create("mp_huge", (1u << 22) - 1, 0, kRoom, SOCKET_ID_ANY),
              nullptr);
    EXPECT_NE(rte_errno, 0);
}

}  // namespace
