// libcsum_offload.so: checksum offload in software for unmodified DPDK
// applications, loaded with LD_PRELOAD.
//
// It interposes on ethdev's exported functions (every call goes through the
// PLT, ethdev's own rte_eth_dev_configure -> rte_eth_dev_info_get included):
//  - rte_eth_dev_info_get advertises the checksum offloads a port lacks;
//  - rte_eth_dev_configure and the queue setups take those offloads out
//    before the real call, and remember what the application asked for;
//  - rte_eth_dev_start / rte_eth_dev_stop attach and detach (csum_port_attach).
// CSUM_OFFLOAD chooses ports and features, e.g.
//   CSUM_OFFLOAD="ports=0,1;rx=on;tx=ip,tcp,udp,sctp,outer-ip,outer-udp;nvme=4420"
// (default: every port, rx=on, every TX kind, no NVMe/TCP).
#include <dlfcn.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include <rte_ethdev.h>
#include <rte_log.h>

#include "csum/csum.h"

#define SHIM_API extern "C" __attribute__((visibility("default")))

namespace {

constexpr uint64_t kRxEmulable = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
                                 RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_SCTP_CKSUM |
                                 RTE_ETH_RX_OFFLOAD_OUTER_IPV4_CKSUM |
                                 RTE_ETH_RX_OFFLOAD_OUTER_UDP_CKSUM;

struct Settings {
    bool all_ports = true;
    bool port[RTE_MAX_ETHPORTS] = {};
    bool rx = true;
    uint64_t tx = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
                  RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_SCTP_CKSUM |
                  RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM;
    uint16_t nvme_port = 0;  // 0: off
    std::string error;       // a bad CSUM_OFFLOAD, reported once the log works
    bool selected(uint16_t p) const { return p < RTE_MAX_ETHPORTS && (all_ports || port[p]); }
};

struct PortState {
    bool known = false;                   // real capabilities read
    uint64_t real_rx = 0, real_tx;        // what the PMD offers
    uint64_t asked_rx = 0, asked_tx = 0;  // emulated offloads the application enabled
};

Settings g_set;
PortState g_port[RTE_MAX_ETHPORTS];
std::once_flag g_once;
int g_logtype = RTE_LOGTYPE_USER1;

#define SHIM_LOG(level, fmt, ...) \
    rte_log(RTE_LOG_##level, g_logtype, "csum_offload: " fmt "\n", ##__VA_ARGS__)

template <typename F>
F real(const char* name) {
    void* p = dlsym(RTLD_NEXT, name);
    if (p == nullptr) {
        std::fprintf(stderr, "csum_offload: no next definition of %s: %s\n", name, dlerror());
        std::abort();  // cannot run the application without the real ethdev
    }
    return reinterpret_cast<F>(p);
}

uint64_t tx_kind(const std::string& k) {
    if (k == "ip") return RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
    if (k == "tcp") return RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
    if (k == "udp") return RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
    if (k == "sctp") return RTE_ETH_TX_OFFLOAD_SCTP_CKSUM;
    if (k == "outer-ip") return RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM;
    if (k == "outer-udp") return RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM;
    return 0;
}

// Splits s at sep, calling f on each non-empty piece; stops at f's false.
template <typename F>
bool split(const std::string& s, char sep, F f) {
    size_t b = 0;
    while (b <= s.size()) {
        size_t e = s.find(sep, b);
        if (e == std::string::npos) e = s.size();
        if (e > b && !f(s.substr(b, e - b))) return false;
        b = e + 1;
    }
    return true;
}

bool parse_u16(const std::string& s, uint16_t* out) {
    if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos)
        return false;
    const unsigned long v = std::strtoul(s.c_str(), nullptr, 10);
    if (v > 65535) return false;
    *out = static_cast<uint16_t>(v);
    return true;
}

void parse_settings() {
    const char* env = std::getenv("CSUM_OFFLOAD");
    if (env == nullptr) return;
    Settings s;
    const bool ok = split(env, ';', [&](const std::string& kv) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos) return (s.error = "'" + kv + "' is not key=value", false);
        const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
        if (k == "ports") {
            if (v == "all") return true;
            s.all_ports = false;
            return split(v, ',', [&](const std::string& p) {
                uint16_t id;
                if (!parse_u16(p, &id) || id >= RTE_MAX_ETHPORTS)
                    return (s.error = "bad port '" + p + "'", false);
                s.port[id] = true;
                return true;
            });
        }
        if (k == "rx") {
            if (v != "on" && v != "off") return (s.error = "rx must be on or off", false);
            s.rx = v == "on";
            return true;
        }
        if (k == "tx") {
            s.tx = 0;
            if (v == "off" || v == "none") return true;
            return split(v, ',', [&](const std::string& t) {
                const uint64_t bit = tx_kind(t);
                if (bit == 0)
                    return (s.error = "unknown tx kind '" + t +
                                      "' (ip, tcp, udp, sctp, outer-ip, outer-udp)",
                            false);
                s.tx |= bit;
                return true;
            });
        }
        if (k == "nvme") {
            if (v == "off") return true;
            if (!parse_u16(v, &s.nvme_port) || s.nvme_port == 0)
                return (s.error = "bad nvme port '" + v + "'", false);
            return true;
        }
        return (s.error = "unknown key '" + k + "' (ports, rx, tx, nvme)", false);
    });
    if (ok) {
        g_set = s;
    } else {
        // Emulate nothing rather than something the user did not ask for.
        g_set = Settings{};
        g_set.all_ports = false;
        g_set.error = s.error;
    }
}

void init() {
    std::call_once(g_once, [] {
        parse_settings();
        const int t = rte_log_register_type_and_pick_level("csum.offload", RTE_LOG_INFO);
        if (t >= 0) g_logtype = t;
        if (!g_set.error.empty())
            SHIM_LOG(ERR, "CSUM_OFFLOAD: %s; emulating nothing", g_set.error.c_str());
    });
}

std::string tx_names(uint64_t bits) {
    std::string out;
    for (const char* k : {"ip", "tcp", "udp", "sctp", "outer-ip", "outer-udp"})
        if (bits & tx_kind(k)) {
            if (!out.empty()) out += ',';
            out += k;
        }
    return out.empty() ? "none" : out;
}

using InfoGet = int (*)(uint16_t, rte_eth_dev_info*);

// The port's real capabilities, read once through the real function.
PortState* port_state(uint16_t port) {
    if (!g_set.selected(port)) return nullptr;
    PortState& ps = g_port[port];
    if (!ps.known) {
        static const InfoGet real_get = real<InfoGet>("rte_eth_dev_info_get");
        rte_eth_dev_info info{};
        if (real_get(port, &info) != 0) return nullptr;
        ps.real_rx = info.rx_offload_capa;
        ps.real_tx = info.tx_offload_capa;
        ps.known = true;
    }
    return &ps;
}

// What the shim emulates on a port: asked for, and missing in the PMD.
uint64_t emulated_tx(const PortState& ps) {
    return g_set.tx & ~ps.real_tx;
}
uint64_t emulated_rx(const PortState& ps) {
    return g_set.rx ? kRxEmulable & ~ps.real_rx : 0;
}

}  // namespace

SHIM_API int rte_eth_dev_info_get(uint16_t port, rte_eth_dev_info* info) {
    static const InfoGet real_get = real<InfoGet>("rte_eth_dev_info_get");
    init();
    const int rc = real_get(port, info);
    if (rc != 0) return rc;
    if (PortState* ps = port_state(port)) {
        info->tx_offload_capa |= emulated_tx(*ps);
        info->rx_offload_capa |= emulated_rx(*ps);
    }
    return rc;
}

SHIM_API int rte_eth_dev_configure(uint16_t port, uint16_t nb_rx, uint16_t nb_tx,
                                   const rte_eth_conf* conf) {
    using Fn = int (*)(uint16_t, uint16_t, uint16_t, const rte_eth_conf*);
    static const Fn real_fn = real<Fn>("rte_eth_dev_configure");
    init();
    PortState* ps = conf ? port_state(port) : nullptr;
    if (ps == nullptr) return real_fn(port, nb_rx, nb_tx, conf);
    rte_eth_conf c = *conf;
    ps->asked_tx = c.txmode.offloads & emulated_tx(*ps);
    ps->asked_rx = c.rxmode.offloads & emulated_rx(*ps);
    c.txmode.offloads &= ~emulated_tx(*ps);
    c.rxmode.offloads &= ~emulated_rx(*ps);
    const int rc = real_fn(port, nb_rx, nb_tx, &c);
    if (rc == 0 && (ps->asked_tx || ps->asked_rx))
        SHIM_LOG(INFO, "port %u: emulating TX checksum %s%s (taken out of configure)", port,
                 tx_names(ps->asked_tx).c_str(), ps->asked_rx ? ", RX checksum" : "");
    return rc;
}

SHIM_API int rte_eth_rx_queue_setup(uint16_t port, uint16_t q, uint16_t nb_desc, unsigned socket,
                                    const rte_eth_rxconf* conf, rte_mempool* mp) {
    using Fn = int (*)(uint16_t, uint16_t, uint16_t, unsigned, const rte_eth_rxconf*, rte_mempool*);
    static const Fn real_fn = real<Fn>("rte_eth_rx_queue_setup");
    init();
    PortState* ps = conf ? port_state(port) : nullptr;
    if (ps == nullptr) return real_fn(port, q, nb_desc, socket, conf, mp);
    rte_eth_rxconf c = *conf;
    ps->asked_rx |= c.offloads & emulated_rx(*ps);
    c.offloads &= ~emulated_rx(*ps);
    return real_fn(port, q, nb_desc, socket, &c, mp);
}

SHIM_API int rte_eth_tx_queue_setup(uint16_t port, uint16_t q, uint16_t nb_desc, unsigned socket,
                                    const rte_eth_txconf* conf) {
    using Fn = int (*)(uint16_t, uint16_t, uint16_t, unsigned, const rte_eth_txconf*);
    static const Fn real_fn = real<Fn>("rte_eth_tx_queue_setup");
    init();
    PortState* ps = conf ? port_state(port) : nullptr;
    if (ps == nullptr) return real_fn(port, q, nb_desc, socket, conf);
    rte_eth_txconf c = *conf;
    ps->asked_tx |= c.offloads & emulated_tx(*ps);
    c.offloads &= ~emulated_tx(*ps);
    return real_fn(port, q, nb_desc, socket, &c);
}

SHIM_API int rte_eth_dev_start(uint16_t port) {
    using Fn = int (*)(uint16_t);
    static const Fn real_fn = real<Fn>("rte_eth_dev_start");
    init();
    const int rc = real_fn(port);
    PortState* ps = port_state(port);
    if (rc != 0 || ps == nullptr) return rc;
    if (csum_port_attached(port)) csum_port_detach(port);
    csum_port_opts o;
    csum_port_opts_init(&o);
    o.rx = g_set.rx;
    o.tx_offloads = ps->asked_tx;
    o.nvme = g_set.nvme_port != 0;
    o.nvme_port = g_set.nvme_port;
    if (!o.rx && o.tx_offloads == 0) return rc;
    const int a = csum_port_attach(port, &o);
    if (a != 0)
        SHIM_LOG(ERR, "port %u: attach failed: %s", port, std::strerror(-a));
    else
        SHIM_LOG(INFO, "port %u: software checksum offload attached (rx %s, tx %s%s)", port,
                 o.rx ? "verify" : "off", tx_names(o.tx_offloads).c_str(),
                 o.nvme ? ", NVMe/TCP digests" : "");
    return rc;
}

SHIM_API int rte_eth_dev_stop(uint16_t port) {
    using Fn = int (*)(uint16_t);
    static const Fn real_fn = real<Fn>("rte_eth_dev_stop");
    init();
    if (csum_port_attached(port)) {
        csum_port_stats st;
        if (csum_port_stats_get(port, &st) == 0) {
            auto per = [](uint64_t t, uint64_t n) { return n ? double(t) / double(n) : 0.0; };
            SHIM_LOG(INFO,
                     "port %u: rx %" PRIu64 " verified (ip bad %" PRIu64 ", l4 bad %" PRIu64
                     "), tx %" PRIu64 " seen: ip %" PRIu64 " tcp %" PRIu64 " udp %" PRIu64
                     " sctp %" PRIu64 " outer-ip %" PRIu64 " outer-udp %" PRIu64 " filled, %" PRIu64
                     " refused; TSC ticks per packet: rx %.1f, tx %.1f",
                     port, st.rx_packets, st.rx_ip_bad, st.rx_l4_bad, st.tx_packets, st.tx_ip,
                     st.tx_tcp, st.tx_udp, st.tx_sctp, st.tx_outer_ip, st.tx_outer_udp,
                     st.tx_rejected, per(st.rx_work_tsc, st.rx_packets),
                     per(st.tx_work_tsc, st.tx_packets));
            for (int e = 0; e < CSUM_TX_ERR_COUNT; ++e)
                if (st.tx_error[e])
                    SHIM_LOG(WARNING, "port %u: %" PRIu64 " TX request(s) refused: %s", port,
                             st.tx_error[e], csum_tx_error_name(e));
        }
        csum_port_detach(port);  // the application stopped polling before stopping the port
    }
    return real_fn(port);
}
