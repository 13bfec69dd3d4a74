// The chain run's walk-and-sum loop (chain_walk_body.h: each segment summed
// whole as the walk reaches it, the headers' sum taken off) against the
// reference walker, on every inet kernel this CPU runs (the loop is taken on
// the AVX-512 ones): TCP/UDP over IPv4/IPv6 chains of 2 to 8 segments with
// each of the cuts at every position through the headers and on through the
// packet, empty and 1-byte segments, odd and even segment lengths and data
// addresses; half of them changed (a byte anywhere, bytes after the L4
// region, a descriptor that lies), so the loop's every way out is taken
// between good chains.
#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "csum/inet.h"
#include "csum/parser_config.h"
#include "engine/chain_walk.h"
#include "gen/packet_builder.h"
#include "support/chain_builder.h"
#include "support/chain_loops.h"
#include "support/engine_compare.h"
#include "support/kernel_restore.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class ChainRun4 : public test::InetKernelTest {};

// (pkt_len lies are left to LeanChains' hostile test: with them the lean path
// and the walker count different bytes on every kernel, main's code too.)
enum Change { good, byte_flip, padded, segs_high, segs_low, kChanges };

TEST_F(ChainRun4, EveryCutOverFourSegmentsMatchesTheWalker) {
    test::Filler filler(pool());
    const gen::Proto protos[] = {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6,
                                 gen::Proto::udp6};
    // Over the whole-packet gather (128 bytes), one odd, one over 512.
    const uint32_t lens[] = {129, 256, 301, 700};
    constexpr int kN = 32;
    for (InetKernel kernel : inet_available_kernels()) {
        ASSERT_TRUE(inet_force_kernel(kernel));
        std::mt19937 rng(4004 + unsigned(kernel));
        std::vector<std::unique_ptr<Engine>> engs;
        for (Mode mode : {Mode::verify, Mode::csum}) {
            EngineConfig lean, ref;
            lean.mode = ref.mode = mode;
            ref.plain_fast_path = false;
            engs.push_back(std::make_unique<Engine>(lean));
            engs.push_back(std::make_unique<Engine>(ref));
        }
        int burst_no = 0;
        for (gen::Proto proto : protos) {
            for (uint32_t len : lens) {
                // Cut b (of the three) at every position x, the other two at
                // random; through the headers one by one, then every 7 bytes.
                struct Cut {
                    int b;
                    uint32_t x;
                };
                std::vector<Cut> cuts;
                for (int b = 0; b < 3; ++b)
                    for (uint32_t x = 0; x <= len; x += x < 100 ? 1 : 7) cuts.push_back({b, x});
                for (size_t c0 = 0; c0 < cuts.size(); c0 += kN / 2, ++burst_no) {
                    std::vector<std::vector<uint8_t>> frames;
                    std::vector<std::vector<uint32_t>> splits;
                    std::vector<Change> changes;
                    std::vector<std::string> what;
                    for (int i = 0; i < kN; ++i) {
                        // Each cut twice: a changed chain (every other one), then a good one.
                        const Cut cut = cuts[(c0 + size_t(i / 2)) % cuts.size()];
                        std::vector<uint8_t> f =
                            filler.frame(proto, len, uint32_t(burst_no * kN + i));
                        Change ch = good;
                        if (i % 2 == 0 && rng() % 2) ch = Change(1 + rng() % (kChanges - 1));
                        if (ch == byte_flip)
                            f[14 + rng() % (f.size() - 14)] ^= uint8_t(1 + rng() % 255);
                        if (ch == padded)  // bytes after the IP length says the packet ends
                            for (uint32_t p = 1 + rng() % 3; p > 0; --p)
                                f.push_back(uint8_t(rng()));
                        const uint32_t n = uint32_t(f.size());
                        // Three boundaries, cut.b's at cut.x, the others anywhere; sorted.
                        uint32_t at[3];
                        for (int b = 0; b < 3; ++b) at[b] = b == cut.b ? cut.x : rng() % (n + 1);
                        if (at[0] > at[1]) std::swap(at[0], at[1]);
                        if (at[1] > at[2]) std::swap(at[1], at[2]);
                        if (at[0] > at[1]) std::swap(at[0], at[1]);
                        std::vector<uint32_t> segs = {at[0], at[1] - at[0], at[2] - at[1],
                                                      n - at[2]};
                        // Now and then one of the four cut again: up to 8 segments.
                        if (rng() % 4 == 0) {
                            std::vector<uint32_t> more;
                            for (uint32_t s : segs) {
                                const uint32_t c = s ? rng() % (s + 1) : 0;
                                more.push_back(c);
                                more.push_back(s - c);
                            }
                            segs = more;
                        }
                        frames.push_back(f);
                        splits.push_back(segs);
                        changes.push_back(ch);
                        std::string w =
                            std::to_string(i) + ": change " + std::to_string(ch) + " segs";
                        for (uint32_t s : segs) w.append(" ").append(std::to_string(s));
                        what.push_back(w);
                    }
                    const uint16_t misalign = uint16_t(burst_no % 3 == 1 ? 1 : 0);
                    for (int mi = 0; mi < 2; ++mi) {
                        test::BurstRecord rec[2];
                        RxPortPolicy rx;
                        rx.drop_bad = burst_no % 2 == 0;
                        for (int e = 0; e < 2; ++e) {
                            Engine& eng = *engs[2 * mi + e];
                            rte_mbuf* burst[kN];
                            rte_mbuf* orig[kN];
                            uint16_t nb[kN];
                            uint32_t pl[kN];
                            for (int i = 0; i < kN; ++i) {
                                rte_mbuf* m =
                                    test::make_chain(pool(), frames[i], splits[i], misalign);
                                ASSERT_NE(m, nullptr);
                                orig[i] = burst[i] = m;
                                m->ol_flags = 0;  // our sums decide
                                nb[i] = m->nb_segs, pl[i] = m->pkt_len;
                                if (changes[i] == segs_high) m->nb_segs += 1;
                                if (changes[i] == segs_low && m->nb_segs > 1) m->nb_segs -= 1;
                            }
                            const uint16_t kept = eng.process(rx, {}, burst, kN);
                            rec[e] = test::record_burst(eng, orig, burst, kN, kept, what);
                            for (int i = 0; i < kN; ++i)
                                orig[i]->nb_segs = nb[i], orig[i]->pkt_len = pl[i];
                            rte_pktmbuf_free_bulk(orig, kN);
                        }
                        SCOPED_TRACE("kernel " + std::string(inet_kernel_name(kernel)) + " burst " +
                                     std::to_string(burst_no) + " proto " +
                                     std::to_string(int(proto)) + " len " + std::to_string(len) +
                                     " mode " + std::to_string(mi));
                        ASSERT_EQ(rec[0].order, rec[1].order);
                        ASSERT_EQ(rec[0].verdicts, rec[1].verdicts);
                        ASSERT_EQ(rec[0].bytes, rec[1].bytes);
                    }
                }
            }
        }
        SCOPED_TRACE("kernel " + std::string(inet_kernel_name(kernel)));
        for (int mi = 0; mi < 2; ++mi)
            ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(*engs[2 * mi], *engs[2 * mi + 1]));
    }
}

// The loop itself (chain_walk::run_avx512[_vnni]) takes what it should: every
// good chain of a burst (so a bug that turns good chains away, which the
// comparison above cannot see, fails here), and stops, failed, at each
// changed one: a byte changed in the checksummed bytes, bytes after the L4
// region or past pkt_len in the segments (zeros: right sums, still not its
// case), nb_segs off by one, the last segment linked back to the first.
TEST_F(ChainRun4, TheLoopTakesGoodChainsAndStopsAtChangedOnes) {
    const auto loops = test::chain_loops<false>();
    if (loops.empty()) GTEST_SKIP() << "no chain loop on this CPU (AVX2 or AVX-512)";
    test::Filler filler(pool());
    const ParserConfig pcfg;
    const ShapeConfig sc(pcfg);
    PacketVerdict pv{};
    pv.n_layers = 3;
    // The verdict goes to the mbuf's dynfield1 (the test engine's is elsewhere).
    const run_parts::RunVerdict verdict(&pv, long(offsetof(rte_mbuf, dynfield1)));
    struct Kind {
        gen::Proto proto;
        int shape;
        uint32_t l4;
    };
    const Kind kinds[] = {{gen::Proto::tcp4, 0, 34},
                          {gen::Proto::udp4, 1, 34},
                          {gen::Proto::tcp6, 3, 54},
                          {gen::Proto::udp6, 4, 54}};
    std::mt19937 rng(4040);
    constexpr unsigned kN = 16;
    enum Bad { flip, zeros_after, more_bytes, fewer_segs, more_segs, loop_to_head, kBads };
    for (auto [kernel, loop] : loops) {
        for (const Kind& k : kinds) {
            for (uint32_t len : {129u, 200u, 256u, 301u, 700u, 1420u}) {
                for (int round = 0; round < 12; ++round) {
                    SCOPED_TRACE(std::string(inet_kernel_name(kernel)) + " shape " +
                                 std::to_string(k.shape) + " len " + std::to_string(len) +
                                 " round " + std::to_string(round));
                    std::vector<std::vector<uint8_t>> frames(kN);
                    std::vector<std::vector<uint32_t>> splits(kN);
                    const unsigned bad_at = rng() % kN;
                    const Bad bad = Bad(rng() % kBads);
                    for (unsigned i = 0; i < kN; ++i) {
                        frames[i] = filler.frame(k.proto, len, round * kN + i);
                        if (i == bad_at && bad == flip) {
                            // Any byte the sums cover: the IPv4 header, the L4 region.
                            const uint32_t from = k.l4 == 34 ? 14 : k.l4;
                            frames[i][from + rng() % (len - from)] ^= uint8_t(1 + rng() % 255);
                        }
                        // zeros_after: the IP length says the packet ends before
                        // them; more_bytes: pkt_len does too (set below).
                        if (i == bad_at && (bad == zeros_after || bad == more_bytes))
                            frames[i].insert(frames[i].end(), 1 + rng() % 4, 0);
                        const uint32_t n = uint32_t(frames[i].size());
                        splits[i] = test::random_split(n, 2 + rng() % 7, rng);
                    }
                    rte_mbuf* burst[kN];
                    uint16_t nb[kN];
                    uint32_t pl[kN];
                    for (unsigned i = 0; i < kN; ++i) {
                        burst[i] = test::make_chain(pool(), frames[i], splits[i], uint16_t(i % 2));
                        ASSERT_NE(burst[i], nullptr);
                        burst[i]->ol_flags = 0;
                        nb[i] = burst[i]->nb_segs, pl[i] = burst[i]->pkt_len;
                    }
                    rte_mbuf* b = burst[bad_at];
                    if (bad == more_bytes) b->pkt_len = len;
                    rte_mbuf* last = rte_pktmbuf_lastseg(b);
                    if (bad == loop_to_head) last->next = b;
                    if (bad == fewer_segs) b->nb_segs -= 1;
                    if (bad == more_segs) b->nb_segs += 1;
                    // Every chain good, then the burst with one changed.
                    chain_walk::Out out;
                    bool failed = true;
                    EXPECT_EQ(loop(k.shape, false, sc, burst, 0, bad_at, verdict, &out, &failed),
                              bad_at);
                    EXPECT_FALSE(failed);
                    uint64_t bytes = 0;
                    for (unsigned i = 0; i < bad_at; ++i) bytes += pl[i];
                    EXPECT_EQ(out.bytes, bytes);
                    out = {};
                    EXPECT_EQ(loop(k.shape, false, sc, burst, 0, kN, verdict, &out, &failed),
                              bad_at);
                    // A chain the loop does not take at all (too short, too
                    // many segments) is the caller's, not a failure.
                    const bool its = b->pkt_len > kHeaderGather && b->nb_segs <= 8;
                    EXPECT_EQ(failed, its) << "bad " << bad;
                    if (bad_at + 1 < kN) {
                        out = {};
                        EXPECT_EQ(
                            loop(k.shape, false, sc, burst, bad_at + 1, kN, verdict, &out, &failed),
                            kN);
                        EXPECT_FALSE(failed);
                    }
                    last->next = nullptr;
                    for (unsigned i = 0; i < kN; ++i)
                        burst[i]->nb_segs = nb[i], burst[i]->pkt_len = pl[i];
                    rte_pktmbuf_free_bulk(burst, kN);
                }
            }
        }
    }
}

// A segment's data at every offset in its 64-byte line, odd and even, at odd
// and even packet positions, in every length class (under a line to many),
// with junk in the buffer around the data: a loop that loads whole lines
// from below the data (or any window past it) with a wrong lane parity
// (rotation), or a head or tail mask that keeps a byte it should not, turns
// a good chain away; and a byte changed anywhere in the segment is caught.
TEST_F(ChainRun4, SegmentsAtEveryOffsetInTheirLine) {
    const auto loops = test::chain_loops<false>();
    if (loops.empty()) GTEST_SKIP() << "no chain loop on this CPU (AVX2 or AVX-512)";
    test::Filler filler(pool());
    const ParserConfig pcfg;
    const ShapeConfig sc(pcfg);
    PacketVerdict pv{};
    pv.n_layers = 3;
    const run_parts::RunVerdict verdict(&pv, long(offsetof(rte_mbuf, dynfield1)));
    const std::pair<gen::Proto, int> kinds[] = {
        {gen::Proto::tcp4, 0}, {gen::Proto::udp4, 1}, {gen::Proto::tcp6, 3}, {gen::Proto::udp6, 4}};
    const uint32_t seg_lens[] = {63,  64,  65,  66,  100, 127, 128, 129, 191, 192, 193,
                                 255, 256, 257, 300, 319, 320, 321, 511, 513, 700};
    const uint32_t offsets[] = {0, 1, 2, 7, 31, 32, 33, 62, 63};
    constexpr unsigned kN = std::size(offsets);
    std::mt19937 rng(4077);
    // A segment of len bytes at data offset off in its line, the rest of
    // its buffer junk.
    auto segment = [&](const uint8_t* data, uint32_t len, uint32_t off) -> rte_mbuf* {
        rte_mbuf* m = rte_pktmbuf_alloc(pool());
        if (m == nullptr) return nullptr;
        auto* buf = static_cast<uint8_t*>(m->buf_addr);
        for (uint32_t i = 0; i < m->buf_len; ++i) buf[i] = uint8_t(0xA5 ^ (i * 37));
        // The data room starts on a line: off is the data's offset in its line.
        m->data_off = uint16_t(RTE_PKTMBUF_HEADROOM + off);
        EXPECT_EQ((reinterpret_cast<uintptr_t>(buf) + m->data_off) & 63, off);
        std::memcpy(buf + m->data_off, data, len);
        m->data_len = uint16_t(len), m->pkt_len = len;
        return m;
    };
    for (auto [kernel, loop] : loops) {
        for (auto [proto, shape] : kinds) {
            for (uint32_t first : {90u, 91u}) {  // the segment at an even, an odd position
                for (uint32_t len : seg_lens) {
                    SCOPED_TRACE(std::string(inet_kernel_name(kernel)) + " shape " +
                                 std::to_string(shape) + " first " + std::to_string(first) +
                                 " len " + std::to_string(len));
                    // Each chain: first bytes, the segment under test at
                    // offsets[i], then 1 to 200 bytes at a random offset.
                    rte_mbuf* burst[kN];
                    std::vector<std::vector<uint8_t>> frames(kN);
                    for (unsigned i = 0; i < kN; ++i) {
                        const uint32_t last = 1 + rng() % 200;
                        frames[i] = filler.frame(proto, first + len + last, i + 1);
                        const uint8_t* f = frames[i].data();
                        rte_mbuf* a = segment(f, first, 0);
                        rte_mbuf* b = segment(f + first, len, offsets[i]);
                        rte_mbuf* c = segment(f + first + len, last, rng() % 64);
                        ASSERT_TRUE(a != nullptr && b != nullptr && c != nullptr);
                        a->next = b, b->next = c;
                        a->nb_segs = 3, a->pkt_len = first + len + last, a->ol_flags = 0;
                        burst[i] = a;
                    }
                    chain_walk::Out out;
                    bool failed = true;
                    EXPECT_EQ(loop(shape, false, sc, burst, 0, kN, verdict, &out, &failed), kN);
                    EXPECT_FALSE(failed);
                    // A byte of the segment under test changed in one chain.
                    const unsigned bad = rng() % kN;
                    uint8_t* d = rte_pktmbuf_mtod(burst[bad]->next, uint8_t*);
                    d[rng() % len] ^= uint8_t(1 + rng() % 255);
                    out = {};
                    EXPECT_EQ(loop(shape, false, sc, burst, 0, kN, verdict, &out, &failed), bad);
                    EXPECT_TRUE(failed);
                    rte_pktmbuf_free_bulk(burst, kN);
                }
            }
        }
    }
}

}  // namespace
}  // namespace csum
