// Flow life: FIN, RST, idle timeout, eviction, and the table itself.
#include <map>

#include "nvme_tcp/nvme_test.h"

namespace csum::test {
namespace {

Bytes small_stream() {
    std::mt19937 rng(30);
    return concat(std::vector<Pdu>{icresp(3), c2h_data(true, true, random_bytes(64, rng))});
}

TEST_F(NvmeTest, FinOfBothSidesEndsTheFlow) {
    NvmeTracker& t = tracker();
    Wire host(t, pool(), test_key(7000), 10), ctrl(t, pool(), reverse(test_key(7000)), 20);
    host.syn(kTcpSyn);
    ctrl.syn(kTcpSyn | kTcpAck);
    const Bytes s = small_stream();
    EXPECT_EQ(ctrl.send(s, 0, uint32_t(s.size())).pdus, 2);
    EXPECT_EQ(t.stats().flows_active, 1u);
    ctrl.base = uint32_t(s.size());
    EXPECT_FALSE(ctrl.ctl(kTcpFin | kTcpAck).flow_ended);
    // Bytes after our FIN are not followed.
    EXPECT_EQ(ctrl.send(s, 0, uint32_t(s.size())).pdus, 0);
    EXPECT_EQ(t.stats().flows_active, 1u);
    EXPECT_TRUE(host.ctl(kTcpFin | kTcpAck).flow_ended);
    EXPECT_EQ(t.stats().flows_active, 0u);
    EXPECT_EQ(t.stats().fin_closed, 1u);
    EXPECT_EQ(t.conn_stats(host.key()), nullptr);
    // A late FIN or RST for a dropped flow starts nothing.
    EXPECT_TRUE(host.ctl(kTcpFin | kTcpAck).untracked);
    EXPECT_TRUE(host.ctl(kTcpRst).untracked);
    EXPECT_EQ(t.stats().flows_created, 1u);
}

TEST_F(NvmeTest, RstEndsTheFlowAfterItsPayload) {
    NvmeTracker& t = tracker();
    Wire w = connect(t, 7100);
    const Bytes s = small_stream();
    rte_mbuf* m = w.build(s, 0, uint32_t(s.size()), 2);
    const NvmeSegmentResult r =
        t.feed(w.key(), w.isn() + 1, kTcpRst | kTcpAck, m, Wire::kHdrRoom, uint32_t(s.size()), 0);
    rte_pktmbuf_free(m);
    EXPECT_EQ(r.pdus, 2);
    EXPECT_EQ(r.ddgst.good, 1);
    EXPECT_TRUE(r.flow_ended);
    EXPECT_EQ(t.stats().rst_closed, 1u);
    EXPECT_EQ(t.stats().flows_active, 0u);
    // Totals survive the flow.
    EXPECT_EQ(t.stats().ddgst_good, 1u);
}

TEST_F(NvmeTest, NewSynReplacesTheConnection) {
    NvmeTracker& t = tracker();
    Wire w(t, pool(), test_key(7150), 100);
    w.syn();
    const Bytes s = small_stream();
    w.send(s, 0, 20);  // half a header pending
    // Same ports, new connection: starts at a PDU boundary again.
    Wire w2(t, pool(), test_key(7150), 5000);
    w2.syn();
    EXPECT_EQ(w2.send(s, 0, uint32_t(s.size())).ddgst.good, 1);
    // A retransmitted SYN changes nothing.
    w2.base = uint32_t(s.size());
    w2.syn();
    EXPECT_EQ(w2.send(s, 0, uint32_t(s.size())).pdus, 2);
    EXPECT_EQ(t.stats().desyncs, 0u);
}

TEST_F(NvmeTest, EvictsLeastRecentlyUsedWhenFull) {
    NvmeTracker& t = tracker(NvmeTrackerConfig{.capacity = 2});
    Wire a(t, pool(), test_key(7201)), b(t, pool(), test_key(7202)), c(t, pool(), test_key(7203));
    const Bytes s = small_stream();
    a.syn(kTcpSyn, 1);
    b.syn(kTcpSyn, 2);
    a.send(s, 0, 10, 1, 3);  // a is now the most recent
    c.syn(kTcpSyn, 4);
    EXPECT_EQ(t.stats().evictions, 1u);
    EXPECT_EQ(t.stats().flows_active, 2u);
    EXPECT_NE(t.conn_stats(a.key()), nullptr);
    EXPECT_EQ(t.conn_stats(b.key()), nullptr);
    EXPECT_NE(t.conn_stats(c.key()), nullptr);
    // a carries on in sync.
    EXPECT_EQ(a.send(s, 10, uint32_t(s.size()) - 10, 1, 5).ddgst.good, 1);
}

TEST_F(NvmeTest, IdleFlowsExpire) {
    NvmeTracker& t = tracker(NvmeTrackerConfig{.idle_timeout_tsc = 1000});
    Wire a(t, pool(), test_key(7301)), b(t, pool(), test_key(7302));
    a.syn(kTcpSyn, 0);
    b.syn(kTcpSyn, 600);
    const Bytes s = small_stream();
    b.send(s, 0, 10, 1, 1200);  // a has been idle 1200 > 1000: expired on the way
    EXPECT_EQ(t.stats().idle_expired, 1u);
    EXPECT_EQ(t.conn_stats(a.key()), nullptr);
    EXPECT_NE(t.conn_stats(b.key()), nullptr);
    EXPECT_EQ(t.expire(2100), 0u);  // b idle exactly 900
    EXPECT_EQ(t.expire(2201), 1u);
    EXPECT_EQ(t.stats().flows_active, 0u);
    // A flow that went idle and comes back is started afresh (mid-stream).
    Wire c(t, pool(), test_key(7303));
    c.syn(kTcpSyn, 5000);
    c.send(s, 0, 10, 1, 9000);
    EXPECT_EQ(t.stats().idle_expired, 3u);
    EXPECT_EQ(t.stats().flows_active, 1u);
}

TEST_F(NvmeTest, IdleFlowFoundOnLookupIsDroppedAndStartedAfresh) {
    // A segment expires at most 2 flows from the LRU tail before its lookup;
    // an idle flow further up is caught by the lookup itself.
    NvmeTracker& t = tracker(NvmeTrackerConfig{.idle_timeout_tsc = 1000});
    Wire a(t, pool(), test_key(7401)), b(t, pool(), test_key(7402)), c(t, pool(), test_key(7403)),
        d(t, pool(), test_key(7404));
    a.syn(kTcpSyn, 0);
    b.syn(kTcpSyn, 1);
    c.syn(kTcpSyn, 2);
    d.syn(kTcpSyn, 3);  // the tracker's last lookup: c is found through the table
    const Bytes s = small_stream();
    const NvmeSegmentResult r = c.send(s, 0, uint32_t(s.size()), 1, 5000);
    EXPECT_FALSE(r.untracked);
    EXPECT_EQ(t.stats().idle_expired, 3u);   // a and b on the way, c on lookup
    EXPECT_EQ(t.stats().flows_created, 5u);  // c again, from its data
    EXPECT_EQ(t.stats().flows_active, 2u);
    EXPECT_EQ(t.conn_stats(a.key()), nullptr);
    EXPECT_EQ(t.conn_stats(b.key()), nullptr);
    ASSERT_NE(t.conn_stats(c.key()), nullptr);
    EXPECT_EQ(t.conn_stats(c.key())->bytes, s.size());
    EXPECT_NE(t.conn_stats(d.key()), nullptr);  // idle too, but not reached yet
    // A FIN for a flow that expired ends nothing: it is not tracked again.
    EXPECT_TRUE(d.ctl(kTcpFin, 5001).untracked);
    EXPECT_EQ(t.stats().idle_expired, 4u);
    EXPECT_EQ(t.stats().fin_closed, 0u);
}

TEST_F(NvmeTest, TableMatchesAModelUnderChurn) {
    // Random inserts (SYN), lookups and removals (RST) against std::map:
    // exercises probing and backward-shift deletion at high load.
    NvmeTracker& t = tracker(NvmeTrackerConfig{.capacity = 64});
    std::mt19937 rng(31);
    std::map<uint16_t, bool> live;
    for (int i = 0; i < 20000; ++i) {
        const uint16_t port = uint16_t(1 + rng() % 80);
        NvmeFlowKey k = test_key(port);
        if (rng() % 2) k = reverse(k);  // either direction finds it
        if (rng() % 3 == 0) {
            t.feed(k, 1, kTcpRst, nullptr, 0, 0, 0);
            live.erase(port);
        } else if (live.size() < 64 || live.count(port)) {
            t.feed(k, 1, kTcpSyn, nullptr, 0, 0, 0);
            live[port] = true;
        }
        if (i % 97 == 0) {
            for (uint16_t p = 1; p <= 80; ++p)
                ASSERT_EQ(t.conn_stats(test_key(p)) != nullptr, live.count(p) == 1)
                    << "port " << p << " step " << i;
        }
    }
    EXPECT_EQ(t.stats().flows_active, live.size());
    EXPECT_EQ(t.stats().evictions, 0u);
}

TEST_F(NvmeTest, TinyTableMatchesAModelWhereverClustersWrap) {
    // 4 flows in 8 slots: clusters wrap past the last slot whatever the
    // table's (address-seeded) hash, so deletion's cyclic cases all occur.
    for (uint32_t capacity : {0u, 1u, 4u}) {
        NvmeTracker& t = tracker(NvmeTrackerConfig{.capacity = capacity});
        const size_t cap = capacity == 0 ? 1 : capacity;  // zero is taken as one
        std::mt19937 rng(capacity + 5);
        std::map<uint16_t, bool> live;
        for (int i = 0; i < 4000; ++i) {
            const uint16_t port = uint16_t(1 + rng() % 12);
            const NvmeFlowKey k = rng() % 2 ? reverse(test_key(port)) : test_key(port);
            if (rng() % 2 == 0) {
                t.feed(k, 1, kTcpRst, nullptr, 0, 0, 0);
                live.erase(port);
            } else if (live.size() < cap || live.count(port)) {
                t.feed(k, 1, kTcpSyn, nullptr, 0, 0, 0);
                live[port] = true;
            }
            for (uint16_t p = 1; p <= 12; ++p)
                ASSERT_EQ(t.conn_stats(test_key(p)) != nullptr, live.count(p) == 1)
                    << "capacity " << capacity << " port " << p << " step " << i;
        }
        EXPECT_EQ(t.stats().flows_active, live.size());
        EXPECT_EQ(t.stats().evictions, 0u);
        // One flow more than fits evicts the least recently used.
        for (uint16_t p = 1; p <= cap + 1; ++p)
            t.feed(test_key(100 + p), 1, kTcpSyn, nullptr, 0, 0, 0);
        EXPECT_EQ(t.stats().flows_active, cap);
        EXPECT_EQ(t.conn_stats(test_key(101)), nullptr);
        EXPECT_NE(t.conn_stats(test_key(uint16_t(101 + cap))), nullptr);
    }
}

TEST_F(NvmeTest, Ipv6KeysAndSnapshot) {
    NvmeTracker& t = tracker();
    uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8}, b[16] = {0x20, 0x01, 0x0d, 0xb8};
    a[15] = 1;
    b[15] = 2;
    Wire w(t, pool(), nvme_flow_key_v6(a, b, 1234, 4420));
    w.syn();
    const Bytes s = small_stream();
    w.send(s, 0, uint32_t(s.size()));
    NvmeConnInfo info[4];
    ASSERT_EQ(t.snapshot(info), 1u);
    EXPECT_EQ(info[0].key.family, 6);
    EXPECT_EQ(info[0].stats.ddgst_good, 1u);
    EXPECT_EQ(info[0].stats.bytes, s.size());
    EXPECT_NE(t.conn_stats(reverse(w.key())), nullptr);
}

}  // namespace
}  // namespace csum::test
