#include "ports.h"

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "common/mbuf_pool.h"
#include "log.h"

namespace csumd {
namespace {

// Symmetric RSS: a repeating 0x6D5A key hashes both directions of a flow
// alike, so a connection and its reverse land on the same queue and lcore.
uint8_t kSymmetricRssKey[40] = {0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A,
                                0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A,
                                0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A,
                                0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A, 0x6D, 0x5A};

constexpr uint64_t kTxCsum = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
                             RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_SCTP_CKSUM;

std::string port_err(uint16_t port, const char* what, int rc) {
    return "port " + std::to_string(port) + ": " + what + " failed: " + rte_strerror(-rc);
}

int on_link_change(uint16_t port, rte_eth_event_type, void* arg, void*) {
    auto* plan = static_cast<PortPlan*>(arg);
    if (PortState* p = plan->find(port)) p->link_changes.add();
    rte_eth_link link{};
    rte_eth_link_get_nowait(port, &link);
    CSUMD_LOG(INFO, "port %u link %s, %u Mbps", port, link.link_status ? "up" : "down",
              link.link_speed);
    return 0;
}

// Applies the global options, then the port's [port N] section.
void decide_policy(const Options& opt, const ConfigFile& cfg, PortState* p) {
    p->rx_policy.drop_bad = opt.drop_bad;
    p->bad = opt.drop_bad ? BadAction::drop : BadAction::forward;
    for (uint16_t t : opt.trusted_ports) p->rx_policy.trusted |= (t == p->id);
    bool hw = opt.hw_offload;
    if (auto it = cfg.ports.find(p->id); it != cfg.ports.end()) {
        const PortConfig& pc = it->second;
        if (pc.trusted) p->rx_policy.trusted = *pc.trusted;
        if (pc.bad) p->bad = *pc.bad, p->rx_policy.drop_bad = *pc.bad != BadAction::forward;
        if (pc.verify_mask) p->rx_policy.verify_mask = *pc.verify_mask;
        if (pc.hw_offload) hw = *pc.hw_offload;
        if (pc.peer) p->peer = *pc.peer;
    }
    const bool fills = opt.engine.mode == csum::Mode::fill || opt.engine.mode == csum::Mode::csum;
    if (fills && hw) p->tx_policy.offloads = p->tx_capa & kTxCsum;
}

std::optional<std::string> start_port(const Options& opt, PortPlan* plan, PortState* p) {
    const uint16_t port = p->id;
    rte_eth_dev_info info{};
    int rc = rte_eth_dev_info_get(port, &info);
    if (rc != 0) return port_err(port, "dev_info_get", rc);
    if (plan->tx_queues > info.max_tx_queues || plan->rx_queues > info.max_rx_queues)
        return "port " + std::to_string(port) + " (" + p->driver + "): needs " +
               std::to_string(plan->rx_queues) + " RX and " + std::to_string(plan->tx_queues) +
               " TX queues, driver offers " + std::to_string(info.max_rx_queues) + " and " +
               std::to_string(info.max_tx_queues);
    rte_eth_conf conf{};
    conf.txmode.offloads = p->tx_policy.offloads;
    if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
        conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
    // RX checksum flags are free information; UNKNOWN is never taken as good.
    conf.rxmode.offloads = info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_CHECKSUM;
    if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
        conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
    if (opt.mtu != 0) {
        if (opt.mtu > info.max_mtu)
            return "port " + std::to_string(port) + ": --mtu " + std::to_string(opt.mtu) +
                   " above the driver's " + std::to_string(info.max_mtu);
        conf.rxmode.mtu = opt.mtu;
    }
    if (plan->rx_queues > 1 && info.flow_type_rss_offloads != 0) {
        conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
        conf.rx_adv_conf.rss_conf.rss_key = kSymmetricRssKey;
        conf.rx_adv_conf.rss_conf.rss_key_len = sizeof kSymmetricRssKey;
        conf.rx_adv_conf.rss_conf.rss_hf =
            (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_SCTP) &
            info.flow_type_rss_offloads;
    }
    if (*info.dev_flags & RTE_ETH_DEV_INTR_LSC) {
        conf.intr_conf.lsc = 1;
        p->lsc_events = true;
    }
    rc = rte_eth_dev_configure(port, plan->rx_queues, plan->tx_queues, &conf);
    if (rc != 0) return port_err(port, "configure", rc);
    uint16_t rxd = opt.rx_desc, txd = opt.tx_desc;
    rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd);
    if (rc != 0) return port_err(port, "adjust descriptors", rc);
    const int socket = rte_eth_dev_socket_id(port);
    rte_eth_rxconf rxconf = info.default_rxconf;
    rxconf.offloads = conf.rxmode.offloads;
    for (uint16_t q = 0; q < plan->rx_queues; ++q) {
        rc = rte_eth_rx_queue_setup(port, q, rxd, socket, &rxconf, plan->pool);
        if (rc != 0) return port_err(port, "rx queue setup", rc);
    }
    rte_eth_txconf txconf = info.default_txconf;
    txconf.offloads = conf.txmode.offloads;
    for (uint16_t q = 0; q < plan->tx_queues; ++q) {
        rc = rte_eth_tx_queue_setup(port, q, txd, socket, &txconf);
        if (rc != 0) return port_err(port, "tx queue setup", rc);
    }
    if (p->lsc_events)
        rte_eth_dev_callback_register(port, RTE_ETH_EVENT_INTR_LSC, on_link_change, plan);
    rc = rte_eth_dev_start(port);
    if (rc != 0) return port_err(port, "start", rc);
    p->started = true;
    rte_eth_promiscuous_enable(port);  // vdevs may refuse; harmless
    return std::nullopt;
}

}  // namespace

std::vector<uint16_t> pair_ports(const std::vector<uint16_t>& ports) {
    std::vector<uint16_t> peer(ports.size());
    for (size_t i = 0; i < ports.size(); ++i) {
        size_t j = (i % 2 == 0) ? i + 1 : i - 1;
        peer[i] = ports[j < ports.size() ? j : i];
    }
    return peer;
}

std::optional<std::string> open_ports(const Options& opt, const ConfigFile& cfg, unsigned workers,
                                      PortPlan* plan) {
    std::vector<uint16_t> ids;
    uint16_t pid;
    RTE_ETH_FOREACH_DEV(pid) ids.push_back(pid);
    if (ids.empty())
        return std::string(
            "no ports: give the EAL a --vdev (e.g. --vdev "
            "net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap)");
    for (uint16_t t : opt.trusted_ports)
        if (!rte_eth_dev_is_valid_port(t))
            return "--trusted-ports: port " + std::to_string(t) + " does not exist (" +
                   std::to_string(ids.size()) + " port(s))";
    for (const auto& [id, pc] : cfg.ports) {
        if (!rte_eth_dev_is_valid_port(id))
            return pc.where + ": [port " + std::to_string(id) + "]: no such port (" +
                   std::to_string(ids.size()) + " port(s))";
        if (pc.peer && !rte_eth_dev_is_valid_port(*pc.peer))
            return pc.where + ": [port " + std::to_string(id) + "] peer: no such port " +
                   std::to_string(*pc.peer);
    }
    const auto peers = pair_ports(ids);
    plan->rx_queues = opt.rx_queues;
    plan->tx_queues = static_cast<uint16_t>(workers);

    const unsigned cache = opt.nb_mbufs >= 4096 ? 256 : 32;
    plan->pool =
        csum::app::mbuf_pool_create("csumd_pool", opt.nb_mbufs, cache,
                                    static_cast<uint16_t>(opt.mbuf_size + RTE_PKTMBUF_HEADROOM),
                                    static_cast<int>(rte_socket_id()));
    if (plan->pool == nullptr)
        return "mbuf pool of " + std::to_string(opt.nb_mbufs) +
               " failed: " + rte_strerror(rte_errno);

    for (size_t i = 0; i < ids.size(); ++i) {
        auto p = std::make_unique<PortState>();
        p->id = ids[i];
        p->peer = peers[i];
        rte_eth_dev_info info{};
        if (int rc = rte_eth_dev_info_get(p->id, &info); rc != 0)
            return port_err(p->id, "dev_info_get", rc);
        p->driver = info.driver_name ? info.driver_name : "?";
        p->tx_capa = info.tx_offload_capa;
        p->rx_capa = info.rx_offload_capa;
        decide_policy(opt, cfg, p.get());
        plan->ports.push_back(std::move(p));
    }
    for (auto& p : plan->ports)
        if (auto err = start_port(opt, plan, p.get())) return err;
    return std::nullopt;
}

void close_ports(const PortPlan& plan) {
    for (const auto& p : plan.ports) {
        if (p->lsc_events)
            rte_eth_dev_callback_unregister(p->id, RTE_ETH_EVENT_INTR_LSC, on_link_change,
                                            const_cast<PortPlan*>(&plan));
        if (p->started) rte_eth_dev_stop(p->id);
        rte_eth_dev_close(p->id);  // net_pcap flushes its tx_pcap here
    }
}

}  // namespace csumd
