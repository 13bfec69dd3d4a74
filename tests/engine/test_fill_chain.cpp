// Fill mode's chain run (lib/engine/fill_chain.cpp) against the reference
// walker: bursts of chained plain TCP/UDP/SCTP packets of one shape, split at
// every header byte (so that both checksum fields straddle a boundary at
// some split), in 2 to 9 segments, with zero-length segments, at every
// length class (gathered whole, inline sums, the kernels'), with one
// hostile member at every place (header bytes, descriptors that lie, a
// looped chain, a segment past its buffer, a linear packet) and mixed with
// linear packets: every byte, verdict, the kept order and every counter as
// the walker's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "csum/engine.h"
#include "gen/checksum_fill.h"
#include "gen/packet_builder.h"
#include "support/chain_builder.h"
#include "support/engine_compare.h"
#include "support/hostile_places.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

enum Kind {
    kGood,
    kIpLong,       // IP length past the frame
    kOtherShape,   // TCP <-> UDP
    kL4Length,     // UDP length off by one / TCP data offset 15
    kPortListed,   // NVMe/TCP port 4420 / VXLAN 4789
    kPktLenLong,   // descriptor: pkt_len past the segments' bytes
    kPktLenShort,  // descriptor: pkt_len 1 short (a byte past it)
    kNbSegsMore,   // descriptor: nb_segs one more than the links
    kNbSegsLess,   // descriptor: nb_segs one less
    kNbSegsZero,   // descriptor: nb_segs 0
    kLoop,         // the last segment links back to the first
    kPastBuffer,   // the last segment: data_off + data_len > buf_len
    kLinear,       // the frame in one segment
    kManySegs,     // 9 segments (more than the run walks)
    kKinds
};

class FillChain : public test::MbufTest {
  protected:
    struct Member {
        std::vector<uint8_t> frame;
        std::vector<uint32_t> segs;
        Kind kind = kGood;
    };
    static bool is_v6(gen::Proto p) { return p == gen::Proto::tcp6 || p == gen::Proto::udp6; }
    static bool is_udp(gen::Proto p) { return p == gen::Proto::udp4 || p == gen::Proto::udp6; }

    // A frame whose checksum fields hold garbage (fill takes them as zero).
    std::vector<uint8_t> frame(gen::Proto proto, uint32_t len, uint32_t flow) {
        auto f = gen::build_frame({proto, len, 1, flow});
        for (const gen::CsumField& c : gen::checksum_fields(f))
            for (uint8_t i = 0; i < c.len; ++i) f[c.off + i] = uint8_t(rng_());
        return f;
    }

    // SCTP with `chunks` chunks over IPv4 or IPv6, len bytes at least, its
    // CRC and IPv4 header field garbled.
    std::vector<uint8_t> sctp_frame(bool v6, uint32_t len, uint32_t flow, uint16_t chunks) {
        if (!filler_) filler_.emplace(pool());
        auto f = v6 ? filler_->sctp6(len, flow, chunks)
                    : filler_->frame(gen::Proto::sctp4, len, flow, chunks);
        for (const gen::CsumField& c : gen::checksum_fields(f))
            for (uint8_t i = 0; i < c.len; ++i) f[c.off + i] = uint8_t(rng_());
        return f;
    }
    // The SCTP member of kind k: its header kinds written into the bytes
    // (kPortListed: none, SCTP has no listed port), the descriptor kinds
    // told by expect_like_walker.
    Member sctp_hostile(bool v6, uint32_t len, uint32_t flow, uint16_t chunks, Kind kind) {
        Member m{sctp_frame(v6, len, flow, chunks), {}, kind};
        auto& f = m.frame;
        const uint32_t n = uint32_t(f.size()), l4 = v6 ? 54 : 34;
        if (kind == kLinear && n <= 1900)
            m.segs = {n};
        else
            m.segs = split(n, kind == kManySegs ? 9 : 2 + rng_() % 7, kind != kManySegs);
        const uint32_t at = v6 ? 18 : 16, ip_len = uint32_t(f[at] << 8 | f[at + 1]) + 1;
        switch (kind) {
            case kIpLong:
                f[at] = uint8_t(ip_len >> 8), f[at + 1] = uint8_t(ip_len);
                break;
            case kOtherShape:
                f[v6 ? 20 : 23] = 17;
                break;
            case kL4Length:  // the first chunk shorter than its header
                f[l4 + 14] = 0, f[l4 + 15] = 3;
                break;
            default:
                break;
        }
        return m;
    }

    // k segments (empty ones too if empty), none past an mbuf's data room.
    std::vector<uint32_t> split(uint32_t len, unsigned k, bool empty = true) {
        for (;;) {
            auto s = test::random_split(len, k, rng_, empty);
            if (*std::max_element(s.begin(), s.end()) <= 1900) return s;
        }
    }

    Member hostile(gen::Proto proto, uint32_t len, uint32_t flow, std::vector<uint32_t> segs,
                   Kind kind) {
        Member m{frame(proto, len, flow), std::move(segs), kind};
        auto& f = m.frame;
        len = uint32_t(f.size());  // a frame is at least its headers
        if (std::accumulate(m.segs.begin(), m.segs.end(), 0u) != len)
            m.segs = m.segs.size() == 1 ? std::vector<uint32_t>{len} : split(len, m.segs.size());
        const bool v6 = is_v6(proto), udp = is_udp(proto);
        const uint32_t l4 = v6 ? 54 : 34;
        auto put16 = [&f](uint32_t at, uint32_t v) {
            f[at] = uint8_t(v >> 8), f[at + 1] = uint8_t(v);
        };
        auto get16 = [&f](uint32_t at) { return uint32_t(f[at] << 8 | f[at + 1]); };
        switch (kind) {
            case kIpLong:
                put16(v6 ? 18 : 16, get16(v6 ? 18 : 16) + 1);
                break;
            case kOtherShape:
                f[v6 ? 20 : 23] = udp ? 6 : 17;
                break;
            case kL4Length:
                if (udp)
                    put16(l4 + 4, get16(l4 + 4) + 1);
                else
                    f[l4 + 12] = 0xF0;
                break;
            case kPortListed:
                put16(l4 + 2, udp ? 4789 : 4420);
                break;
            case kLinear:
                if (len <= 1900) m.segs = {len};
                break;
            case kManySegs:
                m.segs = split(len, 9, false);
                break;
            default:
                break;
        }
        return m;
    }

    // One burst through the lean and the walker engine (kept across calls:
    // a burst may enter on the last one's run): kept order, verdicts, bytes,
    // offload requests and counters alike.
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
                uint16_t nb_segs, data_len;
                rte_mbuf *last, *last_next;
            };
            std::vector<Desc> saved(n);
            for (int i = 0; i < n; ++i) {
                rte_mbuf* m = test::make_chain(pool(), burst[i].frame, burst[i].segs, misalign);
                rte_mbuf* last = rte_pktmbuf_lastseg(m);
                saved[i] = {m->pkt_len, m->nb_segs, last->data_len, last, last->next};
                switch (burst[i].kind) {
                    case kPktLenLong:
                        m->pkt_len += 1 + i % 3;
                        break;
                    case kPktLenShort:
                        m->pkt_len -= 1;
                        break;
                    case kNbSegsMore:
                        m->nb_segs++;
                        break;
                    case kNbSegsLess:
                        m->nb_segs--;
                        break;
                    case kNbSegsZero:
                        m->nb_segs = 0;
                        break;
                    case kLoop:
                        last->next = m;
                        break;
                    case kPastBuffer:
                        last->data_len = uint16_t(last->buf_len - last->data_off + 1);
                        m->pkt_len += last->data_len - saved[i].data_len;
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
                m->pkt_len = saved[i].pkt_len, m->nb_segs = saved[i].nb_segs;
                saved[i].last->next = saved[i].last_next;
                saved[i].last->data_len = saved[i].data_len;
                const auto b = test::chain_bytes(m);
                got[e].push_back(what + " #" + std::to_string(i) + " kind " +
                                 std::to_string(burst[i].kind) + " " + test::verdict_key(m, eng) +
                                 " flags " + std::to_string(m->ol_flags) + " " +
                                 std::string(b.begin(), b.end()));
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
    std::mt19937 rng_{2027};
    std::optional<test::Filler> filler_;
};

constexpr gen::Proto kProtos[] = {gen::Proto::tcp4, gen::Proto::udp4, gen::Proto::tcp6,
                                  gen::Proto::udp6};

// The first segment ends at every byte through the L4 field's end, the rest
// in one segment or three (one of them empty): each field split, or not,
// and the headers gathered across 2 or 4 segments.
TEST_F(FillChain, HeadersSplitAtEveryByte) {
    const uint32_t l4_lens[] = {8, 20, 33, 64, 74, 75, 200, 1386};
    for (gen::Proto proto : kProtos) {
        const uint32_t l4 = is_v6(proto) ? 54 : 34;
        for (uint32_t l4_len : l4_lens) {
            if (l4_len < (is_udp(proto) ? 8u : 20u)) continue;
            const uint32_t len = l4 + l4_len;
            for (uint32_t first = 1; first <= l4 + 20 && first < len; ++first) {
                const uint32_t rest = len - first;
                std::vector<Member> burst;
                for (uint32_t i = 0; i < 6; ++i) {
                    std::vector<uint32_t> segs = {first, rest};
                    if (i % 2 && rest >= 2) segs = {first, 1, 0, rest - 1};
                    burst.push_back({frame(proto, len, i), segs, kGood});
                }
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(burst,
                                                           std::string(gen::to_string(proto)) +
                                                               " l4 " + std::to_string(l4_len) +
                                                               " first " + std::to_string(first),
                                                           uint16_t(first % 3)));
            }
        }
    }
}

// Long chains in 2 to 5 segments of equal length (the headers' front cut at
// 64 bytes and other even places, as bench_engine cuts its chains), at every
// length from the long loop's least to 400.
TEST_F(FillChain, EqualSegmentsAtEveryLongLength) {
    for (gen::Proto proto : kProtos) {
        for (uint32_t len = 129; len <= 400; ++len) {
            for (uint32_t k = 2; k <= 5; ++k) {
                std::vector<uint32_t> segs(k, len / k);
                segs.back() += len % k;
                std::vector<Member> burst;
                for (uint32_t i = 0; i < 4; ++i)
                    burst.push_back({frame(proto, len, i), segs, kGood});
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                    burst, std::string(gen::to_string(proto)) + " len " + std::to_string(len) +
                               " in " + std::to_string(k)));
            }
        }
    }
}

// Frames with nonzero bytes after the IP payload (Ethernet padding or a
// trailer), short and long, split at every byte through the L4 field's end,
// some followed by unpadded ones: the fields cover the L4 region only, as
// the walker fills them.
TEST_F(FillChain, TrailingBytesAreLeftOutOfTheSum) {
    for (gen::Proto proto : kProtos) {
        const uint32_t l4 = is_v6(proto) ? 54 : 34;
        for (uint32_t l4_len : {20u, 26u, 41u, 60u, 300u}) {
            if (l4_len < (is_udp(proto) ? 8u : 20u)) continue;
            for (uint32_t pad : {1u, 2u, 7u, 18u}) {
                const uint32_t len = l4 + l4_len + pad;
                std::vector<Member> burst;
                for (uint32_t first = 1; first < l4 + 20 && first < len; first += 3) {
                    auto f = frame(proto, l4 + l4_len, first);
                    f.resize(len);
                    for (uint32_t i = l4 + l4_len; i < len; ++i) f[i] = uint8_t(0xA5 ^ i);
                    burst.push_back({f, {first, len - first}, kGood});
                    // Then the same unpadded: the run goes on after a padded chain.
                    if (first % 2 == 0)
                        burst.push_back({frame(proto, l4 + l4_len, first),
                                         {first, l4 + l4_len - first},
                                         kGood});
                }
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                    burst, std::string(gen::to_string(proto)) + " l4 " + std::to_string(l4_len) +
                               " trailing " + std::to_string(pad)));
            }
        }
    }
}

// Every hostile kind at three places and every place with some kind, in
// bursts of 21 chains of random segmentations (2-8 segments, empty ones
// too), at every length class.
TEST_F(FillChain, HostileMembersAtEveryPlaceAndLength) {
    const uint32_t l4_lens[] = {8, 20, 31, 32, 56, 64, 65, 73, 74, 75, 128, 129, 700, 1386, 3000};
    constexpr int kN = 21;
    for (gen::Proto proto : kProtos) {
        const uint32_t l4 = is_v6(proto) ? 54 : 34;
        for (uint32_t l4_len : l4_lens) {
            if (l4_len < (is_udp(proto) ? 8u : 20u)) continue;
            const uint32_t len = l4 + l4_len;
            auto segs = [&] { return split(len, 2 + rng_() % 7); };
            std::vector<Member> good;
            for (int i = 0; i < kN; ++i) good.push_back({frame(proto, len, i), segs(), kGood});
            const std::string what =
                std::string(gen::to_string(proto)) + " l4 " + std::to_string(l4_len);
            ASSERT_NO_FATAL_FAILURE(expect_like_walker(good, what + " all good"));
            for (auto [at, k] : test::hostile_places(rng_, kN, kKinds)) {
                const Kind kind = Kind(k);
                auto burst = good;
                burst[at] = hostile(proto, len, at, segs(), kind);
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                    burst, what + " kind " + std::to_string(kind) + " at " + std::to_string(at),
                    uint16_t(at % 2)));
            }
        }
    }
}

// SCTP chains (one chunk or three) split at every byte through the first
// chunk's header, the CRC field and the IPv4 one among them, in 2 or 4
// segments: the CRC and the IPv4 field written across the cuts as the
// walker writes them.
TEST_F(FillChain, SctpHeadersSplitAtEveryByte) {
    for (bool v6 : {false, true}) {
        const uint32_t l4 = v6 ? 54 : 34;
        for (uint16_t chunks : {1, 3})
            for (uint32_t l4_len : {28u, 64u, 94u, 95u, 222u, 1386u}) {
                const uint32_t len = l4 + l4_len;
                for (uint32_t first = 1; first <= l4 + 16; ++first) {
                    std::vector<Member> burst;
                    for (uint32_t i = 0; i < 6; ++i) {
                        auto f = sctp_frame(v6, len, i, chunks);
                        const uint32_t n = uint32_t(f.size()), rest = n - first;
                        std::vector<uint32_t> segs = {first, rest};
                        if (i % 2 && rest >= 2) segs = {first, 1, 0, rest - 1};
                        burst.push_back({std::move(f), segs, kGood});
                    }
                    ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                        burst,
                        std::string(v6 ? "sctp6" : "sctp4") + " chunks " + std::to_string(chunks) +
                            " l4 " + std::to_string(l4_len) + " first " + std::to_string(first),
                        uint16_t(first % 3)));
                }
            }
    }
}

// SCTP: every hostile kind at three places and every place with some kind,
// in bursts of 21 chains of random segmentations, short (gathered whole)
// and long (the CRC's rest read from the chain).
TEST_F(FillChain, SctpHostileMembersAtEveryPlaceAndLength) {
    constexpr int kN = 21;
    for (bool v6 : {false, true}) {
        const uint32_t l4 = v6 ? 54 : 34;
        for (uint16_t chunks : {1, 2})
            for (uint32_t l4_len : {40u, 74u, 75u, 200u, 700u, 1386u, 1800u}) {
                const uint32_t len = l4 + l4_len;
                std::vector<Member> good;
                for (int i = 0; i < kN; ++i)
                    good.push_back(sctp_hostile(v6, len, uint32_t(i), chunks, kGood));
                const std::string what = std::string(v6 ? "sctp6" : "sctp4") + " chunks " +
                                         std::to_string(chunks) + " l4 " + std::to_string(l4_len);
                ASSERT_NO_FATAL_FAILURE(expect_like_walker(good, what + " all good"));
                for (auto [at, k] : test::hostile_places(rng_, kN, kKinds)) {
                    const Kind kind = Kind(k);
                    auto burst = good;
                    burst[at] = sctp_hostile(v6, len, uint32_t(at), chunks, kind);
                    ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                        burst, what + " kind " + std::to_string(kind) + " at " + std::to_string(at),
                        uint16_t(at % 2)));
                }
            }
    }
}

// Zero sums: the stored field 0x0000 (TCP) or 0xFFFF (UDP), as the lean path stores them.
TEST_F(FillChain, ZeroSumsAreStoredAsTheLeanPathStoresThem) {
    for (gen::Proto proto : kProtos) {
        const bool v6 = is_v6(proto), udp = is_udp(proto);
        const uint32_t l4 = v6 ? 54 : 34, field = l4 + (udp ? 6 : 16);
        for (uint32_t len : {80u, 81u, 127u, 200u, 1001u}) {
            std::vector<Member> burst;
            for (uint32_t i = 0; i < 8; ++i) {
                auto f = gen::build_frame({proto, len, 1, i});
                gen::fill_checksums(f);
                auto raise = [&f](uint32_t at, uint32_t by) {
                    uint32_t w = uint32_t(f[at] << 8 | f[at + 1]) + by;
                    w = (w & 0xFFFF) + (w >> 16);
                    f[at] = uint8_t(w >> 8), f[at + 1] = uint8_t(w);
                };
                raise(len - 2 - (len - l4) % 2, uint32_t(f[field] << 8 | f[field + 1]));
                if (!v6) raise(18, uint32_t(f[24] << 8 | f[25]));
                gen::fill_checksums(f);
                EXPECT_EQ(f[field] << 8 | f[field + 1], udp ? 0xFFFF : 0) << len;
                f[field] ^= 0x33, f[field + 1] ^= uint8_t(i);
                if (!v6) f[25] ^= 0x81;
                burst.push_back({f, {field + 1, 0, len - field - 1}, kGood});
            }
            ASSERT_NO_FATAL_FAILURE(expect_like_walker(
                burst, std::string(gen::to_string(proto)) + " zero sums " + std::to_string(len)));
        }
    }
}

// The same chain twice in a row in a burst: its headers gathered for the
// second entry before the first is filled must not be what the second uses.
TEST_F(FillChain, SameChainTwiceInABurst) {
    for (gen::Proto proto : kProtos) {
        for (uint32_t len : {90u, 300u}) {
            for (uint32_t first : {20u, 25u, 51u, 61u}) {
                std::string got[2];
                for (int e = 0; e < 2; ++e) {
                    rte_mbuf* c[3];
                    for (uint32_t i = 0; i < 3; ++i) {
                        const auto f = frame(proto, len, i);
                        const uint32_t segs[2] = {first, uint32_t(f.size()) - first};
                        c[i] = test::make_chain(pool(), f, segs);
                    }
                    rte_mbuf* pkts[6] = {c[0], c[1], c[1], c[2], c[2], c[0]};
                    Engine& eng = e == 0 ? lean_ : walker_;
                    EXPECT_EQ(eng.process({}, {}, pkts, 6), 6);
                    for (rte_mbuf* m : c) {
                        const auto b = test::chain_bytes(m);
                        got[e] += test::verdict_key(m, eng) + std::string(b.begin(), b.end());
                    }
                    rte_pktmbuf_free_bulk(c, 3);
                }
                ASSERT_EQ(got[0], got[1]) << gen::to_string(proto) << " " << len << " " << first;
                ASSERT_NO_FATAL_FAILURE(test::expect_same_counts_and_work(lean_, walker_));
            }
        }
    }
}

// Offloading TX ports, trusted and dropping RX ports, bursts of mixed shapes
// and of linear packets and chains by turns: one engine pair across all, so
// that a burst enters on the last run's shape.
TEST_F(FillChain, PoliciesAndMixedBursts) {
    const uint64_t offloads[] = {0, RTE_ETH_TX_OFFLOAD_VLAN_INSERT, RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
                                 RTE_ETH_TX_OFFLOAD_TCP_CKSUM, RTE_ETH_TX_OFFLOAD_UDP_CKSUM};
    for (int round = 0; round < 400; ++round) {
        RxPortPolicy rx;
        rx.trusted = round % 5 == 1;
        rx.drop_bad = round % 3 == 2;
        TxPortPolicy tx;
        tx.offloads = offloads[(round / 2) % 5];
        const uint32_t n = 1 + rng_() % 40;
        gen::Proto proto = kProtos[rng_() % 4];
        std::vector<Member> burst;
        for (uint32_t i = 0; i < n; ++i) {
            if (rng_() % 8 == 0) proto = kProtos[rng_() % 4];
            const uint32_t len = rng_() % 4 == 0 ? 300 + rng_() % 1200 : 64 + rng_() % 80;
            const Kind kind = rng_() % 6 == 0 ? Kind(1 + rng_() % (kKinds - 1)) : kGood;
            const auto segs =
                rng_() % 3 == 0 ? std::vector<uint32_t>{len} : split(len, 2 + rng_() % 3);
            burst.push_back(hostile(proto, len, i, segs, kind));
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
