// SCTP's CRC over long chains (sctp_crc_held -> for 2 segments or a long
// first piece sctp_crc_chain_rest: long pieces through the linear kernel, the state
// chained, the rest by crc32c_mbuf; the walk also called directly over 4
// segments), on every CRC32C kernel this CPU runs: against the CRC of the
// flat bytes for chains of 2 and 4 segments cut at every offset (empty and
// 1-byte segments, odd data addresses), against crc32c_mbuf's own answer for
// chains that end early or lie about pkt_len, and through the engine's SCTP
// run against the reference walker, a changed byte in every other chain.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/crc32c.h"
#include "csum/engine.h"
#include "engine/sctp_crc.h"
#include "gen/packet_builder.h"
#include "support/chain_builder.h"
#include "support/engine_compare.h"
#include "support/kernel_restore.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class SctpChainRun : public test::Crc32cKernelTest {};

// The CRC SCTP wants over bytes [off, off + len): the checksum field as zero.
uint32_t flat_sctp_crc(std::vector<uint8_t> b, uint32_t off, uint32_t len) {
    std::fill_n(b.begin() + off + 8, 4, uint8_t(0));
    return crc32c(b.data() + off, len);
}

TEST_F(SctpChainRun, LongRangesMatchTheFlatCrcAtEveryCut) {
    std::mt19937 rng(1515);
    int kernels = 0;
    for (Crc32cKernel k : crc32c_available_kernels()) {
        ASSERT_TRUE(crc32c_force_kernel(k));
        ++kernels;
        SCOPED_TRACE("kernel " + std::string(crc32c_kernel_name(k)));
        for (uint32_t off : {34u, 54u}) {
            // Around the piece limit (off + 12 + kSctpPieceMin) and beyond.
            for (uint32_t n : {off + 12 + kSctpPieceMin, 1100u, 1420u}) {
                const std::vector<uint8_t> b = test::random_bytes(n, rng);
                const uint32_t len = n - off, want = flat_sctp_crc(b, off, len);
                // held: the common header and a little more, so the rest is
                // read from the chain.
                const uint32_t held = off + 16;
                auto check = [&](const std::vector<uint32_t>& segs, uint16_t misalign) {
                    rte_mbuf* m = test::make_chain(pool(), b, segs, misalign);
                    ASSERT_NE(m, nullptr);
                    const uint32_t got = sctp_crc_held(m, b.data(), held, off, len);
                    // The piece walk itself, which sctp_crc_held takes for 2
                    // segments or a first piece of kSctpPieceMin bytes.
                    const uint32_t walked =
                        sctp_crc_chain_rest(m, off + 12, len - 12, sctp_head_crc(b.data() + off));
                    rte_pktmbuf_free(m);
                    std::string w =
                        "off " + std::to_string(off) + " n " + std::to_string(n) + " segs";
                    for (uint32_t s : segs) w.append(" ").append(std::to_string(s));
                    ASSERT_EQ(got, want) << w;
                    ASSERT_EQ(walked, want) << w;
                };
                for (uint32_t c = 0; c <= n; ++c) {
                    const uint16_t mis = uint16_t(c % 3 == 1);
                    ASSERT_NO_FATAL_FAILURE(check({c, n - c}, mis));
                    // Four: this cut, and a 1-byte or empty piece or a random
                    // split of what follows it.
                    std::vector<uint32_t> segs = {c};
                    const uint32_t r = n - c;
                    switch (c % 3) {
                        case 0:
                            segs.insert(segs.end(), {0, r / 2, r - r / 2});
                            break;
                        case 1:
                            if (r >= 1)
                                segs.insert(segs.end(), {1, (r - 1) / 2, r - 1 - (r - 1) / 2});
                            else
                                segs.insert(segs.end(), {0, 0, 0});
                            break;
                        default: {
                            const auto t = test::random_split(r, 3, rng);
                            segs.insert(segs.end(), t.begin(), t.end());
                            break;
                        }
                    }
                    ASSERT_NO_FATAL_FAILURE(check(segs, mis));
                }
            }
        }
    }
    EXPECT_GT(kernels, 0);
}

// Chains that hold fewer bytes than pkt_len says (the last segment cut short),
// more than pkt_len (pkt_len told short of the range), or more segments than
// nb_segs: the answer is
// crc32c_mbuf's for the same range, as before the long pieces.
TEST_F(SctpChainRun, ShortAndLyingChainsGiveCrc32cMbufsAnswer) {
    std::mt19937 rng(1516);
    for (Crc32cKernel k : crc32c_available_kernels()) {
        ASSERT_TRUE(crc32c_force_kernel(k));
        SCOPED_TRACE("kernel " + std::string(crc32c_kernel_name(k)));
        const uint32_t off = 34, n = 1420, len = n - off, held = off + 16;
        const std::vector<uint8_t> b = test::random_bytes(n, rng);
        const uint32_t head = sctp_head_crc(b.data() + off);
        for (uint32_t c = 0; c <= n; c += 7) {
            for (int lie = 0; lie < 4; ++lie) {
                const uint32_t cut = 1 + rng() % 600;
                rte_mbuf* m = test::make_chain(pool(), b, std::vector<uint32_t>{c, n - c});
                ASSERT_NE(m, nullptr);
                rte_mbuf* last = rte_pktmbuf_lastseg(m);
                const uint16_t dl = last->data_len;
                const uint32_t pl = m->pkt_len;
                if (lie == 0) last->data_len = uint16_t(dl > cut ? dl - cut : 0);
                if (lie == 1) m->pkt_len = pl > cut ? pl - cut : 0;
                if (lie == 2) last->data_len = uint16_t(dl > cut ? dl - cut : 0), m->pkt_len -= cut;
                if (lie == 3) m->nb_segs = 1;  // the walk stops at nb_segs segments
                const uint32_t want = crc32c_mbuf(m, off + 12, len - 12, head);
                const uint32_t got = sctp_crc_held(m, b.data(), held, off, len);
                const uint32_t walked = sctp_crc_chain_rest(m, off + 12, len - 12, head);
                last->data_len = dl, m->pkt_len = pl, m->nb_segs = 2;
                rte_pktmbuf_free(m);
                ASSERT_EQ(got, want) << "cut at " << c << " lie " << lie << " by " << cut;
                ASSERT_EQ(walked, want) << "cut at " << c << " lie " << lie << " by " << cut;
            }
        }
    }
}

// Bursts of one long SCTP packet cut at consecutive offsets (over all bursts
// at every offset) in two, and in four (the rest split at random), every other chain
// with one byte of its SCTP bytes changed: the lean engine (the SCTP run)
// must match the walker-only one exactly, on every CRC32C kernel.
TEST_F(SctpChainRun, LongChainRunsMatchTheWalker) {
    test::Filler fill(pool());
    const auto engs = test::lean_and_walker({Mode::verify, Mode::csum});
    std::mt19937 rng(1517);
    constexpr int kN = 32;
    int burst_no = 0;
    for (Crc32cKernel k : crc32c_available_kernels()) {
        ASSERT_TRUE(crc32c_force_kernel(k));
        for (bool v6 : {false, true}) {
            const uint32_t l4 = v6 ? 54 : 34, len = 1420;
            const std::vector<uint8_t> good =
                v6 ? fill.sctp6(len, 7) : fill.frame(gen::Proto::sctp4, len, 7);
            const uint32_t n = uint32_t(good.size());
            for (uint32_t c0 = 0; c0 <= n; c0 += kN / 4, ++burst_no) {
                std::vector<test::ChainSpec> specs;
                std::vector<std::string> what;
                for (int i = 0; i < kN; ++i) {
                    // Each cut four times: in two (good, changed), in four (good, changed).
                    const uint32_t c = std::min(n, c0 + uint32_t(i / 4));
                    std::vector<uint8_t> f = good;
                    if (i % 2 == 1) f[l4 + rng() % (n - l4)] ^= uint8_t(1 + rng() % 255);
                    std::vector<uint32_t> sp = {c, n - c};
                    if (i % 4 >= 2) {  // four: the rest split at random
                        const auto t = test::random_split(n - c, 3, rng);
                        sp = {c};
                        sp.insert(sp.end(), t.begin(), t.end());
                    }
                    specs.push_back({f, sp, 0, 0, test::Lie::none});
                    what.push_back(std::to_string(i) + ": cut " + std::to_string(c));
                }
                const uint16_t misalign = uint16_t(burst_no % 3 == 1);
                for (size_t mi = 0; mi < engs.size() / 2; ++mi) {
                    RxPortPolicy rx;
                    rx.drop_bad = burst_no % 2 == 0;
                    SCOPED_TRACE("kernel " + std::string(crc32c_kernel_name(k)) + " burst " +
                                 std::to_string(burst_no) + " v6 " + std::to_string(v6) + " mode " +
                                 std::to_string(mi));
                    ASSERT_NO_FATAL_FAILURE(test::expect_same_burst(
                        *engs[2 * mi], *engs[2 * mi + 1], pool(), specs, rx, misalign, what));
                }
            }
        }
    }
    for (size_t mi = 0; mi < engs.size() / 2; ++mi)
        ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(*engs[2 * mi], *engs[2 * mi + 1]));
}

// Jumbo frames as a scatter-RX PMD leaves them (9000 B in segments of a
// 2048-B data room, every one full but the last), and with a shorter first
// segment: sctp_crc_held walks these pieces through the linear kernel (a
// long first piece, whatever nb_segs). Every other chain has one byte of its
// SCTP bytes changed; the lean engine must match the walker-only one.
TEST_F(SctpChainRun, JumboScatterRunsMatchTheWalker) {
    test::TestPool jumbo(8, 9216 + RTE_PKTMBUF_HEADROOM);  // the filler's linear frames
    test::Filler fill(jumbo.get());
    const auto engs = test::lean_and_walker({Mode::verify, Mode::csum});
    std::mt19937 rng(1518);
    constexpr int kN = 16;
    for (Crc32cKernel k : crc32c_available_kernels()) {
        ASSERT_TRUE(crc32c_force_kernel(k));
        for (bool v6 : {false, true}) {
            const uint32_t l4 = v6 ? 54 : 34, len = 9000;
            const std::vector<uint8_t> good =
                v6 ? fill.sctp6(len, 7) : fill.frame(gen::Proto::sctp4, len, 7);
            const uint32_t n = uint32_t(good.size());
            for (uint16_t misalign : {0, 1}) {
                const uint32_t room = 2048 - misalign;
                std::vector<test::ChainSpec> specs;
                std::vector<std::string> what;
                for (int i = 0; i < kN; ++i) {
                    std::vector<uint8_t> f = good;
                    if (i % 2 == 1) f[l4 + rng() % (n - l4)] ^= uint8_t(1 + rng() % 255);
                    // The first segment full, or 1 + random bytes (around the
                    // piece limit l4 + 12 + kSctpPieceMin too), the rest full.
                    const uint32_t first =
                        i < 4 ? room : std::min(room, 1 + uint32_t(rng() % (2 * kSctpPieceMin)));
                    std::vector<uint32_t> sp = {first};
                    for (uint32_t pos = first; pos < n; pos += room)
                        sp.push_back(std::min(room, n - pos));
                    specs.push_back({f, sp, 0, 0, test::Lie::none});
                    what.push_back(std::to_string(i) + ": first " + std::to_string(first));
                }
                for (size_t mi = 0; mi < engs.size() / 2; ++mi) {
                    SCOPED_TRACE("kernel " + std::string(crc32c_kernel_name(k)) + " v6 " +
                                 std::to_string(v6) + " misalign " + std::to_string(misalign) +
                                 " mode " + std::to_string(mi));
                    ASSERT_NO_FATAL_FAILURE(test::expect_same_burst(
                        *engs[2 * mi], *engs[2 * mi + 1], pool(), specs, {}, misalign, what));
                }
            }
        }
    }
    for (size_t mi = 0; mi < engs.size() / 2; ++mi)
        ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(*engs[2 * mi], *engs[2 * mi + 1]));
}

}  // namespace
}  // namespace csum
