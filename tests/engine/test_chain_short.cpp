// Short chains (at most kHeaderGather bytes) in the chain run's AVX-512 loop
// (chain_walk_body.h: short_walk puts each segment's bytes in place in two
// zmm registers by masked loads, short_check tests the shape and sums from
// them). Against the reference walker through the real Engine, on every
// inet kernel this CPU runs: TCP/UDP over IPv4/IPv6 from the least frame of
// the shape to 128 bytes, cut in two at every byte and in 3 to 8 at random
// (empty and 1-byte segments, odd data addresses), every other chain
// hostile (a byte changed at every position in turn, padding, a shape the
// run must not take, every descriptor lie: nb_segs, pkt_len, a cut last
// segment, next looped to the head or to itself). And the loop itself: it
// takes every good chain and stops, failed, at each changed one.
#include <gtest/gtest.h>

#include <algorithm>
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

class ShortChains : public test::InetKernelTest {};

struct Kind {
    gen::Proto proto;
    int shape;  // chain_walk's
    bool v6, udp;
    uint32_t l4, least;  // L4 offset, least frame of the shape
};
const Kind kKinds[] = {{gen::Proto::tcp4, 0, false, false, 34, 54},
                       {gen::Proto::udp4, 1, false, true, 34, 42},
                       {gen::Proto::tcp6, 3, true, false, 54, 74},
                       {gen::Proto::udp6, 4, true, true, 54, 62}};

// Changes a frame can carry: each makes the run's loop stop (failed).
enum Change {
    good,
    byte_flip,     // a byte the sums cover
    padded,        // bytes after the IP length's end (sums right)
    tcp_doff,      // TCP data offset under 5 words (sums right)
    special_port,  // NVMe (TCP) or VXLAN (UDP) destination port (sums right)
    udp_no_sum,    // UDP checksum 0 (the rest of the packet summing as if it were right)
    udp_len,       // a UDP length under the IP one (sums right by the IP one)
    ip_len_long,   // an IP length past the frame
    kChanges
};

// One's complement sum of [p, p + n) as big-endian words, from a.
uint32_t ones_sum(const uint8_t* p, uint32_t n, uint32_t a = 0) {
    for (uint32_t i = 0; i + 1 < n; i += 2) a += uint32_t(p[i] << 8 | p[i + 1]);
    if (n & 1) a += uint32_t(p[n - 1] << 8);
    while (a >> 16) a = (a & 0xFFFF) + (a >> 16);
    return a;
}

// The sums written by the lengths the headers state (not by an engine,
// which leaves a malformed header alone): the IPv4 header's, and the L4
// one over the IP length's L4 bytes (those the frame holds).
void refill(std::vector<uint8_t>& f, const Kind& k) {
    const uint32_t l4 = k.l4;
    auto set16 = [&](uint32_t at, uint32_t v) { f[at] = uint8_t(v >> 8), f[at + 1] = uint8_t(v); };
    uint32_t l4_len = k.v6 ? uint32_t(f[18] << 8 | f[19]) : uint32_t(f[16] << 8 | f[17]) - 20;
    l4_len = std::min<uint32_t>(l4_len, uint32_t(f.size()) - l4);
    if (!k.v6) {
        set16(24, 0);
        set16(24, ~ones_sum(f.data() + 14, 20) & 0xFFFF);
    }
    const uint32_t field = l4 + (k.udp ? 6 : 16);
    set16(field, 0);
    uint32_t a = ones_sum(f.data() + (k.v6 ? 22 : 26), k.v6 ? 32 : 8);
    a = ones_sum(f.data() + l4, l4_len, a + (k.udp ? 17 : 6) + l4_len);
    const uint32_t c = ~a & 0xFFFF;
    set16(field, k.udp && c == 0 ? 0xFFFF : c);
}

// f (filled, of kind k) with change c; refill's sums where the change
// should leave them right. flip_at: the byte byte_flip changes. A
// change the frame cannot carry (padding a frame of the shape's least
// length, a TCP change to UDP) is a byte flip instead.
std::vector<uint8_t> changed(const Kind& k, std::vector<uint8_t> f, Change c, uint32_t flip_at,
                             std::mt19937& rng) {
    if ((c == padded && f.size() <= k.least) || (c == tcp_doff && k.udp) ||
        (c == udp_no_sum && (!k.udp || f.size() < k.least + 4)) ||
        (c == udp_len && (!k.udp || f.size() < k.least + 2)))
        c = byte_flip;
    const uint32_t l4 = k.l4, len = uint32_t(f.size());
    auto set16 = [&](uint32_t at, uint32_t v) { f[at] = uint8_t(v >> 8), f[at + 1] = uint8_t(v); };
    switch (c) {
        case byte_flip:
            f[flip_at] ^= uint8_t(1 + rng() % 255);
            break;
        case padded: {
            // The IP and UDP lengths shortened by 1..4 bytes (the frame's
            // last bytes then lie past them), sums refilled.
            const uint32_t less = 1 + rng() % std::min<uint32_t>(4, len - k.least);
            const uint32_t l4_len = len - l4 - less;
            if (k.v6)
                set16(18, l4_len);
            else
                set16(16, l4_len + 20);
            if (k.udp) set16(l4 + 4, l4_len);
            // Zeros past the IP length (so summing them would not show).
            for (uint32_t i = l4 + l4_len; i < len; ++i) f[i] = 0;
            refill(f, k);
            break;
        }
        case tcp_doff:
            f[l4 + 12] = uint8_t((rng() % 5) << 4);
            refill(f, k);
            break;
        case special_port:
            set16(l4 + 2, k.udp ? 4789 : 4420);
            refill(f, k);
            break;
        case udp_no_sum: {
            // The sum the field held moved into the last payload word, so
            // that with the field 0 the packet still sums right.
            const uint32_t c = uint32_t(f[l4 + 6] << 8 | f[l4 + 7]);
            set16(l4 + 6, 0);
            const uint32_t w = (len - l4) % 2 ? len - 3 : len - 2;
            uint32_t v = uint32_t(f[w] << 8 | f[w + 1]) + c;
            v = (v & 0xFFFF) + (v >> 16);
            set16(w, v);
            break;
        }
        case udp_len:
            set16(l4 + 4, len - l4 - 2);
            refill(f, k);
            break;
        case ip_len_long:
            if (k.v6)
                set16(18, len - l4 + 1 + rng() % 8);
            else
                set16(16, len - 14 + 1 + rng() % 8);
            refill(f, k);
            break;
        default:
            break;
    }
    return f;
}

// Every length of every kind, cut in two at every byte and in 3..8 at
// random, half the chains changed or lying, through the lean engine and
// the walker in verify and csum modes: the same order, verdicts, bytes and
// counters.
TEST_F(ShortChains, EveryCutWithHostileMembersMatchesTheWalker) {
    test::Filler fill(pool());
    constexpr int kN = 32;
    using enum test::Lie;
    const test::Lie lies[] = {segs_high,    segs_low,     pkt_len_past,     last_cut,
                              loop_to_head, loop_to_self, head_past_buffer, tail_past_buffer};
    int kernels = 0;
    for (InetKernel kernel : inet_available_kernels()) {
        if (kernel != InetKernel::avx512 && kernel != InetKernel::avx512_vnni &&
            kernel != InetKernel::avx2)
            continue;
        ASSERT_TRUE(inet_force_kernel(kernel));
        ++kernels;
        const auto engs = test::lean_and_walker({Mode::verify, Mode::csum});
        std::mt19937 rng(6464 + unsigned(kernel));
        int burst_no = 0;
        for (const Kind& k : kKinds) {
            for (uint32_t len : {k.least, k.least + 1, 64u, 65u, 72u, 73u, 100u, 127u, 128u}) {
                if (len < k.least) continue;
                // Each cut twice: a hostile chain (every other one), then a good one.
                std::vector<uint32_t> cuts;
                for (uint32_t x = 0; x <= len; ++x) cuts.push_back(x);
                uint32_t flip_no = 0;
                for (size_t c0 = 0; c0 < cuts.size(); c0 += kN / 2, ++burst_no) {
                    std::vector<test::ChainSpec> specs;
                    std::vector<std::string> what;
                    for (int i = 0; i < kN; ++i) {
                        const uint32_t cut = cuts[(c0 + size_t(i / 2)) % cuts.size()];
                        // Every eighth a longer chain (the other loop), good:
                        // the run goes from one loop to the other and back.
                        const uint32_t flen = i % 8 == 7 ? 129 + uint32_t(rng() % 300) : len;
                        std::vector<uint8_t> f =
                            fill.frame(k.proto, flen, uint32_t(burst_no * kN + i));
                        ASSERT_EQ(f.size(), flen);
                        Change ch = good;
                        test::Lie lie = none;
                        if (i % 2 == 0 && flen == len) {
                            const unsigned r = rng() % 10;
                            if (r < 4)
                                ch = byte_flip;
                            else if (r < 7)
                                ch = Change(2 + rng() % (kChanges - 2));
                            else
                                lie = lies[rng() % std::size(lies)];
                        }
                        // Flips walk through every byte from 14 on, in turn.
                        const uint32_t flip_at = 14 + flip_no % (len - 14);
                        if (ch == byte_flip) ++flip_no;
                        f = changed(k, f, ch, flip_at, rng);
                        const uint32_t n = uint32_t(f.size());
                        std::vector<uint32_t> sp;
                        if (i % 4 < 2)
                            sp = {std::min(cut, n), n - std::min(cut, n)};
                        else
                            sp = test::random_split(n, 3 + unsigned(rng() % 6), rng);
                        if (lie == last_cut && sp.back() == 0) lie = none;
                        specs.push_back({f, sp, 0, 0, lie});
                        std::string w = std::to_string(i) + ": change " + std::to_string(ch) +
                                        " lie " + std::to_string(int(lie)) + " segs";
                        for (uint32_t s : sp) w.append(" ").append(std::to_string(s));
                        what.push_back(w);
                    }
                    const uint16_t misalign = uint16_t(burst_no % 3 == 1 ? 1 : 0);
                    for (size_t mi = 0; mi < engs.size() / 2; ++mi) {
                        RxPortPolicy rx;
                        rx.drop_bad = burst_no % 2 == 0;
                        SCOPED_TRACE(std::string(inet_kernel_name(kernel)) + " burst " +
                                     std::to_string(burst_no) + " shape " +
                                     std::to_string(k.shape) + " len " + std::to_string(len) +
                                     " mode " + std::to_string(mi));
                        ASSERT_NO_FATAL_FAILURE(test::expect_same_burst(
                            *engs[2 * mi], *engs[2 * mi + 1], pool(), specs, rx, misalign, what));
                        ASSERT_EQ(engs[2 * mi]->stats().sum_bytes.get(),
                                  engs[2 * mi + 1]->stats().sum_bytes.get());
                    }
                }
            }
        }
    }
    if (kernels == 0) GTEST_SKIP() << "no vector inet kernel on this CPU";
}

// The loop itself (chain_walk::run_short_avx512[_vnni]) on short chains: every
// good chain of a burst taken (a bug that turns good chains away, which the
// comparison above cannot see, fails here), and a stop, failed, at each
// changed one: a byte the sums cover, padding, a shape the run must not
// take, nb_segs off by one, pkt_len short of the bytes, the last segment
// linked back to the head, an empty segment linked to itself.
TEST_F(ShortChains, TheLoopTakesGoodChainsAndStopsAtChangedOnes) {
    const auto loops = test::chain_loops<true>();
    if (loops.empty()) GTEST_SKIP() << "no AVX-512 on this CPU";
    test::Filler fill(pool());
    const ParserConfig pcfg;  // NVMe/TCP on 4420, VXLAN on 4789
    const ShapeConfig sc(pcfg);
    PacketVerdict pv{};
    pv.n_layers = 3;
    const run_parts::RunVerdict verdict(&pv, long(offsetof(rte_mbuf, dynfield1)));
    std::mt19937 rng(4646);
    constexpr unsigned kN = 12;
    enum Desc { none, more_bytes, fewer_segs, more_segs, loop_to_head, empty_loop, kDescs };
    for (auto [kernel, loop] : loops) {
        for (const Kind& k : kKinds) {
            for (uint32_t len = k.least; len <= kHeaderGather; ++len) {
                SCOPED_TRACE(std::string(inet_kernel_name(kernel)) + " shape " +
                             std::to_string(k.shape) + " len " + std::to_string(len));
                std::vector<std::vector<uint8_t>> frames(kN);
                std::vector<std::vector<uint32_t>> splits(kN);
                const unsigned bad_at = rng() % kN;
                Change ch = Change(rng() % kChanges);
                Desc desc = ch == good ? Desc(1 + rng() % (kDescs - 1)) : none;
                for (unsigned i = 0; i < kN; ++i) {
                    // A TCP port whose low byte is an NVMe port's sends the
                    // run to the general loop (ShapeConfig's filter): not in
                    // the good chains.
                    for (uint32_t flow = len * kN + i;; flow += 1000) {
                        frames[i] = fill.frame(k.proto, len, flow);
                        if (k.udp || (sc.tcp_hit[frames[i][k.l4 + 1]] == 0 &&
                                      sc.tcp_hit[frames[i][k.l4 + 3]] == 0))
                            break;
                    }
                    if (i == bad_at) {
                        const uint32_t from = k.v6 ? 22 : 14;
                        const uint32_t at = from + rng() % (len - from);
                        frames[i] = changed(k, frames[i], ch, at, rng);
                        if (desc == more_bytes) frames[i].push_back(uint8_t(rng()));
                    }
                    const uint32_t n = uint32_t(frames[i].size());
                    splits[i] = test::random_split(n, 2 + rng() % 7, rng);
                    if (i == bad_at && desc == empty_loop) splits[i].push_back(0);
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
                rte_mbuf* last = rte_pktmbuf_lastseg(b);
                if (desc == more_bytes) b->pkt_len -= 1;
                if (desc == fewer_segs) b->nb_segs -= 1;
                if (desc == more_segs) b->nb_segs += 1;
                if (desc == loop_to_head) last->next = b;
                if (desc == empty_loop) last->next = last;  // its data_len is 0
                SCOPED_TRACE("change " + std::to_string(ch) + " desc " + std::to_string(desc));
                chain_walk::Out out;
                bool failed = true;
                // Every chain before the changed one taken.
                EXPECT_EQ(loop(k.shape, true, sc, burst, 0, bad_at, verdict, &out, &failed),
                          bad_at);
                EXPECT_FALSE(failed);
                uint64_t bytes = 0;
                for (unsigned i = 0; i < bad_at; ++i) bytes += pl[i];
                EXPECT_EQ(out.bytes, bytes);
                // Then a stop at it: failed unless the loop does not take
                // such a chain at all (more than 8 segments).
                out = {};
                EXPECT_EQ(loop(k.shape, true, sc, burst, 0, kN, verdict, &out, &failed), bad_at);
                EXPECT_EQ(failed, b->nb_segs <= 8);
                if (bad_at + 1 < kN) {
                    out = {};
                    EXPECT_EQ(
                        loop(k.shape, true, sc, burst, bad_at + 1, kN, verdict, &out, &failed), kN);
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

// Short chains the PMD flagged: GOOD in every layer (3 in 4, so the GOOD
// loop, run_short_good_avx512, takes stretches of them), else BAD, UNKNOWN
// or NONE in one layer; every cut, hostile members (sums broken under GOOD
// flags are trusted, as the walker trusts them; shape changes and
// descriptor lies are not), through the lean engine and the walker in
// verify and csum modes: the same order, verdicts and counters.
TEST_F(ShortChains, FlaggedChainsMatchTheWalker) {
    test::Filler fill(pool());
    constexpr int kN = 32;
    using enum test::Lie;
    const test::Lie lies[] = {segs_high,    segs_low,     pkt_len_past,     last_cut,
                              loop_to_head, loop_to_self, head_past_buffer, tail_past_buffer};
    const auto engs = test::lean_and_walker({Mode::verify, Mode::csum});
    std::mt19937 rng(4242);
    int burst_no = 0;
    for (const Kind& k : kKinds) {
        const uint64_t all_good =
            RTE_MBUF_F_RX_L4_CKSUM_GOOD | (k.v6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD);
        const uint64_t others[] = {
            RTE_MBUF_F_RX_L4_CKSUM_BAD | (k.v6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD),
            RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN | (k.v6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD),
            RTE_MBUF_F_RX_L4_CKSUM_NONE | (k.v6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD),
            RTE_MBUF_F_RX_L4_CKSUM_GOOD | (k.v6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_BAD),
            RTE_MBUF_F_RX_L4_CKSUM_GOOD | (k.v6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN)};
        for (uint32_t len : {k.least, 64u, 65u, 101u, 128u}) {
            if (len < k.least) continue;
            for (uint32_t c0 = 0; c0 <= len; c0 += kN / 2, ++burst_no) {
                std::vector<test::ChainSpec> specs;
                std::vector<std::string> what;
                for (int i = 0; i < kN; ++i) {
                    const uint32_t cut = std::min(len, c0 + uint32_t(i / 2));
                    std::vector<uint8_t> f = fill.frame(k.proto, len, uint32_t(burst_no * kN + i));
                    Change ch = good;
                    test::Lie lie = none;
                    if (i % 3 == 0) {
                        const unsigned r = rng() % 10;
                        if (r < 3)
                            ch = byte_flip;
                        else if (r < 7)
                            ch = Change(2 + rng() % (kChanges - 2));
                        else
                            lie = lies[rng() % std::size(lies)];
                    }
                    f = changed(k, f, ch, 14 + uint32_t(rng() % (len - 14)), rng);
                    const uint32_t n = uint32_t(f.size());
                    std::vector<uint32_t> sp;
                    if (i % 4 < 2)
                        sp = {std::min(cut, n), n - std::min(cut, n)};
                    else
                        sp = test::random_split(n, 3 + unsigned(rng() % 6), rng);
                    if (lie == last_cut && sp.back() == 0) lie = none;
                    const uint64_t flags =
                        rng() % 4 != 0 ? all_good : others[rng() % std::size(others)];
                    specs.push_back({f, sp, flags, 0, lie});
                    std::string w = std::to_string(i) + ": change " + std::to_string(ch) + " lie " +
                                    std::to_string(int(lie)) + " flags " + std::to_string(flags) +
                                    " segs";
                    for (uint32_t x : sp) w.append(" ").append(std::to_string(x));
                    what.push_back(w);
                }
                for (size_t mi = 0; mi < engs.size() / 2; ++mi) {
                    RxPortPolicy rx;
                    rx.drop_bad = burst_no % 2 == 0;
                    SCOPED_TRACE("burst " + std::to_string(burst_no) + " shape " +
                                 std::to_string(k.shape) + " len " + std::to_string(len) +
                                 " mode " + std::to_string(mi));
                    ASSERT_NO_FATAL_FAILURE(
                        test::expect_same_burst(*engs[2 * mi], *engs[2 * mi + 1], pool(), specs, rx,
                                                uint16_t(burst_no % 3 == 1 ? 1 : 0), what));
                    ASSERT_EQ(engs[2 * mi]->stats().sum_bytes.get(),
                              engs[2 * mi + 1]->stats().sum_bytes.get());
                }
            }
        }
    }
}

// The GOOD loop itself (chain_walk::run_short_good_avx512): it takes every
// GOOD chain, a wrong sum included (the PMD's word is taken), and stops,
// failed, at a shape it must not take; at a chain with other flags it
// stops, not failed.
TEST_F(ShortChains, TheGoodLoopTrustsSumsAndStopsAtShapes) {
    if (!chain_walk::cpu_has_avx512()) GTEST_SKIP() << "no AVX-512 on this CPU";
    test::Filler fill(pool());
    const ParserConfig pcfg;
    const ShapeConfig sc(pcfg);
    PacketVerdict pv{};
    pv.n_layers = 3;
    const run_parts::RunVerdict verdict(&pv, long(offsetof(rte_mbuf, dynfield1)));
    std::mt19937 rng(2424);
    constexpr unsigned kN = 12;
    for (const Kind& k : kKinds) {
        const uint64_t all_good =
            RTE_MBUF_F_RX_L4_CKSUM_GOOD | (k.v6 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD);
        for (uint32_t len = k.least; len <= kHeaderGather; ++len) {
            // A shape change (not a flipped byte), or other flags, at bad_at;
            // a payload byte flipped (the sums wrong) in every other chain.
            const unsigned bad_at = rng() % kN;
            const bool flags_only = rng() % 3 == 0;
            // A change this frame can carry (changed() makes the others byte flips).
            auto carried = [&](Change c) {
                return !((c == padded && len <= k.least) || (c == tcp_doff && k.udp) ||
                         (c == udp_no_sum && (!k.udp || len < k.least + 4)) ||
                         (c == udp_len && (!k.udp || len < k.least + 2)));
            };
            Change ch;
            do ch = Change(2 + rng() % (kChanges - 2));
            while (!carried(ch));
            SCOPED_TRACE("shape " + std::to_string(k.shape) + " len " + std::to_string(len) +
                         " change " + std::to_string(flags_only ? 0 : int(ch)));
            rte_mbuf* burst[kN];
            uint64_t bytes = 0;
            for (unsigned i = 0; i < kN; ++i) {
                std::vector<uint8_t> f;
                for (uint32_t flow = len * kN + i;; flow += 1000) {
                    f = fill.frame(k.proto, len, flow);
                    if (k.udp || (sc.tcp_hit[f[k.l4 + 1]] == 0 && sc.tcp_hit[f[k.l4 + 3]] == 0))
                        break;
                }
                if (i == bad_at && !flags_only) f = changed(k, f, ch, 0, rng);
                const uint32_t head = k.l4 + (k.udp ? 8 : 20);
                if (i != bad_at && i % 2 == 0 && len > head) f[head + rng() % (len - head)] ^= 0x5A;
                burst[i] = test::make_chain(
                    pool(), f, test::random_split(uint32_t(f.size()), 2 + rng() % 7, rng),
                    uint16_t(i % 2));
                ASSERT_NE(burst[i], nullptr);
                burst[i]->ol_flags =
                    i == bad_at && flags_only ? RTE_MBUF_F_RX_L4_CKSUM_BAD : all_good;
                if (i < bad_at) bytes += burst[i]->pkt_len;
            }
            chain_walk::Out out;
            bool failed = false;
            EXPECT_EQ(chain_walk::run_short_good_avx512(k.shape, true, sc, burst, 0, kN, verdict,
                                                        &out, &failed),
                      bad_at);
            EXPECT_EQ(failed, !flags_only);
            EXPECT_EQ(out.bytes, bytes);
            EXPECT_EQ(out.summed, 0u);
            rte_pktmbuf_free_bulk(burst, kN);
        }
    }
}

}  // namespace
}  // namespace csum
