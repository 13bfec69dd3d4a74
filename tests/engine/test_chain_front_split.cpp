// The long chain loop's front (chain_walk_body.h: the first bytes put
// together in two registers as the walk reaches the segments that hold
// them) with the headers cut at every byte: TCP/UDP over IPv4/IPv6 chains
// of 256 B, the first cut at each position from 0 to 100, alone or with a
// second cut 1 to 9 bytes after it. The loop takes every good one; with any
// one byte of the headers changed the engine agrees with the walker.
#include <gtest/gtest.h>

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
#include "support/kernel_restore.h"
#include "support/mbuf_helpers.h"

namespace csum {
namespace {

class ChainFrontSplit : public test::InetKernelTest {};

struct Kind {
    gen::Proto proto;
    int shape;     // chain_walk's shape key
    uint32_t end;  // the headers' end: the L4 header's
};
constexpr Kind kKinds[] = {{gen::Proto::tcp4, 0, 54},
                           {gen::Proto::udp4, 1, 42},
                           {gen::Proto::tcp6, 3, 74},
                           {gen::Proto::udp6, 4, 62}};
constexpr uint32_t kLen = 256;
constexpr uint32_t kMaxCut = 100;

// The segments' lengths: cut at x, and (second) again 1..9 bytes later.
std::vector<uint32_t> cut_at(uint32_t n, uint32_t x, bool second) {
    if (!second) return {x, n - x};
    const uint32_t y = x + 1 + x % 9;
    return {x, y - x, n - y};
}

TEST_F(ChainFrontSplit, TheLoopTakesEveryCut) {
    const auto loops = test::chain_loops<false>();
    if (loops.empty()) GTEST_SKIP() << "no chain loop on this CPU (AVX2 or AVX-512)";
    test::Filler filler(pool());
    const ParserConfig pcfg;
    const ShapeConfig sc(pcfg);
    PacketVerdict pv{};
    pv.n_layers = 3;
    const run_parts::RunVerdict verdict(&pv, long(offsetof(rte_mbuf, dynfield1)));
    for (auto [kernel, loop] : loops) {
        for (const Kind& k : kKinds) {
            for (int second = 0; second < 2; ++second) {
                // One flow: its ports hit no special TCP port's low byte.
                const auto f = filler.frame(k.proto, kLen, 7);
                std::vector<rte_mbuf*> burst;
                for (uint32_t x = 0; x <= kMaxCut; ++x) {
                    rte_mbuf* m = test::make_chain(pool(), f, cut_at(uint32_t(f.size()), x, second),
                                                   uint16_t(x % 3));
                    ASSERT_NE(m, nullptr);
                    m->ol_flags = 0;
                    burst.push_back(m);
                }
                const unsigned n = unsigned(burst.size());
                for (bool ports : {false, true}) {
                    if (ports && (k.shape == 1 || k.shape == 4)) continue;  // TCP's only
                    SCOPED_TRACE("shape " + std::to_string(k.shape) + " second cut " +
                                 std::to_string(second) + " ports " + std::to_string(ports));
                    chain_walk::Out out;
                    bool failed = true;
                    EXPECT_EQ(loop(k.shape, ports, sc, burst.data(), 0, n, verdict, &out, &failed),
                              n);
                    EXPECT_FALSE(failed);
                    EXPECT_EQ(out.bytes, uint64_t{n} * kLen);
                }
                rte_pktmbuf_free_bulk(burst.data(), n);
            }
        }
    }
}

TEST_F(ChainFrontSplit, EveryHeaderByteChangedAtEveryCutMatchesTheWalker) {
    test::Filler filler(pool());
    for (InetKernel kernel : inet_available_kernels()) {
        if (kernel == InetKernel::scalar) continue;
        ASSERT_TRUE(inet_force_kernel(kernel));
        for (Mode mode : {Mode::verify, Mode::csum}) {
            EngineConfig lean, ref;
            lean.mode = ref.mode = mode;
            ref.plain_fast_path = false;
            Engine le(lean), we(ref);
            for (const Kind& k : kKinds) {
                const auto good = filler.frame(k.proto, kLen, 7);
                std::vector<test::ChainSpec> specs;
                std::vector<std::string> what;
                auto flush = [&] {
                    SCOPED_TRACE(std::string(inet_kernel_name(kernel)) + " mode " +
                                 std::to_string(int(mode)) + " shape " + std::to_string(k.shape));
                    test::expect_same_burst(le, we, pool(), specs, {}, 0, what);
                    specs.clear(), what.clear();
                };
                for (uint32_t x = 0; x <= k.end + 8; ++x) {
                    for (int second = 0; second < 2; ++second) {
                        // Unchanged (b == end), then each header byte changed.
                        for (uint32_t b = 0; b <= k.end; ++b) {
                            test::ChainSpec s;
                            s.bytes = good;
                            if (b < k.end) s.bytes[b] ^= uint8_t(1 + (x + b) % 255);
                            s.lens = cut_at(uint32_t(good.size()), x, second);
                            specs.push_back(std::move(s));
                            what.push_back("cut " + std::to_string(x) + " second " +
                                           std::to_string(second) + " byte " + std::to_string(b));
                            if (specs.size() == 32) {
                                ASSERT_NO_FATAL_FAILURE(flush());
                            }
                        }
                    }
                }
                if (!specs.empty()) {
                    ASSERT_NO_FATAL_FAILURE(flush());
                }
            }
        }
    }
}

}  // namespace
}  // namespace csum
