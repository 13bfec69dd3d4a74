// A burst of SCTP chains after a burst of linear SCTP packets of the same
// shape: the engine has a last run's shape, so the burst goes to same_burst,
// which hands a first packet that is a chain straight to the chain run
// (same_sctp_run<…, kChains>). Every chain burst is hostile in part: a wrong
// CRC (a byte flipped in each segment in turn, or the stored CRC), nb_segs
// high or low, pkt_len past the chain, a chain cut short, a segment linked
// to itself, empty and 1-byte segments, other flags, a linear packet and
// the other IP version among the chains, its first packet hostile in one
// burst in four and of the other IP version in another. The lean engine must match the walker-only
// one exactly.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "gen/packet_builder.h"
#include "support/chain_builder.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class SctpChainBurst : public test::MbufTest {};

TEST_F(SctpChainBurst, ChainBurstsAfterALinearRunMatchTheWalker) {
    test::Filler fill(pool());
    auto filled = [&](bool v6, uint32_t len, uint32_t flow) {
        return v6 ? fill.sctp6(len, flow) : fill.frame(gen::Proto::sctp4, len, flow);
    };
    std::mt19937 rng(15203);
    constexpr int kN = 32;
    const auto engs = test::lean_and_walker({Mode::verify, Mode::csum, Mode::fill});
    using enum test::Lie;
    const uint32_t lens[] = {64, 90, 128, 129, 256, 1420};
    int burst_no = 0;
    auto both = [&](const std::vector<test::ChainSpec>& specs, const std::vector<std::string>& what,
                    const std::string& where) {
        const uint16_t misalign = uint16_t(burst_no % 3 == 1);
        for (size_t mi = 0; mi < engs.size() / 2; ++mi) {
            RxPortPolicy rx;
            rx.drop_bad = burst_no % 2 == 0;
            SCOPED_TRACE("burst " + std::to_string(burst_no) + where + " mode " +
                         std::to_string(mi));
            ASSERT_NO_FATAL_FAILURE(test::expect_same_burst(*engs[2 * mi], *engs[2 * mi + 1],
                                                            pool(), specs, rx, misalign, what));
        }
    };
    for (bool v6 : {false, true}) {
        const uint32_t l4 = v6 ? 54 : 34;
        for (uint32_t len : lens) {
            const std::string where = " v6 " + std::to_string(v6) + " len " + std::to_string(len);
            for (int round = 0; round < 8; ++round, ++burst_no) {
                // The linear run that leaves its shape as the last run's.
                std::vector<test::ChainSpec> lin;
                std::vector<std::string> lin_what;
                for (int i = 0; i < kN; ++i) {
                    std::vector<uint8_t> f = filled(v6, len, uint32_t(burst_no * kN + i));
                    const uint32_t n = uint32_t(f.size());
                    lin.push_back({f, {n}, 0, 0, none});
                    lin_what.push_back("linear " + std::to_string(i));
                }
                ASSERT_NO_FATAL_FAILURE(both(lin, lin_what, where + " linear"));
                // The chains.
                std::vector<test::ChainSpec> specs;
                std::vector<std::string> what;
                for (int i = 0; i < kN; ++i) {
                    // The other IP version: one chain, and the first in every fourth burst.
                    const bool other_ip = i == 17 || (i == 0 && round % 4 == 2);
                    std::vector<uint8_t> f =
                        filled(other_ip ? !v6 : v6, len, uint32_t(burst_no * kN + i));
                    const uint32_t n = uint32_t(f.size());
                    const uint32_t cut = 1 + uint32_t(rng() % (n - 1));
                    std::vector<uint32_t> sp;
                    switch (rng() % 5) {
                        case 0:
                            sp = {cut, n - cut};
                            break;
                        case 1:  // an empty middle segment
                            sp = {cut, 0, n - cut};
                            break;
                        case 2:  // 1-byte segments
                            sp = cut + 1 < n ? std::vector<uint32_t>{1, cut - 1, 1, n - cut - 1}
                                             : std::vector<uint32_t>{1, n - 1};
                            break;
                        case 3:  // an empty last segment
                            sp = {cut, n - cut, 0};
                            break;
                        default:
                            sp = test::random_split(n, 4, rng);
                            break;
                    }
                    if (i == 23) sp = {n};  // a linear packet among the chains
                    uint64_t fl = 0;
                    test::Lie lie = none;
                    // Hostile: a third of the chains, and the first one in every fourth burst.
                    const bool hostile = (i == 0 && round % 4 == 3) || (i != 0 && rng() % 3 == 0);
                    const int m = hostile ? 1 + int(rng() % 9) : 0;
                    switch (m) {
                        case 1:
                        case 2:
                        case 3: {  // a byte of one segment (each in turn) flipped
                            uint32_t seg = uint32_t(burst_no + i) % uint32_t(sp.size()), at = 0;
                            while (sp[seg] == 0) seg = (seg + 1) % uint32_t(sp.size());
                            for (uint32_t q = 0; q < seg; ++q) at += sp[q];
                            at += uint32_t(rng() % sp[seg]);
                            f[at] ^= uint8_t(1 + rng() % 255);
                            break;
                        }
                        case 4:  // the stored CRC
                            f[l4 + 8 + rng() % 4] ^= uint8_t(1 + rng() % 255);
                            break;
                        case 5:
                            lie = pkt_len_past;
                            break;
                        case 6:
                            lie = rng() % 2 ? segs_high : segs_low;
                            break;
                        case 7:
                            lie = rng() % 2 ? last_cut : loop_to_self;
                            break;
                        case 8:  // flags the run does not take
                            fl = rng() % 2 ? RTE_MBUF_F_RX_L4_CKSUM_BAD
                                           : RTE_MBUF_F_RX_IP_CKSUM_GOOD;
                            break;
                        default:
                            break;
                    }
                    if (sp.size() == 1 && lie != pkt_len_past) lie = none;
                    if (lie == last_cut && sp.back() == 0) lie = none;
                    specs.push_back({f, sp, fl, 0, lie});
                    what.push_back(std::to_string(i) + ":cut " + std::to_string(cut) + ":" +
                                   std::to_string(m) + ":segs " + std::to_string(sp.size()));
                }
                ASSERT_NO_FATAL_FAILURE(both(specs, what, where + " chains"));
            }
        }
    }
    for (size_t mi = 0; mi < engs.size() / 2; ++mi)
        ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(*engs[2 * mi], *engs[2 * mi + 1]));
}

}  // namespace
}  // namespace csum
