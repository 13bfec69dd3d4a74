#include "options.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace csumd {
namespace {

template <typename T>
std::optional<std::string> parse_uint(std::string_view opt, std::string_view v, T lo, T hi, T* out) {
    uint64_t x = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || p != v.data() + v.size() || x < lo || x > hi)
        return std::string(opt) + ": expected an integer in [" + std::to_string(lo) + ", " +
               std::to_string(hi) + "], got '" + std::string(v) + "'";
    *out = static_cast<T>(x);
    return std::nullopt;
}

std::optional<std::string> parse_seconds(std::string_view opt, std::string_view v, double* out) {
    double x = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || p != v.data() + v.size() || !(x >= 0) || x > 1e9)
        return std::string(opt) + ": expected a number of seconds >= 0, got '" + std::string(v) + "'";
    *out = x;
    return std::nullopt;
}

}  // namespace

void print_usage(const char* prog) {
    std::printf(
        "usage: %s [EAL options] -- [options]\n"
        "  --duration SECONDS      stop after this long (default: run until SIGINT/SIGTERM)\n"
        "  --idle-exit SECONDS     stop after this long with no packets received\n"
        "  --stats-period SECONDS  print a progress line this often\n"
        "  --stats-json FILE       write final stats as JSON\n"
        "  --burst N               RX/TX burst size (1..512, default 32)\n"
        "  --rxd N / --txd N       descriptors per queue (default 1024)\n"
        "  --mbufs N               mbufs in the pool (default 16383)\n"
        "  --mbuf-size N           data room per mbuf in bytes (default 2048)\n"
        "  --help                  this text\n",
        prog);
}

std::optional<std::string> parse_options(int argc, char** argv, Options* o) {
    for (int i = 0; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--help" || a == "-h") {
            print_usage("csumd");
            std::exit(0);
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
        std::optional<std::string> err;
        if (a == "--duration") err = parse_seconds(a, val, &o->duration_s);
        else if (a == "--idle-exit") err = parse_seconds(a, val, &o->idle_exit_s);
        else if (a == "--stats-period") err = parse_seconds(a, val, &o->stats_period_s);
        else if (a == "--stats-json") o->stats_json = std::string(val);
        else if (a == "--burst") err = parse_uint<uint16_t>(a, val, 1, 512, &o->burst);
        else if (a == "--rxd") err = parse_uint<uint16_t>(a, val, 32, 32768, &o->rx_desc);
        else if (a == "--txd") err = parse_uint<uint16_t>(a, val, 32, 32768, &o->tx_desc);
        else if (a == "--mbufs") err = parse_uint<uint32_t>(a, val, 1023, 1u << 24, &o->nb_mbufs);
        else if (a == "--mbuf-size") err = parse_uint<uint16_t>(a, val, 256, 65535 - 128, &o->mbuf_size);
        else return "unknown option '" + std::string(a) + "' (see --help)";
        if (err) return err;
    }
    return std::nullopt;
}

}  // namespace csumd
