// A pktmbuf pool laid out so that its mbufs do not share cache sets.
//
// On 4-KiB pages (--no-huge) DPDK places a 2-4 KiB mbuf at the start of its
// own page, so every mbuf header and every packet's first bytes sit at the
// same page offset: they map to the same few L1 sets (the L1 index lies
// within the page offset), and a burst of chains evicts itself. A 64-B
// TCP/IPv4 chain in 4 segments verified 44 ticks a packet from such a pool
// against 23 from a packed one (docs/notebook/issue-15.md). Objects may cross
// a 4-KiB page only where an IO address is the virtual one (IOVA as VA, or
// no hugepages and no physical addresses), so a buffer stays contiguous for
// any device; on hugepages DPDK packs the objects itself.
#pragma once

#include <cstdint>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>

#include "read_pages.h"

namespace csum::app {

// True when mbufs of pools made here may cross 4-KiB page boundaries.
inline bool mbuf_pool_packed() {
    return !rte_eal_has_hugepages() && rte_eal_iova_mode() != RTE_IOVA_PA;
}

// Reads one byte of every 4-KiB page of mp's memory. On 4-KiB pages a page
// no one has touched is not mapped, and a masked vector load whose disabled
// lanes reach such a page takes a microcode assist every time (~300 ticks on
// AMD Zen 5, measured): the checksum kernels' tails and the chain walks load
// whole vectors past a segment's data, lanes off, into buffer space that
// short packets never write. A read maps the page once (no memory is
// written). Hugepages are mapped whole; this is for --no-huge.
inline void mbuf_pool_prefault(rte_mempool* mp) {
    rte_mempool_mem_iter(
        mp,
        [](rte_mempool*, void*, rte_mempool_memhdr* h, unsigned) {
            const auto start = reinterpret_cast<uintptr_t>(h->addr);
            read_pages(start, start + h->len);
        },
        nullptr);
}

// As rte_pktmbuf_pool_create (priv_size 0), its pages mapped
// (mbuf_pool_prefault); nullptr with rte_errno set.
inline rte_mempool* mbuf_pool_create(const char* name, unsigned n, unsigned cache,
                                     uint16_t data_room, int socket) {
    if (!mbuf_pool_packed()) {
        rte_mempool* mp = rte_pktmbuf_pool_create(name, n, cache, 0, data_room, socket);
        if (mp != nullptr && !rte_eal_has_hugepages()) mbuf_pool_prefault(mp);
        return mp;
    }
    rte_mempool* mp = rte_mempool_create_empty(name, n, sizeof(rte_mbuf) + data_room, cache,
                                               sizeof(rte_pktmbuf_pool_private), socket,
                                               RTE_MEMPOOL_F_NO_IOVA_CONTIG);
    if (mp == nullptr) return nullptr;
    int rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), nullptr);
    if (rc == 0) {
        rte_pktmbuf_pool_private priv{};
        priv.mbuf_data_room_size = data_room;
        rte_pktmbuf_pool_init(mp, &priv);
        rc = rte_mempool_populate_default(mp);
        rc = rc < 0 ? rc : 0;
    }
    if (rc != 0) {
        rte_mempool_free(mp);
        rte_errno = -rc;
        return nullptr;
    }
    rte_mempool_obj_iter(mp, rte_pktmbuf_init, nullptr);
    mbuf_pool_prefault(mp);
    return mp;
}

}  // namespace csum::app
