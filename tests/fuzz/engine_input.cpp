#include "engine_input.h"

#include <cstring>
#include <map>
#include <memory>
#include <tuple>

#include <rte_ethdev.h>

#include "csum/inet.h"
#include "fuzz_support.h"

namespace csum::fuzz {

EngineInput read_engine_input(Cursor& c) {
    static constexpr uint64_t kIp[] = {0, RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_IP_CKSUM_BAD,
                                       RTE_MBUF_F_RX_IP_CKSUM_NONE};
    static constexpr uint64_t kL4[] = {0, RTE_MBUF_F_RX_L4_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_BAD,
                                       RTE_MBUF_F_RX_L4_CKSUM_NONE};
    static constexpr uint64_t kOuterL4[] = {0, RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
                                            RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD,
                                            RTE_MBUF_F_RX_OUTER_L4_CKSUM_INVALID};
    static constexpr uint64_t kTx[] = {RTE_ETH_TX_OFFLOAD_IPV4_CKSUM, RTE_ETH_TX_OFFLOAD_TCP_CKSUM,
                                       RTE_ETH_TX_OFFLOAD_UDP_CKSUM, RTE_ETH_TX_OFFLOAD_SCTP_CKSUM};
    EngineInput in;
    const uint16_t f = c.u16();
    in.ol_flags = kIp[f & 3] | kL4[f >> 2 & 3] | kOuterL4[f >> 4 & 3] |
                  (f & 0x40 ? RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD : 0);
    in.packet_type = f & 0x80 ? RTE_PTYPE_TUNNEL_VXLAN : 0;
    in.rx.trusted = f & 0x100;
    in.rx.drop_bad = f & 0x200;
    in.complete = in.rx.complete_in_verdict = f & 0x400;
    if (f & 0x800) in.complete_noise = c.u16();
    if (f & 0x1000) in.rx.verify_mask = c.u16();
    const uint8_t t = c.u8();
    for (int i = 0; i < 4; ++i)
        if (t & (1 << i)) in.tx.offloads |= kTx[i];
    return in;
}

void prime(rte_mbuf* m, const EngineInput& in, int verdict_off, const Frame& f) {
    m->ol_flags = in.ol_flags;
    m->packet_type = in.packet_type;
    PacketVerdict* v = verdict_of(m, verdict_off);
    std::memset(v, 0, sizeof *v);
    if (in.complete) {
        v->ip_summed = IpSummed::complete;
        const size_t base = f.l3_off < f.bytes.size() ? f.l3_off : f.bytes.size();
        v->csum =
            uint16_t(raw_cksum(f.bytes.data() + base, f.bytes.size() - base) ^ in.complete_noise);
    }
}

Engine& engine_for(Mode mode, bool fast_path, int variant, bool nvme) {
    static std::map<std::tuple<Mode, bool, int, bool>, std::unique_ptr<Engine>> engines;
    auto& e = engines[{mode, fast_path, variant, nvme}];
    if (!e) {
        pool();  // the EAL first: the engine registers an mbuf dynfield
        EngineConfig c;
        c.mode = mode;
        c.plain_fast_path = fast_path;
        if (!nvme) c.parser.nvme_ports = PortSet{};
        if (variant == 1) {
            c.parser.max_depth = 1;
            for (uint16_t p : {4789, 6081, 4754}) c.parser.udp6_zero_csum_ok.add(p);
        }
        e = std::make_unique<Engine>(c);
    }
    return *e;
}

void prefill(std::vector<uint8_t>& f) {
    Engine& e = engine_for(Mode::fill, false, 0, false);
    const uint32_t seg = uint32_t(f.size());
    rte_mbuf* m =
        make_chain_split(f.data(), f.size(), &seg, 1, RTE_PKTMBUF_HEADROOM, linear_pool());
    if (m == nullptr) return;
    m->ol_flags = 0;
    m->packet_type = 0;
    e.process(RxPortPolicy{}, TxPortPolicy{}, &m, 1);
    chain_bytes(m, &f);
    rte_pktmbuf_free(m);
}

bool verdict_sane(const PacketVerdict& v) {
    if (v.n_layers > kMaxVerdictLayers || v.error >= kParseErrorCount ||
        uint8_t(v.ip_summed) > uint8_t(IpSummed::partial))
        return false;
    for (int i = 0; i < v.n_layers; ++i) {
        const LayerVerdict l = v.layer(i);
        if (int(l.proto) >= kLayerProtoCount || int(l.status) >= kLayerStatusCount) return false;
    }
    return true;
}

}  // namespace csum::fuzz
