// tx_emulate against hostile requests: random lengths and flags over real
// frames (IPv4 with options, IPv6 with extension headers, VXLAN) cut into
// random chains. A refused request leaves bytes and flags exactly as they
// were; an accepted one clears only the flags it served, and every checksum
// it wrote is right at the place the request named, by a byte-by-byte
// reference that shares no code with the library.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <rte_ethdev.h>

#include "offload/tx_emul.h"
#include "support/chain_builder.h"
#include "support/mbuf_helpers.h"

namespace csum::test {
namespace {

using Bytes = std::vector<uint8_t>;

uint32_t ref_sum(const uint8_t* p, size_t n, uint32_t s = 0) {
    for (size_t i = 0; i + 1 < n; i += 2) s += uint32_t(p[i] << 8 | p[i + 1]);
    if (n & 1) s += uint32_t(p[n - 1]) << 8;
    return s;
}
uint16_t ref_fold(uint32_t s) {
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return uint16_t(s);
}
uint32_t ref_crc32c(const uint8_t* p, size_t n) {
    uint32_t c = 0xFFFFFFFF;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    }
    return ~c;
}
uint16_t be16(const uint8_t* p) {
    return uint16_t(p[0] << 8 | p[1]);
}

constexpr int kShapes = 4;

// A frame of one of several shapes (0 IPv4 with options, 1 IPv6 with
// extension headers, 2 VXLAN, 3 plain IPv6), checksums left as garbage.
Bytes make_frame(std::mt19937& rng, int shape, uint8_t proto) {
    const size_t payload = rng() % 300;
    const size_t l4h = proto == 6 ? 20 : proto == 17 ? 8 : 12;
    const size_t l4 = l4h + payload;
    Bytes f;
    auto eth = [&](uint16_t type) {
        Bytes e(14, 0x02);
        e[12] = uint8_t(type >> 8), e[13] = uint8_t(type);
        f.insert(f.end(), e.begin(), e.end());
    };
    auto ipv4 = [&](size_t inner_len, uint8_t p, size_t opts) {
        Bytes h(20 + opts, 0);
        h[0] = uint8_t(0x40 | (5 + opts / 4));
        const size_t tot = h.size() + inner_len;
        h[2] = uint8_t(tot >> 8), h[3] = uint8_t(tot), h[8] = 64, h[9] = p;
        for (int i = 12; i < 20; ++i) h[i] = uint8_t(rng());
        for (size_t i = 20; i < h.size(); ++i) h[i] = 1;  // NOP options
        h[10] = uint8_t(rng()), h[11] = uint8_t(rng());
        f.insert(f.end(), h.begin(), h.end());
    };
    auto l4hdr = [&](uint8_t p) {
        Bytes h(l4, 0);
        for (auto& b : h) b = uint8_t(rng());
        if (p == 6) h[12] = 0x50;
        if (p == 17) h[4] = uint8_t(l4 >> 8), h[5] = uint8_t(l4);
        f.insert(f.end(), h.begin(), h.end());
    };
    if (shape == 0) {  // IPv4 with 0..40 bytes of options
        eth(0x0800);
        ipv4(l4, proto, (rng() % 11) * 4);
    } else if (shape == 1) {  // IPv6 + hop-by-hop + destination options
        eth(0x86DD);
        Bytes h(40 + 8 + 16, 0);
        h[0] = 0x60;
        const size_t plen = 24 + l4;
        h[4] = uint8_t(plen >> 8), h[5] = uint8_t(plen), h[6] = 0, h[7] = 64;
        for (int i = 8; i < 40; ++i) h[i] = uint8_t(rng());
        h[40] = 60, h[41] = 0, h[48] = proto, h[49] = 1;
        f.insert(f.end(), h.begin(), h.end());
    } else if (shape == 3) {  // plain IPv6, no extension header
        eth(0x86DD);
        Bytes h(40, 0);
        h[0] = 0x60;
        h[4] = uint8_t(l4 >> 8), h[5] = uint8_t(l4), h[6] = proto, h[7] = 64;
        for (int i = 8; i < 40; ++i) h[i] = uint8_t(rng());
        f.insert(f.end(), h.begin(), h.end());
    } else {  // VXLAN: outer IPv4/UDP, inner Ethernet/IPv4
        eth(0x0800);
        const size_t inner = 14 + 20 + l4;
        ipv4(8 + 8 + inner, 17, 0);
        Bytes u(16, 0);
        const size_t ul = 16 + inner;
        u[2] = 0x12, u[3] = 0xB5, u[4] = uint8_t(ul >> 8), u[5] = uint8_t(ul), u[8] = 0x08;
        f.insert(f.end(), u.begin(), u.end());
        eth(0x0800);
        ipv4(l4, proto, 0);
    }
    l4hdr(proto);
    return f;
}

// The request a well-behaved application would make for the frame.
void right_request(rte_mbuf* m, const Bytes& f, int shape, uint8_t proto) {
    const uint64_t l4 = proto == 6    ? RTE_MBUF_F_TX_TCP_CKSUM
                        : proto == 17 ? RTE_MBUF_F_TX_UDP_CKSUM
                                      : RTE_MBUF_F_TX_SCTP_CKSUM;
    m->l2_len = 14, m->l4_len = 0, m->outer_l2_len = 0, m->outer_l3_len = 0;
    if (shape == 0) {
        m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | l4;
        m->l3_len = uint16_t((f[14] & 0xF) * 4);
    } else if (shape == 1 || shape == 3) {
        m->ol_flags = RTE_MBUF_F_TX_IPV6 | l4;
        m->l3_len = shape == 1 ? 64 : 40;
    } else {
        m->ol_flags = RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IP_CKSUM |
                      RTE_MBUF_F_TX_OUTER_UDP_CKSUM | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
                      l4;
        m->outer_l2_len = 14, m->outer_l3_len = 20, m->l2_len = 30, m->l3_len = 20;
    }
}

// Checks, by reference, the checksums at the places the request named.
void expect_right(const Bytes& b, uint64_t f, uint32_t l2, uint32_t l3, uint32_t ol2, uint32_t ol3,
                  uint64_t served_mask) {
    const bool tunnel = f & (RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM |
                             RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IPV6);
    const uint32_t ip = (tunnel ? ol2 + ol3 : 0) + l2;
    auto l4_ok = [&](uint32_t ip_off, uint32_t hlen, uint64_t kind) {
        const uint8_t* h = b.data() + ip_off;
        const bool v4 = (h[0] >> 4) == 4;
        const uint32_t l4_len = v4 ? be16(h + 2) - hlen : be16(h + 4) - (hlen - 40);
        const uint8_t* l4 = h + hlen;
        if (kind == RTE_MBUF_F_TX_SCTP_CKSUM) {
            if (l4_len < 12) return false;
            Bytes t(l4, l4 + l4_len);
            std::memset(t.data() + 8, 0, 4);
            const uint32_t c = ref_crc32c(t.data(), t.size());
            return l4[8] == uint8_t(c) && l4[9] == uint8_t(c >> 8) && l4[10] == uint8_t(c >> 16) &&
                   l4[11] == uint8_t(c >> 24);
        }
        const uint8_t proto = kind == RTE_MBUF_F_TX_TCP_CKSUM ? 6 : 17;
        uint32_t s = v4 ? ref_sum(h + 12, 8) : ref_sum(h + 8, 32);
        s += proto + (l4_len >> 16) + (l4_len & 0xFFFF);
        return ref_fold(ref_sum(l4, l4_len, s)) == 0xFFFF;
    };
    if (served_mask & RTE_MBUF_F_TX_IP_CKSUM) {
        EXPECT_EQ(ref_fold(ref_sum(b.data() + ip, l3)), 0xFFFF) << "inner/plain IPv4";
    }
    if (served_mask & RTE_MBUF_F_TX_L4_MASK) {
        EXPECT_TRUE(l4_ok(ip, l3, f & RTE_MBUF_F_TX_L4_MASK));
    }
    if (served_mask & RTE_MBUF_F_TX_OUTER_IP_CKSUM) {
        EXPECT_EQ(ref_fold(ref_sum(b.data() + ol2, ol3)), 0xFFFF) << "outer IPv4";
    }
    if (served_mask & RTE_MBUF_F_TX_OUTER_UDP_CKSUM) {
        EXPECT_TRUE(l4_ok(ol2, ol3, RTE_MBUF_F_TX_UDP_CKSUM)) << "outer UDP";
    }
}

// One packet of a test: its shape and protocol, and the chain.
struct Case {
    int shape;
    uint8_t proto;
    rte_mbuf* m;
};

class TxEmulHostile : public MbufTest {
  protected:
    // Iteration iter's frame (shapes and protocols in turn) cut into 1-5
    // random segments, with the request a well-behaved application makes.
    // m is nullptr if the pool ran dry.
    Case right_chain(std::mt19937& rng, int iter) {
        const int shape = iter % kShapes;
        const uint8_t proto = std::array<uint8_t, 3>{6, 17, 132}[(iter / kShapes) % 3];
        const Bytes f = make_frame(rng, shape, proto);
        const auto segs = random_split(uint32_t(f.size()), 1 + rng() % 5, rng);
        rte_mbuf* m = make_chain(pool(), f, segs);
        if (m != nullptr) right_request(m, f, shape, proto);
        return {shape, proto, m};
    }
    // tx_emulate refuses m, the error named, its flags and bytes as they were
    // (bytes compared once undo has taken the descriptors' lie back).
    template <class Undo>
    void expect_refused_untouched(rte_mbuf* m, const Bytes& bytes_before, Undo undo,
                                  const std::string& what) {
        const uint64_t before = m->ol_flags;
        TxServed s;
        csum_tx_error err = CSUM_TX_ERR_COUNT;
        EXPECT_EQ(tx_emulate(m, kTxEmulatable, &s, &err), -1) << what;
        undo();
        EXPECT_LT(int(err), CSUM_TX_ERR_COUNT);
        EXPECT_EQ(m->ol_flags, before);
        EXPECT_EQ(chain_bytes(m), bytes_before) << "a refused packet was modified: " << what;
    }
};

TEST_F(TxEmulHostile, RightRequestsAreFilledRightOnAnyChain) {
    std::mt19937 rng(11);
    for (int iter = 0; iter < 3000; ++iter) {
        const auto [shape, proto, m] = right_chain(rng, iter);
        ASSERT_NE(m, nullptr);
        const uint64_t before = m->ol_flags;
        TxServed s;
        csum_tx_error err = CSUM_TX_ERR_COUNT;
        ASSERT_EQ(tx_emulate(m, kTxEmulatable, &s, &err), 0)
            << "shape " << shape << " proto " << int(proto) << " err " << csum_tx_error_name(err);
        const uint64_t served = RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK |
                                RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM;
        EXPECT_EQ(m->ol_flags, before & ~served);
        expect_right(chain_bytes(m), before, m->l2_len, m->l3_len, m->outer_l2_len, m->outer_l3_len,
                     before & served);
        rte_pktmbuf_free(m);
    }
}

TEST_F(TxEmulHostile, WrongRequestsAreRefusedUntouchedOrFilledRight) {
    std::mt19937 rng(12);
    unsigned refused = 0, accepted = 0;
    for (int iter = 0; iter < 20000; ++iter) {
        const int shape = int(rng() % kShapes);
        const uint8_t proto = std::array<uint8_t, 3>{6, 17, 132}[rng() % 3];
        Bytes f = make_frame(rng, shape, proto);
        if (rng() % 4 == 0) f[rng() % f.size()] = uint8_t(rng());  // a corrupted header byte
        if (rng() % 8 == 0) f.resize(rng() % f.size() + 1);        // truncated
        const auto segs = random_split(uint32_t(f.size()), 1 + rng() % 4, rng);
        rte_mbuf* m = make_chain(pool(), f, segs);
        ASSERT_NE(m, nullptr);
        right_request(m, f, shape, proto);
        switch (rng() % 6) {  // then lie about something
            case 0:
                m->l2_len = uint8_t(rng()) & 0x7F;
                break;
            case 1:
                m->l3_len = uint16_t(rng() & 0x1FF);
                break;
            case 2:
                m->l4_len = uint8_t(rng());
                break;
            case 3:
                m->outer_l2_len = uint8_t(rng()), m->outer_l3_len = uint16_t(rng() & 0x1FF);
                break;
            case 4:
                m->ol_flags ^= uint64_t(1) << (40 + rng() % 21);
                break;
            default:
                break;
        }
        const uint64_t before = m->ol_flags;
        const Bytes bytes_before = chain_bytes(m);
        TxServed s;
        csum_tx_error err = CSUM_TX_ERR_COUNT;
        if (tx_emulate(m, kTxEmulatable, &s, &err) != 0) {
            ++refused;
            EXPECT_LT(int(err), CSUM_TX_ERR_COUNT);
            EXPECT_EQ(m->ol_flags, before);
            EXPECT_EQ(chain_bytes(m), bytes_before) << "a refused packet was modified";
        } else {
            ++accepted;
            const uint64_t cleared = before & ~m->ol_flags;
            EXPECT_EQ(m->ol_flags & ~before, 0u) << "flags appeared";
            expect_right(chain_bytes(m), before, m->l2_len, m->l3_len, m->outer_l2_len,
                         m->outer_l3_len, cleared);
        }
        rte_pktmbuf_free(m);
    }
    std::printf("refused %u, accepted %u\n", refused, accepted);
    EXPECT_GT(refused, 2000u);
    EXPECT_GT(accepted, 2000u);
}

// A request for another L4 protocol than the headers carry (IPv4's
// protocol, IPv6's last next header) is refused by name, the packet as it
// was, whichever path would have served a right request.
TEST_F(TxEmulHostile, AnotherL4ThanTheHeadersNameIsRefusedUntouched) {
    std::mt19937 rng(16);
    constexpr uint64_t kL4[] = {RTE_MBUF_F_TX_TCP_CKSUM, RTE_MBUF_F_TX_UDP_CKSUM,
                                RTE_MBUF_F_TX_SCTP_CKSUM};
    for (int iter = 0; iter < 1200; ++iter) {
        const auto [shape, proto, m] = right_chain(rng, iter);
        ASSERT_NE(m, nullptr);
        const uint64_t asked = m->ol_flags & RTE_MBUF_F_TX_L4_MASK;
        const uint64_t other = kL4[(std::find(std::begin(kL4), std::end(kL4), asked) -
                                    std::begin(kL4) + 1 + rng() % 2) %
                                   3];
        m->ol_flags = (m->ol_flags & ~RTE_MBUF_F_TX_L4_MASK) | other;
        const uint64_t before = m->ol_flags;
        const Bytes bytes_before = chain_bytes(m);
        TxServed s;
        csum_tx_error err = CSUM_TX_ERR_COUNT;
        EXPECT_EQ(tx_emulate(m, kTxEmulatable, &s, &err), -1)
            << "shape " << shape << " proto " << int(proto);
        EXPECT_EQ(err, CSUM_TX_ERR_L4_PROTO_MISMATCH) << csum_tx_error_name(err);
        EXPECT_EQ(m->ol_flags, before);
        EXPECT_EQ(chain_bytes(m), bytes_before) << "a refused packet was modified";
        rte_pktmbuf_free(m);
    }
}

// A segment whose descriptor claims data past its buffer (data_off +
// data_len > buf_len): every request reads it (the L4 sums run to the end
// of the frame), so each is refused and the packet left as it was.
TEST_F(TxEmulHostile, ASegmentPastItsBufferIsRefusedUntouched) {
    std::mt19937 rng(13);
    for (int iter = 0; iter < 3000; ++iter) {
        const auto [shape, proto, m] = right_chain(rng, iter);
        ASSERT_NE(m, nullptr);
        std::vector<rte_mbuf*> nonempty;
        for (rte_mbuf* g = m; g != nullptr; g = g->next)
            if (g->data_len != 0) nonempty.push_back(g);
        rte_mbuf* liar = nonempty[rng() % nonempty.size()];
        const Bytes bytes_before = chain_bytes(m);
        shrink_buffer(liar);
        expect_refused_untouched(
            m, bytes_before, [&] { restore_buffer(liar); },
            "shape " + std::to_string(shape) + " proto " + std::to_string(proto));
        rte_pktmbuf_free(m);
    }
}

// Descriptors that lie about the chain: nb_segs one too many or too few (0
// for one segment), pkt_len past the data (always over a frame cut short, so
// that the IP length points past the chain), the last segment a byte short,
// the last segment linked back to the head or to itself. A refused packet is
// left as it was, even where only the L4 sum would have run off the chain
// (after the IP checksum was served); an accepted one is filled right.
TEST_F(TxEmulHostile, DescriptorLiesAreRefusedUntouchedOrFilledRight) {
    std::mt19937 rng(14);
    unsigned refused = 0, accepted = 0;
    for (int iter = 0; iter < 6000; ++iter) {
        const int shape = iter % kShapes;
        const uint8_t proto = std::array<uint8_t, 3>{6, 17, 132}[(iter / kShapes) % 3];
        Bytes f = make_frame(rng, shape, proto);
        const uint32_t full = uint32_t(f.size());
        const bool cut = rng() % 2 == 0;
        if (cut) f.resize(f.size() - 1 - rng() % 16);
        const auto segs = random_split(uint32_t(f.size()), 1 + rng() % 4, rng);
        rte_mbuf* m = make_chain(pool(), f, segs);
        ASSERT_NE(m, nullptr);
        right_request(m, f, shape, proto);
        rte_mbuf* tail = rte_pktmbuf_lastseg(m);
        const Bytes bytes_before = chain_bytes(m);
        const uint32_t pkt_len = m->pkt_len;
        const uint16_t nb_segs = m->nb_segs, tail_len = tail->data_len;
        const int lie = cut ? 1 : int(rng() % 6);
        switch (lie) {
            case 0:
                m->nb_segs = uint16_t(nb_segs + 1);
                break;
            case 1:
                m->pkt_len = full + rng() % 8;
                break;
            case 2:
                m->nb_segs = uint16_t(nb_segs - 1);  // 0 for a single segment
                break;
            case 3:
                if (tail_len != 0) tail->data_len = uint16_t(tail_len - 1);
                break;
            case 4:
                tail->next = m;
                break;
            default:
                tail->next = tail;
                break;
        }
        const uint64_t before = m->ol_flags;
        TxServed s;
        csum_tx_error err = CSUM_TX_ERR_COUNT;
        const int rc = tx_emulate(m, kTxEmulatable, &s, &err);
        m->pkt_len = pkt_len, m->nb_segs = nb_segs, tail->data_len = tail_len;
        tail->next = nullptr;
        if (rc != 0) {
            ++refused;
            EXPECT_LT(int(err), CSUM_TX_ERR_COUNT);
            EXPECT_EQ(m->ol_flags, before);
            EXPECT_EQ(chain_bytes(m), bytes_before)
                << "a refused packet was modified: lie " << lie << " shape " << shape << " proto "
                << int(proto) << " err " << csum_tx_error_name(err);
        } else {
            ++accepted;
            EXPECT_FALSE(cut) << "a frame cut short was accepted";
            expect_right(chain_bytes(m), before, m->l2_len, m->l3_len, m->outer_l2_len,
                         m->outer_l3_len, before & ~m->ol_flags);
        }
        rte_pktmbuf_free(m);
    }
    std::printf("refused %u, accepted %u\n", refused, accepted);
    // A chain longer than its nb_segs is refused when a range reaches past
    // segment nb_segs (every walk stops there), so fewer than half are taken.
    EXPECT_GT(refused, 2000u);
    EXPECT_GT(accepted, 1500u);
}

// A frame cut short whose chain ends in an empty segment linked to itself,
// pkt_len and the IP length both past the data: every walk stops at the
// head's nb_segs segments, so the packet is refused untouched (this hung).
TEST_F(TxEmulHostile, AnEmptySegmentLinkedToItselfIsRefusedUntouched) {
    std::mt19937 rng(15);
    for (int iter = 0; iter < 300; ++iter) {
        const int shape = iter % kShapes;
        const uint8_t proto = std::array<uint8_t, 3>{6, 17, 132}[(iter / kShapes) % 3];
        Bytes f = make_frame(rng, shape, proto);
        const uint32_t full = uint32_t(f.size());
        f.resize(f.size() - 1 - rng() % 16);
        auto segs = random_split(uint32_t(f.size()), 1 + rng() % 3, rng);
        segs.push_back(0);
        rte_mbuf* m = make_chain(pool(), f, segs);
        ASSERT_NE(m, nullptr);
        right_request(m, f, shape, proto);
        rte_mbuf* tail = rte_pktmbuf_lastseg(m);
        const Bytes bytes_before = chain_bytes(m);
        const uint32_t pkt_len = m->pkt_len;
        tail->next = tail;
        m->pkt_len = full;
        expect_refused_untouched(
            m, bytes_before, [&] { tail->next = nullptr, m->pkt_len = pkt_len; },
            "shape " + std::to_string(shape) + " proto " + std::to_string(proto));
        rte_pktmbuf_free(m);
    }
}

}  // namespace
}  // namespace csum::test
