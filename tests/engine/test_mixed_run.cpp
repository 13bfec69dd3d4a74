// Bursts that interleave the plain shapes (TCP, UDP and SCTP over IPv4 and IPv6),
// as a port carries them, against the reference walker: the mixed run
// (mixed_run.cpp) reads each packet's shape from its EtherType and L4
// protocol and must stop at every packet it cannot vouch for, wherever it
// sits, with the same verdicts, bytes, kept order and counters as the
// walker. Hostile members of twenty-two kinds (lying descriptors among
// them) at random places; software sums and the PMD's flags (GOOD, and some
// packets BAD, UNKNOWN or NONE); verify and csum modes; with and without
// special TCP ports; bursts of 1 to 40 that go on from the last burst's shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "csum/engine.h"
#include "gen/checksum_fill.h"
#include "gen/packet_builder.h"
#include "support/engine_compare.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

struct Member {
    std::vector<uint8_t> frame;
    std::string what;
    uint64_t ol_flags = 0;
    bool chain = false;
    uint16_t misalign = 0;
    int lie = 0;  // the descriptor lies: 1 pkt_len over data_len, 2 data_len past the buffer
};

class MixedRun : public test::MbufTest {
  protected:
    static bool v6_of(gen::Proto p) { return p == gen::Proto::tcp6 || p == gen::Proto::udp6; }

    // A good frame of one of the plain shapes (SCTP too), of a random length
    // (mostly short, some past the inline sums' limit).
    Member plain_member() {
        static const gen::Proto kinds[] = {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6,
                                           gen::Proto::udp6, gen::Proto::sctp4};
        const gen::Proto p = kinds[rng_() % 5];
        const uint32_t len = rng_() % 8 == 0 ? 100 + rng_() % 1400 : 42 + rng_() % 90;
        Member m;
        m.frame = gen::build_frame({p, len, 1, uint32_t(rng_())});
        gen::fill_checksums(m.frame);
        m.what = std::string(gen::to_string(p)) + " " + std::to_string(m.frame.size()) + " B";
        return m;
    }

    // One of twenty-two hostile changes to a good plain member (or another kind
    // of packet in its place); the sums refilled where the change is to the
    // packet's shape, not to its sums.
    void make_hostile(Member& m) {
        auto& f = m.frame;
        const bool v6 = f[12] == 0x86;
        const uint32_t l3 = 14, l4 = v6 ? 54 : 34;
        const int kind = int(rng_() % 22);
        m.what += " hostile " + std::to_string(kind);
        switch (kind) {
            case 0:  // a bit flipped anywhere the L4 sum covers
                f[l4 + rng_() % (f.size() - l4)] ^= uint8_t(1u << (rng_() % 8));
                break;
            case 1:  // a bit flipped in the IP header (IPv4: its sum; IPv6: addresses, lengths)
                f[l3 + rng_() % (l4 - l3)] ^= uint8_t(1u << (rng_() % 8));
                break;
            case 2:  // Ethernet padding after the IP packet
                for (uint32_t i = 0, n = 1 + rng_() % 6; i < n; ++i) f.push_back(uint8_t(rng_()));
                break;
            case 3:  // UDP checksum 0 (IPv4: none; IPv6: not allowed); TCP: a zero field
                f[l4 + (f[v6 ? 20 : 23] == 17 ? 6 : 16)] = 0;
                f[l4 + (f[v6 ? 20 : 23] == 17 ? 7 : 17)] = 0;
                break;
            case 4:  // cut short: the IP length claims more than the frame has
                f.resize(f.size() - 1 - rng_() % std::min<size_t>(f.size() - l4, 12));
                break;
            case 5: {  // the IP length field off by a little, either way
                const uint32_t at = v6 ? 18 : 16;
                const uint16_t v = uint16_t(f[at] << 8 | f[at + 1]) + uint16_t(rng_() % 9) - 4;
                f[at] = uint8_t(v >> 8), f[at + 1] = uint8_t(v);
                break;
            }
            case 6:  // the TCP data offset (UDP: its length) any value
                if (f[v6 ? 20 : 23] == 6)
                    f[l4 + 12] = uint8_t((rng_() % 16) << 4);
                else
                    f[l4 + 4] = uint8_t(rng_()), f[l4 + 5] = uint8_t(rng_());
                gen::fill_checksums(f);
                break;
            case 7: {  // a VLAN tag
                const uint8_t tag[4] = {0x81, 0x00, 0x00, uint8_t(rng_() % 4095)};
                f.insert(f.begin() + 12, tag, tag + 4);
                break;
            }
            case 8:  // not IP: ARP's EtherType
                f[12] = 0x08, f[13] = 0x06;
                break;
            case 9:  // the other IP version's EtherType
                f[12] = v6 ? 0x08 : 0x86, f[13] = v6 ? 0x00 : 0xDD;
                break;
            case 10:  // IPv4: a fragment (MF, or an offset); IPv6: a hop-by-hop header's number
                if (v6)
                    f[20] = 0;
                else
                    f[20] |= rng_() % 2 ? 0x20 : 0x01;
                gen::fill_checksums(f);
                break;
            case 11:  // IPv4 options claimed (IHL 6..15); IPv6: another version nibble
                if (v6)
                    f[14] = uint8_t((rng_() % 16) << 4);
                else
                    f[14] = uint8_t(0x40 | (6 + rng_() % 10));
                break;
            case 12:  // a frame too short for any header
                f.resize(1 + rng_() % 41);
                break;
            case 13:  // the L4 protocol another (SCTP, ICMP, TCP for UDP and back)
                f[v6 ? 20 : 23] = std::array<uint8_t, 4>{132, 1, 6, 17}[rng_() % 4];
                if (!v6) gen::fill_checksums(f);
                break;
            case 14:  // an NVMe/TCP port on a TCP segment (UDP: the same ports)
                f[l4 + 2] = 0x11, f[l4 + 3] = 0x44;
                gen::fill_checksums(f);
                break;
            case 15:  // a chain of the same bytes
                m.chain = true;
                break;
            case 16:  // the data at an odd address
                m.misalign = uint16_t(1 + rng_() % 7);
                break;
            case 17:  // SCTP in its place
                f = gen::build_frame(
                    {gen::Proto::sctp4, 60 + uint32_t(rng_() % 200), 1, uint32_t(rng_())});
                gen::fill_checksums(f);
                break;
            case 18:  // VXLAN in its place
                f = gen::build_frame(
                    {gen::Proto::vxlan_tcp4, 114 + uint32_t(rng_() % 200), 1, uint32_t(rng_())});
                gen::fill_checksums(f);
                break;
            case 20:  // pkt_len more than the segment holds
                m.lie = 1;
                break;
            case 21:  // data_len past the end of the buffer
                m.lie = 2;
                break;
            default:  // the IPv4 TTL or IPv6 hop limit changed, sums refilled: still good
                f[v6 ? 21 : 22] = uint8_t(rng_());
                gen::fill_checksums(f);
                break;
        }
    }

    // flags: 0 no PMD flags; 1 GOOD on every packet, a few others BAD,
    // UNKNOWN or NONE on one layer.
    std::vector<Member> burst(int n, int flags) {
        std::vector<Member> b;
        for (int i = 0; i < n; ++i) {
            Member m = plain_member();
            if (rng_() % 6 == 0) make_hostile(m);
            if (flags) {
                m.ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
                if (rng_() % 8 == 0) {
                    static const uint64_t other[] = {
                        RTE_MBUF_F_RX_L4_CKSUM_BAD, RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN,
                        RTE_MBUF_F_RX_L4_CKSUM_NONE, RTE_MBUF_F_RX_IP_CKSUM_BAD,
                        RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN};
                    const uint64_t o = other[rng_() % 5];
                    const bool l4 = (o & RTE_MBUF_F_RX_L4_CKSUM_MASK) != 0;
                    m.ol_flags &= l4 ? ~RTE_MBUF_F_RX_L4_CKSUM_MASK : ~RTE_MBUF_F_RX_IP_CKSUM_MASK;
                    m.ol_flags |= o;
                    m.what += " flags " + std::to_string(o);
                }
            }
            b.push_back(std::move(m));
        }
        return b;
    }

    // The burst through the lean engine and the walker (each kept across
    // bursts): same kept order, verdicts, bytes and counters.
    void expect_like_walker(Engine& lean, Engine& walker, const std::vector<Member>& b,
                            const std::string& what) {
        const int n = int(b.size());
        std::vector<std::string> names;
        for (int i = 0; i < n; ++i) names.push_back(b[i].what + " #" + std::to_string(i));
        test::BurstRecord rec[2];
        Engine* engines[2] = {&lean, &walker};
        for (int e = 0; e < 2; ++e) {
            std::vector<rte_mbuf*> burst(n), orig(n);
            for (int i = 0; i < n; ++i) {
                const auto& f = b[i].frame;
                if (b[i].chain && f.size() >= 2) {
                    const uint32_t cut = 1 + uint32_t(i * 7 % (f.size() - 1));
                    const uint32_t lens[2] = {cut, uint32_t(f.size()) - cut};
                    orig[i] = test::make_chain(pool(), f, lens, b[i].misalign);
                } else {
                    orig[i] = test::make_linear(pool(), f, b[i].misalign);
                }
                ASSERT_NE(orig[i], nullptr);
                orig[i]->ol_flags = b[i].ol_flags;
                if (b[i].lie == 1) orig[i]->pkt_len += 1 + i % 9;
                if (b[i].lie == 2 && orig[i]->next == nullptr)
                    orig[i]->data_len = uint16_t(orig[i]->buf_len - orig[i]->data_off + 1 + i % 9),
                    orig[i]->pkt_len = orig[i]->data_len;
                burst[i] = orig[i];
            }
            const uint16_t kept = engines[e]->process(rx_, tx_, burst.data(), uint16_t(n));
            // The lies taken back before the bytes are read for the record.
            for (int i = 0; i < n; ++i)
                if (b[i].lie != 0 && orig[i]->next == nullptr)
                    orig[i]->pkt_len = orig[i]->data_len = uint16_t(b[i].frame.size());
            rec[e] = test::record_burst(*engines[e], orig.data(), burst.data(), n, kept, names);
            rte_pktmbuf_free_bulk(orig.data(), unsigned(n));
        }
        SCOPED_TRACE(what);
        ASSERT_EQ(rec[0].order, rec[1].order);
        ASSERT_EQ(rec[0].verdicts, rec[1].verdicts);
        ASSERT_EQ(rec[0].bytes, rec[1].bytes);
        // The lean tunnel path sums a VXLAN packet's payload once where the
        // walker sums it for each layer: the work counters differ then.
        const bool tunnel = std::any_of(b.begin(), b.end(), [](const Member& m) {
            return m.what.find("hostile 18") != std::string::npos;
        });
        tunnels_ |= tunnel;
        if (tunnels_)
            ASSERT_NO_FATAL_FAILURE(test::expect_same_counts(lean, walker));
        else
            ASSERT_NO_FATAL_FAILURE(test::expect_same_counts_and_work(lean, walker));
    }
    bool tunnels_ = false;  // a tunnel has gone through this pair: work counts differ

    static EngineConfig config(bool lean, Mode mode, bool nvme_ports) {
        EngineConfig c;
        c.mode = mode;
        c.plain_fast_path = lean;
        if (!nvme_ports) c.parser.nvme_ports.n = 0;
        return c;
    }

    RxPortPolicy rx_;
    TxPortPolicy tx_;
    std::mt19937 rng_{2112};
};

TEST_F(MixedRun, InterleavedShapesWithHostileMembersMatchTheWalker) {
    for (Mode mode : {Mode::verify, Mode::csum})
        for (bool ports : {true, false})
            for (int flags : {0, 1}) {
                Engine lean(config(true, mode, ports)), walker(config(false, mode, ports));
                tunnels_ = false;
                for (int round = 0; round < 150; ++round) {
                    const int n = round % 5 == 0 ? 1 + int(rng_() % 40) : 32;
                    const std::string what =
                        std::string(to_string(mode)) + (ports ? " ports" : " no ports") +
                        (flags ? " GOOD flags" : " sw") + " round " + std::to_string(round);
                    ASSERT_NO_FATAL_FAILURE(
                        expect_like_walker(lean, walker, burst(n, flags), what));
                }
            }
}

// All good, the shapes alternating in fixed patterns (the run's switch
// taken at every packet) and in runs of random length, so that bursts start
// on the last burst's shape or another: every packet taken, as the walker.
// Fill mode (the TX side: no flag is read) with the port's offloads taking
// some fields, so that the run fills only the shapes left to software.
TEST_F(MixedRun, FillTakesOnlyTheShapesTheTxPortLeavesToSoftware) {
    const uint64_t offloads[] = {0,
                                 RTE_ETH_TX_OFFLOAD_UDP_CKSUM,
                                 RTE_ETH_TX_OFFLOAD_TCP_CKSUM,
                                 RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
                                 RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM,
                                 RTE_ETH_TX_OFFLOAD_SCTP_CKSUM};
    for (uint64_t o : offloads)
        for (bool ports : {true, false}) {
            tx_.offloads = o;
            Engine lean(config(true, Mode::fill, ports)), walker(config(false, Mode::fill, ports));
            tunnels_ = false;
            for (int round = 0; round < 120; ++round) {
                rx_.trusted = round % 3 == 2;  // its packets counted as skipped
                const int n = round % 5 == 0 ? 1 + int(rng_() % 40) : 32;
                auto b = burst(n, 0);
                // Fill mode's input: the fields a stack leaves for offload, any value.
                for (auto& m : b)
                    if (m.what.find("hostile") == std::string::npos && m.frame.size() > 60)
                        m.frame[m.frame.size() - 1 - rng_() % 4] ^= uint8_t(rng_());
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(lean, walker, b,
                                                           "fill offloads " + std::to_string(o) +
                                                               (ports ? " ports" : " no ports") +
                                                               " round " + std::to_string(round)));
            }
        }
    tx_ = {};
    rx_ = {};
}

TEST_F(MixedRun, AlternatingAndRunsOfShapesMatchTheWalker) {
    for (Mode mode : {Mode::verify, Mode::csum, Mode::fill})
        for (int flags : {0, 1}) {
            Engine lean(config(true, mode, true)), walker(config(false, mode, true));
            for (int round = 0; round < 60; ++round) {
                std::vector<Member> b;
                Member last = plain_member();
                for (int i = 0; i < 32; ++i) {
                    if (round % 2 == 0 || rng_() % 4 == 0) last = plain_member();
                    Member m = last;
                    // Same shape, own flow: the length and payload differ.
                    m.frame = last.frame;
                    m.frame.back() ^= uint8_t(i);
                    gen::fill_checksums(m.frame);
                    if (flags)
                        m.ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
                    b.push_back(std::move(m));
                }
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(lean, walker, b,
                                                           std::string(to_string(mode)) +
                                                               (flags ? " GOOD" : " sw") +
                                                               " round " + std::to_string(round)));
            }
        }
}

// Tunnels (VXLAN and GENEVE over IPv4, VXLAN over IPv6) and plain packets
// interleaved, either more of them: the plain mixed run takes each tunnel
// by its kind's template (built by an earlier packet), the tunnel path
// hands plain packets to it, and each must stop at every packet it cannot
// vouch for (a bit flipped anywhere, a lying descriptor, a chain, the
// plain members' hostile changes). Fill mode the same, the tunnels by their
// fill templates. Verdicts, bytes, order and counts as the walker's.
TEST_F(MixedRun, TunnelsAmongPlainPacketsMatchTheWalker) {
    static const gen::Proto kTunnels[] = {gen::Proto::vxlan_tcp4, gen::Proto::geneve_tcp4,
                                          gen::Proto::vxlan6_tcp4};
    for (Mode mode : {Mode::verify, Mode::csum, Mode::fill})
        for (bool ports : {true, false})
            for (int flags : {0, 1}) {
                Engine lean(config(true, mode, ports)), walker(config(false, mode, ports));
                tunnels_ = true;  // the walker sums a tunnel's payload per layer
                for (int round = 0; round < 80; ++round) {
                    // Fill: now and then a TX port that offloads the plain
                    // TCP and IPv4 fields (the tunnels' stay software's).
                    tx_.offloads =
                        mode == Mode::fill && round % 4 == 3
                            ? RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM
                            : 0;
                    std::vector<Member> b = burst(32, flags);
                    // Every other packet a tunnel, or one in three, or two in
                    // three (those bursts go to the tunnel path first, and
                    // the plain packets among them to the plain mixed run);
                    // two tunnel kinds a round.
                    const int pattern = round % 3;
                    const gen::Proto k0 = kTunnels[rng_() % 3], k1 = kTunnels[rng_() % 3];
                    for (int i = 0; i < 32; ++i) {
                        if (pattern == 0 ? i % 2 == 0 : pattern == 1 ? i % 3 != 1 : i % 3 == 0)
                            continue;
                        const gen::Proto p = i % 4 == 1 ? k0 : k1;
                        Member t;
                        t.frame = gen::build_frame(
                            {p, 64 + uint32_t(rng_() % (rng_() % 8 == 0 ? 1400 : 120)), 1,
                             uint32_t(rng_())});
                        gen::fill_checksums(t.frame);
                        t.what = std::string(gen::to_string(p)) + " " +
                                 std::to_string(t.frame.size()) + " B";
                        const unsigned r = rng_() % 16;
                        if (r == 0) {
                            t.frame[14 + rng_() % (t.frame.size() - 14)] ^=
                                uint8_t(1u << (rng_() % 8));
                            t.what += " bit flipped";
                        } else if (r == 1) {
                            t.lie = 1 + int(rng_() % 2), t.what += " lying descriptor";
                        } else if (r == 2) {
                            t.chain = true, t.what += " chain";
                        }
                        if (flags) t.ol_flags = b[i].ol_flags;
                        b[i] = std::move(t);
                    }
                    ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                        lean, walker, b,
                        std::string(to_string(mode)) + (ports ? " ports" : " no ports") +
                            (flags ? " GOOD flags" : " sw") + " round " + std::to_string(round)));
                }
            }
    tx_ = {};
}

}  // namespace
}  // namespace csum
