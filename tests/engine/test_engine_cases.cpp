// Every scapy-built case through the real engine, over real mbuf chains.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>

#include "case_file.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

using test::engine_cases;
using test::make_chain;
using test::run_engine;

class EngineCases : public test::MbufTest {
  protected:
    static EngineConfig cfg(Mode mode) {
        EngineConfig c;
        c.mode = mode;
        return c;
    }
    void expect_case(const test::EngineCase& c, const test::Outcome& o, const std::string& shape) {
        SCOPED_TRACE(c.name + " " + shape);
        EXPECT_EQ(o.layers, c.layers);
        EXPECT_EQ(o.ip_summed, c.ip_summed);
        EXPECT_EQ(o.csum_level, c.csum_level);
        EXPECT_EQ(o.error, c.error);
    }
    std::string shape_name(const std::vector<uint32_t>& lens) {
        std::ostringstream s;
        s << "segs";
        for (auto l : lens) s << ' ' << l;
        return s.str();
    }
};

TEST_F(EngineCases, CaseFileIsLoaded) {
    EXPECT_GT(engine_cases().size(), 100u);
}

TEST_F(EngineCases, VerifyLinear) {
    Engine e(cfg(Mode::verify));
    for (const auto& c : engine_cases()) {
        rte_mbuf* m = test::make_linear(pool(), c.bytes);
        ASSERT_NE(m, nullptr);
        expect_case(c, run_engine(e, m), "linear");
        rte_pktmbuf_free(m);
    }
}

TEST_F(EngineCases, VerifyOddAndTinySegmentations) {
    Engine e(cfg(Mode::verify));
    std::mt19937 rng(1234);
    for (const auto& c : engine_cases()) {
        const uint32_t n = static_cast<uint32_t>(c.bytes.size());
        std::vector<std::vector<uint32_t>> shapes;
        // Every two-way split for short packets, a spread of splits otherwise.
        for (uint32_t cut = 0; cut <= n; cut += (n <= 160 ? 1 : 37))
            shapes.push_back({cut, n - cut});
        for (int k = 0; k < 12; ++k) shapes.push_back(test::random_split(n, 2 + k % 6, rng));
        std::vector<uint32_t> ones(std::min<uint32_t>(n, 64), 1);
        if (n > 64) ones.push_back(n - 64);
        shapes.push_back(ones);
        for (const auto& lens : shapes) {
            rte_mbuf* m = make_chain(pool(), c.bytes, lens, static_cast<uint16_t>(rng() % 3));
            ASSERT_NE(m, nullptr);
            expect_case(c, run_engine(e, m), shape_name(lens));
            rte_pktmbuf_free(m);
            if (HasFailure()) return;
        }
    }
}

TEST_F(EngineCases, FillRestoresEveryChecksumAsScapyComputesIt) {
    Engine fill(cfg(Mode::fill));
    Engine verify(cfg(Mode::verify));
    std::mt19937 rng(99);
    int fill_cases = 0;
    for (const auto& c : engine_cases()) {
        if (c.zeroed.empty()) continue;
        ++fill_cases;
        for (int shape = 0; shape < 4; ++shape) {
            const uint32_t n = static_cast<uint32_t>(c.zeroed.size());
            auto lens =
                shape == 0 ? std::vector<uint32_t>{n} : test::random_split(n, 1 + shape * 2, rng);
            rte_mbuf* m = make_chain(pool(), c.zeroed, lens);
            ASSERT_NE(m, nullptr);
            const auto o = run_engine(fill, m);
            SCOPED_TRACE(c.name + " " + shape_name(lens));
            EXPECT_EQ(test::chain_bytes(m), c.filled);
            EXPECT_EQ(o.layers.find("skipped"), std::string::npos) << o.layers;
            const auto again = run_engine(verify, m);
            EXPECT_EQ(again.layers.find("bad"), std::string::npos) << again.layers;
            EXPECT_EQ(again.layers.find("zero"), std::string::npos) << again.layers;
            rte_pktmbuf_free(m);
        }
    }
    EXPECT_GT(fill_cases, 30);
    EXPECT_GT(fill.stats().sw_filled.get(), 100u);
}

TEST_F(EngineCases, CsumModeLeavesRightPacketsUntouched) {
    Engine e(cfg(Mode::csum));
    for (const auto& c : engine_cases()) {
        rte_mbuf* m = test::make_linear(pool(), c.bytes);
        const auto o = run_engine(e, m);
        expect_case(c, o, "csum mode");
        EXPECT_EQ(test::chain_bytes(m), c.bytes) << c.name;  // bad stays bad, good stays good
        rte_pktmbuf_free(m);
    }
}

TEST_F(EngineCases, TrustedPortSkipsEveryCheck) {
    Engine e(cfg(Mode::verify));
    RxPortPolicy trusted;
    trusted.trusted = true;
    for (const auto& c : engine_cases()) {
        if (c.error != "none" || c.layers.find("unverifiable") != std::string::npos) continue;
        rte_mbuf* m = test::make_linear(pool(), c.bytes);
        const auto o = run_engine(e, m, trusted);
        // Every checksum is skipped, except what parsing alone knows (zero,
        // illegal, malformed, fragments).
        std::string expect;
        std::stringstream layers(c.layers);
        for (std::string l; std::getline(layers, l, ',');) {
            const std::string proto = l.substr(0, l.find(':')), status = l.substr(l.find(':') + 1);
            const bool judged_by_parsing =
                status == "zero" || status == "illegal" || status == "malformed";
            expect += (expect.empty() ? "" : ",") + proto + ":" +
                      (judged_by_parsing ? status : "skipped");
        }
        EXPECT_EQ(o.layers, expect) << c.name;
        rte_pktmbuf_free(m);
    }
    EXPECT_EQ(e.stats().sum_bytes.get(), 0u);
    EXPECT_EQ(e.stats().crc_bytes.get(), 0u);
}

TEST_F(EngineCases, DropPolicyDropsBadAndMalformedWithNamedReasons) {
    Engine e(cfg(Mode::verify));
    RxPortPolicy drop;
    drop.drop_bad = true;
    uint64_t expect_bad = 0, expect_malformed = 0;
    for (const auto& c : engine_cases()) {
        rte_mbuf* m = test::make_linear(pool(), c.bytes);
        const auto o = run_engine(e, m, drop);
        const bool bad = c.layers.find(":bad") != std::string::npos ||
                         c.layers.find(":illegal") != std::string::npos;
        const bool malformed =
            c.error != "none" || c.layers.find(":malformed") != std::string::npos;
        EXPECT_EQ(o.forwarded, !bad && !malformed) << c.name;
        expect_bad += bad;
        expect_malformed += !bad && malformed;
        rte_pktmbuf_free(m);
    }
    EXPECT_EQ(e.stats().drop[static_cast<int>(DropReason::bad_checksum)].get(), expect_bad);
    EXPECT_EQ(e.stats().drop[static_cast<int>(DropReason::malformed)].get(), expect_malformed);
    EXPECT_GT(expect_bad, 50u);
    EXPECT_GT(expect_malformed, 10u);
}

}  // namespace
}  // namespace csum
