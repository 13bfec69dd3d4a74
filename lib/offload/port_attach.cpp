// Software checksum offload on an ethdev port: one engine per RX queue
// behind an RX callback, TX emulation behind a TX callback.
#include <cerrno>
#include <memory>
#include <new>
#include <vector>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "csum/counter.h"
#include "csum/csum.h"
#include "csum/engine.h"
#include "csum/verdict.h"
#include "dispatch/select.h"
#include "engine/hw_flags.h"
#include "offload/tx_emul.h"

namespace csum {
namespace {

struct RxQueue {
    std::unique_ptr<Engine> engine;
    const rte_eth_rxtx_callback* cb = nullptr;
    int verdict_off = -1;
    Counter packets, ip_good, ip_bad, l4_good, l4_bad, l4_none, outer_ip_bad, outer_l4_good,
        outer_l4_bad, work_tsc;
};

struct TxQueue {
    uint64_t emulate = 0;  // offloads served here: asked for, not done by the queue
    const rte_eth_rxtx_callback* cb = nullptr;
    Counter packets, ip, tcp, udp, sctp, outer_ip, outer_udp, to_hw, rejected, work_tsc;
    Counter error[CSUM_TX_ERR_COUNT];
};

struct PortAttach {
    csum_port_opts opts{};
    std::vector<std::unique_ptr<RxQueue>> rx;
    std::vector<std::unique_ptr<TxQueue>> tx;
};

PortAttach* g_ports[RTE_MAX_ETHPORTS];
rte_spinlock_t g_lock = RTE_SPINLOCK_INITIALIZER;

bool l4_kind(uint8_t proto) {
    return proto == CSUM_PROTO_TCP || proto == CSUM_PROTO_UDP || proto == CSUM_PROTO_SCTP;
}

// Engine status -> NIC flag: 0 leaves the PMD's UNKNOWN alone.
uint64_t ip_flag(LayerStatus s) {
    switch (s) {
        case LayerStatus::good:
            return RTE_MBUF_F_RX_IP_CKSUM_GOOD;
        case LayerStatus::bad:
            return RTE_MBUF_F_RX_IP_CKSUM_BAD;
        default:
            return 0;
    }
}
uint64_t l4_flag(LayerStatus s) {
    switch (s) {
        case LayerStatus::good:
        case LayerStatus::zero:  // no checksum to doubt
            return RTE_MBUF_F_RX_L4_CKSUM_GOOD;
        case LayerStatus::bad:
        case LayerStatus::illegal:
            return RTE_MBUF_F_RX_L4_CKSUM_BAD;
        case LayerStatus::partial:  // intact, pseudo-header sum only: virtio's NONE
            return RTE_MBUF_F_RX_L4_CKSUM_NONE;
        default:
            return 0;
    }
}

// Sets the RX checksum flags a NIC would from the packet's verdict, where
// the PMD left them UNKNOWN.
void set_rx_flags(RxQueue& q, rte_mbuf* m) {
    const PacketVerdict* v = verdict_of(m, q.verdict_off);
    const int n = v->n_layers < kMaxVerdictLayers ? v->n_layers : kMaxVerdictLayers;
    int first_ip = -1, last_ip = -1, first_l4 = -1, last_l4 = -1, n_ip = 0, n_l4 = 0;
    bool gre = false;
    for (int i = 0; i < n; ++i) {
        const uint8_t p = v->layers[i] >> 4;
        if (p == CSUM_PROTO_IPV4) {
            if (first_ip < 0) first_ip = i;
            last_ip = i, ++n_ip;
        } else if (l4_kind(p)) {
            if (first_l4 < 0) first_l4 = i;
            last_l4 = i, ++n_l4;
        } else if (p == CSUM_PROTO_GRE) {
            gre = true;
        }
    }
    uint64_t f = m->ol_flags;
    const bool found_tunnel = n_ip > 1 || n_l4 > 1 || gre;
    const bool pmd_flagged = (f & (RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK)) != 0;
    const bool typed_tunnel = (m->packet_type & RTE_PTYPE_TUNNEL_MASK) != 0;
    // A PMD that named a tunnel but set no OUTER_* flag checked the outer
    // headers only (net_tap): its IP/L4 flags are replaced by the inner
    // statuses, which the engine verified, as a tunnel-parsing NIC gives them.
    if (found_tunnel && pmd_flagged && typed_tunnel && !pmd_saw_outer(f))
        f &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK);
    const uint64_t ip_pmd = f & RTE_MBUF_F_RX_IP_CKSUM_MASK;
    const uint64_t l4_pmd = f & RTE_MBUF_F_RX_L4_CKSUM_MASK;
    // A PMD that set flags without naming the tunnel spoke for the outer
    // headers; then so do we. Otherwise IP/L4 mean the innermost, as on a
    // NIC that parses tunnels, and OUTER_* the outermost.
    const bool pmd_outer = (ip_pmd || l4_pmd) && !typed_tunnel;
    const bool tunnel = found_tunnel && !pmd_outer;
    const int ip = tunnel ? (n_ip > 1 || first_ip > 0 ? last_ip : -1) : first_ip;
    const int l4 = tunnel ? (n_l4 > 1 || gre || n_ip > 1 ? last_l4 : -1) : first_l4;
    auto status = [&](int i) { return static_cast<LayerStatus>(v->layers[i] & 0xF); };
    uint64_t set = 0;
    if (ip >= 0 && ip_pmd == RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN) {
        set |= ip_flag(status(ip));
        if (set & RTE_MBUF_F_RX_IP_CKSUM_GOOD) q.ip_good.add();
        if (set & RTE_MBUF_F_RX_IP_CKSUM_BAD) q.ip_bad.add();
    }
    if (l4 >= 0 && l4_pmd == RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN) {
        const uint64_t l = l4_flag(status(l4));
        set |= l;
        if (l == RTE_MBUF_F_RX_L4_CKSUM_GOOD) q.l4_good.add();
        if (l == RTE_MBUF_F_RX_L4_CKSUM_BAD) q.l4_bad.add();
        if (l == RTE_MBUF_F_RX_L4_CKSUM_NONE) q.l4_none.add();
    }
    if (tunnel) {
        if (first_ip == 0 && first_ip != ip && status(0) == LayerStatus::bad &&
            !(f & RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD)) {
            set |= RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD;
            q.outer_ip_bad.add();
        }
        const bool outer_udp =
            first_l4 >= 0 && first_l4 != l4 && (v->layers[first_l4] >> 4) == CSUM_PROTO_UDP;
        if (outer_udp && (f & RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK) == 0) {
            const uint64_t l = l4_flag(status(first_l4));
            if (l == RTE_MBUF_F_RX_L4_CKSUM_GOOD) {
                set |= RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
                q.outer_l4_good.add();
            } else if (l == RTE_MBUF_F_RX_L4_CKSUM_BAD) {
                set |= RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD;
                q.outer_l4_bad.add();
            }
        }
    }
    m->ol_flags = f | set;
}

uint16_t rx_callback(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n, uint16_t, void* arg) {
    if (n == 0) return 0;
    auto& q = *static_cast<RxQueue*>(arg);
    const uint64_t t0 = rte_rdtsc();
    static const RxPortPolicy kPolicy{};  // verify everything, drop nothing
    static const TxPortPolicy kNoTx{};
    q.engine->process(kPolicy, kNoTx, pkts, n);
    for (uint16_t i = 0; i < n; ++i) set_rx_flags(q, pkts[i]);
    q.packets.add(n);
    q.work_tsc.add(rte_rdtsc() - t0);
    return n;
}

uint16_t tx_callback(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n, void* arg) {
    if (n == 0) return 0;
    auto& q = *static_cast<TxQueue*>(arg);
    const uint64_t t0 = rte_rdtsc();
    uint32_t c_ip = 0, c_tcp = 0, c_udp = 0, c_sctp = 0, c_oip = 0, c_oudp = 0, c_hw = 0;
    // Refused packets go to the back, unsent: the application still owns them.
    rte_mbuf* refused[64];
    uint16_t kept = 0, n_refused = 0, i = 0;
    for (; i < n && n_refused < std::size(refused); ++i) {
        rte_mbuf* m = pkts[i];
        TxServed s;
        csum_tx_error err;
        if (tx_emulate(m, q.emulate, &s, &err) == 0) {
            pkts[kept++] = m;
            c_ip += s.ip, c_tcp += s.tcp, c_udp += s.udp, c_sctp += s.sctp;
            c_oip += s.outer_ip, c_oudp += s.outer_udp, c_hw += s.to_hw;
        } else {
            refused[n_refused++] = m;
            q.error[err].add();
        }
    }
    // kept + n_refused == i: refusals fill the gap; packets past a full
    // refusal buffer stay where they are, unsent and untouched, for a retry.
    for (uint16_t k = 0; k < n_refused; ++k) pkts[kept + k] = refused[k];
    q.packets.add(i);
    if (c_ip) q.ip.add(c_ip);
    if (c_tcp) q.tcp.add(c_tcp);
    if (c_udp) q.udp.add(c_udp);
    if (c_sctp) q.sctp.add(c_sctp);
    if (c_oip) q.outer_ip.add(c_oip);
    if (c_oudp) q.outer_udp.add(c_oudp);
    if (c_hw) q.to_hw.add(c_hw);
    if (n_refused) q.rejected.add(n_refused);
    q.work_tsc.add(rte_rdtsc() - t0);
    return kept;
}

// The TX offloads a queue does in hardware, as configured.
uint64_t hw_tx_offloads(uint16_t port, uint16_t queue) {
    rte_eth_txq_info qi{};
    if (rte_eth_tx_queue_info_get(port, queue, &qi) == 0) return qi.conf.offloads;
    rte_eth_conf conf{};
    if (rte_eth_dev_conf_get(port, &conf) == 0) return conf.txmode.offloads;
    return 0;
}

void remove_callbacks(uint16_t port, PortAttach& pa) {
    for (size_t q = 0; q < pa.rx.size(); ++q)
        if (pa.rx[q]->cb) {
            rte_eth_remove_rx_callback(port, static_cast<uint16_t>(q), pa.rx[q]->cb);
            rte_free(const_cast<rte_eth_rxtx_callback*>(pa.rx[q]->cb));  // ethdev leaves it to us
            pa.rx[q]->cb = nullptr;
        }
    for (size_t q = 0; q < pa.tx.size(); ++q)
        if (pa.tx[q]->cb) {
            rte_eth_remove_tx_callback(port, static_cast<uint16_t>(q), pa.tx[q]->cb);
            rte_free(const_cast<rte_eth_rxtx_callback*>(pa.tx[q]->cb));
            pa.tx[q]->cb = nullptr;
        }
}

int attach(uint16_t port, const csum_port_opts& opts) {
    rte_eth_dev_info info{};
    // The real queue counts: dev_info may be wrapped, but the counts are ethdev's.
    int rc = rte_eth_dev_info_get(port, &info);
    if (rc != 0) return rc;
    const uint16_t nb_rx = info.nb_rx_queues, nb_tx = info.nb_tx_queues;
    auto pa = std::make_unique<PortAttach>();
    pa->opts = opts;
    detail::choose_kernel_plans();  // before the first burst, which would pay for it
    if (opts.rx) {
        EngineConfig cfg;
        cfg.mode = Mode::verify;
        cfg.parser.nvme_ports = PortSet{};
        if (opts.nvme) cfg.parser.nvme_ports.add(opts.nvme_port ? opts.nvme_port : 4420);
        for (uint16_t q = 0; q < nb_rx; ++q) {
            auto rq = std::make_unique<RxQueue>();
            rq->engine = std::make_unique<Engine>(cfg);
            rq->verdict_off = rq->engine->verdict_field();
            pa->rx.push_back(std::move(rq));
        }
    }
    const uint64_t want_tx = opts.tx_offloads & kTxEmulatable;
    if (want_tx != 0)
        for (uint16_t q = 0; q < nb_tx; ++q) {
            auto tq = std::make_unique<TxQueue>();
            tq->emulate = want_tx & ~hw_tx_offloads(port, q);
            pa->tx.push_back(std::move(tq));
        }
    for (size_t q = 0; q < pa->rx.size(); ++q) {
        pa->rx[q]->cb =
            rte_eth_add_rx_callback(port, static_cast<uint16_t>(q), rx_callback, pa->rx[q].get());
        if (pa->rx[q]->cb == nullptr) {
            rc = rte_errno ? -rte_errno : -ENOTSUP;
            remove_callbacks(port, *pa);
            return rc;
        }
    }
    for (size_t q = 0; q < pa->tx.size(); ++q) {
        pa->tx[q]->cb =
            rte_eth_add_tx_callback(port, static_cast<uint16_t>(q), tx_callback, pa->tx[q].get());
        if (pa->tx[q]->cb == nullptr) {
            rc = rte_errno ? -rte_errno : -ENOTSUP;
            remove_callbacks(port, *pa);
            return rc;
        }
    }
    g_ports[port] = pa.release();
    return 0;
}

}  // namespace
}  // namespace csum

using namespace csum;

extern "C" {

void csum_port_opts_init(csum_port_opts* o) {
    if (o == nullptr) return;
    *o = csum_port_opts{};
    o->rx = 1;
    o->tx_offloads = kTxEmulatable;
}

int csum_port_attach(uint16_t port, const csum_port_opts* opts) {
    if (opts == nullptr || !rte_eth_dev_is_valid_port(port)) return -EINVAL;
    if (opts->tx_offloads & ~kTxEmulatable) return -EINVAL;
    rte_spinlock_lock(&g_lock);
    int rc;
    try {
        rc = g_ports[port] ? -EEXIST : attach(port, *opts);
    } catch (const std::bad_alloc&) {
        rc = -ENOMEM;
    } catch (...) {
        rc = rte_errno > 0 ? -rte_errno : -EIO;
    }
    rte_spinlock_unlock(&g_lock);
    return rc;
}

int csum_port_detach(uint16_t port) {
    if (port >= RTE_MAX_ETHPORTS) return -EINVAL;
    rte_spinlock_lock(&g_lock);
    PortAttach* pa = g_ports[port];
    g_ports[port] = nullptr;
    rte_spinlock_unlock(&g_lock);
    if (pa == nullptr) return -ENOENT;
    try {
        remove_callbacks(port, *pa);
        delete pa;
    } catch (...) {
        return -EIO;
    }
    return 0;
}

int csum_port_attached(uint16_t port) {
    return port < RTE_MAX_ETHPORTS && g_ports[port] != nullptr;
}

const char* csum_tx_error_name(int e) {
    static const char* const names[] = {
        "hdr_beyond_packet", "ip_type_missing",    "ip_version_mismatch", "l3_len_bad",
        "ip_len_bad",        "ip_fragment",        "ipv6_routing",        "l4_proto_mismatch",
        "l4_len_bad",        "segment_past_buffer"};
    static_assert(std::size(names) == CSUM_TX_ERR_COUNT);
    return e >= 0 && e < CSUM_TX_ERR_COUNT ? names[e] : "?";
}

int csum_port_stats_get(uint16_t port, csum_port_stats* out) {
    if (out == nullptr || port >= RTE_MAX_ETHPORTS) return -EINVAL;
    rte_spinlock_lock(&g_lock);
    const PortAttach* pa = g_ports[port];
    if (pa == nullptr) {
        rte_spinlock_unlock(&g_lock);
        return -ENOENT;
    }
    *out = csum_port_stats{};
    for (const auto& q : pa->rx) {
        out->rx_packets += q->packets.get();
        out->rx_ip_good += q->ip_good.get();
        out->rx_ip_bad += q->ip_bad.get();
        out->rx_l4_good += q->l4_good.get();
        out->rx_l4_bad += q->l4_bad.get();
        out->rx_l4_none += q->l4_none.get();
        out->rx_outer_ip_bad += q->outer_ip_bad.get();
        out->rx_outer_l4_good += q->outer_l4_good.get();
        out->rx_outer_l4_bad += q->outer_l4_bad.get();
        out->rx_work_tsc += q->work_tsc.get();
    }
    for (const auto& q : pa->tx) {
        out->tx_packets += q->packets.get();
        out->tx_ip += q->ip.get();
        out->tx_tcp += q->tcp.get();
        out->tx_udp += q->udp.get();
        out->tx_sctp += q->sctp.get();
        out->tx_outer_ip += q->outer_ip.get();
        out->tx_outer_udp += q->outer_udp.get();
        out->tx_to_hw += q->to_hw.get();
        out->tx_rejected += q->rejected.get();
        for (int e = 0; e < CSUM_TX_ERR_COUNT; ++e) out->tx_error[e] += q->error[e].get();
        out->tx_work_tsc += q->work_tsc.get();
    }
    rte_spinlock_unlock(&g_lock);
    return 0;
}

}  // extern "C"
