// The same-shape runs' two rest loops (adc, and adcx/adox where the CPU has
// ADX: kPlanAdxRest) on packets whose summed region is 129..256 bytes (65..256
// for a tunnel's inner one), in every mode, against the reference walker: same verdicts and bytes,
// good packets and bad ones, payloads that carry out of every add.
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

// TCP and UDP over IPv4 and IPv6, frames 140..300 B, and VXLAN and GENEVE
// with inner TCP, frames 100..340 B: good, a payload byte flipped, and
// all-ones payloads (good), in bursts of 32.
std::vector<std::vector<uint8_t>> frames(std::mt19937& rng, bool tunnels) {
    struct Kind {
        gen::Proto proto;
        uint32_t payload_at, from, to;
    };
    const Kind kinds[] = {
        {gen::Proto::tcp4, 54, 140, 300},
        {gen::Proto::udp4, 42, 140, 300},
        {gen::Proto::tcp6, 74, 140, 300},
        {gen::Proto::udp6, 62, 140, 300},
        {gen::Proto::vxlan_tcp4, gen::outer_len(gen::Proto::vxlan_tcp4) + 54, 100, 340},
        {gen::Proto::geneve_tcp4, gen::outer_len(gen::Proto::geneve_tcp4) + 54, 100, 340},
        {gen::Proto::vxlan6_tcp4, gen::outer_len(gen::Proto::vxlan6_tcp4) + 54, 100, 340}};
    std::vector<std::vector<uint8_t>> out;
    for (const Kind& k : kinds) {
        if (gen::is_tunnel(k.proto) != tunnels) continue;
        for (uint32_t len = k.from; len <= k.to; ++len) {
            auto f = gen::build_frame({k.proto, len, 1, len});
            if (f.size() <= k.payload_at) continue;
            const size_t payload = f.size() - k.payload_at;
            const int kind = int(rng() % 3);
            if (kind == 2) std::memset(f.data() + k.payload_at, 0xFF, payload);
            gen::fill_checksums(f);
            if (kind == 1) f[k.payload_at + rng() % payload] ^= 0x40;
            out.push_back(std::move(f));
        }
    }
    return out;
}

TEST_F(RestLoops, BothLoopsAgreeWithTheWalker) {
    std::mt19937 rng(129);
    const uint32_t before = detail::inet_plan_now();
    std::vector<uint32_t> plans{before & ~detail::kPlanAdxRest};
    if (detail::detect_cpu().adx) plans.push_back(before | detail::kPlanAdxRest);
    for (uint32_t plan : plans) {
        detail::inet_plan_set(plan);
        for (int set = 0; set < 2; ++set)
            for (Mode mode : {Mode::verify, Mode::fill, Mode::csum}) {
                const auto all = frames(rng, set == 1);
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
                // A tunnel's payload is summed once for both checks, not twice.
                if (set == 0) {
                    EXPECT_EQ(engs[0]->stats().sum_bytes.get(), engs[1]->stats().sum_bytes.get());
                }
            }
    }
    detail::inet_plan_set(before);
}

}  // namespace
}  // namespace csum
