// The engine's door to the NVMe/TCP tracker: only segments whose TCP
// checksum is good (or vouched for, or left to be filled) are fed; a
// corrupted segment must never be judged as NVMe/TCP data. Also the
// tracker's stats through Engine::nvme_stats and idle flows expiring.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "case_file.h"
#include "support/frames.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::Bytes;

constexpr uint32_t kIsn = 7000;
constexpr size_t kTcpCsumV4 = 14 + 20 + 16;  // TCP checksum field in an IPv4 frame

// Eth/IPv4/TCP to port 4420.
Bytes nvme_v4(uint32_t seq, uint8_t flags, std::span<const uint8_t> payload,
              uint16_t sport = 40000) {
    return test::eth(
        0x0800, test::ipv4(test::kSrc4, test::kDst4, 6,
                           test::tcp(test::kSrc4, test::kDst4, sport, 4420, seq, flags, payload)));
}

Bytes nvme_v6(uint32_t seq, uint8_t flags, std::span<const uint8_t> payload) {
    return test::eth(
        0x86DD, test::ipv6(test::kSrc6, test::kDst6, 6,
                           test::tcp(test::kSrc6, test::kDst6, 40000, 4420, seq, flags, payload)));
}

// An ICResp turning header digests on, then a CapsuleResp with its header digest.
Bytes pdus(bool corrupt_hdgst = false) {
    Bytes p = test::nvme_icresp(1);
    Bytes r = test::nvme_capsule_resp(true);
    if (corrupt_hdgst) r.back() ^= 0x20;
    p.insert(p.end(), r.begin(), r.end());
    return p;
}

class NvmeGate : public test::MbufTest {
  protected:
    // One frame through the engine; the mbuf is freed.
    test::Outcome run(Engine& e, const Bytes& frame, uint64_t ol_flags = 0,
                      const RxPortPolicy& rx = {}) {
        rte_mbuf* m = test::make_linear(pool(), frame);
        EXPECT_NE(m, nullptr);
        m->ol_flags = ol_flags;
        test::Outcome o = test::run_engine(e, m, rx);
        rte_pktmbuf_free(m);
        return o;
    }
    NvmeTrackerStats nvme(const Engine& e) {
        NvmeTrackerStats s;
        EXPECT_TRUE(e.nvme_stats(&s));
        return s;
    }
};

TEST_F(NvmeGate, GoodSegmentIsTrackedAndItsDigestJudged) {
    Engine e(test::engine_config(Mode::verify));
    EXPECT_EQ(run(e, nvme_v4(kIsn, kTcpSyn, {})).layers, "ipv4:good,tcp:good");
    const Bytes p = pdus();
    EXPECT_EQ(run(e, nvme_v4(kIsn + 1, kTcpAck, p)).layers, "ipv4:good,tcp:good,nvme-hdgst:good");
    const NvmeTrackerStats s = nvme(e);
    EXPECT_EQ(s.flows_created, 1u);
    EXPECT_EQ(s.pdus, 2u);
    EXPECT_EQ(s.hdgst_good, 1u);
    EXPECT_EQ(s.bytes, p.size());
    EXPECT_EQ(e.stats().layer[int(LayerProto::nvme_hdgst)][int(LayerStatus::good)].get(), 1u);
}

TEST_F(NvmeGate, BadTcpChecksumKeepsTheSegmentOutOfTheTracker) {
    Engine e(test::engine_config(Mode::verify));
    run(e, nvme_v4(kIsn, kTcpSyn, {}));
    // A segment whose TCP checksum is wrong carries a "bad" header digest:
    // were it fed, the tracker would judge corrupted bytes as NVMe data.
    const Bytes p = pdus(true);
    Bytes bad = nvme_v4(kIsn + 1, kTcpAck, p);
    test::flip(bad, kTcpCsumV4);
    const auto o = run(e, bad);
    EXPECT_EQ(o.layers, "ipv4:good,tcp:bad");
    NvmeTrackerStats s = nvme(e);
    EXPECT_EQ(s.bytes, 0u);
    EXPECT_EQ(s.pdus, 0u);
    EXPECT_EQ(s.hdgst_bad, 0u);
    EXPECT_EQ(s.gaps, 0u);
    // The same bytes retransmitted intact are tracked from where the stream stood.
    EXPECT_EQ(run(e, nvme_v4(kIsn + 1, kTcpAck, p)).layers, "ipv4:good,tcp:good,nvme-hdgst:bad");
    s = nvme(e);
    EXPECT_EQ(s.bytes, p.size());
    EXPECT_EQ(s.pdus, 2u);
    EXPECT_EQ(s.hdgst_bad, 1u);
    EXPECT_EQ(s.retransmitted_bytes, 0u);
}

TEST_F(NvmeGate, PmdBadFlagAndUnverifiableSegmentsAreKeptOut) {
    Engine e(test::engine_config(Mode::verify));
    run(e, nvme_v4(kIsn, kTcpSyn, {}));
    const Bytes good = nvme_v4(kIsn + 1, kTcpAck, pdus());
    // The PMD says the TCP checksum is bad (bytes themselves intact).
    EXPECT_EQ(run(e, good, RTE_MBUF_F_RX_L4_CKSUM_BAD).layers, "ipv4:good,tcp:bad");
    // A bad IPv4 header makes the TCP checksum unverifiable, by flag or in software.
    EXPECT_EQ(run(e, good, RTE_MBUF_F_RX_IP_CKSUM_BAD).layers, "ipv4:bad,tcp:unverifiable");
    Bytes bad_ip = good;
    test::flip(bad_ip, 14 + 10);
    EXPECT_EQ(run(e, bad_ip).layers, "ipv4:bad,tcp:unverifiable");
    EXPECT_EQ(nvme(e).bytes, 0u);
    EXPECT_EQ(e.stats().layer[int(LayerProto::tcp)][int(LayerStatus::unverifiable)].get(), 2u);
}

TEST_F(NvmeGate, TrustedPartialAndFillModeSegmentsAreFed) {
    const Bytes syn = nvme_v4(kIsn, kTcpSyn, {}), data = nvme_v4(kIsn + 1, kTcpAck, pdus());
    {  // A trusted port vouches for the checksum.
        Engine e(test::engine_config(Mode::verify));
        RxPortPolicy rx;
        rx.trusted = true;
        run(e, syn, 0, rx);
        EXPECT_EQ(run(e, data, 0, rx).layers, "ipv4:skipped,tcp:skipped,nvme-hdgst:good");
        EXPECT_EQ(nvme(e).hdgst_good, 1u);
    }
    {  // RX_L4_CKSUM_NONE: intact, left to be filled.
        Engine e(test::engine_config(Mode::verify));
        run(e, syn);
        EXPECT_EQ(run(e, data, RTE_MBUF_F_RX_L4_CKSUM_NONE).layers,
                  "ipv4:good,tcp:partial,nvme-hdgst:good");
        EXPECT_EQ(nvme(e).hdgst_good, 1u);
    }
    {  // Fill mode: the tracker fills digests; the TCP checksum is filled after.
        Engine e(test::engine_config(Mode::fill));
        run(e, syn);
        Bytes zeroed = data;
        const size_t hd = 14 + 20 + 20 + 128 + 24;
        std::fill(zeroed.begin() + hd, zeroed.begin() + hd + 4, 0);
        rte_mbuf* m = test::make_linear(pool(), zeroed);
        const auto o = test::run_engine(e, m);
        EXPECT_EQ(o.layers, "ipv4:filled,tcp:filled,nvme-hdgst:filled");
        EXPECT_EQ(test::chain_bytes(m), data);  // digest and TCP checksum both right again
        rte_pktmbuf_free(m);
        EXPECT_EQ(nvme(e).filled, 1u);
    }
}

TEST_F(NvmeGate, ATcpSumSkippedOnPolicyVouchesForNothing) {
    // A port whose verify list leaves TCP out: the segment's sum was never
    // checked, so its bytes must not be judged as NVMe/TCP data.
    const Bytes syn = nvme_v4(kIsn, kTcpSyn, {}), data = nvme_v4(kIsn + 1, kTcpAck, pdus());
    Engine e(test::engine_config(Mode::verify));
    RxPortPolicy rx;
    rx.verify_mask = uint16_t(1u << int(LayerProto::ipv4));
    run(e, syn, 0, rx);
    EXPECT_EQ(run(e, data, 0, rx).layers, "ipv4:good,tcp:skipped");
    EXPECT_EQ(nvme(e).hdgst_good, 0u);
    EXPECT_EQ(nvme(e).pdus, 0u);
}

TEST_F(NvmeGate, Ipv6SegmentsAreKeyedByTheirAddresses) {
    Engine e(test::engine_config(Mode::verify));
    run(e, nvme_v6(kIsn, kTcpSyn, {}));
    Bytes bad = nvme_v6(kIsn + 1, kTcpAck, pdus());
    test::flip(bad, 14 + 40 + 16);
    EXPECT_EQ(run(e, bad).layers, "tcp:bad");
    EXPECT_EQ(run(e, nvme_v6(kIsn + 1, kTcpAck, pdus())).layers, "tcp:good,nvme-hdgst:good");
    const NvmeTrackerStats s = nvme(e);
    EXPECT_EQ(s.flows_created, 1u);  // the SYN's flow, keyed by the IPv6 addresses
    EXPECT_EQ(s.hdgst_good, 1u);
}

TEST_F(NvmeGate, DigestsPastTheLayerLimitAreCountedByTheTrackerOnly) {
    // 11 GRE-with-checksum encapsulations: 22 layers, then IPv4 and TCP make
    // 24 (kMaxParsedLayers); the digest has no room left in the verdict.
    EngineConfig c = test::engine_config(Mode::verify);
    c.parser.max_depth = 64;
    Engine e(c);
    auto nest = [](Bytes inner) {
        for (int i = 0; i < 11; ++i)
            inner = test::ipv4(test::kSrc4, test::kDst4, 47, test::gre(0x0800, inner, true));
        return test::eth(0x0800, inner);
    };
    auto seg = [&](uint32_t seq, uint8_t flags, std::span<const uint8_t> payload) {
        return nest(
            test::ipv4(test::kSrc4, test::kDst4, 6,
                       test::tcp(test::kSrc4, test::kDst4, 40000, 4420, seq, flags, payload)));
    };
    run(e, seg(kIsn, kTcpSyn, {}));
    const auto o = run(e, seg(kIsn + 1, kTcpAck, pdus()));
    EXPECT_EQ(o.error, "none");
    EXPECT_TRUE(o.forwarded);
    EXPECT_EQ(o.layers.find("bad"), std::string::npos) << o.layers;
    EXPECT_EQ(o.layers.find("nvme"), std::string::npos) << o.layers;
    EXPECT_EQ(e.stats().layer[int(LayerProto::tcp)][int(LayerStatus::good)].get(), 2u);
    EXPECT_EQ(e.stats().layer[int(LayerProto::gre)][int(LayerStatus::good)].get(), 22u);
    EXPECT_EQ(e.stats().parse_error[int(ParseError::too_many_layers)].get(), 0u);
    EXPECT_EQ(nvme(e).hdgst_good, 1u);
}

TEST_F(NvmeGate, IdleFlowsExpireWhenLookedUp) {
    EngineConfig c = test::engine_config(Mode::verify);
    const uint64_t timeout = rte_get_tsc_hz() / 20;  // 50 ms
    c.nvme.idle_timeout_tsc = timeout;
    Engine e(c);
    // Three flows opened in one burst.
    std::vector<rte_mbuf*> burst;
    for (uint16_t sport : {41001, 41002, 41003})
        burst.push_back(test::make_linear(pool(), nvme_v4(kIsn, kTcpSyn, {}, sport)));
    ASSERT_EQ(e.process({}, {}, burst.data(), 3), 3);
    for (rte_mbuf* m : burst) rte_pktmbuf_free(m);
    NvmeTrackerStats s = nvme(e);
    ASSERT_EQ(s.flows_created, 3u);
    ASSERT_EQ(s.flows_active, 3u);
    ASSERT_EQ(s.idle_expired, 0u);
    const uint64_t t0 = rte_rdtsc();
    while (rte_rdtsc() - t0 < 4 * timeout)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // The third flow's data: each segment expires at most 2 flows from the
    // LRU tail first; the third is found idle on lookup, dropped, and its
    // data starts a new flow.
    EXPECT_TRUE(run(e, nvme_v4(kIsn + 1, kTcpAck, pdus(), 41003)).forwarded);
    s = nvme(e);
    EXPECT_EQ(s.idle_expired, 3u);
    EXPECT_EQ(s.flows_created, 4u);
    EXPECT_EQ(s.flows_active, 1u);
}

TEST_F(NvmeGate, NoTrackerWithoutPortsOrInIoMode) {
    NvmeTrackerStats s;
    EngineConfig none = test::engine_config(Mode::verify);
    none.parser.nvme_ports = PortSet{};
    Engine a(none);
    EXPECT_FALSE(a.nvme_stats(&s));
    Engine b(test::engine_config(Mode::io));
    EXPECT_FALSE(b.nvme_stats(&s));
    EXPECT_EQ(b.config().mode, Mode::io);
    // Without a tracker, an NVMe port's TCP is judged as any TCP.
    EXPECT_EQ(run(a, nvme_v4(kIsn + 1, kTcpAck, pdus())).layers, "ipv4:good,tcp:good");
    EXPECT_EQ(to_string(Mode::io), "io");
    EXPECT_EQ(to_string(DropReason::bad_checksum), "bad_checksum");
    EXPECT_EQ(to_string(DropReason::malformed), "malformed");
}

}  // namespace
}  // namespace csum
