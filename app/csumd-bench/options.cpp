#include "options.h"

#include "common/cli_number.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace bench {
namespace {

std::vector<std::string_view> split(std::string_view v) {
    std::vector<std::string_view> out;
    while (!v.empty()) {
        const size_t c = v.find(',');
        out.push_back(v.substr(0, c));
        v = c == std::string_view::npos ? std::string_view{} : v.substr(c + 1);
    }
    return out;
}

using csum_app::parse_uint;

// Checks each list item with a throwaway profile so errors surface before EAL start-up.
template <typename Check>
std::optional<std::string> parse_list(std::string_view opt, std::string_view v,
                                      std::vector<std::string>* out, Check ok) {
    out->clear();
    for (auto item : split(v)) {
        csum::gen::Profile p;
        if (!ok(item, &p)) return std::string(opt) + ": bad value '" + std::string(item) + "'";
        out->emplace_back(item);
    }
    return out->empty() ? std::optional<std::string>(std::string(opt) + ": empty list")
                        : std::nullopt;
}

std::optional<std::string> parse_modes(std::string_view v, std::vector<csum::Mode>* out) {
    out->clear();
    for (auto m : split(v)) {
        if (m == "io")
            out->push_back(csum::Mode::io);
        else if (m == "verify")
            out->push_back(csum::Mode::verify);
        else if (m == "fill")
            out->push_back(csum::Mode::fill);
        else if (m == "csum")
            out->push_back(csum::Mode::csum);
        else
            return "--mode: expected io, verify, fill or csum, got '" + std::string(m) + "'";
    }
    return out->empty() ? std::optional<std::string>("--mode: empty list") : std::nullopt;
}

std::optional<std::string> parse_protos(std::string_view v, std::vector<csum::gen::Traffic>* out) {
    out->clear();
    for (auto s : split(v)) {
        csum::gen::Traffic t{};
        if (!csum::gen::traffic_from_name(s, &t))
            return "--proto: expected tcp4, udp4, tcp6, udp6, sctp4, nvme-c2h, vxlan-tcp4, "
                   "geneve-tcp4 or vxlan6-tcp4, got '" +
                   std::string(s) + "'";
        out->push_back(t);
    }
    return out->empty() ? std::optional<std::string>("--proto: empty list") : std::nullopt;
}

}  // namespace

void print_usage() {
    std::printf(
        "usage: csumd-bench [EAL options --] [options]\n"
        "Builds traffic once, replays it through csum::Engine on each lcore, and reports\n"
        "Mpps, Gbit/s and TSC ticks per packet (median of runs, with min/max and IQR).\n"
        "Lists (a,b,c) sweep every combination.\n"
        "  --proto LIST      tcp4 udp4 tcp6 udp6 sctp4 nvme-c2h vxlan-tcp4 geneve-tcp4 vxlan6-tcp4 "
        "(tcp4)\n"
        "  --size LIST       frame bytes without FCS (60..16384) or imix = 7x64,4x570,1x1518 (64)\n"
        "  --seg LIST        linear | 2seg | many[=BYTES] (256-byte segments) (linear)\n"
        "  --csum LIST       correct | zeroed | corrupt=FRACTION | partial (correct)\n"
        "  --mode LIST       io | verify | fill | csum (verify); io skips the engine\n"
        "  --chunks N        SCTP DATA chunks per packet (1)\n"
        "  --flows N         flows (addresses/ports) in the pool (1)\n"
        "  --nvme-pdu BYTES  nvme-c2h: data bytes per C2HData PDU (131072)\n"
        "  --nvme-mss BYTES  nvme-c2h: TCP payload per segment (1448)\n"
        "  --pool N          frames built and replayed (1024)\n"
        "  --burst N         packets per Engine::process call (32)\n"
        "  --warmup-ms MS    untimed warm-up per measurement (200)\n"
        "  --runs N          timed runs per measurement (5)\n"
        "  --run-ms MS       length of one run (500)\n"
        "  --quick           --runs 3 --run-ms 100 --warmup-ms 50\n"
        "  --json FILE       results as JSON\n"
        "  --csv FILE        results as CSV\n"
        "  --write-pcap FILE write the first profile's frames as a pcap and exit (no EAL)\n"
        "  --quiet           no table on stdout\n");
}

std::optional<std::string> parse_options(int argc, char** argv, Options* o) {
    using csum::gen::Profile;
    for (int i = 0; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--help" || a == "-h") print_usage(), std::exit(0);
        if (a == "--quick") {
            o->runs = 3, o->run_ms = 100, o->warmup_ms = 50;
            continue;
        }
        if (a == "--quiet") {
            o->quiet = true;
            continue;
        }
        std::string_view val;
        if (auto eq = a.find('='); eq != std::string_view::npos && a.starts_with("--")) {
            val = a.substr(eq + 1), a = a.substr(0, eq);
        } else if (a.starts_with("--") && i + 1 < argc) {
            val = argv[++i];
        } else {
            return "bad argument '" + std::string(a) + "' (see --help)";
        }
        std::optional<std::string> err;
        if (a == "--proto")
            err = parse_protos(val, &o->protos);
        else if (a == "--size")
            err = parse_list(a, val, &o->sizes,
                             [](auto s, Profile* p) { return csum::gen::parse_size(s, p); });
        else if (a == "--seg")
            err = parse_list(a, val, &o->segs, [](auto s, Profile* p) {
                return csum::gen::parse_segmentation(s, p);
            });
        else if (a == "--csum")
            err = parse_list(a, val, &o->csums,
                             [](auto s, Profile* p) { return csum::gen::parse_csum_state(s, p); });
        else if (a == "--mode")
            err = parse_modes(val, &o->modes);
        else if (a == "--chunks")
            err = parse_uint(a, val, 1, 64, &o->sctp_chunks);
        else if (a == "--flows")
            err = parse_uint(a, val, 1, 1u << 20, &o->flows);
        else if (a == "--nvme-pdu")
            err = parse_uint(a, val, 4, 1u << 24, &o->nvme_pdu);
        else if (a == "--nvme-mss")
            err = parse_uint(a, val, 64, 9000, &o->nvme_mss);
        else if (a == "--pool")
            err = parse_uint(a, val, 64, 1u << 20, &o->pool);
        else if (a == "--burst")
            err = parse_uint(a, val, 1, 512, &o->burst);
        else if (a == "--warmup-ms")
            err = parse_uint(a, val, 0, 600000, &o->warmup_ms);
        else if (a == "--runs")
            err = parse_uint(a, val, 1, 1000, &o->runs);
        else if (a == "--run-ms")
            err = parse_uint(a, val, 1, 600000, &o->run_ms);
        else if (a == "--json")
            o->json = std::string(val);
        else if (a == "--csv")
            o->csv = std::string(val);
        else if (a == "--write-pcap")
            o->write_pcap = std::string(val);
        else
            return "unknown option '" + std::string(a) + "' (see --help)";
        if (err) return err;
    }
    if (o->pool < o->burst) return "--pool must be at least --burst";
    return std::nullopt;
}

std::vector<csum::gen::Profile> profiles_of(const Options& o) {
    std::vector<csum::gen::Profile> out;
    for (auto t : o.protos)
        for (const auto& size : o.sizes)
            for (const auto& seg : o.segs)
                for (const auto& cs : o.csums) {
                    csum::gen::Profile p;
                    p.traffic = t, p.sctp_chunks = o.sctp_chunks, p.flows = o.flows;
                    p.nvme_pdu_data = o.nvme_pdu, p.nvme_mss = o.nvme_mss;
                    csum::gen::parse_size(size, &p), csum::gen::parse_segmentation(seg, &p);
                    csum::gen::parse_csum_state(cs, &p);
                    // NVMe/TCP frames are sized by the MSS; one size stands for all.
                    if (t == csum::gen::Traffic::nvme_c2h && size != o.sizes.front()) continue;
                    out.push_back(p);
                }
    return out;
}

}  // namespace bench
