// The parser and engine on structured frames: layer stacks with long IPv6
// extension headers and IPv4 options, tunnels, lengths that lie, truncation
// and bit flips (frame_gen.h), cut into a chain of 2 KiB mbufs anywhere
// (zero-length segments included), in each mode with any RX flags, port
// policy and TX offloads. Input: [config][engine input][frame][damage][split].
#include "csum/engine.h"
#include "engine_input.h"
#include "frame_gen.h"
#include "fuzz_support.h"

using namespace csum;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::linear_pool();
    fuzz::Cursor c(data, size);
    const uint8_t cfg = c.u8();
    static constexpr Mode kModes[] = {Mode::verify, Mode::fill, Mode::csum, Mode::verify};
    const Mode mode = kModes[cfg % 4];
    const bool fast = !(cfg & 4), prefill = cfg & 8, nvme = !(cfg & 32);
    const int variant = cfg >> 4 & 1;
    const fuzz::EngineInput in = fuzz::read_engine_input(c);
    fuzz::Frame f = fuzz::gen_frame(c);
    if (prefill) fuzz::prefill(f.bytes);
    fuzz::damage(c, f.bytes);
    const fuzz::Split s = fuzz::gen_split(c, f.bytes.size(), 2048);
    Engine& e = fuzz::engine_for(mode, fast, variant, nvme);
    rte_mbuf* m = fuzz::make_chain_split(f.bytes.data(), f.bytes.size(), s.seg.data(), s.seg.size(),
                                         s.headroom);
    if (m == nullptr) __builtin_trap();  // the pool must never run dry: a leak
    fuzz::prime(m, in, e.verdict_field(), f);
    const uint32_t pkt_len = m->pkt_len;
    const uint16_t nb_segs = m->nb_segs;
    rte_mbuf* pkts[1] = {m};
    if (e.process(in.rx, in.tx, pkts, 1) > 1 || pkts[0] != m) __builtin_trap();
    if (!fuzz::verdict_sane(*verdict_of(m, e.verdict_field()))) __builtin_trap();
    if (m->pkt_len != pkt_len || m->nb_segs != nb_segs) __builtin_trap();
    rte_pktmbuf_free(m);
    fuzz::check_no_leak();
    return 0;
}
