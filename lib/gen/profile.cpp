#include "gen/profile.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "gen/nvme_tcp.h"

namespace csum::gen {
namespace {

constexpr std::string_view kTrafficNames[] = {"tcp4",       "udp4",        "tcp6",
                                              "udp6",       "sctp4",       "nvme-c2h",
                                              "vxlan-tcp4", "geneve-tcp4", "vxlan6-tcp4"};

Proto proto_of(Traffic t) {
    switch (t) {
        case Traffic::tcp4:
            return Proto::tcp4;
        case Traffic::udp4:
            return Proto::udp4;
        case Traffic::tcp6:
            return Proto::tcp6;
        case Traffic::udp6:
            return Proto::udp6;
        case Traffic::sctp4:
            return Proto::sctp4;
        case Traffic::vxlan_tcp4:
            return Proto::vxlan_tcp4;
        case Traffic::geneve_tcp4:
            return Proto::geneve_tcp4;
        case Traffic::vxlan6_tcp4:
            return Proto::vxlan6_tcp4;
        case Traffic::nvme_c2h:
            break;
    }
    return Proto::tcp4;
}

template <typename T>
bool parse_num(std::string_view s, T* out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && p == s.data() + s.size();
}

bool is_corrupt(size_t i, double f) {
    return std::floor((i + 1) * f) > std::floor(i * f);
}

void apply_state(const Profile& p, size_t i, Frame* fr) {
    fr->fields = p.csum == CsumState::partial ? fill_checksums_partial(fr->bytes)
                                              : fill_checksums(fr->bytes);
    if (p.csum == CsumState::zeroed) {
        for (const CsumField& c : fr->fields) std::memset(&fr->bytes[c.off], 0, c.len);
    } else if (p.csum == CsumState::corrupt && !fr->fields.empty() &&
               is_corrupt(i, p.corrupt_fraction)) {
        fr->bytes[fr->fields.back().off] ^= 0x5A;  // never turns 0x0000 into its twin 0xFFFF
        fr->corrupt = true;
    }
}

// NVMe/TCP: one stream per flow, enough whole PDUs for `count` frames in all,
// frames of the flows interleaved.
std::vector<Frame> build_nvme(const Profile& p, size_t count) {
    const uint32_t flows = std::max<uint32_t>(p.flows, 1);
    const uint64_t stream = uint64_t(p.nvme_pdu_data) + kNvmeC2hHeader + 2 * kNvmeDigest;
    const uint64_t per_pdu = (stream + p.nvme_mss - 1) / p.nvme_mss;
    const uint64_t pdus = std::max<uint64_t>(1, (count / flows + per_pdu - 1) / per_pdu);
    std::vector<std::vector<Frame>> per_flow(flows);
    for (uint32_t fl = 0; fl < flows; ++fl) {
        std::vector<uint32_t> data;
        auto frames = build_nvme_c2h_frames(
            {p.nvme_pdu_data, uint32_t(pdus), p.nvme_mss, fl, 4420, true}, &data);
        for (size_t i = 0; i < frames.size(); ++i)
            per_flow[fl].push_back({std::move(frames[i]), {}, false, data[i]});
    }
    std::vector<Frame> out;
    for (size_t i = 0; i < per_flow[0].size(); ++i)
        for (auto& f : per_flow) out.push_back(std::move(f[i]));
    for (size_t i = 0; i < out.size(); ++i) apply_state(p, i, &out[i]);
    return out;
}

}  // namespace

std::vector<Frame> build_frames(const Profile& p, size_t count) {
    if (p.traffic == Traffic::nvme_c2h) return build_nvme(p, count);
    std::vector<Frame> out(count);
    const uint32_t flows = std::max<uint32_t>(p.flows, 1);
    for (size_t i = 0; i < count; ++i) {
        const uint32_t len = p.sizes.empty() ? 64 : p.sizes[i % p.sizes.size()];
        out[i].bytes = build_frame({proto_of(p.traffic), len, p.sctp_chunks, uint32_t(i % flows)});
        apply_state(p, i, &out[i]);
    }
    return out;
}

std::vector<uint32_t> segment_lengths(const Profile& p, uint32_t len) {
    switch (p.seg) {
        case Segmentation::linear:
            return {len};
        case Segmentation::two:
            return {len / 2, len - len / 2};
        case Segmentation::many: {
            std::vector<uint32_t> v;
            const uint32_t step = std::max<uint32_t>(p.seg_bytes, 1);
            for (uint32_t pos = 0; pos < len; pos += step) v.push_back(std::min(step, len - pos));
            return v;
        }
    }
    return {len};
}

bool traffic_from_name(std::string_view s, Traffic* out) {
    for (size_t i = 0; i < std::size(kTrafficNames); ++i)
        if (kTrafficNames[i] == s) return *out = Traffic(i), true;
    return false;
}

bool parse_size(std::string_view s, Profile* p) {
    if (s == "imix") {
        p->sizes.assign(std::begin(kImixSizes), std::end(kImixSizes));
        p->size_name = "imix";
        return true;
    }
    uint32_t n = 0;
    if (!parse_num(s, &n) || n < 60 || n > 16384) return false;
    p->sizes = {n};
    p->size_name = std::string(s);
    return true;
}

bool parse_segmentation(std::string_view s, Profile* p) {
    if (s == "linear") return p->seg = Segmentation::linear, true;
    if (s == "2seg") return p->seg = Segmentation::two, true;
    if (s == "many") return p->seg = Segmentation::many, true;
    if (s.starts_with("many=")) {
        uint32_t n = 0;
        if (!parse_num(s.substr(5), &n) || n < 16) return false;
        p->seg = Segmentation::many, p->seg_bytes = n;
        return true;
    }
    return false;
}

bool parse_csum_state(std::string_view s, Profile* p) {
    if (s == "correct") return p->csum = CsumState::correct, true;
    if (s == "zeroed") return p->csum = CsumState::zeroed, true;
    if (s == "partial") return p->csum = CsumState::partial, true;
    if (s.starts_with("corrupt=")) {
        double f = 0;
        if (!parse_num(s.substr(8), &f) || !(f >= 0 && f <= 1)) return false;
        p->csum = CsumState::corrupt, p->corrupt_fraction = f;
        return true;
    }
    return false;
}

std::string_view to_string(Traffic t) {
    return kTrafficNames[size_t(t)];
}

std::string_view to_string(Segmentation s) {
    switch (s) {
        case Segmentation::linear:
            return "linear";
        case Segmentation::two:
            return "2seg";
        case Segmentation::many:
            return "many";
    }
    return "?";
}

std::string csum_state_name(const Profile& p) {
    switch (p.csum) {
        case CsumState::correct:
            return "correct";
        case CsumState::zeroed:
            return "zeroed";
        case CsumState::partial:
            return "partial";
        case CsumState::corrupt: {
            char b[32];
            std::snprintf(b, sizeof b, "corrupt=%g", p.corrupt_fraction);
            return b;
        }
    }
    return "?";
}

std::string describe(const Profile& p) {
    // Appends rather than operator+ chains: GCC 12 warns falsely (-Wrestrict) on those.
    std::string s(to_string(p.traffic));
    if (p.traffic == Traffic::sctp4) s.append("x").append(std::to_string(p.sctp_chunks));
    s.append("/");
    if (p.traffic == Traffic::nvme_c2h)
        s.append(std::to_string(p.nvme_pdu_data)).append("pdu");
    else
        s.append(p.size_name);
    s.append("/").append(to_string(p.seg));
    if (p.seg == Segmentation::many) s.append("=").append(std::to_string(p.seg_bytes));
    s.append("/")
        .append(csum_state_name(p))
        .append("/")
        .append(std::to_string(p.flows))
        .append("fl");
    return s;
}

}  // namespace csum::gen
