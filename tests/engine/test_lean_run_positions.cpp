// The same-shape run by our sums (no PMD flags) against the reference walker,
// packet by packet: the run takes each packet's data pointer from its
// prefetch three packets before (take_while_data) and sums IPv6 in one asm
// block (v6_run_sum), so a run must stop at the first bad packet wherever it
// sits (each place in the burst, each place in the pointer ring, the loop's
// last three packets), at every L4 length (odd and even, up to and past the
// inline limit, with Ethernet padding), and in bursts that go on with the
// last burst's shape (same_burst) or mix IPv4 and IPv6; long packets in csum
// mode too, where the run hands the stopped packet's sum on (run_sums_good).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "gen/checksum_fill.h"
#include "gen/packet_builder.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class LeanRunPositions : public test::MbufTest {
  protected:
    // A frame of proto, `len` bytes, its checksums right; `pad` bytes of
    // Ethernet padding after its IP length.
    static std::vector<uint8_t> good_frame(gen::Proto proto, uint32_t len, uint32_t flow,
                                           uint32_t pad) {
        auto f = gen::build_frame({proto, len, 1, flow});
        gen::fill_checksums(f);
        for (uint32_t i = 0; i < pad; ++i) f.push_back(uint8_t(0xA5 ^ (i * 37) ^ flow));
        return f;
    }
    static bool is_v6(gen::Proto p) { return p == gen::Proto::tcp6 || p == gen::Proto::udp6; }

    // The frames through a lean engine and a walker engine (each its own,
    // kept across calls, so that later bursts enter on the last run's
    // shape): same kept order, verdicts, bytes and counters. csum: the
    // csum-mode pair; misalign: the data's offset past the headroom.
    // flags: each packet's RX flags, if given. work: the bytes summed too
    // (not for tunnels: the lean path reads each region once, the walker
    // the outer UDP payload and the inner layers again).
    void expect_like_walker(const std::vector<std::vector<uint8_t>>& frames,
                            const std::string& what, bool csum = false, uint16_t misalign = 0,
                            const std::vector<uint64_t>* flags = nullptr, bool work = true) {
        const int n = int(frames.size());
        std::vector<std::string> names;
        for (int i = 0; i < n; ++i) names.push_back(what + " #" + std::to_string(i));
        test::BurstRecord rec[2];
        Engine* engines[2] = {csum ? &lean_csum_ : &lean_, csum ? &walker_csum_ : &walker_};
        for (int e = 0; e < 2; ++e) {
            std::vector<rte_mbuf*> burst(n), orig(n);
            for (int i = 0; i < n; ++i) {
                orig[i] = burst[i] = test::make_linear(pool(), frames[i], misalign);
                if (flags) burst[i]->ol_flags = (*flags)[i];
            }
            const uint16_t kept = engines[e]->process(rx_, {}, burst.data(), uint16_t(n));
            rec[e] = test::record_burst(*engines[e], orig.data(), burst.data(), n, kept, names);
            rte_pktmbuf_free_bulk(orig.data(), unsigned(n));
        }
        SCOPED_TRACE(what);
        ASSERT_EQ(rec[0].order, rec[1].order);
        ASSERT_EQ(rec[0].verdicts, rec[1].verdicts);
        ASSERT_EQ(rec[0].bytes, rec[1].bytes);
        if (work)
            ASSERT_NO_FATAL_FAILURE(test::expect_same_counts_and_work(*engines[0], *engines[1]));
        else
            ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(*engines[0], *engines[1]));
    }

    static EngineConfig config(bool lean, Mode mode = Mode::verify) {
        EngineConfig c;
        c.mode = mode;
        c.plain_fast_path = lean;
        return c;
    }
    Engine lean_{config(true)}, walker_{config(false)};
    Engine lean_csum_{config(true, Mode::csum)}, walker_csum_{config(false, Mode::csum)};
    RxPortPolicy rx_;
    std::mt19937 rng_{1515};
};

// Every L4 length from each shape's least to 40 bytes past the inline limit
// (IPv6: 32), with and without padding; a burst of 32 all good, then one bad
// packet at each place 0..31 (a flipped bit anywhere the sum covers:
// addresses, the L4 header, the payload, the tail's last byte).
TEST_F(LeanRunPositions, RunStopsAtTheBadPacketAtEveryPlaceAndLength) {
    for (gen::Proto proto :
         {gen::Proto::tcp6, gen::Proto::udp6, gen::Proto::tcp4, gen::Proto::udp4}) {
        const bool v6 = is_v6(proto);
        const bool udp = proto == gen::Proto::udp6 || proto == gen::Proto::udp4;
        const uint32_t l4_off = v6 ? 54 : 34, least = l4_off + (udp ? 8 : 20);
        // The sum's region starts at the source address.
        const uint32_t region = v6 ? 22 : 26;
        for (uint32_t len = least; len <= l4_off + 72; len += v6 ? 1 : 3) {
            const uint32_t pad = len % 4 == 1 ? 1 + len % 3 : 0;
            std::vector<std::vector<uint8_t>> frames;
            for (uint32_t i = 0; i < 32; ++i) frames.push_back(good_frame(proto, len, i, pad));
            const std::string what = std::string(gen::to_string(proto)) + " len " +
                                     std::to_string(len) + " pad " + std::to_string(pad);
            ASSERT_NO_FATAL_FAILURE(expect_like_walker(frames, what + " all good"));
            for (uint32_t bad = 0; bad < 32; ++bad) {
                auto burst = frames;
                auto& f = burst[bad];
                // The last byte of the region at every third place, else any byte of it.
                const uint32_t end = len;  // the region ends with the IP length's bytes
                const uint32_t at =
                    bad % 3 == 0 ? end - 1 : region + uint32_t(rng_() % (end - region));
                f[at] ^= uint8_t(1u << (rng_() % 8));
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                    burst,
                    what + " bad at " + std::to_string(bad) + " byte " + std::to_string(at)));
            }
        }
    }
}

// The run's long packets (its L4 region to the kernels, each length class
// and edge, odd lengths, the data at odd addresses), csum mode: a packet
// whose sums are wrong stops the run, which hands its L4 sum on; the lean
// path fills a CHECKSUM_PARTIAL one from that sum and leaves a bad one, at
// each place in the burst, as the walker does.
TEST_F(LeanRunPositions, LongRunsHandTheStoppedPacketsSumOn) {
    const uint32_t l4_lens[] = {57,  63,  64,  65,  127,  128,  129,  130,  287,  288, 289,
                                511, 767, 768, 769, 1385, 1386, 1387, 1460, 1999, 2014};
    for (gen::Proto proto :
         {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6, gen::Proto::udp6}) {
        const uint32_t l4_off = is_v6(proto) ? 54 : 34;
        for (uint32_t l4_len : l4_lens) {
            const uint32_t len = l4_off + l4_len;
            if (len > 2048 - 3) continue;  // the pool's data room, less the misalignment
            for (uint16_t misalign : {0, 1, 3}) {
                const uint32_t pad = is_v6(proto) ? 0 : misalign;  // IPv4: padding too
                std::vector<std::vector<uint8_t>> frames;
                for (uint32_t i = 0; i < 12; ++i) frames.push_back(good_frame(proto, len, i, pad));
                const std::string what = std::string(gen::to_string(proto)) + " l4 " +
                                         std::to_string(l4_len) + " misalign " +
                                         std::to_string(misalign);
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(frames, what, true, misalign));
                for (uint32_t at : {0u, 5u, 11u}) {
                    for (int kind = 0; kind < 2; ++kind) {
                        auto burst = frames;
                        auto& f = burst[at];
                        if (kind == 0) {
                            f.resize(len);
                            gen::fill_checksums_partial(f);  // then filled from the run's sum
                            for (uint32_t i = 0; i < pad; ++i) f.push_back(0x5A);
                        } else {
                            f[l4_off + rng_() % l4_len] ^= uint8_t(1u << (rng_() % 8));
                        }
                        ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                            burst,
                            what + (kind == 0 ? " partial at " : " bad at ") + std::to_string(at),
                            true, misalign));
                    }
                }
            }
        }
    }
}

// Bursts of every size 1..40 (shorter than the prefetch distance, odd tails,
// more than one chunk of pointers), of IPv4 and IPv6 packets of one kind or
// mixed in blocks, 64-78 B, a few bad: each burst enters on the last one's
// shape or starts a new run where the shape changes.
TEST_F(LeanRunPositions, MixedBurstsOfEverySizeMatchTheWalker) {
    const gen::Proto protos[] = {gen::Proto::tcp6, gen::Proto::udp6, gen::Proto::tcp4,
                                 gen::Proto::udp4};
    for (int round = 0; round < 6; ++round) {
        for (uint32_t n = 1; n <= 40; ++n) {
            std::vector<std::vector<uint8_t>> frames;
            gen::Proto proto = protos[(n + round) % 4];
            for (uint32_t i = 0; i < n; ++i) {
                // round 0-1: one kind; 2-3: IPv6 with IPv4 in blocks; 4-5: any.
                if (round >= 2 && rng_() % (round >= 4 ? 2 : 7) == 0)
                    proto = round >= 4     ? protos[rng_() % 4]
                            : is_v6(proto) ? gen::Proto::tcp4
                                           : gen::Proto::udp6;
                const uint32_t len = 64 + uint32_t(rng_() % 15);
                auto f = good_frame(proto, len, i, rng_() % 5 == 0 ? 2 : 0);
                if (rng_() % 9 == 0) f[f.size() - 1 - rng_() % 8] ^= 0x40;  // bad, or padding
                frames.push_back(f);
            }
            ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                frames, "round " + std::to_string(round) + " n " + std::to_string(n)));
        }
    }
}

// Bad packets (wrong sums, or cut short) in streaks (a flood of them, where
// the engine stops trying the all-good run until a packet is good again)
// between good ones, plain and VXLAN, by our sums and by PMD flags (BAD on
// the bad ones), dropped or kept, verify and csum mode: as the walker,
// burst after burst.
TEST_F(LeanRunPositions, BadStreaksMatchTheWalker) {
    const gen::Proto protos[] = {gen::Proto::tcp4, gen::Proto::udp6, gen::Proto::vxlan_tcp4};
    constexpr uint64_t kGood = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    constexpr uint64_t kBad = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD;
    for (gen::Proto proto : protos) {
        const bool tunnel = proto == gen::Proto::vxlan_tcp4;
        for (int variant = 0; variant < 8; ++variant) {
            const bool drop = variant & 1, by_flags = variant & 2, csum = variant & 4;
            rx_.drop_bad = drop;
            for (int round = 0; round < 12; ++round) {
                std::vector<std::vector<uint8_t>> frames;
                std::vector<uint64_t> flags;
                // Streaks: round 0 all bad, then bad and good streaks of 0..6.
                bool bad = true;
                while (frames.size() < 32) {
                    const uint32_t streak = round == 0 ? 32 : uint32_t(rng_() % 7);
                    for (uint32_t k = 0; k < streak && frames.size() < 32; ++k) {
                        const uint32_t i = uint32_t(frames.size());
                        auto f = good_frame(proto, tunnel ? 114 : 64 + i % 9, i, 0);
                        if (bad && rng_() % 3 == 0)
                            f.resize(f.size() - 1 - rng_() % 6);  // cut short: malformed
                        else if (bad)
                            f[f.size() - 1 - rng_() % 6] ^= uint8_t(1u << (rng_() % 8));
                        frames.push_back(f);
                        flags.push_back(by_flags ? (bad ? kBad : kGood) : 0);
                    }
                    bad = !bad;
                }
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                    frames,
                    std::string(gen::to_string(proto)) + " variant " + std::to_string(variant) +
                        " round " + std::to_string(round),
                    csum, 0, &flags, !tunnel));
            }
        }
    }
    rx_.drop_bad = false;
}

}  // namespace
}  // namespace csum
