#include "ports.h"

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

namespace csumd {

std::vector<uint16_t> pair_ports(const std::vector<uint16_t>& ports) {
    std::vector<uint16_t> peer(ports.size());
    for (size_t i = 0; i < ports.size(); ++i) {
        size_t j = (i % 2 == 0) ? i + 1 : i - 1;
        peer[i] = ports[j < ports.size() ? j : i];
    }
    return peer;
}

static std::string port_err(uint16_t port, const char* what, int rc) {
    return "port " + std::to_string(port) + ": " + what + " failed: " + rte_strerror(-rc);
}

std::optional<std::string> open_ports(const Options& opt, unsigned workers, PortPlan* plan) {
    uint16_t pid;
    RTE_ETH_FOREACH_DEV(pid) plan->ports.push_back(pid);
    if (plan->ports.empty())
        return std::string("no ports: give the EAL a --vdev (e.g. --vdev net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap)");
    plan->peer = pair_ports(plan->ports);
    for (uint16_t t : opt.trusted_ports)
        if (!rte_eth_dev_is_valid_port(t))
            return "--trusted-ports: port " + std::to_string(t) + " does not exist (" +
                   std::to_string(plan->ports.size()) + " port(s))";
    plan->tx_queues = static_cast<uint16_t>(workers);

    const unsigned cache = opt.nb_mbufs >= 4096 ? 256 : 32;
    plan->pool = rte_pktmbuf_pool_create("csumd_pool", opt.nb_mbufs, cache, 0,
                                         static_cast<uint16_t>(opt.mbuf_size + RTE_PKTMBUF_HEADROOM),
                                         static_cast<int>(rte_socket_id()));
    if (plan->pool == nullptr)
        return std::string("mbuf pool of ") + std::to_string(opt.nb_mbufs) +
               " failed: " + rte_strerror(rte_errno);

    for (uint16_t port : plan->ports) {
        rte_eth_dev_info info{};
        int rc = rte_eth_dev_info_get(port, &info);
        if (rc != 0) return port_err(port, "dev_info_get", rc);
        if (plan->tx_queues > info.max_tx_queues)
            return "port " + std::to_string(port) + ": needs " + std::to_string(plan->tx_queues) +
                   " TX queues (one per worker lcore), driver offers " + std::to_string(info.max_tx_queues);
        rte_eth_conf conf{};
        // Checksum offloads are decided once per port: what it offers, if filling.
        constexpr uint64_t kTxCsum = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
                                     RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_SCTP_CKSUM;
        const bool fills = opt.engine.mode == csum::Mode::fill || opt.engine.mode == csum::Mode::csum;
        csum::TxPortPolicy txp;
        if (fills && opt.hw_offload) txp.offloads = info.tx_offload_capa & kTxCsum;
        conf.txmode.offloads |= txp.offloads;
        plan->tx_policy.push_back(txp);
        plan->tx_capa.push_back(info.tx_offload_capa);
        conf.rxmode.offloads |= info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_CHECKSUM;
        csum::RxPortPolicy rxp;
        rxp.drop_bad = opt.drop_bad;
        for (uint16_t t : opt.trusted_ports) rxp.trusted |= (t == port);
        plan->rx_policy.push_back(rxp);
        if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
            conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
        if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
            conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
        rc = rte_eth_dev_configure(port, 1, plan->tx_queues, &conf);
        if (rc != 0) return port_err(port, "configure", rc);
        uint16_t rxd = opt.rx_desc, txd = opt.tx_desc;
        rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd);
        if (rc != 0) return port_err(port, "adjust descriptors", rc);
        const int socket = rte_eth_dev_socket_id(port);
        rte_eth_rxconf rxconf = info.default_rxconf;
        rxconf.offloads = conf.rxmode.offloads;
        rc = rte_eth_rx_queue_setup(port, 0, rxd, socket, &rxconf, plan->pool);
        if (rc != 0) return port_err(port, "rx queue setup", rc);
        rte_eth_txconf txconf = info.default_txconf;
        txconf.offloads = conf.txmode.offloads;
        for (uint16_t q = 0; q < plan->tx_queues; ++q) {
            rc = rte_eth_tx_queue_setup(port, q, txd, socket, &txconf);
            if (rc != 0) return port_err(port, "tx queue setup", rc);
        }
        rc = rte_eth_dev_start(port);
        if (rc != 0) return port_err(port, "start", rc);
        rte_eth_promiscuous_enable(port);  // vdevs may refuse; harmless
    }
    return std::nullopt;
}

void close_ports(const PortPlan& plan) {
    for (uint16_t port : plan.ports) {
        rte_eth_dev_stop(port);
        rte_eth_dev_close(port);  // net_pcap flushes its tx_pcap here
    }
}

}  // namespace csumd
