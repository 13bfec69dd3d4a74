// Profiles: checksums computed from bytes alone agree with the engine, every
// state (correct, zeroed, corrupt) and segmentation is what it claims, and
// NVMe/TCP PDUs carry right digests.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "csum/crc32c.h"
#include "csum/engine.h"
#include "gen/nvme_tcp.h"
#include "gen/pcap_writer.h"
#include "gen/profile.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class Profiles : public test::MbufTest {
  protected:
    // Verdict layers of one frame after an engine pass in `mode`, as "proto:status,...".
    std::string judge(const std::vector<uint8_t>& bytes, const std::vector<uint32_t>& segs,
                      Mode mode) {
        EngineConfig c;
        c.mode = mode;
        Engine e(c);
        rte_mbuf* m = test::make_chain(pool(), bytes, segs);
        EXPECT_NE(m, nullptr);
        rte_mbuf* one[1] = {m};
        e.process({}, {}, one, 1);
        const PacketVerdict* v = verdict_of(m, e.verdict_field());
        std::string s;
        for (int i = 0; i < v->n_layers; ++i)
            s += std::string(i ? "," : "") + std::string(to_string(v->layer(i).proto)) + ":" +
                 std::string(to_string(v->layer(i).status));
        rte_pktmbuf_free(m);
        return s;
    }
};

uint32_t le32(const uint8_t* p) {
    return p[0] | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24;
}

const gen::Traffic kAll[] = {
    gen::Traffic::tcp4,       gen::Traffic::udp4,        gen::Traffic::tcp6,
    gen::Traffic::udp6,       gen::Traffic::sctp4,       gen::Traffic::nvme_c2h,
    gen::Traffic::vxlan_tcp4, gen::Traffic::geneve_tcp4, gen::Traffic::vxlan6_tcp4};

TEST_F(Profiles, CorrectFramesVerifyGoodInEverySegmentation) {
    for (auto t : kAll) {
        for (const char* seg : {"linear", "2seg", "many", "many=64"}) {
            for (const char* size : {"64", "256", "1420", "imix"}) {
                gen::Profile p;
                p.traffic = t, p.flows = 3, p.nvme_pdu_data = 4096;
                ASSERT_TRUE(gen::parse_size(size, &p));
                ASSERT_TRUE(gen::parse_segmentation(seg, &p));
                const auto frames = gen::build_frames(p, 12);
                ASSERT_GE(frames.size(), 12u);
                for (const auto& f : frames) {
                    ASSERT_FALSE(f.fields.empty());
                    const std::string v =
                        judge(f.bytes, gen::segment_lengths(p, f.bytes.size()), Mode::verify);
                    EXPECT_EQ(v.find("bad"), std::string::npos) << gen::describe(p) << " " << v;
                    EXPECT_NE(v.find("good"), std::string::npos) << gen::describe(p) << " " << v;
                }
            }
        }
    }
}

TEST_F(Profiles, ZeroedFramesAreWhatFillRepairs) {
    for (auto t : kAll) {
        gen::Profile zp, cp;
        zp.traffic = cp.traffic = t, zp.nvme_pdu_data = cp.nvme_pdu_data = 2000;
        ASSERT_TRUE(gen::parse_csum_state("zeroed", &zp));
        const auto z = gen::build_frames(zp, 4), c = gen::build_frames(cp, 4);
        for (size_t i = 0; i < z.size(); ++i) {
            for (const auto& f : z[i].fields)
                for (uint32_t b = 0; b < f.len; ++b)
                    EXPECT_EQ(z[i].bytes[f.off + b], 0) << gen::describe(zp);
            // Our own fill of the zeroed frame gives back the correct one byte for byte.
            auto bytes = z[i].bytes;
            gen::fill_checksums(bytes);
            EXPECT_EQ(bytes, c[i].bytes) << gen::describe(zp);
        }
    }
}

TEST_F(Profiles, CorruptFractionIsExactAndEngineSeesIt) {
    gen::Profile p;
    ASSERT_TRUE(gen::parse_csum_state("corrupt=0.25", &p));
    const auto frames = gen::build_frames(p, 100);
    int corrupt = 0;
    for (const auto& f : frames) {
        corrupt += f.corrupt;
        const std::string v = judge(f.bytes, {uint32_t(f.bytes.size())}, Mode::verify);
        EXPECT_EQ(v, f.corrupt ? "ipv4:good,tcp:bad" : "ipv4:good,tcp:good");
    }
    EXPECT_EQ(corrupt, 25);
    EXPECT_FALSE(gen::parse_csum_state("corrupt=1.5", &p));
    EXPECT_FALSE(gen::parse_csum_state("broken", &p));
}

TEST_F(Profiles, PartialFramesAreWhatCsumModeCompletes) {
    const std::pair<gen::Traffic, const char*> cases[] = {
        {gen::Traffic::tcp4, "ipv4:good,tcp:partial"},
        {gen::Traffic::udp6, "udp:partial"},
        {gen::Traffic::vxlan_tcp4, "ipv4:good,udp:good,ipv4:good,tcp:partial"},
        {gen::Traffic::vxlan6_tcp4, "udp:good,ipv4:good,tcp:partial"},
    };
    for (auto [t, expect] : cases) {
        gen::Profile p;
        p.traffic = t;
        ASSERT_TRUE(gen::parse_csum_state("partial", &p));
        EXPECT_EQ(gen::csum_state_name(p), "partial");
        for (const auto& f : gen::build_frames(p, 3)) {
            const std::vector<uint32_t> whole{uint32_t(f.bytes.size())};
            EXPECT_EQ(judge(f.bytes, whole, Mode::verify), expect) << gen::describe(p);
            // csum mode completes the packet, outer sums included: it then verifies good.
            EngineConfig c;
            c.mode = Mode::csum;
            Engine e(c);
            rte_mbuf* m = test::make_linear(pool(), f.bytes);
            rte_mbuf* one[1] = {m};
            e.process({}, {}, one, 1);
            const auto done = test::chain_bytes(m);
            rte_pktmbuf_free(m);
            const std::string v = judge(done, whole, Mode::verify);
            EXPECT_EQ(v.find("partial"), std::string::npos) << v;
            EXPECT_EQ(v.find("bad"), std::string::npos) << v;
        }
    }
}

TEST(ProfileParse, SizesSegmentsAndNames) {
    gen::Profile p;
    ASSERT_TRUE(gen::parse_size("imix", &p));
    ASSERT_EQ(p.sizes.size(), 12u);
    EXPECT_EQ(std::count(p.sizes.begin(), p.sizes.end(), 64u), 7);
    EXPECT_EQ(std::count(p.sizes.begin(), p.sizes.end(), 570u), 4);
    EXPECT_EQ(std::count(p.sizes.begin(), p.sizes.end(), 1518u), 1);
    EXPECT_FALSE(gen::parse_size("10", &p));
    EXPECT_FALSE(gen::parse_size("64k", &p));
    ASSERT_TRUE(gen::parse_segmentation("many", &p));
    EXPECT_EQ(gen::segment_lengths(p, 600), (std::vector<uint32_t>{256, 256, 88}));
    ASSERT_TRUE(gen::parse_segmentation("2seg", &p));
    EXPECT_EQ(gen::segment_lengths(p, 65), (std::vector<uint32_t>{32, 33}));
    for (auto t : kAll) {
        gen::Traffic back{};
        ASSERT_TRUE(gen::traffic_from_name(gen::to_string(t), &back));
        EXPECT_EQ(back, t);
    }
    EXPECT_FALSE(gen::traffic_from_name("nvme", &p.traffic));
}

TEST(NvmeTcp, PduLayoutAndDigests) {
    const auto pdu = gen::build_c2h_pdu(1000, 7, 4096, 1, true);
    ASSERT_EQ(pdu.size(), 24u + 4 + 1000 + 4);
    EXPECT_EQ(pdu[0], 0x07);                // C2HData
    EXPECT_EQ(pdu[1], 0x01 | 0x02 | 0x04);  // HDGSTF | DDGSTF | LAST_PDU
    EXPECT_EQ(pdu[2], 24);
    EXPECT_EQ(pdu[3], 28);
    EXPECT_EQ(le32(&pdu[4]), pdu.size());
    EXPECT_EQ(le32(&pdu[12]), 4096u);
    EXPECT_EQ(le32(&pdu[16]), 1000u);
    EXPECT_EQ(le32(&pdu[24]), crc32c(pdu.data(), 24));
    EXPECT_EQ(le32(&pdu[28 + 1000]), crc32c(&pdu[28], 1000));
}

TEST(NvmeTcp, SegmentsCarryTheStreamInOrder) {
    std::vector<uint32_t> data;
    const auto frames = gen::build_nvme_c2h_frames({131072, 2, 1448, 0, 4420}, &data);
    const size_t stream = 2 * (131072 + 32);
    ASSERT_EQ(frames.size(), (stream + 1447) / 1448);
    uint64_t total = 0, bytes = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
        const auto& f = frames[i];
        EXPECT_EQ(f[34] << 8 | f[35], 4420);
        const uint32_t seq = uint32_t(f[38]) << 24 | f[39] << 16 | f[40] << 8 | f[41];
        EXPECT_EQ(seq, 1000u + bytes);
        bytes += f.size() - 54;
        total += data[i];
    }
    EXPECT_EQ(bytes, stream);
    EXPECT_EQ(total, 2u * 131072);
}

TEST(PcapWriter, WritesClassicPcap) {
    const std::string path = testing::TempDir() + "gen_test.pcap";
    std::string err;
    ASSERT_TRUE(gen::write_pcap(path, {{1, 2, 3}, std::vector<uint8_t>(60, 9)}, &err)) << err;
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_EQ(b.size(), 24u + 16 + 3 + 16 + 60);
    EXPECT_EQ(le32(&b[0]), 0xA1B2C3D4u);
    EXPECT_EQ(le32(&b[20]), 1u);  // Ethernet
    EXPECT_EQ(le32(&b[24 + 8]), 3u);
    EXPECT_EQ(le32(&b[24 + 12]), 3u);
    EXPECT_FALSE(gen::write_pcap("/nonexistent/dir/x.pcap", {}, &err));
}

}  // namespace
}  // namespace csum
