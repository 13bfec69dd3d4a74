// The parser and engine on one packet, in each mode and with random
// segmentation and PMD flags. Input: [mode][flags][shape x4][frame...].
#include <cstring>

#include <rte_ethdev.h>

#include "csum/engine.h"
#include "fuzz_support.h"

using namespace csum;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 6) return 0;
    fuzz::pool();  // the EAL first: the engine registers an mbuf dynfield
    static Engine* engines[4] = {};
    const Mode mode = static_cast<Mode>(1 + data[0] % 3);  // verify, fill, csum
    Engine*& e = engines[int(mode)];
    if (e == nullptr) {
        EngineConfig c;
        c.mode = mode;
        e = new Engine(c);
    }
    uint32_t shape;
    std::memcpy(&shape, data + 2, 4);
    rte_mbuf* m = fuzz::make_chain(data + 6, size - 6, shape);
    if (m == nullptr) return 0;
    static const uint64_t kFlags[] = {
        0, RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_NONE,
        RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD | RTE_MBUF_F_RX_IP_CKSUM_BAD};
    m->ol_flags = kFlags[data[1] % 5];
    m->packet_type = (data[1] & 0x80) ? RTE_PTYPE_TUNNEL_VXLAN : 0;
    RxPortPolicy rx;
    rx.trusted = (data[1] & 0x40) != 0;
    rx.drop_bad = (data[1] & 0x20) != 0;
    rx.complete_in_verdict = (data[1] & 0x10) != 0;
    TxPortPolicy tx;
    if (data[1] & 0x08)
        tx.offloads = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
                      RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
    rte_mbuf* pkts[1] = {m};
    e->process(rx, tx, pkts, 1);
    // The verdict must be readable and self-consistent.
    const PacketVerdict* v = verdict_of(m, e->verdict_field());
    if (v->n_layers > kMaxVerdictLayers || v->error >= kParseErrorCount) __builtin_trap();
    rte_pktmbuf_free(m);
    fuzz::check_no_leak();
    return 0;
}
