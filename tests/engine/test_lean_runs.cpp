// Whole bursts on the lean path against the reference walker (the engine
// with plain_fast_path = false): the all-good runs with hostile members, bursts
// of many outcomes, and csum mode filling the packets a run stopped at. Same
// verdicts, bytes, burst order and counters, the bytes summed included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "gen/checksum_fill.h"
#include "gen/nvme_tcp.h"
#include "gen/packet_builder.h"
#include "support/chain_builder.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class LeanRuns : public test::MbufTest {
  protected:
    std::mt19937 rng_{77};
};

// csum mode: a packet the all-good run stops at has had its L4 sum taken
// there, and the lean path fills from that sum rather than summing again.
// Good packets followed by CHECKSUM_PARTIAL and bad ones, long enough to go
// through the kernels, linear and chained: bytes and verdicts as the walker's.
TEST_F(LeanRuns, CsumFillsStoppedPacketsFromTheRunsSum) {
    std::vector<std::vector<uint8_t>> frames;
    for (gen::Proto proto :
         {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6, gen::Proto::udp6})
        for (uint32_t len : {90u, 130u, 600u, 1420u})
            for (int kind = 0; kind < 3; ++kind) {
                auto frame = gen::build_frame({proto, len, 1, len});
                if (kind == 1) gen::fill_checksums_partial(frame);  // partial: filled
                if (kind == 2) frame[frame.size() - 3] ^= 0x21;     // bad: left alone
                frames.push_back(frame);
            }
    for (unsigned segs : {1u, 2u}) {
        const auto engs = test::lean_and_walker({Mode::csum});
        Engine &el = *engs[0], &er = *engs[1];
        Engine* engines[2] = {&el, &er};
        std::vector<std::vector<uint32_t>> splits;
        for (const auto& f : frames)
            splits.push_back(segs == 1 ? std::vector<uint32_t>{uint32_t(f.size())}
                                       : test::random_split(uint32_t(f.size()), segs, rng_));
        std::vector<std::vector<uint8_t>> got[2];
        std::vector<std::string> verdicts[2];
        for (int e = 0; e < 2; ++e) {
            std::vector<rte_mbuf*> burst;
            for (size_t i = 0; i < frames.size(); ++i)
                burst.push_back(test::make_chain(pool(), frames[i], splits[i]));
            engines[e]->process({}, {}, burst.data(), uint16_t(burst.size()));
            for (rte_mbuf* m : burst) {
                got[e].push_back(test::chain_bytes(m));
                verdicts[e].push_back(test::verdict_key(m, *engines[e]));
            }
            rte_pktmbuf_free_bulk(burst.data(), unsigned(burst.size()));
        }
        for (size_t i = 0; i < frames.size(); ++i) {
            ASSERT_EQ(got[0][i], got[1][i]) << "frame " << i << " segments " << segs;
            ASSERT_EQ(verdicts[0][i], verdicts[1][i]) << "frame " << i << " segments " << segs;
        }
        // The partial ones were filled: their bytes changed.
        ASSERT_NE(got[0][1], frames[1]);
        ASSERT_EQ(el.stats().sum_bytes.get(), er.stats().sum_bytes.get());
    }
}

TEST_F(LeanRuns, BurstWithManyOutcomesCountsLikeTheWalker) {
    const gen::Proto protos[] = {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6,
                                 gen::Proto::udp6, gen::Proto::sctp4};
    static const uint64_t kIp[] = {0, RTE_MBUF_F_RX_IP_CKSUM_BAD, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
                                   RTE_MBUF_F_RX_IP_CKSUM_NONE};
    static const uint64_t kL4[] = {0, RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
                                   RTE_MBUF_F_RX_L4_CKSUM_NONE};
    test::Filler fill(pool());
    constexpr int kN = 64;
    std::vector<std::vector<uint8_t>> frames;
    std::vector<uint64_t> flags;
    for (int i = 0; i < kN; ++i) {
        auto frame = fill.frame(protos[i % 5], 100, uint32_t(i));
        if (i % 3 == 1) frame[frame.size() - 1] ^= 0x5A;  // a bad L4 sum
        if (i % 7 == 2) frame[14 + 8] ^= 1;               // a bad IPv4 header (TTL)
        frames.push_back(frame);
        flags.push_back(kIp[(i / 5) % 4] | kL4[(i / 3) % 4]);
    }
    for (Mode mode : {Mode::verify, Mode::csum}) {
        const auto engs = test::lean_and_walker({mode});
        Engine &el = *engs[0], &er = *engs[1];
        RxPortPolicy rx;
        rx.drop_bad = true;
        std::vector<std::vector<uint8_t>> out[2];
        std::vector<std::string> verdicts[2];
        uint16_t kept[2];
        Engine* engines[2] = {&el, &er};
        for (int e = 0; e < 2; ++e) {
            rte_mbuf* burst[kN];
            for (int i = 0; i < kN; ++i) {
                burst[i] = test::make_linear(pool(), frames[i]);
                burst[i]->ol_flags = flags[i];
            }
            kept[e] = engines[e]->process(rx, {}, burst, kN);
            for (int i = 0; i < kN; ++i) {
                verdicts[e].push_back(test::verdict_key(burst[i], *engines[e]));
                out[e].push_back(test::chain_bytes(burst[i]));
            }
            rte_pktmbuf_free_bulk(burst, kN);
        }
        ASSERT_EQ(kept[0], kept[1]);
        EXPECT_LT(kept[0], kN) << "some packets are dropped";
        EXPECT_EQ(verdicts[0], verdicts[1]);
        EXPECT_EQ(out[0], out[1]);
        EXPECT_EQ(el.stats().packets.get(), uint64_t{kN});
        EXPECT_NO_FATAL_FAILURE(test::expect_same_counts_and_work(el, er));
    }
}

// Full bursts of one shape with GOOD flags take the all-good run's
// same-shape loop (classify_same.h) after their first packet. Hostile
// members of the run (header, length, fragment, option, port and flag
// changes, chains, cuts), other shapes and dropped packets before the run
// must leave it and get the walker's verdicts, counts and burst order.
// All-good runs of one shape, by GOOD flags (bursts 0-159) and by our sums
// with no flags (160-319), a third of each burst hostile.
TEST_F(LeanRuns, AllGoodRunsWithHostileMembersMatchTheWalker) {
    struct Kind {
        gen::Proto proto;
        bool v6, udp, sctp;
    };
    // SCTP over IPv6 has no generator: sctp6 is sctp4's SCTP bytes behind an IPv6 header.
    const Kind kinds[] = {
        {gen::Proto::tcp4, false, false, false}, {gen::Proto::udp4, false, true, false},
        {gen::Proto::tcp6, true, false, false},  {gen::Proto::udp6, true, true, false},
        {gen::Proto::sctp4, false, false, true}, {gen::Proto::sctp4, true, false, true}};
    constexpr int kKinds = 6;
    constexpr uint64_t kGood = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    // The frame's checksums filled in software (where the filler sees them).
    test::Filler refill(pool());
    auto filled = [&](gen::Proto p, uint32_t len, uint32_t flow, bool sctp6 = false,
                      uint16_t chunks = 1) {
        return sctp6 ? refill.sctp6(len, flow, chunks) : refill.frame(p, len, flow, chunks);
    };
    auto put16 = [](std::vector<uint8_t>& f, size_t at, uint16_t v) {
        if (at + 2 <= f.size()) f[at] = uint8_t(v >> 8), f[at + 1] = uint8_t(v);
    };
    auto get16 = [](const std::vector<uint8_t>& f, size_t at) -> uint16_t {
        return at + 2 <= f.size() ? uint16_t(f[at] << 8 | f[at + 1]) : 0;
    };
    std::mt19937 rng(1515);
    constexpr int kN = 32;
    // One lean and one walker engine per mode for every burst: a burst may
    // start with the last burst's run shape.
    const auto engs = test::lean_and_walker({Mode::verify, Mode::csum});
    for (int iter = 0; iter < 384; ++iter) {
        const bool sums = iter >= 192;             // no flags: our sums decide
        const Kind& k = kinds[iter / 2 % kKinds];  // two bursts of a kind, then the next
        const size_t ip = 14, l4 = k.v6 ? 54 : 34;
        std::vector<std::vector<uint8_t>> frames;
        std::vector<uint64_t> flags;
        std::vector<int> segs;
        std::vector<std::string> what;
        for (int i = 0; i < kN; ++i) {
            // Either side of the inline sums' limit (run_sums.h), at most 359 B.
            const uint32_t len = 60 + uint32_t(rng() % 300);
            std::vector<uint8_t> f = filled(k.proto, len, uint32_t(iter * kN + i), k.sctp && k.v6);
            uint64_t fl = sums ? 0 : k.v6 && rng() % 2 ? RTE_MBUF_F_RX_L4_CKSUM_GOOD : kGood;
            // Every third round of the kinds in chains (a chain's run gathers its headers).
            int sg = iter / (2 * kKinds) % 3 == 2 ? 2 + int(rng() % 3) : 1;
            // A third of them hostile.
            const int m = rng() % 3 == 0 ? 1 + int(rng() % 29) : 0;
            switch (m) {
                case 1:  // any IP header byte
                    f[ip + rng() % 20] ^= uint8_t(1 + rng() % 255);
                    break;
                case 2:  // EtherType
                    f[12 + rng() % 2] ^= 0x10;
                    break;
                case 3:  // version / IHL
                    f[ip] = k.v6 ? 0x45 : 0x46;
                    break;
                case 4:  // MF (IPv4), flow label (IPv6)
                    f[ip + (k.v6 ? 1 : 6)] |= 0x20;
                    break;
                case 5:  // fragment offset (IPv4), flow label (IPv6)
                    f[ip + 7] ^= 1;
                    break;
                case 6:  // the other protocol
                    f[ip + (k.v6 ? 6 : 9)] = k.udp ? 6 : 17;
                    break;
                case 7:  // SCTP (TCP for an SCTP kind)
                    f[ip + (k.v6 ? 6 : 9)] = k.sctp ? 6 : 132;
                    break;
                case 8:  // IP length
                    put16(f, ip + (k.v6 ? 4 : 2), uint16_t(rng() % 400));
                    break;
                case 9:  // cut short
                    f.resize(f.size() - 1 - rng() % 30);
                    break;
                case 10:  // cut in the L4 header
                    f.resize(l4 + rng() % 12);
                    break;
                case 11:  // UDP length / TCP data offset / SCTP chunk length, any
                    put16(f, l4 + (k.sctp ? 14 : k.udp ? 4 : 12), uint16_t(rng()));
                    break;
                case 12:  // TCP data offset < 5 / UDP sum zero / SCTP: several chunks
                    if (k.sctp)
                        f = filled(k.proto, len, uint32_t(i), k.v6, uint16_t(2 + rng() % 2));
                    else
                        k.udp ? put16(f, l4 + 6, 0) : void(f[l4 + 12] = uint8_t((rng() % 5) << 4));
                    break;
                case 13:  // tunnel / NVMe destination port
                    put16(f, l4 + 2, k.udp ? 4789 : 4420);
                    break;
                case 14:  // NVMe source port
                    put16(f, l4, 4420);
                    break;
                case 15:  // a port whose low byte is a special one's
                    put16(f, l4 + 2, k.udp ? 0x1200 | 4789 % 256 : 0x1100 | 4420 % 256);
                    break;
                case 16:  // L4 UNKNOWN
                    fl = RTE_MBUF_F_RX_IP_CKSUM_GOOD;
                    break;
                case 17:  // no IP flag / L4 BAD
                    fl = rng() % 2 ? RTE_MBUF_F_RX_L4_CKSUM_GOOD
                                   : kGood | RTE_MBUF_F_RX_L4_CKSUM_BAD;
                    break;
                case 18:  // IP BAD
                    fl = RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
                    break;
                case 19:  // a chain
                    sg = 2 + int(rng() % 2);
                    break;
                case 20:  // another shape
                    if (const Kind& o = kinds[rng() % kKinds]; true)
                        f = filled(o.proto, len, uint32_t(i), o.sctp && o.v6);
                    break;
                case 21:  // SCTP
                    f = filled(gen::Proto::sctp4, len, uint32_t(i));
                    break;
                case 22:  // no flags, a bad sum
                    fl = 0, f[f.size() - 1] ^= 0x5A;
                    break;
                case 26:                    // a payload byte (a bad L4 sum when ours decide)
                    if (f.size() > l4 + 8)  // UDP/IPv6 of 62 B has no payload
                        f[l4 + 8 + rng() % (f.size() - l4 - 8)] ^= uint8_t(1 + rng() % 255);
                    break;
                case 27:  // SCTP: the chunk 1..4 bytes shorter (padding, or a second
                          // chunk too short), its CRC right or not
                    if (k.sctp) {
                        put16(f, l4 + 14, uint16_t(get16(f, l4 + 14) - 1 - rng() % 4));
                        if (rng() % 2) f = refill(f);
                    }
                    break;
                case 28: {  // the IP length 1..4 short (trailing bytes), the chunk too or
                            // not, its sums right or not
                    const size_t at = ip + (k.v6 ? 4 : 2);
                    const uint16_t d = uint16_t(1 + rng() % 4);
                    put16(f, at, uint16_t(get16(f, at) - d));
                    if (k.sctp && rng() % 2) put16(f, l4 + 14, uint16_t(get16(f, l4 + 14) - d));
                    if (rng() % 4) f = refill(f);
                    break;
                }
                case 29:  // the CRC (or sum) field
                    f[l4 + (k.sctp ? 8 : k.udp ? 6 : 16) + rng() % 2] ^= uint8_t(1 + rng() % 255);
                    break;
                case 23:  // a chain whose first segment holds every byte
                    sg = -1;
                    break;
                case 24:  // one segment that says it has two
                    sg = -2;
                    break;
                case 25:  // ... and a chain of two that says it has one
                    sg = -3;
                    break;
                default:
                    break;
            }
            frames.push_back(f);
            flags.push_back(fl);
            segs.push_back(sg);
            what.push_back(std::to_string(i) + ":" + std::to_string(m));
        }
        std::vector<test::ChainSpec> specs;
        for (int i = 0; i < kN; ++i) {
            const auto n = uint32_t(frames[i].size());
            specs.push_back({frames[i],
                             segs[i] > 1 ? test::random_split(n, unsigned(segs[i]), rng)
                             : segs[i] == -1 || segs[i] == -3 ? std::vector<uint32_t>{n, 0}
                                                              : std::vector<uint32_t>{n},
                             flags[i], 0,
                             segs[i] == -2   ? test::Lie::segs_high  // one segment saying two
                             : segs[i] == -3 ? test::Lie::segs_low   // two saying one
                                             : test::Lie::none});
        }
        for (int mi = 0; mi < 2; ++mi) {
            const Mode mode = mi == 0 ? Mode::verify : Mode::csum;
            Engine &el = *engs[2 * mi], &er = *engs[2 * mi + 1];
            RxPortPolicy rx;
            rx.drop_bad = iter % 3 != 0;  // dropped packets before a run move the rest up
            SCOPED_TRACE("iter " + std::to_string(iter) + " mode " + std::string(to_string(mode)));
            ASSERT_NO_FATAL_FAILURE(test::expect_same_burst(el, er, pool(), specs, rx, 0, what));
            ASSERT_NO_FATAL_FAILURE(test::expect_same_counts_and_work(el, er));
            // Segments on the NVMe port are the tracker's, whatever their verdict.
            NvmeTrackerStats na{}, nb{};
            const bool ha = el.nvme_stats(&na), hb = er.nvme_stats(&nb);
            ASSERT_EQ(ha, hb);
            ASSERT_EQ(na.flows_created, nb.flows_created);
            ASSERT_EQ(na.bytes, nb.bytes);
            ASSERT_EQ(na.scanned_bytes, nb.scanned_bytes);
            ASSERT_EQ(na.gaps, nb.gaps);
        }
    }
}

}  // namespace
}  // namespace csum
