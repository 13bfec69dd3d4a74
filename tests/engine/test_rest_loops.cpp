// The same-shape runs' two rest loops (adc, and adcx/adox where the CPU has
// ADX: kPlanAdxRest) on packets whose summed region is 129..256 bytes, in
// every mode, against the reference walker: same verdicts and bytes, good
// packets and bad ones, payloads that carry out of every add.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "dispatch/cpu_features.h"
#include "dispatch/select.h"
#include "gen/checksum_fill.h"
#include "gen/packet_builder.h"
#include "support/chain_builder.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class RestLoops : public test::MbufTest {};

// TCP and UDP over IPv4 and IPv6, frames 140..300 B: good, a payload byte
// flipped, and all-ones payloads (good), in bursts of 32.
std::vector<std::vector<uint8_t>> frames(std::mt19937& rng) {
    std::vector<std::vector<uint8_t>> out;
    for (gen::Proto proto :
         {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6, gen::Proto::udp6})
        for (uint32_t len = 140; len <= 300; ++len) {
            auto f = gen::build_frame({proto, len, 1, len});
            const bool v6 = proto == gen::Proto::tcp6 || proto == gen::Proto::udp6;
            const bool udp = proto == gen::Proto::udp4 || proto == gen::Proto::udp6;
            const size_t l4 = v6 ? 54 : 34, hdr = udp ? 8 : 20;
            const int kind = int(rng() % 3);
            if (kind == 2) std::memset(f.data() + l4 + hdr, 0xFF, f.size() - l4 - hdr);
            gen::fill_checksums(f);
            if (kind == 1) f[l4 + hdr + rng() % (f.size() - l4 - hdr)] ^= 0x40;
            out.push_back(std::move(f));
        }
    return out;
}

TEST_F(RestLoops, BothLoopsAgreeWithTheWalker) {
    std::mt19937 rng(129);
    const auto all = frames(rng);
    const uint32_t before = detail::inet_plan_now();
    std::vector<uint32_t> plans{before & ~detail::kPlanAdxRest};
    if (detail::detect_cpu().adx) plans.push_back(before | detail::kPlanAdxRest);
    for (uint32_t plan : plans) {
        detail::inet_plan_set(plan);
        for (Mode mode : {Mode::verify, Mode::fill, Mode::csum}) {
            const auto engs = test::lean_and_walker({mode});
            for (size_t at = 0; at < all.size(); at += 32) {
                const size_t n = std::min<size_t>(32, all.size() - at);
                std::vector<std::vector<uint8_t>> got[2];
                std::vector<std::string> said[2];
                for (int e = 0; e < 2; ++e) {
                    std::vector<rte_mbuf*> burst;
                    for (size_t i = at; i < at + n; ++i) {
                        const uint32_t whole[1] = {uint32_t(all[i].size())};
                        burst.push_back(test::make_chain(pool(), all[i], whole));
                    }
                    engs[e]->process({}, {}, burst.data(), uint16_t(n));
                    for (rte_mbuf* m : burst) {
                        got[e].push_back(test::chain_bytes(m));
                        said[e].push_back(test::verdict_key(m, *engs[e]));
                    }
                    rte_pktmbuf_free_bulk(burst.data(), unsigned(n));
                }
                for (size_t i = 0; i < n; ++i) {
                    ASSERT_EQ(got[0][i], got[1][i]) << "frame " << at + i << " plan " << plan;
                    ASSERT_EQ(said[0][i], said[1][i]) << "frame " << at + i << " plan " << plan;
                }
            }
            EXPECT_EQ(engs[0]->stats().sum_bytes.get(), engs[1]->stats().sum_bytes.get());
        }
    }
    detail::inet_plan_set(before);
}

}  // namespace
}  // namespace csum
