// What the tunnel-run tests share (test_tunnel_run.cpp: bursts through the
// engine; test_tunnel_run_alone.cpp: the same-shape run on its own): the
// fixture comparing a burst with the walker, the all-GOOD flags, and a guard
// that forces the SSE compare.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "engine/tunnel_run.h"
#include "lean_tunnel_fixture.h"
#include "support/chain_builder.h"
#include "support/mbuf_helpers.h"

namespace csum::test {

class TunnelRuns : public LeanTunnel {
  protected:
    // The frames, with their flags, as one burst through the lean engine
    // [0] and the walker [1]: kept count, each packet's verdict, place and
    // bytes alike.
    void expect_burst_like_walker(Engine* const engines[2], const RxPortPolicy& rx,
                                  const TxPortPolicy& tx, const std::vector<Bytes>& frames,
                                  const std::vector<Flags>& flags) {
        const int n = int(frames.size());
        std::vector<std::string> verdicts[2];
        std::vector<Bytes> out[2];
        uint16_t kept[2];
        for (int e = 0; e < 2; ++e) {
            // placed: each packet's place in the burst as given.
            std::vector<rte_mbuf*> burst(n), placed(n);
            for (int i = 0; i < n; ++i) {
                burst[i] = placed[i] = test::make_linear(pool(), frames[i]);
                burst[i]->ol_flags = flags[i].ol;
                burst[i]->packet_type = flags[i].ptype;
            }
            kept[e] = engines[e]->process(rx, tx, burst.data(), uint16_t(n));
            verdicts[e].resize(n), out[e].resize(n);
            for (int i = 0; i < n; ++i) {
                const int at =
                    int(std::find(placed.begin(), placed.end(), burst[i]) - placed.begin());
                const PacketVerdict* v = verdict_of(burst[i], engines[e]->verdict_field());
                verdicts[e][at] =
                    std::string(reinterpret_cast<const char*>(v), 8) +
                    std::string(reinterpret_cast<const char*>(v->layers), v->n_layers) +
                    (i < kept[e] ? " kept at " + std::to_string(i) : " dropped");
                out[e][at] = test::chain_bytes(burst[i]);
            }
            rte_pktmbuf_free_bulk(burst.data(), unsigned(n));
        }
        ASSERT_EQ(kept[0], kept[1]);
        for (int i = 0; i < n; ++i) {
            ASSERT_EQ(verdicts[0][i], verdicts[1][i]) << "packet " << i;
            ASSERT_EQ(out[0][i], out[1][i]) << "packet " << i;
        }
    }
};

// The tunnel run's SSE compare forced on an AVX-512 CPU while it lives.
struct NarrowGuard {
    ~NarrowGuard() { tunnel_run_detail::force_narrow = false; }
};

}  // namespace csum::test
