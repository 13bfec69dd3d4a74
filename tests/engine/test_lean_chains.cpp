// Chained packets through the all-good run (good_run_as with chains, then
// same_chain_run for the chains of the run's shape) and the front gathering
// they rely on (gather_front): the same verdicts, bytes, order and counters
// as the reference walker, for chains cut anywhere (headers included, empty
// and 1-byte segments, data at odd offsets), with hostile members: lying
// descriptors, cut headers, bad sums, other shapes and layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <random>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "gen/packet_builder.h"
#include "parse/classify.h"
#include "support/chain_builder.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class LeanChains : public test::MbufTest {
  protected:
    // A burst of every-cut chains through each mode's lean and walker
    // engines (engs: lean_and_walker's): bad packets dropped in even bursts,
    // data at odd offsets in every third.
    void expect_same_in_each_mode(const std::vector<std::unique_ptr<Engine>>& engs, int burst_no,
                                  const std::vector<test::ChainSpec>& specs,
                                  const std::vector<std::string>& what, const std::string& where) {
        const uint16_t misalign = uint16_t(burst_no % 3 == 1 ? 1 : 0);
        for (size_t mi = 0; mi < engs.size() / 2; ++mi) {
            RxPortPolicy rx;
            rx.drop_bad = burst_no % 2 == 0;
            SCOPED_TRACE("burst " + std::to_string(burst_no) + where + " mode " +
                         std::to_string(mi));
            ASSERT_NO_FATAL_FAILURE(test::expect_same_burst(*engs[2 * mi], *engs[2 * mi + 1],
                                                            pool(), specs, rx, misalign, what));
        }
    }
};

// The front of every chain of a 1..200-byte packet cut into two pieces at
// every point, three with a 1-byte or empty middle, and four at random, data
// at even and odd offsets: its bytes are the packet's, in place exactly when
// the first segment holds them.
TEST_F(LeanChains, GatherFrontPlacesEveryByteAtEverySplit) {
    std::mt19937 rng(15);
    std::array<uint8_t, kHeaderGather> buf;
    auto check = [&](const std::vector<uint8_t>& bytes, const std::vector<uint32_t>& lens,
                     uint16_t misalign, uint32_t need) {
        rte_mbuf* m = test::make_chain(pool(), bytes, lens, misalign);
        ASSERT_NE(m, nullptr);
        auto front = [&] {
            return shape_detail::gather_front(m, std::span<uint8_t, kHeaderGather>(buf),
                                              [&] { return need; });
        };
        buf.fill(0xEE);
        const shape_detail::Front f = front();
        const uint32_t len = uint32_t(bytes.size());
        const uint32_t want = len <= kHeaderGather ? len : need;
        std::string what = "len " + std::to_string(len) + " misalign " + std::to_string(misalign);
        for (uint32_t l : lens) what.append(" ").append(std::to_string(l));
        ASSERT_NE(f.bytes, nullptr) << what;
        if (lens[0] >= want) {
            EXPECT_EQ(f.bytes, rte_pktmbuf_mtod(m, uint8_t*)) << what;
            EXPECT_EQ(f.in_place, f.bytes) << what;
            EXPECT_EQ(f.held, std::min(uint32_t(lens[0]), len)) << what;
        } else {
            EXPECT_EQ(f.bytes, buf.data()) << what;
            EXPECT_EQ(f.in_place, nullptr) << what;
            EXPECT_EQ(f.held, want) << what;
            // Nothing past the front written.
            for (uint32_t i = want; i < kHeaderGather; ++i) ASSERT_EQ(buf[i], 0xEE) << what;
        }
        for (uint32_t i = 0; i < std::min(f.held, want); ++i)
            ASSERT_EQ(f.bytes[i], bytes[i]) << what << " byte " << i;
        // The same chain with a lying descriptor has no front.
        m->nb_segs += 1;
        EXPECT_EQ(front().bytes, nullptr) << what;
        m->nb_segs -= 1;
        m->pkt_len += 1;
        EXPECT_EQ(front().bytes, nullptr) << what;
        m->pkt_len -= 1;
        rte_pktmbuf_free(m);
    };
    for (uint32_t len : {1u, 2u, 15u, 16u, 17u, 33u, 54u, 64u, 74u, 127u, 128u, 129u, 200u}) {
        std::vector<uint8_t> bytes(len);
        std::iota(bytes.begin(), bytes.end(), uint8_t(1));
        for (uint16_t misalign : {0, 1, 3}) {
            for (uint32_t need : {54u, 74u}) {
                for (uint32_t cut = 0; cut <= len; ++cut) {
                    check(bytes, {cut, len - cut}, misalign, need);
                    if (cut + 1 <= len) check(bytes, {cut, 1, len - cut - 1}, misalign, need);
                    check(bytes, {cut, 0, len - cut}, misalign, need);
                }
                for (int r = 0; r < 20; ++r)
                    check(bytes, test::random_split(len, 4, rng), misalign, need);
            }
        }
    }
}

// Bursts of 32 packets of one plain shape, most of them chains: with GOOD
// flags (the first 96 bursts) or none (our sums decide), a third of each
// burst hostile. The lean engine must match the walker-only one exactly.
TEST_F(LeanChains, ChainRunsWithHostileMembersMatchTheWalker) {
    struct Kind {
        gen::Proto proto;
        bool v6, udp;
    };
    const Kind kinds[] = {{gen::Proto::tcp4, false, false},
                          {gen::Proto::udp4, false, true},
                          {gen::Proto::tcp6, true, false},
                          {gen::Proto::udp6, true, true}};
    constexpr uint64_t kGood = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    test::Filler fill(pool());
    std::mt19937 rng(1515 + 15);
    constexpr int kN = 32;
    const auto engs = test::lean_and_walker({Mode::verify, Mode::csum});
    // Descriptor lies, applied after the chain is built and undone before it is freed.
    using enum test::Lie;
    for (int iter = 0; iter < 192; ++iter) {
        const bool sums = iter >= 96;
        const Kind& k = kinds[iter / 2 % 4];
        const size_t ip = 14, l4 = k.v6 ? 54 : 34;
        // Short bursts gather whole (<= 128 bytes), long ones only the headers.
        const bool longs = iter % 3 == 2;
        std::vector<test::ChainSpec> specs;
        std::vector<std::string> what;
        for (int i = 0; i < kN; ++i) {
            const uint32_t len = longs ? 129 + uint32_t(rng() % 1400) : 60 + uint32_t(rng() % 69);
            std::vector<uint8_t> f = fill.frame(k.proto, len, uint32_t(iter * kN + i));
            uint64_t fl = sums ? 0 : k.v6 && rng() % 2 ? RTE_MBUF_F_RX_L4_CKSUM_GOOD : kGood;
            unsigned segs = 2 + unsigned(rng() % 3);
            test::Lie lie = none;
            const int m = rng() % 3 == 0 ? 1 + int(rng() % 18) : 0;
            switch (m) {
                case 1:  // any IP header byte
                    f[ip + rng() % 20] ^= uint8_t(1 + rng() % 255);
                    break;
                case 2:  // the other protocol
                    f[ip + (k.v6 ? 6 : 9)] = k.udp ? 6 : 17;
                    break;
                case 3:  // cut short
                    f.resize(f.size() - 1 - rng() % 30);
                    break;
                case 4:  // cut in the L4 header
                    f.resize(l4 + rng() % 12);
                    break;
                case 5:  // a payload byte (a bad L4 sum when ours decide)
                    if (f.size() > l4 + 8)
                        f[l4 + 8 + rng() % (f.size() - l4 - 8)] ^= uint8_t(1 + rng() % 255);
                    break;
                case 6:  // NVMe / tunnel destination port
                    f[l4 + 2] = uint8_t((k.udp ? 4789 : 4420) >> 8),
                           f[l4 + 3] = uint8_t(k.udp ? 4789 : 4420);
                    break;
                case 7:  // L4 BAD / no flags and a bad sum
                    if (sums)
                        f[f.size() - 1] ^= 0x5A;
                    else
                        fl = kGood | RTE_MBUF_F_RX_L4_CKSUM_BAD;
                    break;
                case 8:  // linear
                    segs = 1;
                    break;
                case 9:  // another shape
                    f = fill.frame(kinds[rng() % 4].proto, len, uint32_t(i));
                    break;
                case 10:  // SCTP
                    f = fill.frame(gen::Proto::sctp4, len, uint32_t(i));
                    break;
                case 11:
                    lie = segs_high;
                    break;
                case 12:
                    lie = segs_low;
                    break;
                case 13:
                    lie = pkt_len_past;
                    break;
                case 14:
                    lie = last_cut;
                    break;
                case 15:
                    lie = loop_to_head;
                    break;
                case 16:
                    lie = loop_to_self;
                    break;
                case 17:  // flags the run does not take
                    fl = sums ? RTE_MBUF_F_RX_L4_CKSUM_GOOD : RTE_MBUF_F_RX_IP_CKSUM_GOOD;
                    break;
                default:
                    break;
            }
            const uint32_t n = uint32_t(f.size());
            std::vector<uint32_t> sp = test::random_split(n, segs, rng);
            if (segs > 1 && rng() % 4 == 0) {
                // 1-byte segments inside the headers.
                const uint32_t at = 1 + uint32_t(rng() % std::min<uint32_t>(n - 1, 60));
                sp = {at, 1, n - at - 1};
                if (sp.back() > 2 && rng() % 2) sp.back() -= 1, sp.push_back(1);
            }
            if (lie == last_cut && sp.back() == 0) lie = none;
            specs.push_back({f, sp, fl, 0, lie});
            what.push_back(std::to_string(i) + ":" + std::to_string(m));
        }
        const uint16_t misalign = uint16_t(iter % 4 == 1 ? 1 : 0);
        for (int mi = 0; mi < 2; ++mi) {
            const Mode mode = mi == 0 ? Mode::verify : Mode::csum;
            Engine &el = *engs[2 * mi], &er = *engs[2 * mi + 1];
            RxPortPolicy rx;
            rx.drop_bad = iter % 3 != 0;
            SCOPED_TRACE("iter " + std::to_string(iter) + " mode " + std::string(to_string(mode)));
            ASSERT_NO_FATAL_FAILURE(
                test::expect_same_burst(el, er, pool(), specs, rx, misalign, what));
            ASSERT_EQ(el.stats().sum_bytes.get(), er.stats().sum_bytes.get());
        }
    }
}

// SCTP chains through the all-good run (same_sctp_run<…, kChains>): every
// burst is one packet cut at 32 consecutive offsets (so over all bursts at
// every offset: inside the IP header, the common header, the chunk header
// and the data), into two pieces, three with an empty or 1-byte middle, or
// four at random; a third of each burst hostile: a wrong CRC (a byte flipped
// in each segment in turn, or the stored CRC), lying descriptors, a chain
// shorter than pkt_len, other flags. The lean engine must match the
// walker-only one exactly, so a bad packet the run took would fail here.
TEST_F(LeanChains, SctpChainRunsMatchTheWalkerAtEveryCut) {
    constexpr uint64_t kGood = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    test::Filler fill(pool());
    auto filled = [&](bool v6, uint32_t len, uint32_t flow) {
        return v6 ? fill.sctp6(len, flow) : fill.frame(gen::Proto::sctp4, len, flow);
    };
    std::mt19937 rng(15132);
    constexpr int kN = 32;
    const auto engs = test::lean_and_walker({Mode::verify, Mode::csum});
    using enum test::Lie;  // loop_to_head aside
    // Lengths around the gather's whole-packet limits (128; 256 under a plan
    // without kPlanStream), and long ones.
    const uint32_t lens[] = {64, 90, 128, 129, 256, 257, 1420};
    int burst_no = 0;
    for (bool v6 : {false, true}) {
        const uint32_t l4 = v6 ? 54 : 34;
        for (uint32_t len : lens) {
            if (len < l4 + 16) continue;
            // Every cut in the headers and the first data, a stride beyond.
            std::vector<uint32_t> cuts;
            for (uint32_t c = 0; c <= len; c += c < l4 + 48 ? 1 : 29) cuts.push_back(c);
            for (size_t c0 = 0; c0 < cuts.size(); c0 += kN, ++burst_no) {
                const bool sums = burst_no % 4 != 3;  // every fourth burst by GOOD flags
                std::vector<test::ChainSpec> specs;
                std::vector<std::string> what;
                for (int i = 0; i < kN; ++i) {
                    const uint32_t cut = cuts[(c0 + size_t(i)) % cuts.size()];
                    std::vector<uint8_t> f = filled(v6, len, uint32_t(burst_no * kN + i));
                    const uint32_t n = uint32_t(f.size());
                    std::vector<uint32_t> sp;
                    switch (i % 4) {
                        case 0:
                            sp = {cut, n - cut};
                            break;
                        case 1:  // an empty middle segment
                            sp = {cut, 0, n - cut};
                            break;
                        case 2:  // a 1-byte middle segment
                            sp = cut < n ? std::vector<uint32_t>{cut, 1, n - cut - 1}
                                         : std::vector<uint32_t>{cut - 1, 1};
                            break;
                        default:
                            sp = test::random_split(n, 4, rng);
                            break;
                    }
                    uint64_t fl = sums ? 0 : kGood;
                    test::Lie lie = none;
                    const int m = rng() % 3 == 0 ? 1 + int(rng() % 9) : 0;
                    switch (m) {
                        case 1:
                        case 2:
                        case 3: {  // a byte of one segment (each in turn) flipped
                            uint32_t seg = uint32_t(rng() % sp.size()), at = 0;
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
                            fl = sums ? RTE_MBUF_F_RX_L4_CKSUM_GOOD : RTE_MBUF_F_RX_IP_CKSUM_GOOD;
                            break;
                        default:
                            break;
                    }
                    if (lie == last_cut && sp.back() == 0) lie = none;
                    specs.push_back({f, sp, fl, 0, lie});
                    what.push_back(std::to_string(i) + ":cut " + std::to_string(cut) + ":" +
                                   std::to_string(m));
                }
                ASSERT_NO_FATAL_FAILURE(expect_same_in_each_mode(
                    engs, burst_no, specs, what,
                    " v6 " + std::to_string(v6) + " len " + std::to_string(len)));
            }
        }
    }
}

// TCP/UDP chains of 2 to 4 segments through the all-good run, each short
// one's front gathered an iteration ahead (same_chain_run). Every burst
// alternates a good chain and one with a header byte changed, each cut at
// consecutive offsets (over all bursts, every offset in the headers). Were
// a chain's gathered front overwritten by the next chain's before its
// checks, the changed chain would be judged by its good neighbour's headers
// and taken: the lean engine must match the walker-only one exactly.
TEST_F(LeanChains, TcpUdpChainRunsKeepEachFrontAtEveryCut) {
    constexpr uint64_t kGood = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    const gen::Proto protos[] = {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6,
                                 gen::Proto::udp6};
    test::Filler fill(pool());
    std::mt19937 rng(6415);
    constexpr int kN = 32;
    const auto engs = test::lean_and_walker({Mode::verify, Mode::csum});
    // Around the whole-packet gather limit (128), and one the walk may take.
    const uint32_t lens[] = {64, 90, 128, 129, 256};
    int burst_no = 0;
    for (gen::Proto proto : protos) {
        const bool v6 = proto == gen::Proto::tcp6 || proto == gen::Proto::udp6;
        const bool udp = proto == gen::Proto::udp4 || proto == gen::Proto::udp6;
        const uint32_t ip = 14, l4 = v6 ? 54 : 34, hdr = l4 + (udp ? 8 : 20);
        for (uint32_t len : lens) {
            std::vector<uint32_t> cuts;
            for (uint32_t c = 1; c < len; c += c < hdr + 8 ? 1 : 17) cuts.push_back(c);
            for (size_t c0 = 0; c0 < cuts.size(); c0 += kN / 2, ++burst_no) {
                const bool sums = burst_no % 4 != 3;  // every fourth burst by GOOD flags
                std::vector<test::ChainSpec> specs;
                std::vector<std::string> what;
                for (int i = 0; i < kN; ++i) {
                    // Each cut twice: the changed chain, then a good one.
                    const uint32_t cut = cuts[(c0 + size_t(i / 2)) % cuts.size()];
                    std::vector<uint8_t> f = fill.frame(proto, len, uint32_t(burst_no * kN + i));
                    const uint32_t n = uint32_t(f.size());
                    int at = -1;
                    if (i % 2 == 0) {
                        at = int(ip + rng() % (hdr - ip));  // IP or L4 header
                        f[size_t(at)] ^= uint8_t(1 + rng() % 255);
                    }
                    // 2, 3 or 4 segments by turns: the rest after the cut in
                    // near-equal pieces (the short ones are gathered ahead too).
                    const uint32_t rest = n - cut;
                    const uint32_t pieces =
                        std::min<uint32_t>(1 + uint32_t(i / 2 + burst_no) % 3, rest);
                    std::vector<uint32_t> sp{cut};
                    for (uint32_t q = 0, done = 0; q < pieces; ++q) {
                        const uint32_t take = q + 1 == pieces ? rest - done : rest / pieces;
                        sp.push_back(take), done += take;
                    }
                    specs.push_back({f, sp, sums ? 0 : kGood});
                    what.push_back(std::to_string(i) + ":cut " + std::to_string(cut) + ":segs " +
                                   std::to_string(sp.size()) + ":at " + std::to_string(at));
                }
                ASSERT_NO_FATAL_FAILURE(expect_same_in_each_mode(
                    engs, burst_no, specs, what,
                    " proto " + std::to_string(int(proto)) + " len " + std::to_string(len)));
            }
        }
    }
}

}  // namespace
}  // namespace csum
