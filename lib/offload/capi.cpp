// The C API over the C++ one. Every entry point catches everything: no
// exception crosses into C.
#include "csum/csum.h"

#include <cerrno>
#include <new>
#include <string_view>
#include <tuple>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "csum/crc32c.h"
#include "csum/engine.h"
#include "csum/inet.h"
#include "csum/verdict.h"

using namespace csum;

static_assert(CSUM_PROTO_COUNT == kLayerProtoCount);
static_assert(CSUM_STATUS_COUNT == kLayerStatusCount);
static_assert(CSUM_MAX_VERDICT_LAYERS == kMaxVerdictLayers);
static_assert(CSUM_PARSE_ERROR_COUNT == kParseErrorCount);
static_assert(CSUM_PROTO_NVME_DDGST == static_cast<int>(LayerProto::nvme_ddgst));
static_assert(CSUM_STATUS_PARTIAL == static_cast<int>(LayerStatus::partial));
static_assert(CSUM_IP_SUMMED_PARTIAL == static_cast<int>(IpSummed::partial));
static_assert(CSUM_MODE_CSUM == static_cast<int>(Mode::csum));
static_assert(CSUM_MAX_PORT_LIST == std::tuple_size_v<decltype(PortSet::port)>);

struct csum_engine {
    Engine engine;
    explicit csum_engine(const EngineConfig& c) : engine(c) {}
};

namespace {

// A name as a C string: the tables behind to_string are NUL-terminated literals.
const char* c_name(std::string_view s) {
    return s.data();
}

void to_c(const PortSet& s, csum_port_list* out) {
    out->n = s.n;
    for (uint8_t i = 0; i < s.n; ++i) out->port[i] = s.port[i];
}

bool from_c(const csum_port_list& in, PortSet* out) {
    if (in.n > CSUM_MAX_PORT_LIST) return false;
    *out = PortSet{};
    for (uint8_t i = 0; i < in.n; ++i) out->add(in.port[i]);
    return true;
}

int verdict_field_offset() {
    const int off = verdict_offset();
    if (off >= 0) return off;
    return rte_mbuf_dynfield_lookup("csum_dynfield_verdict", nullptr);
}

}  // namespace

extern "C" {

uint32_t csum_crc32c(const void* data, size_t len) {
    return crc32c(data, len);
}
uint32_t csum_crc32c_extend(uint32_t crc, const void* data, size_t len) {
    return crc32c(data, len, crc);
}
int csum_crc32c_mbuf(const rte_mbuf* m, uint32_t off, uint32_t len, uint32_t* crc) {
    if (m == nullptr || crc == nullptr) return -EINVAL;
    return crc32c_mbuf_checked(m, off, len, crc) == 0 ? 0 : -ERANGE;
}

uint16_t csum_inet_raw(const void* data, size_t len) {
    return raw_cksum(data, len);
}
uint32_t csum_inet_partial(const void* data, size_t len, uint32_t sum) {
    return partial_sum(data, len, sum);
}
int csum_inet_mbuf(const rte_mbuf* m, uint32_t off, uint32_t len, uint16_t* sum) {
    if (m == nullptr || sum == nullptr) return -EINVAL;
    return raw_cksum_mbuf(m, off, len, sum) == 0 ? 0 : -ERANGE;
}
uint32_t csum_inet_pseudo_ipv4(const void* src, const void* dst, uint8_t proto, uint32_t l4_len) {
    return ipv4_pseudo_sum(src, dst, proto, l4_len);
}
uint32_t csum_inet_pseudo_ipv6(const void* src, const void* dst, uint8_t proto, uint32_t l4_len) {
    return ipv6_pseudo_sum(src, dst, proto, l4_len);
}
uint16_t csum_inet_fold(uint32_t sum) {
    return sum_fold(sum);
}
uint16_t csum_inet_finish(uint32_t sum) {
    return cksum_finish(sum);
}
uint16_t csum_inet_finish_udp(uint32_t sum) {
    return udp_cksum_finish(sum);
}
uint16_t csum_ipv4_hdr_cksum(const void* hdr, size_t ihl_bytes) {
    if (ihl_bytes < 20 || ihl_bytes > 60 || (ihl_bytes & 3)) return 0;
    return ipv4_hdr_cksum(hdr, ihl_bytes);
}

int csum_verdict_get(const rte_mbuf* m, csum_verdict* out) {
    if (m == nullptr || out == nullptr) return -EINVAL;
    const int off = verdict_field_offset();
    if (off < 0) return -ENOENT;
    const PacketVerdict* v = verdict_of(m, off);
    out->ip_summed = static_cast<uint8_t>(v->ip_summed);
    out->csum_level = v->csum_level;
    out->n_layers = v->n_layers <= kMaxVerdictLayers ? v->n_layers : kMaxVerdictLayers;
    out->error = v->error;
    out->csum = v->csum;
    out->csum_offset = v->csum_offset;
    for (int i = 0; i < kMaxVerdictLayers; ++i) {
        const LayerVerdict l = v->layer(i);
        out->layers[i].proto = static_cast<uint8_t>(l.proto);
        out->layers[i].status = static_cast<uint8_t>(l.status);
    }
    return 0;
}

const char* csum_ip_summed_name(int v) {
    return v >= 0 && v < 4 ? c_name(to_string(static_cast<IpSummed>(v))) : "?";
}
const char* csum_layer_proto_name(int v) {
    return c_name(to_string(static_cast<LayerProto>(v < 0 || v > 255 ? 255 : v)));
}
const char* csum_layer_status_name(int v) {
    return c_name(to_string(static_cast<LayerStatus>(v < 0 || v > 255 ? 255 : v)));
}
const char* csum_parse_error_name(int v) {
    return c_name(to_string(static_cast<ParseError>(v < 0 || v > 255 ? 255 : v)));
}

void csum_engine_config_init(csum_engine_config* cfg) {
    if (cfg == nullptr) return;
    const EngineConfig d;
    *cfg = csum_engine_config{};
    cfg->mode = static_cast<int>(d.mode);
    cfg->plain_fast_path = d.plain_fast_path;
    to_c(d.parser.vxlan_ports, &cfg->vxlan_ports);
    to_c(d.parser.geneve_ports, &cfg->geneve_ports);
    to_c(d.parser.gre_udp_ports, &cfg->gre_udp_ports);
    to_c(d.parser.sctp_udp_ports, &cfg->sctp_udp_ports);
    to_c(d.parser.udp6_zero_csum_ok, &cfg->udp6_zero_csum_ok);
    cfg->nvme_ports.n = 0;  // opt-in from C: a tracker costs memory
    cfg->max_depth = d.parser.max_depth;
    cfg->nvme_capacity = d.nvme.capacity;
    cfg->nvme_max_plen = d.nvme.max_plen;
}

int csum_engine_create(const csum_engine_config* cfg, csum_engine** out) {
    if (cfg == nullptr || out == nullptr) return -EINVAL;
    *out = nullptr;
    if (cfg->mode < CSUM_MODE_IO || cfg->mode > CSUM_MODE_CSUM || cfg->max_depth == 0)
        return -EINVAL;
    EngineConfig c;
    c.mode = static_cast<Mode>(cfg->mode);
    c.plain_fast_path = cfg->plain_fast_path != 0;
    if (!from_c(cfg->vxlan_ports, &c.parser.vxlan_ports) ||
        !from_c(cfg->geneve_ports, &c.parser.geneve_ports) ||
        !from_c(cfg->gre_udp_ports, &c.parser.gre_udp_ports) ||
        !from_c(cfg->sctp_udp_ports, &c.parser.sctp_udp_ports) ||
        !from_c(cfg->udp6_zero_csum_ok, &c.parser.udp6_zero_csum_ok) ||
        !from_c(cfg->nvme_ports, &c.parser.nvme_ports))
        return -EINVAL;
    c.parser.max_depth = cfg->max_depth;
    if (cfg->nvme_capacity != 0) c.nvme.capacity = cfg->nvme_capacity;
    if (cfg->nvme_max_plen != 0) c.nvme.max_plen = cfg->nvme_max_plen;
    try {
        *out = new csum_engine(c);
        return 0;
    } catch (const std::bad_alloc&) {
        return -ENOMEM;
    } catch (...) {
        return rte_errno > 0 ? -rte_errno : -EIO;
    }
}

void csum_engine_destroy(csum_engine* e) {
    try {
        delete e;
    } catch (...) {
    }
}

int csum_engine_process(csum_engine* e, const csum_rx_policy* rx, const csum_tx_policy* tx,
                        rte_mbuf** pkts, uint16_t n) {
    if (e == nullptr || (pkts == nullptr && n != 0)) return -EINVAL;
    for (uint16_t i = 0; i < n; ++i)
        if (pkts[i] == nullptr) return -EINVAL;
    RxPortPolicy r;
    if (rx != nullptr) {
        r.trusted = rx->trusted != 0;
        r.verify_mask = rx->verify_mask;
        r.drop_bad = rx->drop_bad != 0;
        r.complete_in_verdict = rx->complete_in_verdict != 0;
    }
    TxPortPolicy t;
    if (tx != nullptr) t.offloads = tx->offloads;
    return e->engine.process(r, t, pkts, n);  // noexcept
}

int csum_engine_stats_get(const csum_engine* e, csum_engine_stats* out) {
    if (e == nullptr || out == nullptr) return -EINVAL;
    const EngineStats& s = e->engine.stats();
    *out = csum_engine_stats{};
    out->packets = s.packets.get();
    out->bytes = s.bytes.get();
    for (int p = 0; p < kLayerProtoCount; ++p)
        for (int k = 0; k < kLayerStatusCount; ++k) out->layer[p][k] = s.layer[p][k].get();
    for (int i = 0; i < 4; ++i) out->ip_summed[i] = s.ip_summed[i].get();
    for (int i = 0; i < 8; ++i) out->csum_level[i] = s.csum_level[i].get();
    for (int i = 0; i < kParseErrorCount; ++i) out->parse_error[i] = s.parse_error[i].get();
    out->drop_bad_checksum = s.drop[static_cast<int>(DropReason::bad_checksum)].get();
    out->drop_malformed = s.drop[static_cast<int>(DropReason::malformed)].get();
    out->sw_filled = s.sw_filled.get();
    out->hw_offloaded = s.hw_offloaded.get();
    out->skipped_trusted = s.skipped_trusted.get();
    out->work_tsc = s.work_tsc.get();
    out->sum_bytes = s.sum_bytes.get();
    out->crc_bytes = s.crc_bytes.get();
    return 0;
}

}  // extern "C"
