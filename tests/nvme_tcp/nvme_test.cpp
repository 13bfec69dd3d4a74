#include "nvme_tcp/nvme_test.h"

namespace csum::test {

std::vector<PduSpan> layout(std::span<const Pdu> pdus, uint32_t first) {
    std::vector<PduSpan> out;
    uint32_t off = first;
    for (const Pdu& p : pdus) {
        out.push_back({off, off + uint32_t(p.bytes.size()), &p});
        off += uint32_t(p.bytes.size());
    }
    return out;
}

std::vector<SegExpect> expect_segments(std::span<const PduSpan> spans,
                                       std::span<const uint32_t> cuts) {
    std::vector<SegExpect> out(cuts.size() - 1);
    auto seg_of = [&](uint32_t byte) {
        for (size_t k = 0; k + 1 < cuts.size(); ++k)
            if (byte >= cuts[k] && byte < cuts[k + 1]) return k;
        ADD_FAILURE() << "byte " << byte << " in no segment";
        return size_t{0};
    };
    for (const PduSpan& s : spans) {
        const Pdu& p = *s.pdu;
        out[seg_of(s.end - 1)].pdus++;
        if (p.hd) {
            auto& e = out[seg_of(s.start + p.bytes[2] + 3)];
            (p.hd_ok ? e.hd_good : e.hd_bad)++;
        }
        if (p.dd) {
            auto& e = out[seg_of(s.end - 1)];
            (p.dd_ok ? e.dd_good : e.dd_bad)++;
        }
    }
    return out;
}

NvmeDigestStatus expected_hd(const Pdu& p) {
    if (!p.hd) return NvmeDigestStatus::none;
    return p.hd_ok ? NvmeDigestStatus::good : NvmeDigestStatus::bad;
}

NvmeDigestStatus expected_dd(const Pdu& p) {
    if (!p.dd) return NvmeDigestStatus::none;
    return p.dd_ok ? NvmeDigestStatus::good : NvmeDigestStatus::bad;
}

void NvmeTest::expect_log(std::span<const Pdu> pdus, size_t from) const {
    auto recs = log();
    ASSERT_EQ(recs.size() - from, pdus.size());
    for (size_t i = 0; i < pdus.size(); ++i) {
        const NvmePduRecord& r = recs[from + i];
        EXPECT_EQ(r.type, pdus[i].type) << "PDU " << i;
        EXPECT_EQ(r.plen, pdus[i].bytes.size()) << "PDU " << i;
        EXPECT_EQ(r.hdgst, expected_hd(pdus[i])) << "PDU " << i << " type " << int(r.type);
        EXPECT_EQ(r.ddgst, expected_dd(pdus[i])) << "PDU " << i << " type " << int(r.type);
    }
}

std::vector<Pdu> all_types(bool hd, bool dd, std::mt19937& rng) {
    const uint8_t dgst = uint8_t((hd ? 1 : 0) | (dd ? 2 : 0));
    const Bytes d1 = random_bytes(37, rng), d2 = random_bytes(300, rng), d3 = random_bytes(1, rng),
                err = random_bytes(24, rng);
    return {
        icreq(dgst),
        icresp(dgst),
        capsule_cmd(hd, dd, {}),
        capsule_cmd(hd, dd, d1),
        capsule_cmd(hd, dd, d2, 4),
        capsule_resp(hd),
        h2c_data(hd, dd, d2),
        h2c_data(hd, dd, d1, 8),
        c2h_data(hd, dd, d2),
        c2h_data(hd, dd, d3, 3),
        r2t(hd),
        term_req(false, err),
        term_req(true, {}),
    };
}

std::vector<Pdu> random_pdus(bool hd, bool dd, int n, uint32_t max_data, unsigned pad_choices,
                             bool with_control, std::mt19937& rng,
                             const std::function<void(Pdu&)>& each) {
    std::vector<Pdu> pdus = {icresp(uint8_t((hd ? 1 : 0) | (dd ? 2 : 0)))};
    const unsigned kinds = with_control ? 6 : 4;
    for (int i = 0; i < n; ++i) {
        const Bytes d = random_bytes(1 + rng() % max_data, rng);
        const unsigned kind = rng() % kinds;
        if (kind == 0)
            pdus.push_back(c2h_data(hd, dd, d, uint8_t(rng() % pad_choices * 4)));
        else if (kind == 1)
            pdus.push_back(capsule_cmd(hd, dd, d));
        else if (kind == 2)
            pdus.push_back(capsule_resp(hd));
        else if (kind == kinds - 1)
            pdus.push_back(h2c_data(hd, dd, d));
        else if (kind == 3)
            pdus.push_back(r2t(hd));
        else
            pdus.push_back(term_req(rng() & 1, random_bytes(rng() % 100, rng)));
        if (each) each(pdus.back());
    }
    return pdus;
}

}  // namespace csum::test
