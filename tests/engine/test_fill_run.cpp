// Fill mode's same-shape run (lib/engine/fill_run.cpp) against the
// reference walker: bursts of one plain TCP/UDP shape with one hostile
// member at every place (header bytes, lengths, ports, descriptor fields
// that lie, chains), at every length class (inline sums and the kernel's),
// odd data addresses, Ethernet padding, checksum fields holding garbage,
// payloads at the zero-sum edge, TX ports that offload, trusted ports and
// drops before the run: every byte, verdict, offload request, the kept
// order and every counter as the walker's.
#include <gtest/gtest.h>

#include <algorithm>
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
#include "support/hostile_places.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

// Hostile members: header bytes, then descriptor fields (applied to the mbuf).
enum Kind {
    kGood,
    kIhl,          // IPv4 options (IHL 6) / IPv6 version 4
    kIpLong,       // IP length past the frame
    kIpShort,      // IP length 2 short: 2 bytes of padding
    kFragment,     // IPv4 MF / IPv6 fragment header
    kOtherL4,      // ICMP
    kOtherShape,   // TCP <-> UDP
    kVlan,         // EtherType 0x8100
    kL4Header,     // UDP checksum 0 / TCP data offset 4
    kL4Length,     // UDP length off by one / TCP data offset 15
    kPortListed,   // NVMe/TCP port 4420 / VXLAN 4789
    kPortFilter,   // a port whose low byte hits the filter but is not listed
    kTruncated,    // 40 bytes
    kOtherIp,      // the other IP version
    kPktLenLong,   // descriptor: pkt_len > data_len
    kDataLenLong,  // descriptor: bytes in the segment past pkt_len
    kPastBuffer,   // descriptor: data_off + data_len > buf_len
    kDataOffPast,  // descriptor: data_off moved past the room
    kNbSegs,       // descriptor: nb_segs 2, no next
    kChain,        // a real 2-segment chain
    kRxFlags,      // RX flags BAD (fill reads none)
    kKinds
};

gen::Proto other_ip(gen::Proto p) {
    switch (p) {
        case gen::Proto::tcp4:
            return gen::Proto::tcp6;
        case gen::Proto::udp4:
            return gen::Proto::udp6;
        case gen::Proto::tcp6:
            return gen::Proto::tcp4;
        default:
            return gen::Proto::udp4;
    }
}

class FillRun : public test::MbufTest {
  protected:
    struct Member {
        std::vector<uint8_t> frame;
        Kind kind = kGood;
    };
    static bool is_v6(gen::Proto p) { return p == gen::Proto::tcp6 || p == gen::Proto::udp6; }
    static bool is_udp(gen::Proto p) { return p == gen::Proto::udp4 || p == gen::Proto::udp6; }

    // A frame of proto, len bytes and pad bytes of padding, its checksum
    // fields holding garbage (fill must take them as zero).
    std::vector<uint8_t> frame(gen::Proto proto, uint32_t len, uint32_t flow, uint32_t pad) {
        auto f = gen::build_frame({proto, len, 1, flow});
        for (const gen::CsumField& c : gen::checksum_fields(f))
            for (uint8_t i = 0; i < c.len; ++i) f[c.off + i] = uint8_t(rng_());
        for (uint32_t i = 0; i < pad; ++i) f.push_back(uint8_t(0x5A ^ i ^ flow));
        return f;
    }

    Member hostile(gen::Proto proto, uint32_t len, uint32_t flow, uint32_t pad, Kind kind) {
        Member m{frame(kind == kOtherIp ? other_ip(proto) : proto, len, flow, pad), kind};
        auto& f = m.frame;
        const bool v6 = is_v6(proto), udp = is_udp(proto);
        const uint32_t l4 = v6 ? 54 : 34;
        auto put16 = [&f](uint32_t at, uint32_t v) {
            f[at] = uint8_t(v >> 8), f[at + 1] = uint8_t(v);
        };
        auto get16 = [&f](uint32_t at) { return uint32_t(f[at] << 8 | f[at + 1]); };
        switch (kind) {
            case kIhl:
                f[14] = v6 ? 0x40 : 0x46;
                break;
            case kIpLong:
                put16(v6 ? 18 : 16, get16(v6 ? 18 : 16) + 1 + pad);
                break;
            case kIpShort:
                put16(v6 ? 18 : 16, get16(v6 ? 18 : 16) - 2);
                break;
            case kFragment:
                if (v6)
                    f[20] = 44;
                else
                    f[20] |= 0x20;
                break;
            case kOtherL4:
                f[v6 ? 20 : 23] = v6 ? 58 : 1;
                break;
            case kOtherShape:
                f[v6 ? 20 : 23] = udp ? 6 : 17;
                break;
            case kVlan:
                f[12] = 0x81, f[13] = 0x00;
                break;
            case kL4Header:
                if (udp)
                    put16(l4 + 6, 0);
                else
                    f[l4 + 12] = 0x40;
                break;
            case kL4Length:
                if (udp)
                    put16(l4 + 4, get16(l4 + 4) + 1);
                else
                    f[l4 + 12] = 0xF0;
                break;
            case kPortListed:
                put16(l4 + (flow % 2 == 0 || udp ? 2 : 0), udp ? 4789 : 4420);
                break;
            case kPortFilter:
                put16(l4 + 2, udp ? 0x00B5 : 0x2244);  // 4789 and 4420's low bytes
                break;
            case kTruncated:
                f.resize(40);
                break;
            default:
                break;
        }
        return m;
    }

    // One burst through the lean and the walker engine of the pair (kept
    // across calls: a burst may enter on the last one's run): kept order,
    // verdicts, bytes, offload requests and counters alike.
    void expect_like_walker(const std::vector<Member>& burst, const std::string& what,
                            uint16_t misalign = 0, const RxPortPolicy& rx = {},
                            const TxPortPolicy& tx = {}) {
        const int n = int(burst.size());
        std::vector<std::string> got[2];
        std::vector<int> order[2];
        for (int e = 0; e < 2; ++e) {
            std::vector<rte_mbuf*> pkts(n), orig(n);
            struct Desc {
                uint32_t pkt_len;
                uint16_t data_len, data_off, nb_segs;
            };
            std::vector<Desc> saved(n);
            for (int i = 0; i < n; ++i) {
                const auto& f = burst[i].frame;
                const uint32_t size = uint32_t(f.size());
                const uint32_t split[2] = {size / 2, size - size / 2};
                rte_mbuf* m = burst[i].kind == kChain ? test::make_chain(pool(), f, split, misalign)
                                                      : test::make_linear(pool(), f, misalign);
                saved[i] = {m->pkt_len, m->data_len, m->data_off, m->nb_segs};
                switch (burst[i].kind) {
                    case kPktLenLong:
                        m->pkt_len += 1 + i % 3;
                        break;
                    case kDataLenLong:
                        m->data_len = uint16_t(m->data_len + 1 + i % 3);
                        break;
                    case kPastBuffer:
                        m->data_len = uint16_t(m->buf_len - m->data_off + 1);
                        m->pkt_len = m->data_len;
                        break;
                    case kDataOffPast:
                        m->data_off = uint16_t(m->buf_len - m->data_len + 1);
                        break;
                    case kNbSegs:
                        m->nb_segs = 2;
                        break;
                    case kRxFlags:
                        m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_BAD | RTE_MBUF_F_RX_L4_CKSUM_BAD;
                        break;
                    default:
                        break;
                }
                orig[i] = pkts[i] = m;
            }
            Engine& eng = e == 0 ? lean_ : walker_;
            const uint16_t kept = eng.process(rx, tx, pkts.data(), uint16_t(n));
            for (int j = 0; j < kept; ++j)
                order[e].push_back(
                    int(std::find(orig.begin(), orig.end(), pkts[j]) - orig.begin()));
            for (int i = 0; i < n; ++i) {
                rte_mbuf* m = orig[i];
                m->pkt_len = saved[i].pkt_len, m->data_len = saved[i].data_len;
                m->data_off = saved[i].data_off, m->nb_segs = saved[i].nb_segs;
                const auto b = test::chain_bytes(m);
                got[e].push_back(what + " #" + std::to_string(i) + " kind " +
                                 std::to_string(burst[i].kind) + " " + test::verdict_key(m, eng) +
                                 " flags " + std::to_string(m->ol_flags) + " lens " +
                                 std::to_string(m->l2_len) + "/" + std::to_string(m->l3_len) + "/" +
                                 std::to_string(m->l4_len) + " " + std::string(b.begin(), b.end()));
            }
            rte_pktmbuf_free_bulk(orig.data(), unsigned(n));
        }
        SCOPED_TRACE(what);
        ASSERT_EQ(order[0], order[1]);
        for (int i = 0; i < n; ++i) ASSERT_EQ(got[0][i], got[1][i]);
        ASSERT_NO_FATAL_FAILURE(test::expect_same_counts_and_work(lean_, walker_));
    }

    static EngineConfig config(bool lean) {
        EngineConfig c;
        c.mode = Mode::fill;
        c.plain_fast_path = lean;
        return c;
    }
    Engine lean_{config(true)}, walker_{config(false)};
    std::mt19937 rng_{2026};
};

constexpr gen::Proto kProtos[] = {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6,
                                  gen::Proto::udp6};

// Each L4 length class (the least, around the inline limit (IPv4 56, IPv6
// 32 L4 bytes), around the short kernel limit (128), long), odd data
// addresses, padding; every hostile kind at three places and every place
// with some hostile kind, in bursts of 21 (the run's last three packets
// are its second loop).
TEST_F(FillRun, HostileMembersAtEveryPlaceAndLength) {
    const uint32_t l4_lens[] = {8, 20, 21, 31, 32, 33, 55, 56, 57, 64, 127, 128, 129, 700, 1386};
    constexpr int kN = 21;
    for (gen::Proto proto : kProtos) {
        const bool v6 = is_v6(proto);
        const uint32_t least = is_udp(proto) ? 8 : 20;
        for (uint32_t l4_len : l4_lens) {
            if (l4_len < least) continue;
            const uint32_t len = (v6 ? 54 : 34) + l4_len;
            for (uint16_t misalign : {0, 1, 3}) {
                const uint32_t pad = misalign == 1 ? 0 : misalign == 3 ? 3 : 6;
                std::vector<Member> good;
                for (int i = 0; i < kN; ++i) good.push_back({frame(proto, len, i, pad), kGood});
                const std::string what = std::string(gen::to_string(proto)) + " l4 " +
                                         std::to_string(l4_len) + " misalign " +
                                         std::to_string(misalign);
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(good, what + " all good", misalign));
                for (auto [at, k] : test::hostile_places(rng_, kN, kKinds)) {
                    const Kind kind = Kind(k);
                    auto burst = good;
                    burst[at] = hostile(proto, len, at, pad, kind);
                    ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                        burst, what + " kind " + std::to_string(kind) + " at " + std::to_string(at),
                        misalign));
                }
            }
        }
    }
}

// Payloads at the zero-sum edge: a payload word raised by the checksum
// makes the sum 0xFFFF, so TCP stores 0x0000 and UDP 0xFFFF; the IPv4
// header's identification the same way for its own field.
TEST_F(FillRun, ZeroSumsAreStoredAsTheLeanPathStoresThem) {
    for (gen::Proto proto : kProtos) {
        const bool v6 = is_v6(proto), udp = is_udp(proto);
        const uint32_t l4 = v6 ? 54 : 34, field = l4 + (udp ? 6 : 16);
        for (uint32_t len : {80u, 81u, 96u, 200u, 1001u}) {
            std::vector<Member> burst;
            for (uint32_t i = 0; i < 8; ++i) {
                auto f = gen::build_frame({proto, len, 1, i});
                gen::fill_checksums(f);
                // One's-complement add of the stored checksum to a payload word.
                auto raise = [&f](uint32_t at, uint32_t by) {
                    uint32_t w = uint32_t(f[at] << 8 | f[at + 1]) + by;
                    w = (w & 0xFFFF) + (w >> 16);
                    f[at] = uint8_t(w >> 8), f[at + 1] = uint8_t(w);
                };
                raise(len - 2 - (len - l4) % 2, uint32_t(f[field] << 8 | f[field + 1]));
                if (!v6) raise(18, uint32_t(f[24] << 8 | f[25]));
                gen::fill_checksums(f);
                EXPECT_EQ(f[field] << 8 | f[field + 1], udp ? 0xFFFF : 0) << len;
                if (!v6) {
                    EXPECT_EQ(f[24] << 8 | f[25], 0) << len;
                }
                f[field] ^= 0x33, f[field + 1] ^= uint8_t(i);
                if (!v6) f[25] ^= 0x81;
                burst.push_back({f, kGood});
            }
            ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                burst, std::string(gen::to_string(proto)) + " zero sums " + std::to_string(len)));
        }
    }
}

// Addresses of all ones (a broadcast to 255.255.255.255, the fuzzer's
// source c0.ff.ff.ff): the IPv4 header's last word plus its own field taken
// out passes 2^32, a carry the run's header sum must keep (it was lost in
// 32-bit arithmetic: one off in the field's high byte, from the second
// packet of a run on). Inline and kernel lengths, garbage in every field.
TEST_F(FillRun, AddressesOfAllOnesCarryOutOfTheirWords) {
    const uint8_t addrs[][8] = {{192, 255, 255, 255, 255, 255, 255, 255},
                                {10, 0, 0, 1, 255, 255, 255, 255},
                                {255, 255, 255, 255, 10, 0, 0, 1},
                                {255, 255, 255, 255, 255, 255, 255, 254},
                                {255, 255, 255, 255, 255, 255, 255, 255}};
    for (gen::Proto proto : {gen::Proto::tcp4, gen::Proto::udp4}) {
        for (uint32_t len : {64u, 90u, 200u, 1442u}) {
            for (const auto& a : addrs) {
                std::vector<Member> burst;
                for (uint32_t i = 0; i < 6; ++i) {
                    auto f = frame(proto, len, i, 0);
                    std::copy(a, a + 8, f.begin() + 26);
                    burst.push_back({f, kGood});
                }
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                    burst, std::string(gen::to_string(proto)) + " all-ones addresses " +
                               std::to_string(len) + " " + std::to_string(a[0]) + "/" +
                               std::to_string(a[7])));
            }
        }
    }
}

// TX ports that offload some fields (the lean path's, with its offload
// requests), a trusted RX port (counted as skipped), dropping RX ports with
// malformed packets before and inside the run (the kept packets move up in
// the per-packet loop's order), bursts of mixed shapes: one engine pair
// across all, so that a burst enters on the last run's shape whatever the
// policy of the ports it came from and goes to.
TEST_F(FillRun, PoliciesDecidePerBurst) {
    const uint64_t offloads[] = {0,
                                 RTE_ETH_TX_OFFLOAD_VLAN_INSERT,
                                 RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
                                 RTE_ETH_TX_OFFLOAD_TCP_CKSUM,
                                 RTE_ETH_TX_OFFLOAD_UDP_CKSUM,
                                 RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
                                     RTE_ETH_TX_OFFLOAD_UDP_CKSUM};
    for (int round = 0; round < 400; ++round) {
        RxPortPolicy rx;
        rx.trusted = round % 5 == 1;
        rx.drop_bad = round % 3 == 2;
        TxPortPolicy tx;
        tx.offloads = offloads[(round / 2) % 6];
        const uint32_t n = 1 + rng_() % 40;
        gen::Proto proto = kProtos[rng_() % 4];
        std::vector<Member> burst;
        for (uint32_t i = 0; i < n; ++i) {
            if (rng_() % 6 == 0) proto = kProtos[rng_() % 4];
            const uint32_t len = rng_() % 4 == 0 ? 300 + rng_() % 1200 : 64 + rng_() % 40;
            const Kind kind = rng_() % 5 == 0 ? Kind(1 + rng_() % (kKinds - 1)) : kGood;
            burst.push_back(hostile(proto, len, i, rng_() % 3 == 0 ? 2 : 0, kind));
        }
        ASSERT_NO_FATAL_FAILURE(expect_like_walker(
            burst,
            "round " + std::to_string(round) + " offloads " + std::to_string(tx.offloads) +
                (rx.trusted ? " trusted" : "") + (rx.drop_bad ? " drop_bad" : ""),
            uint16_t(round % 4), rx, tx));
    }
}

}  // namespace
}  // namespace csum
