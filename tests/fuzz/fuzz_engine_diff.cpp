// Differential: one structured frame (frame_gen.h; with config bit 0x20 a
// VXLAN/GENEVE frame the lean tunnel path takes, or nearly) through the
// engine in one mode with one set of RX flags, port policy and TX offloads,
// four ways: linear and chained (split anywhere), on the plain fast path
// and on the general walker only; and behind leaders that start the
// same-shape runs (a tunnel: behind its undamaged self). Forward/drop,
// verdict, output bytes and TX offload requests must be identical. Then the
// frame filled in software and verified again must have no bad checksum.
// Any difference is a finding.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "csum/engine.h"
#include "engine_input.h"
#include "frame_gen.h"
#include "fuzz_support.h"

using namespace csum;

namespace {

struct Outcome {
    bool forward = false;
    PacketVerdict v{};
    std::vector<uint8_t> bytes;
    uint64_t tx_flags = 0;
    uint64_t tx_lens = 0;  // l2/l3/l4_len, when an offload was asked for
};

// What the engine left on m: its verdict (checked sane), bytes and TX requests.
Outcome outcome_of(Engine& e, rte_mbuf* m, bool forward) {
    Outcome o;
    o.forward = forward;
    const PacketVerdict* v = verdict_of(m, e.verdict_field());
    if (!fuzz::verdict_sane(*v)) __builtin_trap();
    o.v.ip_summed = v->ip_summed;
    o.v.csum_level = v->csum_level;
    o.v.n_layers = v->n_layers;
    o.v.error = v->error;
    o.v.csum = v->csum;
    o.v.csum_offset = v->csum_offset;
    std::memcpy(o.v.layers, v->layers, v->n_layers);
    fuzz::chain_bytes(m, &o.bytes);
    o.tx_flags = m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK;
    if (o.tx_flags) o.tx_lens = uint64_t(m->l2_len) << 32 | uint64_t(m->l3_len) << 16 | m->l4_len;
    return o;
}

Outcome run(Engine& e, const fuzz::EngineInput& in, const fuzz::Frame& f, const fuzz::Split* s) {
    const uint32_t whole = uint32_t(f.bytes.size());
    rte_mbuf* m = s ? fuzz::make_chain_split(f.bytes.data(), f.bytes.size(), s->seg.data(),
                                             s->seg.size(), s->headroom)
                    : fuzz::make_chain_split(f.bytes.data(), f.bytes.size(), &whole, 1,
                                             RTE_PKTMBUF_HEADROOM, fuzz::linear_pool());
    if (m == nullptr) __builtin_trap();
    fuzz::prime(m, in, e.verdict_field(), f);
    rte_mbuf* pkts[1] = {m};
    const Outcome o = outcome_of(e, m, e.process(in.rx, in.tx, pkts, 1) == 1);
    rte_pktmbuf_free(m);
    return o;
}

std::string describe(const PacketVerdict& v) {
    std::string s(to_string(v.ip_summed));
    s += " level " + std::to_string(v.csum_level) + " csum " + std::to_string(v.csum) + "/" +
         std::to_string(v.csum_offset) + " error " +
         std::string(to_string(static_cast<ParseError>(v.error))) + " [";
    for (int i = 0; i < v.n_layers; ++i) {
        const LayerVerdict l = v.layer(i);
        s += (i ? " " : "") + std::string(to_string(l.proto)) + ":" +
             std::string(to_string(l.status));
    }
    return s + "]";
}

[[noreturn]] void finding(const char* what, const fuzz::Frame& f, const Outcome& a,
                          const Outcome& b) {
    std::fprintf(stderr, "DIFF: %s\n  frame %zu bytes:", what, f.bytes.size());
    for (size_t i = 0; i < f.bytes.size() && i < 160; ++i) std::fprintf(stderr, "%02x", f.bytes[i]);
    std::fprintf(
        stderr, "\n  a: %s forward=%d tx=%#lx lens=%#lx\n  b: %s forward=%d tx=%#lx lens=%#lx\n",
        describe(a.v).c_str(), a.forward, (unsigned long)a.tx_flags, (unsigned long)a.tx_lens,
        describe(b.v).c_str(), b.forward, (unsigned long)b.tx_flags, (unsigned long)b.tx_lens);
    for (size_t i = 0; i < a.bytes.size() && i < b.bytes.size(); ++i)
        if (a.bytes[i] != b.bytes[i]) {
            std::fprintf(stderr, "  first byte difference at %zu: %02x vs %02x\n", i, a.bytes[i],
                         b.bytes[i]);
            break;
        }
    __builtin_trap();
}

void same(const char* what, const fuzz::Frame& f, const Outcome& a, const Outcome& b) {
    if (a.forward != b.forward || std::memcmp(&a.v, &b.v, sizeof a.v) != 0 || a.bytes != b.bytes ||
        a.tx_flags != b.tx_flags || a.tx_lens != b.tx_lens)
        finding(what, f, a, b);
}

// A clean frame of a plain shape (0 TCP/IPv4, 1 UDP/IPv4, 2 TCP/IPv6, 3 UDP/IPv6,
// 4 SCTP/IPv4, 6 SCTP/IPv6 with one DATA chunk), 80 bytes (SCTP 96); its sums
// are filled where they matter (leaders without flags).
fuzz::Frame leader_frame(int kind) {
    const bool v6 = kind & 2, udp = kind & 1, sctp = kind & 4;
    const uint32_t l4 = v6 ? 54 : 34, n = sctp ? 96 : 80;
    std::vector<uint8_t> b(n, 0x5A);
    std::memset(b.data(), 0x02, 12);
    b[12] = v6 ? 0x86 : 0x08, b[13] = v6 ? 0xDD : 0x00;
    const uint8_t proto = sctp ? 132 : udp ? 17 : 6;
    if (v6) {
        b[14] = 0x60, b[15] = b[16] = b[17] = 0;
        b[18] = 0, b[19] = uint8_t(n - l4), b[20] = proto, b[21] = 64;
    } else {
        b[14] = 0x45, b[15] = 0, b[16] = 0, b[17] = uint8_t(n - 14);
        b[18] = b[19] = 0, b[20] = 0x40, b[21] = 0, b[22] = 64, b[23] = proto;
    }
    b[l4] = 0x30, b[l4 + 1] = 0x39, b[l4 + 2] = 0x00, b[l4 + 3] = 0x50;  // ports 12345, 80
    if (sctp) {
        // Tag, CRC (filled when it matters), one DATA chunk to the end.
        b[l4 + 12] = 0, b[l4 + 13] = 3, b[l4 + 14] = 0, b[l4 + 15] = uint8_t(n - l4 - 12);
    } else if (udp) {
        b[l4 + 4] = 0, b[l4 + 5] = uint8_t(n - l4), b[l4 + 6] = 0x12, b[l4 + 7] = 0x34;
    } else {
        b[l4 + 12] = 0x50;
    }
    return {b, 14, 0};
}

// The frame behind a run of good leaders of one plain shape: the all-good
// run goes on with its narrower same-shape test, which must say what the
// classifier says. The frame's own outcome is compared with its run alone.
// sums: the leaders carry no flags and right checksums (our sums decide).
// split: the leaders are chains cut after 40 bytes (the chains' own
// same-shape run then takes the frame) and the frame is cut as split says.
// first: the first leader's shape when it differs (the run of it stops at
// the second, and the mixed run takes the second and the frame).
// bad: the leaders' last byte flipped after their sums are filled (bad
// packets, dropped where the policy drops them: the frame then follows
// drops, and the engine stops trying the all-good run after two).
Outcome behind_leaders(Engine& e, const fuzz::EngineInput& in, const fuzz::Frame& f, int kind,
                       bool sums = false, const fuzz::Split* split = nullptr, int first = -1,
                       bool bad = false) {
    constexpr int kLead = 2;
    fuzz::Frame leads[kLead] = {leader_frame(first < 0 ? kind : first), leader_frame(kind)};
    if (sums)
        for (fuzz::Frame& lead : leads) {
            lead.bytes = run(fuzz::engine_for(Mode::fill, true, 0, false), fuzz::EngineInput{},
                             lead, nullptr)
                             .bytes;
            if (bad) lead.bytes.back() ^= 0x10;
        }
    fuzz::EngineInput lin = in;
    lin.ol_flags = sums ? 0 : RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    lin.packet_type = 0;
    lin.complete = false;
    rte_mbuf* pkts[kLead + 1];
    for (int i = 0; i <= kLead; ++i) {
        const fuzz::Frame& g = i < kLead ? leads[i] : f;
        const uint32_t whole = uint32_t(g.bytes.size());
        const uint32_t cut[2] = {40, whole - 40};  // leaders are 80 bytes (SCTP 96)
        pkts[i] = !split ? fuzz::make_chain_split(g.bytes.data(), g.bytes.size(), &whole, 1,
                                                  RTE_PKTMBUF_HEADROOM, fuzz::linear_pool())
                  : i < kLead
                      ? fuzz::make_chain_split(g.bytes.data(), g.bytes.size(), cut, 2,
                                               RTE_PKTMBUF_HEADROOM)
                      : fuzz::make_chain_split(g.bytes.data(), g.bytes.size(), split->seg.data(),
                                               split->seg.size(), split->headroom);
        if (pkts[i] == nullptr) __builtin_trap();
        fuzz::prime(pkts[i], i < kLead ? lin : in, e.verdict_field(), g);
    }
    rte_mbuf* m = pkts[kLead];
    rte_mbuf* burst[kLead + 1] = {pkts[0], pkts[1], pkts[2]};
    const uint16_t kept = e.process(in.rx, in.tx, burst, kLead + 1);
    const Outcome o = outcome_of(e, m, std::find(burst, burst + kept, m) != burst + kept);
    rte_pktmbuf_free_bulk(pkts, kLead + 1);
    return o;
}

// The frame behind two undamaged copies of itself (a tunnel's): the
// tunnel runs (verify's all-good run, fill's run) take their template from
// the first and test the frame on it, and keep it for the next bursts,
// which enter it from their first packet. The frame's outcome as alone.
// other: a first leader of another tunnel (whose run stops at the clean
// copy; with both kinds' templates kept, the mixed tunnel run goes on).
// chained_leads: the clean copies cut as split too (where their size is the
// frame's): the template from a chain, the chain run from the second.
Outcome behind_itself(Engine& e, const fuzz::EngineInput& in, const fuzz::Frame& clean,
                      const fuzz::Frame& f, const fuzz::Split* split,
                      const fuzz::Frame* other = nullptr, bool chained_leads = false) {
    constexpr int kLead = 2;
    fuzz::EngineInput lin = in;
    lin.ol_flags = 0, lin.packet_type = 0, lin.complete = false;
    rte_mbuf* pkts[kLead + 1];
    for (int i = 0; i <= kLead; ++i) {
        const fuzz::Frame& g = i == 0 && other ? *other : i < kLead ? clean : f;
        const uint32_t whole = uint32_t(g.bytes.size());
        const bool cut =
            split &&
            (i == kLead || (chained_leads && &g == &clean && g.bytes.size() == f.bytes.size()));
        pkts[i] = cut ? fuzz::make_chain_split(g.bytes.data(), g.bytes.size(), split->seg.data(),
                                               split->seg.size(), split->headroom)
                      : fuzz::make_chain_split(g.bytes.data(), g.bytes.size(), &whole, 1,
                                               RTE_PKTMBUF_HEADROOM, fuzz::linear_pool());
        if (pkts[i] == nullptr) __builtin_trap();
        fuzz::prime(pkts[i], i < kLead ? lin : in, e.verdict_field(), g);
    }
    rte_mbuf* m = pkts[kLead];
    rte_mbuf* burst[kLead + 1] = {pkts[0], pkts[1], pkts[2]};
    const uint16_t kept = e.process(in.rx, in.tx, burst, kLead + 1);
    const Outcome o = outcome_of(e, m, std::find(burst, burst + kept, m) != burst + kept);
    rte_pktmbuf_free_bulk(pkts, kLead + 1);
    return o;
}

// The frame cut as split says, its descriptor then made to lie (lie % 6):
// nb_segs one more or one less, pkt_len past the chain's bytes or short of
// them, the head's or the last segment's data running one byte past its
// buffer. first (if not null): a linear packet ahead of it in the burst,
// the frame undamaged (the same-shape runs then meet the lie). Every field
// is put back before the chain is freed. The frame's outcome.
Outcome run_lying(Engine& e, const fuzz::EngineInput& in, const fuzz::Frame& f,
                  const fuzz::Split& s, uint8_t lie, const fuzz::Frame* first) {
    rte_mbuf* m = fuzz::make_chain_split(f.bytes.data(), f.bytes.size(), s.seg.data(), s.seg.size(),
                                         s.headroom);
    const uint32_t whole = first ? uint32_t(first->bytes.size()) : 0;
    rte_mbuf* lead = first ? fuzz::make_chain_split(first->bytes.data(), whole, &whole, 1,
                                                    RTE_PKTMBUF_HEADROOM, fuzz::linear_pool())
                           : nullptr;
    if (m == nullptr || (first && lead == nullptr)) __builtin_trap();
    fuzz::prime(m, in, e.verdict_field(), f);
    if (lead) fuzz::prime(lead, in, e.verdict_field(), *first);
    rte_mbuf* last = m;
    while (last->next != nullptr) last = last->next;
    rte_mbuf* shrunk = nullptr;
    const uint16_t nb_segs = m->nb_segs;
    const uint32_t pkt_len = m->pkt_len;
    switch (lie % 6) {
        case 0:
            m->nb_segs = uint16_t(nb_segs + 1);
            break;
        case 1:
            m->nb_segs = uint16_t(nb_segs - 1);
            break;
        case 2:
            m->pkt_len = pkt_len + 1 + lie / 6 % 64;
            break;
        case 3:
            m->pkt_len = pkt_len - std::min<uint32_t>(pkt_len, 1 + lie / 6 % 64);
            break;
        case 4:
            shrunk = m;
            break;
        default:
            shrunk = last;
            break;
    }
    const uint16_t buf_len = shrunk ? shrunk->buf_len : 0;
    if (shrunk && shrunk->data_len != 0)
        shrunk->buf_len = uint16_t(shrunk->data_off + shrunk->data_len - 1);
    rte_mbuf* burst[2] = {lead ? lead : m, m};
    const uint16_t n = lead ? 2 : 1;
    const uint16_t kept = e.process(in.rx, in.tx, burst, n);
    if (shrunk) shrunk->buf_len = buf_len;
    m->nb_segs = nb_segs, m->pkt_len = pkt_len;
    const Outcome o = outcome_of(e, m, std::find(burst, burst + kept, m) != burst + kept);
    rte_pktmbuf_free(m);
    if (lead) rte_pktmbuf_free(lead);
    return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::linear_pool();
    fuzz::Cursor c(data, size);
    const uint8_t cfg = c.u8();
    static constexpr Mode kModes[] = {Mode::verify, Mode::fill, Mode::csum, Mode::csum};
    const Mode mode = kModes[cfg % 4];
    const bool prefill = cfg & 8, fill_fast = cfg & 4;
    const int variant = cfg >> 4 & 1;
    const bool tunnel = cfg & 0x20;  // a VXLAN/GENEVE shape the lean tunnel path takes, or nearly
    const fuzz::EngineInput in = fuzz::read_engine_input(c);
    fuzz::Frame f = tunnel ? fuzz::gen_tunnel_frame(c) : fuzz::gen_frame(c);
    if (prefill) fuzz::prefill(f.bytes);
    // An absent outer UDP checksum over right inner ones, 1 in 4.
    if (tunnel && (c.u8() & 3) == 0 && f.outer_udp_csum + 2 <= f.bytes.size())
        f.bytes[f.outer_udp_csum] = f.bytes[f.outer_udp_csum + 1] = 0;
    const fuzz::Frame clean = f;
    fuzz::damage(c, f.bytes);
    const fuzz::Split s = fuzz::gen_split(c, f.bytes.size(), 2048);

    Engine& fast = fuzz::engine_for(mode, true, variant, false);
    Engine& walker = fuzz::engine_for(mode, false, variant, false);
    const Outcome fast_lin = run(fast, in, f, nullptr);
    same("fast path: linear vs chained", f, fast_lin, run(fast, in, f, &s));
    const Outcome walk_lin = run(walker, in, f, nullptr);
    same("walker: linear vs chained", f, walk_lin, run(walker, in, f, &s));
    same("fast path vs walker (linear)", f, fast_lin, walk_lin);
    // Behind good leaders, and with GOOD flags too (the run's narrower test
    // then decides), as alone.
    fuzz::EngineInput good = in;
    good.ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
    // Leaders of the frame's IP version: TCP or UDP, or (bit 7) SCTP.
    const int kind = (cfg & 0x80 ? 4 : cfg >> 6 & 1) | (f.bytes.size() > 13 && f.bytes[12] == 0x86)
                                                           << 1;
    same("fast path behind good leaders vs alone", f, behind_leaders(fast, in, f, kind), fast_lin);
    same("fast path behind sum-checked leaders vs alone", f,
         behind_leaders(fast, in, f, kind, true), fast_lin);
    same("fast path, GOOD flags, behind good leaders vs alone", f,
         behind_leaders(fast, good, f, kind), run(fast, good, f, nullptr));
    // The same behind chained leaders, the frame chained too.
    same("fast path behind chained leaders vs alone", f,
         behind_leaders(fast, in, f, kind, false, &s), fast_lin);
    same("fast path behind sum-checked chained leaders vs alone", f,
         behind_leaders(fast, in, f, kind, true, &s), fast_lin);
    same("fast path, GOOD flags, behind chained leaders vs alone", f,
         behind_leaders(fast, good, f, kind, false, &s), run(fast, good, f, nullptr));

    // Behind two bad leaders of its shape (dropped where the policy says so).
    same("fast path behind bad leaders vs alone", f,
         behind_leaders(fast, in, f, kind, true, nullptr, -1, true), fast_lin);
    same("fast path behind bad chained leaders vs alone", f,
         behind_leaders(fast, in, f, kind, true, &s, -1, true), fast_lin);
    // Behind a leader of another plain shape (the mixed run takes the frame).
    const int other_kind = kind ^ 1 << c.u8() % 3;  // UDP/TCP, IPv6/IPv4 or SCTP flipped
    same("fast path behind mixed leaders vs alone", f,
         behind_leaders(fast, in, f, kind, false, nullptr, other_kind), fast_lin);
    same("fast path behind sum-checked mixed leaders vs alone", f,
         behind_leaders(fast, in, f, kind, true, nullptr, other_kind), fast_lin);
    same("fast path, GOOD flags, behind mixed leaders vs alone", f,
         behind_leaders(fast, good, f, kind, false, nullptr, other_kind),
         run(fast, good, f, nullptr));

    if (tunnel) {
        same("fast path behind its undamaged self vs alone", f,
             behind_itself(fast, in, clean, f, nullptr), fast_lin);
        same("fast path behind its undamaged self, chained, vs alone", f,
             behind_itself(fast, in, clean, f, &s), fast_lin);
        same("fast path behind its undamaged self, all chained, vs alone", f,
             behind_itself(fast, in, clean, f, &s, nullptr, true), fast_lin);
        // Another tunnel's kind first (its sums right): both kinds' templates
        // kept, then the mixed tunnel run from the clean copy to the frame.
        fuzz::Frame other = fuzz::gen_tunnel_frame(c);
        other.bytes =
            run(fuzz::engine_for(Mode::fill, true, 0, false), fuzz::EngineInput{}, other, nullptr)
                .bytes;
        behind_itself(fast, in, other, other, nullptr);
        same("fast path behind another tunnel and its undamaged self vs alone", f,
             behind_itself(fast, in, clean, f, nullptr, &other), fast_lin);
        same("fast path behind another tunnel and its undamaged self, chained, vs alone", f,
             behind_itself(fast, in, clean, f, &s, &other), fast_lin);
    }

    // A descriptor that lies: the fast path (alone, and behind a clean
    // copy that starts its run) and the walker say the same. The frame's
    // length is mixed into the lie, so inputs that end early vary too.
    const uint8_t lie = uint8_t(c.u8() + f.bytes.size());
    const Outcome walk_lie = run_lying(walker, in, f, s, lie, nullptr);
    same("lying descriptor: fast path vs walker", f, run_lying(fast, in, f, s, lie, nullptr),
         walk_lie);
    same("lying descriptor: fast path behind its undamaged self vs walker", f,
         run_lying(fast, in, f, s, lie, &clean), walk_lie);

    // Fill in software, then verify with no help from flags: nothing is bad.
    const fuzz::EngineInput plain;
    const Outcome filled =
        run(fuzz::engine_for(Mode::fill, fill_fast, variant, false), plain, f, &s);
    const fuzz::Frame g{filled.bytes, f.l3_off};
    for (bool fp : {true, false}) {
        const Outcome checked =
            run(fuzz::engine_for(Mode::verify, fp, variant, false), plain, g, &s);
        for (int i = 0; i < checked.v.n_layers; ++i) {
            const LayerStatus st = checked.v.layer(i).status;
            if (st == LayerStatus::bad || st == LayerStatus::illegal)
                finding(fp ? "fill then verify (fast path) says bad"
                           : "fill then verify (walker) says bad",
                        f, filled, checked);
        }
    }
    fuzz::check_no_leak();
    return 0;
}
