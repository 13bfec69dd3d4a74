// Chains whose every segment's data touches a PROT_NONE page: data that
// ends on the last byte before a guard page, or starts on the first byte
// after one (buf_len exactly data_off + data_len, or data_off 0). A read of
// any byte outside a segment's [data, data + data_len), by a masked load's
// enabled lane or a whole-vector tail, faults here in every build (DPDK
// pool memory is not ASan-poisoned, so ASan alone would not see it). The
// short-chain loop (run_short_avx512[_vnni]), the long ones (AVX-512, AVX2), the engine's
// chain routes (same_burst and good_chain_run, TCP/UDP and SCTP), the
// tunnel chain run and
// crc32c_mbuf's unit walk, on good and hostile chains.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/crc32c.h"
#include "csum/engine.h"
#include "csum/inet.h"
#include "csum/parser_config.h"
#include "engine/chain_walk.h"
#include "engine/tunnel_chain_run.h"
#include "gen/packet_builder.h"
#include "support/chain_builder.h"
#include "support/chain_loops.h"
#include "support/crc32c_kernels.h"
#include "support/engine_compare.h"
#include "support/kernel_restore.h"
#include "support/mbuf_helpers.h"
#include "tunnel_frames.h"

namespace csum {
namespace {

// Slots of kSlot data bytes, each between two PROT_NONE pages.
class GuardArena {
  public:
    static constexpr size_t kPage = 4096, kSlot = 2 * kPage;
    explicit GuardArena(size_t slots) : slots_(slots) {
        size_ = kPage + slots * (kSlot + kPage);
        void* p = mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        EXPECT_NE(p, MAP_FAILED);
        base_ = static_cast<uint8_t*>(p);
        for (size_t i = 0; i < slots; ++i)
            EXPECT_EQ(mprotect(slot(i), kSlot, PROT_READ | PROT_WRITE), 0);
    }
    ~GuardArena() { munmap(base_, size_); }
    uint8_t* slot(size_t i) const { return base_ + kPage + i * (kSlot + kPage); }
    size_t slots() const { return slots_; }

  private:
    uint8_t* base_ = nullptr;
    size_t size_ = 0, slots_ = 0;
};

// Pool mbufs whose buffers are moved into the arena's slots (and moved back
// before they are freed).
class GuardedChains {
  public:
    GuardedChains(rte_mempool* pool, GuardArena& arena) : pool_(pool), arena_(arena) {}
    ~GuardedChains() { release(); }

    // A chain of bytes cut as lens; each segment's data at its slot's end
    // (at_end) or start, picked by rng.
    rte_mbuf* build(const std::vector<uint8_t>& bytes, const std::vector<uint32_t>& lens,
                    std::mt19937& rng) {
        rte_mbuf *head = nullptr, *prev = nullptr;
        uint32_t at = 0;
        for (uint32_t len : lens) {
            EXPECT_LT(next_slot_, arena_.slots());
            EXPECT_LE(len, GuardArena::kSlot);
            rte_mbuf* m = rte_pktmbuf_alloc(pool_);
            EXPECT_NE(m, nullptr);
            if (m == nullptr || next_slot_ >= arena_.slots()) return head;
            saved_.push_back({m, m->buf_addr, m->buf_iova, m->buf_len});
            uint8_t* s = arena_.slot(next_slot_++);
            const bool at_end = rng() % 2 == 0;
            m->buf_addr = s;
            m->buf_iova = 0;
            m->buf_len = uint16_t(at_end ? GuardArena::kSlot : len);
            m->data_off = uint16_t(at_end ? GuardArena::kSlot - len : 0);
            m->data_len = uint16_t(len);
            if (len != 0) std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), bytes.data() + at, len);
            at += len;
            if (prev == nullptr)
                head = m;
            else
                prev->next = m;
            prev = m;
        }
        head->nb_segs = uint16_t(lens.size());
        head->pkt_len = at;
        head->ol_flags = 0;
        head->packet_type = 0;
        heads_.push_back(head);
        return head;
    }

    // Buffers moved back, chains freed.
    void release() {
        for (const Saved& s : saved_) {
            s.m->buf_addr = s.addr, s.m->buf_iova = s.iova, s.m->buf_len = s.len;
            s.m->data_off = 0;
        }
        for (const Saved& s : saved_) {
            s.m->next = nullptr, s.m->nb_segs = 1;
            rte_pktmbuf_free_seg(s.m);
        }
        saved_.clear(), heads_.clear();
        next_slot_ = 0;
    }

  private:
    struct Saved {
        rte_mbuf* m;
        void* addr;
        rte_iova_t iova;
        uint16_t len;
    };
    rte_mempool* pool_;
    GuardArena& arena_;
    std::vector<Saved> saved_;
    std::vector<rte_mbuf*> heads_;
    size_t next_slot_ = 0;
};

class GuardPageChains : public test::InetKernelTest {};

struct Kind {
    gen::Proto proto;
    int shape;
    uint32_t least;
};
const Kind kKinds[] = {{gen::Proto::tcp4, 0, 54},
                       {gen::Proto::udp4, 1, 42},
                       {gen::Proto::tcp6, 3, 74},
                       {gen::Proto::udp6, 4, 62}};

// 1..8 segments (empty ones too), or a 1-byte head and tail.
std::vector<uint32_t> cut(uint32_t n, std::mt19937& rng) {
    if (rng() % 4 == 0 && n >= 3) return {1, n - 2, 1};
    std::vector<uint32_t> s;
    do s = test::random_split(n, 2 + unsigned(rng() % 7), rng);
    while (s.size() > 8);
    return s;
}

// The chain loops themselves on good chains with every segment against a
// guard page: all taken, no fault.
TEST_F(GuardPageChains, ChainLoopsReadOnlyTheSegmentsBytes) {
    using RunFn = unsigned (*)(int, bool, const ShapeConfig&, rte_mbuf**, unsigned, unsigned,
                               const run_parts::RunVerdict&, chain_walk::Out*, bool*) noexcept;
    struct Loop {
        RunFn fn;
        uint32_t lo, hi;
        bool good = false;  // the PMD's GOOD flags on every chain (the GOOD loop's)
    };
    std::vector<Loop> loops;
    for (InetKernel k : inet_available_kernels()) {
        if (k == InetKernel::avx512) {
            loops.push_back({chain_walk::run_short_avx512, 0, kHeaderGather});
            loops.push_back({chain_walk::run_short_good_avx512, 0, kHeaderGather, true});
            loops.push_back({chain_walk::run_avx512, kHeaderGather + 1, 700});
        }
        if (k == InetKernel::avx512_vnni)
            loops.push_back({chain_walk::run_avx512_vnni, kHeaderGather + 1, 700});
        // Here no buffer has room past a segment's data: every tail is
        // loaded back from the segment's end, or summed in scalar.
        if (k == InetKernel::avx2) loops.push_back({chain_walk::run_avx2, kHeaderGather + 1, 700});
    }
    if (loops.empty()) GTEST_SKIP() << "no chain loop on this CPU (AVX2 or AVX-512)";
    test::Filler fill(pool());
    GuardArena arena(16 * 8);
    GuardedChains gc(pool(), arena);
    const ParserConfig pcfg;
    const ShapeConfig sc(pcfg);
    PacketVerdict pv{};
    pv.n_layers = 3;
    const run_parts::RunVerdict verdict(&pv, long(offsetof(rte_mbuf, dynfield1)));
    std::mt19937 rng(8086);
    constexpr unsigned kN = 16;
    for (const Loop& loop : loops) {
        for (const Kind& k : kKinds) {
            for (uint32_t len = std::max(k.least, loop.lo); len <= loop.hi;
                 len += loop.lo == 0 ? 1 : 7) {
                SCOPED_TRACE("shape " + std::to_string(k.shape) + " len " + std::to_string(len));
                rte_mbuf* burst[kN];
                uint64_t bytes = 0;
                for (unsigned i = 0; i < kN; ++i) {
                    std::vector<uint8_t> f;
                    // Ports whose low byte is a watched one go to the general loop.
                    for (uint32_t flow = len * kN + i;; flow += 1000) {
                        f = fill.frame(k.proto, len, flow);
                        const uint32_t l4 = k.shape >= 3 ? 54 : 34;
                        if (k.shape == 1 || k.shape == 4 ||
                            (sc.tcp_hit[f[l4 + 1]] == 0 && sc.tcp_hit[f[l4 + 3]] == 0))
                            break;
                    }
                    burst[i] = gc.build(f, cut(len, rng), rng);
                    ASSERT_NE(burst[i], nullptr);
                    if (loop.good)
                        burst[i]->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_GOOD |
                                             (k.shape >= 3 ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD);
                    bytes += len;
                }
                chain_walk::Out out;
                bool failed = true;
                EXPECT_EQ(loop.fn(k.shape, true, sc, burst, 0, kN, verdict, &out, &failed), kN);
                EXPECT_FALSE(failed);
                EXPECT_EQ(out.bytes, bytes);
                gc.release();
            }
        }
    }
}

// The tunnel chain run (tunnel_chain_run.h) on good chained tunnels of
// each run layout (outer IPv4 and IPv6), every segment against a guard
// page: all taken, no fault.
TEST_F(GuardPageChains, TunnelChainRunReadsOnlyTheSegmentsBytes) {
    const auto loops = test::tunnel_chain_loops();
    if (loops.empty()) GTEST_SKIP() << "no AVX2: the chain run is off";
    GuardArena arena(16 * 8);
    GuardedChains gc(pool(), arena);
    const ParserConfig pcfg;
    const ShapeConfig sc(pcfg);
    const long voff = long(offsetof(rte_mbuf, dynfield1));
    std::mt19937 rng(6502);
    constexpr unsigned kN = 16;
    for (const test::TunnelChainLoop& loop : loops)
        for (bool ov6 : {false, true})
            for (bool iv6 : {false, true})
                for (bool iudp : {false, true})
                    for (int kind : {0, 1})
                        for (size_t payload = 0; payload <= 600; payload += 13) {
                            // Outer IPv6: the outer UDP sum always (zero is illegal).
                            const test::Spec spec{ov6,  kind,    iv6,
                                                  iudp, payload, ov6 || payload % 2 == 0};
                            const test::Built b = test::build(spec);
                            SCOPED_TRACE(std::string(loop.name) + " " + b.name);
                            rte_mbuf* m0 = test::make_linear(pool(), b.f);
                            alignas(16) uint8_t g0[kTunnelGather];
                            TunnelShape s0;
                            uint64_t sb = 0;
                            uint32_t key = 0;
                            const bool good = (classify_common_tunnel(m0, sc, &s0) ||
                                               classify_tunnel(m0, sc, g0, &s0)) &&
                                              tunnel_all_good(m0, s0, &sb, &key);
                            const int run_kind = good ? tunnel_run_kind(m0, s0) : TunnelRun::kNone;
                            TunnelRun r;
                            if (run_kind != TunnelRun::kNone)
                                start_tunnel_run(&r, sc, s0, run_kind, key, 0);
                            rte_pktmbuf_free(m0);
                            ASSERT_NE(run_kind, TunnelRun::kNone);
                            rte_mbuf* burst[kN];
                            for (unsigned i = 0; i < kN; ++i) {
                                burst[i] = gc.build(b.f, cut(uint32_t(b.f.size()), rng), rng);
                                ASSERT_NE(burst[i], nullptr);
                            }
                            TunnelRunTook took;
                            EXPECT_EQ(loop.run(sc, r, burst, 0, kN, voff, &took), kN);
                            EXPECT_EQ(took.bytes, uint64_t{kN} * b.f.size());
                            gc.release();
                        }
}

// Bursts of guarded chains through the lean engine (after a linear burst of
// the shape, so same_burst routes them; then back to back, good_chain_run
// and same_burst again), every fourth chain changed by a byte flip or a
// descriptor lie (nb_segs high or 0 or 65535, pkt_len past the bytes, short
// of them, 0 or 2^32 - 1, a looped chain): the same kept packets, counters
// and bytes summed and CRC'd as
// the walker-only engine given the same chains, on every inet kernel.
TEST_F(GuardPageChains, EngineChainRoutesMatchTheWalker) {
    test::Filler fill(pool());
    GuardArena arena(32 * 8), arena2(32 * 8);  // the lean engine's chains, the walker's
    std::mt19937 rng(1701);
    constexpr int kN = 32;
    struct K2 {
        gen::Proto proto;
        bool sctp6;
    };
    const K2 kinds[] = {{gen::Proto::tcp4, false},  {gen::Proto::udp4, false},
                        {gen::Proto::tcp6, false},  {gen::Proto::udp6, false},
                        {gen::Proto::sctp4, false}, {gen::Proto::sctp4, true}};
    for (InetKernel kernel : inet_available_kernels()) {
        ASSERT_TRUE(inet_force_kernel(kernel));
        const auto engs = test::lean_and_walker({Mode::verify});
        Engine& lean = *engs[0];
        Engine& walker = *engs[1];
        for (const K2& k : kinds) {
            // CSUM_GUARD_SOAK=N: N random lengths a kind instead, and a
            // quarter of each burst's chains of other lengths (a soak run).
            const char* soak_env = std::getenv("CSUM_GUARD_SOAK");
            const unsigned soak = soak_env != nullptr ? unsigned(std::atoi(soak_env)) : 0;
            std::vector<uint32_t> lens_of_kind = {64u, 90u, 128u, 129u, 300u, 1420u};
            if (soak != 0) {
                rng.seed(std::random_device{}());
                lens_of_kind.clear();
                for (unsigned r = 0; r < soak; ++r)
                    lens_of_kind.push_back(rng() % 3 == 0 ? 42 + rng() % 1400 : 42 + rng() % 100);
            }
            for (uint32_t len : lens_of_kind) {
                auto frame_of = [&](uint32_t flow, uint32_t l) {
                    return k.sctp6 ? fill.sctp6(l, flow) : fill.frame(k.proto, l, flow);
                };
                auto frame = [&](uint32_t flow) { return frame_of(flow, len); };
                if (frame(1).size() != len) continue;  // below the shape's least
                SCOPED_TRACE(std::string(inet_kernel_name(kernel)) + " proto " +
                             std::to_string(int(k.proto)) + (k.sctp6 ? "/6" : "") + " len " +
                             std::to_string(len));
                RxPortPolicy rx;
                rx.drop_bad = true;
                const TxPortPolicy tx;
                // A linear burst of the shape: the engine's last run's shape.
                for (Engine* e : {&lean, &walker}) {
                    rte_mbuf* lin[4];
                    for (int i = 0; i < 4; ++i)
                        lin[i] = test::make_linear(pool(), frame(uint32_t(900 + i)));
                    EXPECT_EQ(e->process(rx, tx, lin, 4), 4);
                    rte_pktmbuf_free_bulk(lin, 4);
                }
                for (int round = 0; round < 3; ++round) {
                    std::vector<std::vector<uint8_t>> frames(kN);
                    std::vector<std::vector<uint32_t>> lens(kN);
                    std::vector<int> lie(kN, 0);
                    for (int i = 0; i < kN; ++i) {
                        frames[i] = frame(uint32_t(round * kN + i));
                        if (soak != 0 && rng() % 4 == 0) {
                            const uint32_t other = 42 + uint32_t(rng() % 300);
                            std::vector<uint8_t> f = frame_of(uint32_t(round * kN + i), other);
                            if (f.size() == other) frames[i] = f;
                        }
                        const uint32_t flen = uint32_t(frames[i].size());
                        // The first chain hostile in one round of three.
                        if (i % 4 == 3 || (round == 2 && i == 0)) {
                            const unsigned r = rng() % 10;
                            if (r < 2)
                                frames[i][14 + rng() % (flen - 14)] ^= uint8_t(1 + rng() % 255);
                            else
                                lie[i] = int(r);
                        }
                        lens[i] = cut(flen, rng);
                    }
                    GuardedChains gl(pool(), arena), gw2(pool(), arena2);
                    std::vector<rte_mbuf*> bl(kN), bw(kN);
                    std::mt19937 place{uint32_t(rng())};
                    for (int i = 0; i < kN; ++i) bl[i] = gl.build(frames[i], lens[i], place);
                    std::mt19937 place2{uint32_t(rng())};
                    std::map<rte_mbuf*, std::pair<uint16_t, uint32_t>> saved;
                    std::map<rte_mbuf*, rte_mbuf*> tails;
                    for (int i = 0; i < kN; ++i) bw[i] = gw2.build(frames[i], lens[i], place2);
                    for (int i = 0; i < kN; ++i) {
                        for (rte_mbuf* m : {bl[i], bw[i]}) {
                            saved[m] = {m->nb_segs, m->pkt_len};
                            rte_mbuf* last = rte_pktmbuf_lastseg(m);
                            switch (lie[i]) {
                                case 2:  // nb_segs high
                                    m->nb_segs = uint16_t(m->nb_segs + 1);
                                    break;
                                case 3:  // pkt_len past the bytes
                                    m->pkt_len += 1 + uint32_t(i % 5);
                                    break;
                                case 4:  // nb_segs 0
                                    m->nb_segs = 0;
                                    break;
                                case 5:  // pkt_len 2^32 - 1
                                    m->pkt_len = 0xFFFFFFFFu;
                                    break;
                                case 6:  // fewer bytes in pkt_len than the chain holds
                                    m->pkt_len -= 1 + uint32_t(i % 3);
                                    break;
                                case 7:  // the last segment linked back to the head
                                    last->next = m;
                                    break;
                                case 8:  // nb_segs 65535 and the last linked to itself
                                    m->nb_segs = 0xFFFF;
                                    last->next = last;
                                    break;
                                case 9:  // pkt_len 0
                                    m->pkt_len = 0;
                                    break;
                                default:
                                    break;
                            }
                            tails[m] = last;
                        }
                    }
                    std::vector<rte_mbuf*> ol = bl, ow = bw;
                    const uint16_t kl = lean.process(rx, tx, bl.data(), kN);
                    const uint16_t kw = walker.process(rx, tx, bw.data(), kN);
                    EXPECT_EQ(kl, kw);
                    // The same packets kept, in the same order.
                    for (int i = 0; i < std::min<int>(kl, kw); ++i) {
                        const auto il = std::find(ol.begin(), ol.end(), bl[i]) - ol.begin();
                        const auto iw = std::find(ow.begin(), ow.end(), bw[i]) - ow.begin();
                        EXPECT_EQ(il, iw) << "kept " << i;
                    }
                    // Every packet kept or dropped exactly once.
                    std::vector<rte_mbuf*> sl = bl, so = ol;
                    std::sort(sl.begin(), sl.end()), std::sort(so.begin(), so.end());
                    EXPECT_EQ(sl, so);
                    for (auto& [m, v] : saved) m->nb_segs = v.first, m->pkt_len = v.second;
                    for (auto& [m, last] : tails) last->next = nullptr;
                    gw2.release();
                }
                ASSERT_NO_FATAL_FAILURE(test::expect_same_counts_and_work(lean, walker));
            }
        }
    }
}

// crc32c_mbuf over guarded chains (every cut of the first unit's pieces, 1-
// byte and empty segments, long segments that take the crc32 lanes) against
// the CRC of the flat bytes, on every CRC32C kernel.
TEST_F(GuardPageChains, Crc32cMbufReadsOnlyTheSegmentsBytes) {
    const test::KernelGuard restore;
    GuardArena arena(8);
    std::mt19937 rng(3210);
    for (auto kern : crc32c_available_kernels()) {
        ASSERT_TRUE(crc32c_force_kernel(kern));
        for (int t = 0; t < 600; ++t) {
            const uint32_t n =
                t < 200 ? 1 + uint32_t(rng() % 300) : 1 + uint32_t(rng() % (4 * 4096 - 1));
            std::vector<uint8_t> b = test::random_bytes(n, rng);
            std::vector<uint32_t> lens;
            if (t % 3 == 0 && n >= 3) {
                const uint32_t a = 1 + uint32_t(rng() % std::min<uint32_t>(n - 2, 70));
                lens = {a, n - a - 1, 1};
            } else {
                lens = test::random_split(n, 1 + unsigned(rng() % 6), rng);
            }
            bool fits = lens.size() <= arena.slots();
            for (uint32_t l : lens) fits = fits && l <= GuardArena::kSlot;
            if (!fits) continue;
            GuardedChains gc(pool(), arena);
            rte_mbuf* m = gc.build(b, lens, rng);
            ASSERT_NE(m, nullptr);
            const uint32_t off = t % 2 ? uint32_t(rng() % n) : 0;
            const uint32_t len = n - off - (t % 5 == 0 ? uint32_t(rng() % (n - off + 1)) : 0);
            const uint32_t seed = uint32_t(rng());
            EXPECT_EQ(crc32c_mbuf(m, off, len, seed), crc32c(b.data() + off, len, seed))
                << "n " << n << " off " << off << " len " << len << " segs " << lens.size();
        }
    }
}

}  // namespace
}  // namespace csum
