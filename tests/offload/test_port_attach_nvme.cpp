// csum_port_attach with NVMe/TCP digests on (opts.nvme) over a real net_ring
// pair: a controller-to-host conversation on port 4420 (ICResp negotiating
// both digests, then C2HData PDUs) sent through port A arrives on port B with
// one verdict layer per digest, good or bad as built; without opts.nvme the
// same frames carry no digest layer.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_ring.h>

#include "csum/csum.h"
#include "nvme_tcp/pdu_builder.h"
#include "support/mbuf_helpers.h"

namespace csum::test {
namespace {

constexpr uint32_t kIsn = 5000;

// Ethernet + IPv4 + TCP 4420 -> 40000 carrying payload at stream offset `off`.
std::vector<uint8_t> frame(const std::vector<uint8_t>& payload, uint32_t seq, uint8_t flags) {
    std::vector<uint8_t> f(54 + payload.size());
    f[12] = 0x08;
    uint8_t* ip = f.data() + 14;
    const uint16_t tot = uint16_t(40 + payload.size());
    ip[0] = 0x45, ip[2] = uint8_t(tot >> 8), ip[3] = uint8_t(tot), ip[8] = 64, ip[9] = 6;
    ip[12] = 10, ip[15] = 1, ip[16] = 10, ip[19] = 2;
    uint8_t* tcp = ip + 20;
    tcp[0] = 4420 >> 8, tcp[1] = 4420 & 0xFF, tcp[2] = 40000 >> 8, tcp[3] = 40000 & 0xFF;
    tcp[4] = uint8_t(seq >> 24), tcp[5] = uint8_t(seq >> 16), tcp[6] = uint8_t(seq >> 8),
    tcp[7] = uint8_t(seq);
    tcp[12] = 0x50, tcp[13] = flags, tcp[14] = 0xFF;
    if (!payload.empty()) std::memcpy(tcp + 20, payload.data(), payload.size());
    auto* h = reinterpret_cast<rte_ipv4_hdr*>(ip);
    h->hdr_checksum = rte_ipv4_cksum(h);  // DPDK's sums, not ours
    reinterpret_cast<rte_tcp_hdr*>(tcp)->cksum = rte_ipv4_udptcp_cksum(h, tcp);
    return f;
}

class PortAttachNvme : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        pool_ = new TestPool(1023);
        rte_ring* ab = rte_ring_create("nv_ab", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
        rte_ring* ba = rte_ring_create("nv_ba", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
        ASSERT_TRUE(ab && ba);
        a_ = rte_eth_from_rings("nvA", &ba, 1, &ab, 1, SOCKET_ID_ANY);
        b_ = rte_eth_from_rings("nvB", &ab, 1, &ba, 1, SOCKET_ID_ANY);
        ASSERT_GE(a_, 0);
        ASSERT_GE(b_, 0);
        for (int p : {a_, b_}) {
            rte_eth_conf conf{};
            ASSERT_EQ(rte_eth_dev_configure(uint16_t(p), 1, 1, &conf), 0);
            ASSERT_EQ(
                rte_eth_rx_queue_setup(uint16_t(p), 0, 128, SOCKET_ID_ANY, nullptr, pool_->get()),
                0);
            ASSERT_EQ(rte_eth_tx_queue_setup(uint16_t(p), 0, 128, SOCKET_ID_ANY, nullptr), 0);
            ASSERT_EQ(rte_eth_dev_start(uint16_t(p)), 0);
        }
    }
    static void TearDownTestSuite() {
        rte_eth_dev_stop(uint16_t(a_));
        rte_eth_dev_stop(uint16_t(b_));
        delete pool_;
    }

    // Sends the conversation A -> B; returns per received frame the digest
    // layers of its verdict as (proto, status) pairs.
    std::vector<std::vector<csum_layer>> exchange(const std::vector<Pdu>& pdus) {
        std::vector<std::vector<uint8_t>> frames;
        frames.push_back(frame({}, kIsn, 0x02));  // SYN
        uint32_t seq = kIsn + 1;
        for (const Pdu& p : pdus) {
            frames.push_back(frame(p.bytes, seq, 0x18));
            seq += uint32_t(p.bytes.size());
        }
        std::vector<std::vector<csum_layer>> out;
        for (const auto& f : frames) {
            rte_mbuf* m = make_linear(pool_->get(), f);
            EXPECT_EQ(rte_eth_tx_burst(uint16_t(a_), 0, &m, 1), 1);
            rte_mbuf* r[4];
            const uint16_t n = rte_eth_rx_burst(uint16_t(b_), 0, r, 4);
            EXPECT_EQ(n, 1);
            for (uint16_t i = 0; i < n; ++i) {
                csum_verdict v;
                EXPECT_EQ(csum_verdict_get(r[i], &v), 0);
                std::vector<csum_layer> dg;
                for (int k = 0; k < v.n_layers; ++k) {
                    if (v.layers[k].proto == CSUM_PROTO_TCP) {
                        EXPECT_EQ(v.layers[k].status, CSUM_STATUS_GOOD);
                    }
                    if (v.layers[k].proto >= CSUM_PROTO_NVME_HDGST) dg.push_back(v.layers[k]);
                }
                out.push_back(dg);
                rte_pktmbuf_free(r[i]);
            }
        }
        return out;
    }

    static inline TestPool* pool_ = nullptr;
    static inline int a_ = -1, b_ = -1;
};

std::vector<Pdu> conversation() {
    std::vector<uint8_t> data(512);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 5 + 1);
    std::vector<Pdu> pdus{icresp(0x3), c2h_data(true, true, data), c2h_data(true, true, data)};
    corrupt_ddgst(pdus[2]);
    return pdus;
}

TEST_F(PortAttachNvme, DigestsJudgedPerPortWhenAsked) {
    csum_port_opts o;
    csum_port_opts_init(&o);
    o.tx_offloads = 0;
    o.nvme = 1;
    o.nvme_port = 4420;
    ASSERT_EQ(csum_port_attach(uint16_t(b_), &o), 0);
    const auto got = exchange(conversation());
    ASSERT_EQ(got.size(), 4u);  // SYN, ICResp, two C2HData
    EXPECT_TRUE(got[0].empty());
    EXPECT_TRUE(got[1].empty());  // ICResp carries no digest
    auto has = [](const std::vector<csum_layer>& l, int proto, int status) {
        for (const auto& x : l)
            if (x.proto == proto && x.status == status) return true;
        return false;
    };
    EXPECT_TRUE(has(got[2], CSUM_PROTO_NVME_HDGST, CSUM_STATUS_GOOD));
    EXPECT_TRUE(has(got[2], CSUM_PROTO_NVME_DDGST, CSUM_STATUS_GOOD));
    EXPECT_TRUE(has(got[3], CSUM_PROTO_NVME_HDGST, CSUM_STATUS_GOOD));
    EXPECT_TRUE(has(got[3], CSUM_PROTO_NVME_DDGST, CSUM_STATUS_BAD));
    EXPECT_EQ(csum_port_detach(uint16_t(b_)), 0);
}

TEST_F(PortAttachNvme, NoDigestLayersWithoutTheOption) {
    csum_port_opts o;
    csum_port_opts_init(&o);
    o.tx_offloads = 0;
    ASSERT_EQ(csum_port_attach(uint16_t(b_), &o), 0);
    for (const auto& layers : exchange(conversation())) EXPECT_TRUE(layers.empty());
    EXPECT_EQ(csum_port_detach(uint16_t(b_)), 0);
}

}  // namespace
}  // namespace csum::test
