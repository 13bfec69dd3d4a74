#include "options.h"

#include "common/cli_number.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <rte_config.h>

namespace csumd {
namespace {

using csum_app::parse_uint;

std::optional<std::string> parse_seconds(std::string_view opt, std::string_view v, double* out) {
    double x = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || p != v.data() + v.size() || !(x >= 0) || x > 1e9)
        return std::string(opt) + ": expected a number of seconds >= 0, got '" + std::string(v) +
               "'";
    *out = x;
    return std::nullopt;
}

// "4789,8472": at most 8 ports, each 1..65535.
std::optional<std::string> parse_port_set(std::string_view opt, std::string_view v,
                                          csum::PortSet* out) {
    csum::PortSet set;
    while (!v.empty()) {
        const size_t comma = v.find(',');
        uint16_t p = 0;
        if (auto err = parse_uint(opt, v.substr(0, comma), 1, 65535, &p)) return err;
        if (!set.add(p)) return std::string(opt) + ": at most 8 ports";
        v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
    }
    *out = set;
    return std::nullopt;
}

std::optional<std::string> parse_id_list(std::string_view opt, std::string_view v,
                                         std::vector<uint16_t>* out) {
    out->clear();
    while (!v.empty()) {
        const size_t comma = v.find(',');
        uint16_t p = 0;
        if (auto err = parse_uint(opt, v.substr(0, comma), 0, RTE_MAX_ETHPORTS - 1, &p)) return err;
        out->push_back(p);
        v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
    }
    return std::nullopt;
}

}  // namespace

void print_usage(const char* prog) {
    std::printf(
        "usage: %s [EAL options] -- [options]\n"
        "  --duration SECONDS      stop after this long (default: run until SIGINT/SIGTERM)\n"
        "  --idle-exit SECONDS     stop after this long with no packets received\n"
        "  --stats-period SECONDS  print a progress line this often\n"
        "  --max-packets N         stop once N packets were received\n"
        "  --stats-json FILE       write final stats as JSON\n"
        "  --burst N               RX/TX burst size (1..512, default 32)\n"
        "  --burst-bytes N|auto    bursts of long packets cut to about N bytes, so that\n"
        "                          copied packets stay in L1 (auto: a third of L1d; 0: off)\n"
        "  --rxd N / --txd N       descriptors per queue (default 1024)\n"
        "  --mbufs N               mbufs in the pool (default 16383)\n"
        "  --mbuf-size N           data room per mbuf in bytes (default 2048)\n"
        "  --mode MODE             io | verify | fill | csum (default verify)\n"
        "  --trusted-ports LIST    ports whose packets skip verification, e.g. 0,1\n"
        "  --bad ACTION            forward | drop packets with bad checksums or malformed headers\n"
        "  --verdict-log FILE      one JSON object per received packet\n"
        "  --no-hw-offload         fill in software even where a port offers TX offload\n"
        "  --capture-bad FILE      write bad and malformed packets to a pcapng, reason as comment\n"
        "  --rxq N                 RX queues per port, RSS with a symmetric key (1)\n"
        "  --mtu N                 port MTU; above 1500 enables jumbo frames and scattered RX\n"
        "  --config FILE           INI file with [eal], [csumd] and [port N] sections\n"
        "  --vxlan-ports LIST      UDP ports carrying VXLAN (4789)\n"
        "  --geneve-ports LIST     UDP ports carrying GENEVE (6081)\n"
        "  --gre-udp-ports LIST    UDP ports carrying GRE-in-UDP (4754)\n"
        "  --sctp-udp-ports LIST   UDP ports carrying SCTP (9899)\n"
        "  --udp6-zero-ports LIST  UDP ports where a zero IPv6 checksum is legal (none)\n"
        "  --max-depth N           tunnel nesting cap (8)\n"
        "  --nvme-ports LIST       TCP ports carrying NVMe/TCP, digests checked/filled (4420); "
        "none: off\n"
        "  --nvme-flows N          NVMe/TCP connections tracked per lcore (4096), LRU-evicted\n"
        "  --nvme-idle SECONDS     forget an NVMe/TCP connection idle this long (0: never)\n"
        "  --nvme-max-plen N       larger PDU lengths are hostile (1 MiB + 256)\n"
        "  --help                  this text\n",
        prog);
}

namespace {
std::optional<bool> flag_value(std::string_view v) {
    if (v.empty() || v == "yes" || v == "true" || v == "on" || v == "1") return true;
    if (v == "no" || v == "false" || v == "off" || v == "0") return false;
    return std::nullopt;
}
}  // namespace

namespace {
// --name VALUE options: each parses its value into o, or says why not.
std::optional<std::string> set_value_option(std::string_view a, std::string_view val, Options* o) {
    std::optional<std::string> err;
    if (a == "--duration")
        err = parse_seconds(a, val, &o->duration_s);
    else if (a == "--idle-exit")
        err = parse_seconds(a, val, &o->idle_exit_s);
    else if (a == "--max-packets")
        err = parse_uint(a, val, 1, UINT64_MAX / 2, &o->max_packets);
    else if (a == "--stats-period")
        err = parse_seconds(a, val, &o->stats_period_s);
    else if (a == "--stats-json")
        o->stats_json = std::string(val);
    else if (a == "--burst")
        err = parse_uint(a, val, 1, Options::kMaxBurst, &o->burst);
    else if (a == "--burst-bytes") {
        o->burst_bytes_auto = val == "auto";
        if (!o->burst_bytes_auto) err = parse_uint(a, val, 0, 1u << 24, &o->burst_bytes);
    } else if (a == "--rxd")
        err = parse_uint(a, val, 32, 32768, &o->rx_desc);
    else if (a == "--txd")
        err = parse_uint(a, val, 32, 32768, &o->tx_desc);
    else if (a == "--mbufs")
        err = parse_uint(a, val, 1023, 1u << 24, &o->nb_mbufs);
    else if (a == "--mbuf-size")
        err = parse_uint(a, val, 256, 65535 - 128, &o->mbuf_size);
    else if (a == "--mode") {
        if (val == "io")
            o->engine.mode = csum::Mode::io;
        else if (val == "verify")
            o->engine.mode = csum::Mode::verify;
        else if (val == "fill")
            o->engine.mode = csum::Mode::fill;
        else if (val == "csum")
            o->engine.mode = csum::Mode::csum;
        else
            return "--mode: expected io, verify, fill or csum, got '" + std::string(val) + "'";
    } else if (a == "--bad") {
        if (val == "drop")
            o->drop_bad = true;
        else if (val == "forward")
            o->drop_bad = false;
        else
            return "--bad: expected drop or forward, got '" + std::string(val) + "'";
    } else if (a == "--trusted-ports")
        err = parse_id_list(a, val, &o->trusted_ports);
    else if (a == "--verdict-log")
        o->verdict_log = std::string(val);
    else if (a == "--capture-bad")
        o->capture_bad = std::string(val);
    else if (a == "--rxq")
        err = parse_uint(a, val, 1, 64, &o->rx_queues);
    else if (a == "--mtu")
        err = parse_uint(a, val, 68, 16000, &o->mtu);
    else if (a == "--vxlan-ports")
        err = parse_port_set(a, val, &o->engine.parser.vxlan_ports);
    else if (a == "--geneve-ports")
        err = parse_port_set(a, val, &o->engine.parser.geneve_ports);
    else if (a == "--gre-udp-ports")
        err = parse_port_set(a, val, &o->engine.parser.gre_udp_ports);
    else if (a == "--sctp-udp-ports")
        err = parse_port_set(a, val, &o->engine.parser.sctp_udp_ports);
    else if (a == "--udp6-zero-ports")
        err = parse_port_set(a, val, &o->engine.parser.udp6_zero_csum_ok);
    else if (a == "--nvme-ports" && val == "none")
        o->engine.parser.nvme_ports = csum::PortSet{};
    else if (a == "--nvme-ports")
        err = parse_port_set(a, val, &o->engine.parser.nvme_ports);
    else if (a == "--nvme-flows")
        err = parse_uint(a, val, 16, 1u << 22, &o->engine.nvme.capacity);
    else if (a == "--nvme-max-plen")
        err = parse_uint(a, val, 128, UINT32_MAX, &o->engine.nvme.max_plen);
    else if (a == "--nvme-idle")
        err = parse_seconds(a, val, &o->nvme_idle_s);
    else if (a == "--max-depth")
        err = parse_uint(a, val, 0, 32, &o->engine.parser.max_depth);
    else
        return "unknown option '" + std::string(a) + "' (see --help)";
    return err;
}
}  // namespace

std::optional<std::string> parse_options(int argc, char** argv, Options* o) {
    for (int i = 0; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--help" || a == "-h") {
            o->help = true;
            continue;
        }
        // A flag takes no value on the command line; as --flag=VALUE (how a
        // config file sets it) it takes yes/no/true/false/on/off/1/0, empty
        // meaning yes.
        if (a == "--no-hw-offload" || a.starts_with("--no-hw-offload=")) {
            const auto on = a.size() == 15 ? std::optional<bool>(true) : flag_value(a.substr(16));
            if (!on)
                return "--no-hw-offload: expected yes, no, true, false, on, off, 1 or 0, got '" +
                       std::string(a.substr(16)) + "'";
            o->hw_offload = !*on;
            continue;
        }
        std::string_view val;
        if (auto eq = a.find('='); eq != std::string_view::npos && a.starts_with("--")) {
            val = a.substr(eq + 1);
            a = a.substr(0, eq);
        } else if (a.starts_with("--")) {
            if (i + 1 >= argc) return std::string(a) + ": missing value";
            val = argv[++i];
        } else {
            return "unexpected argument '" + std::string(a) + "' (csumd options start with --)";
        }
        if (auto err = set_value_option(a, val, o)) return err;
    }
    return std::nullopt;
}

}  // namespace csumd
