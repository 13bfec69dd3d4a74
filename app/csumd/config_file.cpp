#include "config_file.h"

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include <rte_cfgfile.h>
#include <rte_config.h>

#include "csum/verdict.h"

namespace csumd {
namespace {

// rte_cfgfile keeps no line numbers: find them in the text for messages.
class LineIndex {
  public:
    explicit LineIndex(const std::string& path) {
        std::ifstream in(path);
        std::string line, section;
        for (int n = 1; std::getline(in, line); ++n) {
            const std::string t = trim(line);
            if (t.empty() || t[0] == ';' || t[0] == '#') continue;
            if (t.front() == '[') {
                section = trim(t.substr(1, t.find(']') - 1));
                if (auto it = lines_.find(section + "|"); it != lines_.end()) {
                    if (dup_.empty())
                        dup_ = "[" + section + "] at line " + std::to_string(n) +
                               " repeats the section at line " + std::to_string(it->second) +
                               " (give each section once)";
                } else {
                    lines_[section + "|"] = n;
                }
            } else if (auto eq = t.find('='); eq != std::string::npos) {
                const std::string key = section + "|" + trim(t.substr(0, eq));
                if (!lines_.count(key)) lines_[key] = n;
            }
        }
    }
    int line(const std::string& section, const std::string& key = "") const {
        auto it = lines_.find(section + "|" + key);
        return it == lines_.end() ? 0 : it->second;
    }
    static std::string trim(const std::string& s) {
        const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
        return b == std::string::npos ? "" : s.substr(b, e - b + 1);
    }

    // The first repeated section, named with both its lines; empty if none.
    const std::string& duplicate() const { return dup_; }

  private:
    std::map<std::string, int> lines_;
    std::string dup_;
};

// Options a config may not set: they make no sense in a file.
bool app_key_allowed(const std::string& k) {
    return k != "config" && k != "help";
}

std::vector<std::string> split_ws(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

std::optional<bool> parse_bool(const std::string& v) {
    if (v.empty() || v == "yes" || v == "true" || v == "on" || v == "1") return true;
    if (v == "no" || v == "false" || v == "off" || v == "0") return false;
    return std::nullopt;
}

}  // namespace

bool parse_verify_list(const std::string& list, uint16_t* mask) {
    if (list == "all") return *mask = 0xFFFF, true;
    if (list == "none") return *mask = 0, true;
    uint16_t m = 0;
    std::stringstream ss(list);
    for (std::string item; std::getline(ss, item, ',');) {
        item = LineIndex::trim(item);
        bool found = false;
        for (int p = 0; p < csum::kLayerProtoCount; ++p)
            if (csum::to_string(static_cast<csum::LayerProto>(p)) == item)
                m |= uint16_t(1u << p), found = true;
        if (!found) return false;
    }
    *mask = m;
    return true;
}

namespace {

using Where = std::function<std::string(const std::string& key)>;

std::optional<std::string> load_eal(const std::vector<rte_cfgfile_entry>& entries,
                                    const Where& where, ConfigFile* out) {
    for (const auto& e : entries) {
        const std::string k = e.name, v = e.value;
        if (k == "args")
            for (auto& w : split_ws(v)) out->eal_args.push_back(w);
        else if (k == "vdev")
            out->eal_args.push_back("--vdev"), out->eal_args.push_back(v);
        else
            return where(k) + ": [eal] unknown key '" + k + "' (use args or vdev)";
    }
    return std::nullopt;
}

std::optional<std::string> load_app(const std::vector<rte_cfgfile_entry>& entries,
                                    const Where& where, ConfigFile* out) {
    for (const auto& e : entries) {
        const std::string k = e.name;
        if (!app_key_allowed(k))
            return where(k) + ": [csumd] key '" + k + "' is not allowed in a config file";
        out->app_args.push_back("--" + k + "=" + e.value);
        out->app_where.push_back(where(k));
    }
    return std::nullopt;
}

std::optional<std::string> load_port_key(const std::string& k, const std::string& v,
                                         PortConfig* pc) {
    if (k == "peer") {
        char* end = nullptr;
        const unsigned long p = std::strtoul(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || p >= RTE_MAX_ETHPORTS)
            return "expected a port id, got '" + v + "'";
        pc->peer = uint16_t(p);
    } else if (k == "trusted" || k == "hw-offload") {
        auto b = parse_bool(v);
        if (!b) return "expected yes or no, got '" + v + "'";
        (k == "trusted" ? pc->trusted : pc->hw_offload) = *b;
    } else if (k == "bad") {
        if (v == "forward")
            pc->bad = BadAction::forward;
        else if (v == "drop")
            pc->bad = BadAction::drop;
        else if (v == "capture")
            pc->bad = BadAction::capture;
        else
            return "expected forward, drop or capture, got '" + v + "'";
    } else if (k == "verify") {
        uint16_t mask = 0;
        if (!parse_verify_list(v, &mask))
            return "expected all, none or a list of "
                   "ipv4,tcp,udp,sctp,icmp,icmpv6,gre,nvme-hdgst,nvme-ddgst, got '" +
                   v + "'";
        pc->verify_mask = mask;
    } else {
        return std::string("unknown key (peer, trusted, bad, verify, hw-offload)");
    }
    return std::nullopt;
}

std::optional<std::string> load_port(const std::string& sec,
                                     const std::vector<rte_cfgfile_entry>& entries,
                                     const Where& where, ConfigFile* out) {
    char* end = nullptr;
    const unsigned long id = std::strtoul(sec.c_str() + 5, &end, 10);
    if (end == sec.c_str() + 5 || *end != '\0' || id >= RTE_MAX_ETHPORTS)
        return where("") + ": section [" + sec + "]: expected [port N] with N < " +
               std::to_string(RTE_MAX_ETHPORTS);
    PortConfig& pc = out->ports[uint16_t(id)];
    pc.where = where("");
    for (const auto& e : entries)
        if (auto err = load_port_key(e.name, e.value, &pc))
            return where(e.name) + ": [" + sec + "] " + e.name + ": " + *err;
    return std::nullopt;
}

}  // namespace

std::optional<std::string> load_config(const std::string& path, ConfigFile* out) {
    std::ifstream probe(path);
    if (!probe) return path + ": cannot open config file";
    rte_cfgfile* cfg = rte_cfgfile_load(path.c_str(), CFG_FLAG_EMPTY_VALUES);
    if (cfg == nullptr)
        return path + ": not a valid INI file (sections in [brackets], key = value lines)";
    const LineIndex lines(path);
    if (!lines.duplicate().empty()) {
        rte_cfgfile_close(cfg);
        return path + ": " + lines.duplicate();
    }
    out->path = path;
    std::optional<std::string> err;
    const int n_sections = rte_cfgfile_num_sections(cfg, nullptr, 0);
    std::vector<std::vector<char>> names(n_sections, std::vector<char>(CFG_NAME_LEN));
    std::vector<char*> name_ptrs;
    for (auto& n : names) name_ptrs.push_back(n.data());
    rte_cfgfile_sections(cfg, name_ptrs.data(), n_sections);
    for (int s = 0; s < n_sections && !err; ++s) {
        const std::string sec = name_ptrs[s];
        const Where where = [&](const std::string& key) {
            return path + ":" + std::to_string(lines.line(sec, key));
        };
        const int n_entries = rte_cfgfile_section_num_entries(cfg, sec.c_str());
        std::vector<rte_cfgfile_entry> entries(n_entries > 0 ? n_entries : 0);
        rte_cfgfile_section_entries(cfg, sec.c_str(), entries.data(), n_entries);
        if (sec == "eal")
            err = load_eal(entries, where, out);
        else if (sec == "csumd")
            err = load_app(entries, where, out);
        else if (sec.rfind("port ", 0) == 0)
            err = load_port(sec, entries, where, out);
        else
            err = where("") + ": unknown section [" + sec + "] (eal, csumd, port N)";
    }
    rte_cfgfile_close(cfg);
    return err;
}

}  // namespace csumd
