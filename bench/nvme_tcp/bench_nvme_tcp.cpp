// Data-digest verification through the NVMe/TCP tracker, against a bare
// CRC32C over the same bytes in one buffer (csum::crc32c and ISA-L).
//
// C2HData PDUs (HDGST+DDGST) of 4 KiB, 8 KiB and 128 KiB carried in
// 1448-byte TCP segments, one mbuf per segment. Times in TSC ticks; each
// figure is the best of 80 passes over a 512 KiB stream (cache-warm).
// Then issue 14's question: the engine's ticks per data segment with port
// 4420 watched minus unwatched, against one crc32c() over 1448 B.
//
// Environment: NVME_BENCH_ENGINE (engine rows only, three times),
// NVME_BENCH_CRC_HOT (carried state against crc32c() over one payload),
// NVME_BENCH_TRACKER (the tracker alone, L1-hot: in-data and one-PDU segments),
// NVME_BENCH_BOTH_WALKER (both engines on the general walker),
// NVME_BENCH_ENGINE_PROFILE=PDU [NVME_BENCH_PROFILE_UNWATCHED] (one engine's
// passes only, for callgrind), NVME_BENCH_PASSES (engine passes),
// NVME_BENCH_PROFILE_{HOT,PDU,FIXED}.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <isa-l/crc.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "csum/crc32c.h"
#include "csum/engine.h"
#include "csum/nvme_tcp.h"
#include "gen/checksum_fill.h"
#include "gen/nvme_tcp.h"
#include "mbuf/crc32c_carry.h"
#include "testkit/eal_args.h"

namespace {

constexpr uint32_t kMss = 1448;
constexpr uint32_t kHdrRoom = 54;
constexpr int kPasses = 80;
bool g_profile = false;  // NVME_BENCH_PROFILE_FIXED: loop the fixed-cost pass
uint32_t kStreamBytes = 1u << 19;

void put_le32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// A C2HData PDU with both digests.
void append_c2h(std::vector<uint8_t>& s, const uint8_t* data, uint32_t n, bool dd = true) {
    uint8_t h[28] = {0x07, uint8_t(dd ? 0x07 : 0x05), 24, 28};
    put_le32(h + 4, 28 + n + (dd ? 4 : 0));
    put_le32(h + 16, n);
    put_le32(h + 24, csum::crc32c(h, 24));
    s.insert(s.end(), h, h + 28);
    s.insert(s.end(), data, data + n);
    if (!dd) return;
    uint8_t d[4];
    put_le32(d, csum::crc32c(data, n));
    s.insert(s.end(), d, d + 4);
}

template <class F>
uint64_t best_of(F&& f, int passes = kPasses) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < (g_profile ? 5000 : passes); ++i) {
        const uint64_t t0 = rte_rdtsc_precise();
        f();
        best = std::min(best, rte_rdtsc_precise() - t0);
    }
    return best;
}

volatile uint32_t g_sink;

struct Row {
    uint32_t pdu;
    double tracker, mbuf_crc, crc, isal;  // ticks per data byte
    double fixed;                         // ticks per segment with DDGST off
    double carry;                         // ticks per data byte, carried state
};

Row measure(rte_mempool* pool, uint32_t pdu_size, bool dd = true) {
    const uint32_t n_pdus = std::max<uint32_t>(1, kStreamBytes / pdu_size);
    std::mt19937 rng(pdu_size);
    std::vector<uint8_t> data(size_t{n_pdus} * pdu_size);
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    std::vector<uint8_t> stream;
    for (uint32_t i = 0; i < n_pdus; ++i)
        append_c2h(stream, &data[size_t{i} * pdu_size], pdu_size, dd);

    std::vector<rte_mbuf*> segs;
    std::vector<uint32_t> offs;
    for (uint32_t off = 0; off < stream.size(); off += kMss) {
        const uint32_t n = std::min<uint32_t>(kMss, uint32_t(stream.size()) - off);
        rte_mbuf* m = rte_pktmbuf_alloc(pool);
        if (m == nullptr) std::abort();
        uint8_t* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, uint16_t(kHdrRoom + n)));
        std::memset(p, 0, kHdrRoom);
        std::memcpy(p + kHdrRoom, &stream[off], n);
        segs.push_back(m);
        offs.push_back(off);
    }

    csum::NvmeTracker t(csum::NvmeTrackerConfig{.capacity = 16});
    const uint8_t a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};
    const csum::NvmeFlowKey key = csum::nvme_flow_key_v4(a, b, 40000, 4420);
    uint32_t isn = 1;
    uint64_t good_before = 0;
    if (!dd && getenv("NVME_BENCH_PER_FEED") != nullptr) {
        std::vector<uint64_t> ts;
        for (int pass = 0; pass < 5; ++pass) {
            t.feed(key, isn, csum::kTcpSyn, nullptr, 0, 0, 0);
            for (size_t i = 0; i < segs.size(); ++i) {
                const uint64_t t0 = rte_rdtsc_precise();
                t.feed(key, isn + 1 + offs[i], csum::kTcpAck, segs[i], kHdrRoom,
                       segs[i]->pkt_len - kHdrRoom, 0);
                ts.push_back(rte_rdtsc_precise() - t0);
            }
            isn += 0x10000000;
        }
        std::sort(ts.begin(), ts.end());
        std::printf("per feed: min %lu median %lu p90 %lu\n", (unsigned long)ts[0],
                    (unsigned long)ts[ts.size() / 2], (unsigned long)ts[ts.size() * 9 / 10]);
    }
    const uint64_t t_tracker = best_of([&] {
        t.feed(key, isn, csum::kTcpSyn, nullptr, 0, 0, 0);
        for (size_t i = 0; i < segs.size(); ++i)
            t.feed(key, isn + 1 + offs[i], csum::kTcpAck, segs[i], kHdrRoom,
                   segs[i]->pkt_len - kHdrRoom, 0);
        isn += 0x10000000;  // a fresh connection each pass
    });
    const auto& st = t.stats();
    if (!dd) {
        if (st.pdus < uint64_t{n_pdus} * kPasses || st.desyncs != 0 || st.scanned_bytes != 0) {
            std::fprintf(stderr, "tracker lost framing: pdus %lu desyncs %lu scanned %lu\n",
                         (unsigned long)st.pdus, (unsigned long)st.desyncs,
                         (unsigned long)st.scanned_bytes);
            std::abort();
        }
        for (rte_mbuf* m : segs) rte_pktmbuf_free(m);
        return {pdu_size, 0, 0, 0, 0, double(t_tracker) / double(segs.size()), 0};
    }
    if (st.ddgst_good - good_before != uint64_t{n_pdus} * kPasses || st.ddgst_bad != 0) {
        std::fprintf(stderr, "tracker verdicts wrong: good %lu\n", (unsigned long)st.ddgst_good);
        std::abort();
    }

    // The same per-segment CRC calls without the tracker around them.
    const uint64_t t_mbuf = best_of([&] {
        uint32_t c = 0;
        for (size_t i = 0; i < segs.size(); ++i)
            c = csum::crc32c_mbuf(segs[i], kHdrRoom, segs[i]->pkt_len - kHdrRoom, c);
        g_sink = c;
    });
    // The carried state alone: each segment's share of the data fed in, one
    // reduction per PDU (what the tracker runs inside).
    const uint64_t t_carry = best_of([&] {
        static csum::detail::Crc32cCarry cc;
        uint32_t pdu_left = 0, skip = 28;  // header + HDGST before the first data
        for (size_t i = 0; i < segs.size(); ++i) {
            uint32_t at = kHdrRoom, n = segs[i]->pkt_len - kHdrRoom;
            while (n > 0) {
                if (skip > 0) {
                    const uint32_t k = std::min(skip, n);
                    skip -= k, at += k, n -= k;
                    if (skip == 0) csum::detail::crc32c_carry_begin(cc, pdu_left = pdu_size);
                    continue;
                }
                const uint32_t k = std::min(pdu_left, n);
                csum::detail::crc32c_carry_feed(cc, segs[i], at, k);
                pdu_left -= k, at += k, n -= k;
                if (pdu_left == 0) g_sink = csum::detail::crc32c_carry_end(cc), skip = 4 + 28;
            }
        }
    });
    const uint64_t t_crc = best_of([&] {
        for (uint32_t i = 0; i < n_pdus; ++i)
            g_sink = csum::crc32c(&data[size_t{i} * pdu_size], pdu_size);
    });
    const uint64_t t_isal = best_of([&] {
        for (uint32_t i = 0; i < n_pdus; ++i)
            g_sink = ~crc32_iscsi(&data[size_t{i} * pdu_size], int(pdu_size), ~0u);
    });
    for (rte_mbuf* m : segs) rte_pktmbuf_free(m);
    const double bytes = double(n_pdus) * pdu_size;
    return {pdu_size, t_tracker / bytes, t_mbuf / bytes, t_crc / bytes, t_isal / bytes,
            0,        t_carry / bytes};
}

// The tracker's own cost per in-data segment, all in L1: one mbuf fed over
// and over as consecutive 1448-byte pieces of a PDU whose DDGST is off.
double hot_feed_ticks(rte_mempool* pool) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool);
    std::memset(rte_pktmbuf_append(m, kHdrRoom + kMss), 0, kHdrRoom + kMss);
    csum::NvmeTracker t(csum::NvmeTrackerConfig{.capacity = 16, .max_plen = 0xFFFFFFF0u});
    const uint8_t a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};
    const csum::NvmeFlowKey key = csum::nvme_flow_key_v4(a, b, 40000, 4420);
    // One huge C2HData header (no DDGST), so every later segment is data.
    uint8_t* p = rte_pktmbuf_mtod_offset(m, uint8_t*, kHdrRoom);
    const uint8_t h[24] = {0x07, 0x04, 24, 24, 0xF0, 0xFF, 0xFF, 0xFF};
    std::memcpy(p, h, 24);
    put_le32(p + 16, 0xFFFFFFF0u - 24);
    constexpr int kN = 2000;  // short passes: fewer preemptions on a busy host
    uint32_t isn = 0;
    const uint64_t best = best_of(
        [&] {
            // A fresh connection per pass keeps every pass inside one PDU.
            isn += 0x40000000;
            t.feed(key, isn, csum::kTcpSyn, nullptr, 0, 0, 0);
            uint32_t seq = isn + 1;
            for (int i = 0; i <= kN; ++i, seq += kMss)
                t.feed(key, seq, csum::kTcpAck, m, kHdrRoom, kMss, 0);
        },
        400);
    if (t.stats().desyncs != 0 || t.stats().scanned_bytes != 0) std::abort();
    rte_pktmbuf_free(m);
    return double(best) / kN;
}

// The cost of a PDU boundary, all in L1: every segment is exactly one
// C2HData PDU with HDGST (no DDGST, so no data CRC): header staging, rules,
// the header digest and the PDU's completion, plus the per-segment work.
double hot_pdu_ticks(rte_mempool* pool) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool);
    uint8_t* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, kHdrRoom + kMss));
    std::memset(p, 0, kHdrRoom + kMss);
    p += kHdrRoom;
    const uint8_t h[24] = {0x07, 0x05, 24, 28};
    std::memcpy(p, h, 24);
    put_le32(p + 4, kMss);
    put_le32(p + 16, kMss - 28);
    put_le32(p + 24, csum::crc32c(p, 24));
    csum::NvmeTracker t(csum::NvmeTrackerConfig{.capacity = 16});
    const uint8_t a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};
    const csum::NvmeFlowKey key = csum::nvme_flow_key_v4(a, b, 40000, 4420);
    constexpr int kN = 2000;  // short passes: fewer preemptions on a busy host
    uint32_t seq = 1;
    t.feed(key, 0, csum::kTcpSyn, nullptr, 0, 0, 0);
    const uint64_t best = best_of(
        [&] {
            for (int i = 0; i < kN; ++i, seq += kMss)
                t.feed(key, seq, csum::kTcpAck, m, kHdrRoom, kMss, 0);
        },
        400);
    if (t.stats().desyncs != 0 || t.stats().hdgst_good != t.stats().pdus) std::abort();
    rte_pktmbuf_free(m);
    return double(best) / kN;
}

// One 1448-byte payload, L1-hot, fed again and again: the carried state's
// cost per segment against crc32c_mbuf and crc32c() over the same bytes.
void hot_crc_ticks(rte_mempool* pool) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool);
    uint8_t* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, kHdrRoom + kMss));
    for (uint32_t i = 0; i < kHdrRoom + kMss; ++i) p[i] = static_cast<uint8_t>(i * 7);
    constexpr int kN = 200;
    const int nm = getenv("NVME_BENCH_HOT_MBUFS") ? atoi(getenv("NVME_BENCH_HOT_MBUFS")) : 1;
    std::vector<rte_mbuf*> ms(nm);
    for (auto& x : ms) {
        x = rte_pktmbuf_alloc(pool);
        std::memcpy(rte_pktmbuf_append(x, kHdrRoom + kMss), p, kHdrRoom + kMss);
    }
    uint32_t c = 0;
    const uint64_t t_crc = best_of(
        [&] {
            for (int i = 0; i < kN; ++i) c = csum::crc32c(p + kHdrRoom, kMss, c);
        },
        400);
    const uint64_t t_mbuf = best_of(
        [&] {
            for (int i = 0; i < kN; ++i) c = csum::crc32c_mbuf(ms[i % nm], kHdrRoom, kMss, c);
        },
        400);
    csum::detail::Crc32cCarry cc;
    const uint64_t t_carry = best_of(
        [&] {
            csum::detail::crc32c_carry_begin(cc, kMss * kN);
            for (int i = 0; i < kN; ++i)
                csum::detail::crc32c_carry_feed(cc, ms[i % nm], kHdrRoom, kMss);
            c ^= csum::detail::crc32c_carry_end(cc);
        },
        400);
    g_sink = c;
    std::printf("L1-hot 1448 B: crc32c() %.1f, crc32c_mbuf %.1f, carried state %.1f ticks\n",
                double(t_crc) / kN, double(t_mbuf) / kN, double(t_carry) / kN);
    rte_pktmbuf_free(m);
}

// The question issue 14 asks: what NVMe/TCP tracking adds to the engine per
// data segment. The same frames (a SYN, C2HData PDUs with both digests in
// 1448-byte segments, an RST) go through two engines in one process: port
// 4420 watched and unwatched, passes interleaved, minimum per pass. The peer
// is one crc32c() over 1448 bytes, L1-hot (the engine's TCP sum has just
// read the segment). `hw_good`: the RX flags say the TCP sum was checked in
// hardware, so the CRC is the first to read the payload.
struct EngineRow {
    double watched, unwatched, per_seg, crc_hot;
    uint32_t segs;
};

EngineRow engine_overhead(rte_mempool* pool, uint32_t pdu_size, bool hw_good) {
    csum::gen::NvmeStreamSpec spec;
    spec.pdu_data = pdu_size;
    spec.pdus = std::max<uint32_t>(1, (256u << 10) / pdu_size);
    spec.end_with_rst = true;
    std::vector<uint32_t> data_bytes;
    auto frames = csum::gen::build_nvme_c2h_frames(spec, &data_bytes);
    // A SYN first (seq 999, so data starts at 1000): a fresh connection each pass.
    std::vector<uint8_t> syn(frames[0].begin(), frames[0].begin() + 54);
    syn[16] = 0, syn[17] = 40;  // IPv4 total length
    put_le32(&syn[38], 0);
    syn[38 + 3] = 0xE7, syn[38 + 2] = 0x03;  // seq 999, big-endian
    syn[47] = 0x02;                          // SYN
    frames.insert(frames.begin(), syn);
    uint32_t segs = 0;
    for (uint32_t b : data_bytes) segs += b > 0;
    std::vector<rte_mbuf*> pkts;
    for (auto& f : frames) {
        csum::gen::fill_checksums(f);
        rte_mbuf* m = rte_pktmbuf_alloc(pool);
        if (m == nullptr) std::abort();
        std::memcpy(rte_pktmbuf_append(m, uint16_t(f.size())), f.data(), f.size());
        pkts.push_back(m);
    }
    csum::EngineConfig wc;
    wc.mode = csum::Mode::verify;
    csum::EngineConfig uc = wc;
    uc.parser.nvme_ports.n = 0;
    if (getenv("NVME_BENCH_BOTH_WALKER")) uc.plain_fast_path = wc.plain_fast_path = false;
    csum::Engine watched(wc), unwatched(uc);
    const uint64_t flags = hw_good ? RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD : 0;
    auto pass = [&](csum::Engine& e) {
        uint64_t t = 0;
        for (size_t i = 0; i < pkts.size(); i += 32) {
            const auto n = uint16_t(std::min<size_t>(32, pkts.size() - i));
            for (uint16_t k = 0; k < n; ++k) pkts[i + k]->ol_flags = flags;
            const uint64_t t0 = rte_rdtsc_precise();
            const uint16_t fwd = e.process({}, {}, &pkts[i], n);
            t += rte_rdtsc_precise() - t0;
            if (fwd != n) std::abort();  // nothing here is bad
        }
        return t;
    };
    uint64_t best_w = UINT64_MAX, best_u = UINT64_MAX;
    const bool profile = getenv("NVME_BENCH_ENGINE_PROFILE") != nullptr;  // watched only
    const char* np = getenv("NVME_BENCH_PASSES");  // e.g. fewer under callgrind
    const int kEnginePasses = np != nullptr ? atoi(np) : profile ? 30000 : 300;
    for (int i = 0; i < kEnginePasses; ++i) {
        if (!profile) best_u = std::min(best_u, pass(unwatched));
        best_w =
            std::min(best_w, pass(getenv("NVME_BENCH_PROFILE_UNWATCHED") ? unwatched : watched));
    }
    if (profile) return {double(best_w), 0, 0, 0, segs};
    csum::NvmeTrackerStats st{};
    if (!watched.nvme_stats(&st) || st.ddgst_good != uint64_t{spec.pdus} * kEnginePasses ||
        st.ddgst_bad != 0 || st.desyncs != 0) {
        std::fprintf(stderr, "engine tracker verdicts wrong: good %lu bad %lu\n",
                     (unsigned long)st.ddgst_good, (unsigned long)st.ddgst_bad);
        std::abort();
    }
    // The peer: dependent crc32c() calls over one segment's payload.
    const uint8_t* payload = rte_pktmbuf_mtod_offset(pkts[2], const uint8_t*, 54);
    uint32_t c = 0;
    constexpr int kN = 100;
    const uint64_t t_crc = best_of(
        [&] {
            for (int i = 0; i < kN; ++i) c = csum::crc32c(payload, kMss, c);
        },
        400);
    g_sink = c;
    for (rte_mbuf* m : pkts) rte_pktmbuf_free(m);
    const double crc = double(t_crc) / kN;
    return {double(best_w), double(best_u), double(best_w - best_u) / segs, crc, segs};
}

}  // namespace

int main(int argc, char** argv) {
    if (csum::testkit::eal_init({.prog = "bench_nvme_tcp",
                                 .file_prefix = csum::testkit::unique_prefix("nvmebench_"),
                                 .memory_mb = 512}) < 0) {
        std::fprintf(stderr, "EAL: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    if (argc > 1) {
        csum::Crc32cKernel k;
        if (!csum::crc32c_kernel_from_name(argv[1], &k) || !csum::crc32c_force_kernel(k)) {
            std::fprintf(stderr, "kernel %s unavailable\n", argv[1]);
            return 1;
        }
    }
    if (const char* e = getenv("NVME_BENCH_BYTES")) kStreamBytes = uint32_t(atoi(e));
    rte_mempool* pool =
        rte_pktmbuf_pool_create("bench", 4095, 0, 0, 2048 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
    if (pool == nullptr) return 1;
    if (getenv("NVME_BENCH_PROFILE_HOT") != nullptr) {
        g_profile = true;
        std::printf("%.1f ticks\n", hot_feed_ticks(pool));
        return 0;
    }
    if (const char* e = getenv("NVME_BENCH_ENGINE_PROFILE")) {
        engine_overhead(pool, uint32_t(atoi(e)), false);
        return 0;
    }
    if (getenv("NVME_BENCH_ENGINE") != nullptr) {
        for (int r = 0; r < 3; ++r) {
            for (uint32_t size : {4096u, 131072u}) {
                const EngineRow e = engine_overhead(pool, size, false);
                std::printf(
                    "%u KiB: watched-unwatched %.1f ticks/seg, crc32c 1448 %.1f, %.2fx (passes: "
                    "watched %.0f, unwatched %.0f, %u segments)\n",
                    size / 1024, e.per_seg, e.crc_hot, e.per_seg / e.crc_hot, e.watched,
                    e.unwatched, e.segs);
            }
        }
        return 0;
    }
    if (getenv("NVME_BENCH_TRACKER") != nullptr) {
        std::printf("tracker in-data %.1f ticks, one-PDU segment %.1f ticks\n",
                    hot_feed_ticks(pool), hot_pdu_ticks(pool));
        return 0;
    }
    if (getenv("NVME_BENCH_CRC_HOT") != nullptr) {
        hot_crc_ticks(pool);
        return 0;
    }
    if (getenv("NVME_BENCH_PROFILE_PDU") != nullptr) {
        g_profile = true;
        std::printf("%.1f ticks\n", hot_pdu_ticks(pool));
        return 0;
    }
    if (getenv("NVME_BENCH_PROFILE_FIXED") != nullptr) {
        // For profilers: only the tracker's per-segment work, repeatedly.
        g_profile = true;
        measure(pool, getenv("NVME_BENCH_PDU") ? uint32_t(atoi(getenv("NVME_BENCH_PDU"))) : 131072u,
                false);
        return 0;
    }
    const double hz = double(rte_get_tsc_hz());
    const std::string kernel(csum::crc32c_kernel_name(csum::crc32c_active_kernel()));
    std::printf("TSC %.3f GHz, crc32c kernel: %s, 1448-byte segments, HDGST+DDGST on\n\n", hz / 1e9,
                kernel.c_str());
    std::printf(
        "| PDU data | tracker B/tick | carried state B/tick | crc32c_mbuf chain B/tick | crc32c() "
        "B/tick | ISA-L B/tick "
        "| overhead vs crc32c() | overhead vs ISA-L | tracker Gbit/s | fixed ticks/segment "
        "| fixed cost at ISA-L speed |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (uint32_t size : {4096u, 8192u, 131072u}) {
        const Row r = measure(pool, size);
        const Row f = measure(pool, size, false);
        // The tracker's own per-segment work, as a share of a 1448-byte CRC
        // at ISA-L speed: the overhead once the CRC kernel is that fast.
        const double proj = 100 * f.fixed / (kMss * r.isal);
        std::printf(
            "| %u KiB | %.2f | %.2f | %.2f | %.2f | %.2f | %+.1f%% | %+.1f%% | %.1f | %.0f | "
            "%+.1f%% "
            "|\n",
            size / 1024, 1 / r.tracker, 1 / r.carry, 1 / r.mbuf_crc, 1 / r.crc, 1 / r.isal,
            100 * (r.tracker / r.crc - 1), 100 * (r.tracker / r.isal - 1), 8 * hz / r.tracker / 1e9,
            f.fixed, proj);
    }
    std::printf(
        "\nEngine, verify mode, port 4420 watched minus unwatched, ticks per data segment "
        "(1448 B), against one crc32c() over 1448 B (L1-hot):\n\n");
    std::printf(
        "| PDU data | RX TCP sum | segments | watched - unwatched | crc32c() 1448 B | ratio |\n");
    std::printf("|---|---|---:|---:|---:|---:|\n");
    for (bool hw : {false, true}) {
        for (uint32_t size : {4096u, 131072u}) {
            const EngineRow e = engine_overhead(pool, size, hw);
            std::printf("| %u KiB | %s | %u | %.1f | %.1f | %.2fx |\n", size / 1024,
                        hw ? "good (HW)" : "software", e.segs, e.per_seg, e.crc_hot,
                        e.per_seg / e.crc_hot);
        }
    }
    std::printf("\ntracker cost per in-data segment, L1-hot, no CRC: %.1f ticks\n",
                hot_feed_ticks(pool));
    std::printf("tracker cost per one-PDU segment (HDGST only), L1-hot: %.1f ticks\n",
                hot_pdu_ticks(pool));
    rte_mempool_free(pool);
    rte_eal_cleanup();
    return 0;
}
