// The lean path's verdicts, written once per outcome and copied to each
// packet, and its per-burst counts by outcome, flushed into the stats.
#pragma once

#include <cstdint>
#include <cstring>

#include "csum/engine.h"
#include "engine/lean_path.h"
#include "engine/tally.h"
#include "engine/verdict_slots.h"
#include "engine/verdict_writer.h"

namespace csum {

// The lean path's per-burst tally: its outcomes' verdict slots, forgotten
// after each burst, and the all-good verdicts, written once for all bursts.
class LeanOutcomes {
  public:
    // Fill mode's commonest outcome, every checksum filled in software: the
    // fill run's verdict, kept and counted as the all-good ones under key
    // kFilled + good_key(s) (the slots would give the same verdict and counts).
    static constexpr int kFilled = 6;

    LeanOutcomes() {
        // The commonest outcomes, written once for all bursts: every checksum
        // good (keys 0-5), or filled (6-11, as record() would write them).
        for (int k = 0; k < 2 * kFilled; ++k) {
            const LayerStatus st = k < kFilled ? LayerStatus::good : LayerStatus::filled;
            const int s = k % kFilled;
            VerdictLayer layers[2];
            int n = 0;
            const bool v6 = s >= 3;
            const uint32_t l4 = v6 ? 54 : 34;
            if (!v6) layers[n++] = {LayerProto::ipv4, st, 14, 24};
            layers[n++] = {lean_l4_proto(s % 3), st, l4, l4};
            std::memset(&good_v_[k], 0, sizeof good_v_[k]);
            write_verdict(&good_v_[k], n, ParseError::none, false,
                          [&](int i) { return layers[i]; });
        }
    }
    static bool all_good(const PacketShape& s, const LeanOutcome& o) {
        return o.l4 == LayerStatus::good && (s.v6 || o.ip == LayerStatus::good);
    }
    static int good_key(const PacketShape& s) { return s.v6 * 3 + s.l4i; }
    // The all-good verdict of this shape, counted once more.
    const PacketVerdict& good(const PacketShape& s) {
        const int k = good_key(s);
        ++good_n_[k];
        good_bytes_[k] += s.pkt_len;
        good_used_ |= 1u << k;
        return good_v_[k];
    }
    // ... and for the all-good and fill runs, which count in registers and
    // add their counts here when the shape changes.
    const PacketVerdict& good_verdict(int k) const { return good_v_[k]; }
    void add_good(int k, uint32_t n, uint64_t bytes) {
        good_n_[k] += n;
        good_bytes_[k] += bytes;
        good_used_ |= 1u << k;
    }
    // The verdict for this outcome, counted once more.
    const PacketVerdict& record(const LeanBurst& b, const PacketShape& s, const LeanOutcome& o,
                                uint32_t bytes) {
        const uint32_t key = uint32_t(s.v6) | uint32_t(s.l4i) << 1 | uint32_t(o.ip) << 3 |
                             uint32_t(o.l4) << 7 | uint32_t(o.drop) << 11 |
                             uint32_t(b.trusted) << 12;
        auto* sl = slots_.add(key, o.drop, b.trusted, bytes,
                              [key](VerdictLayer* out) { return layers_of(key, out); });
        if (unlikely(sl == nullptr)) sl = overflow(key, bytes);
        return sl->v;
    }
    void flush_into(EngineStats& st) {
        for (uint32_t used = good_used_; used != 0; used &= used - 1) {
            const int k = __builtin_ctz(used);
            if (good_n_[k] == 0) continue;
            const PacketVerdict& v = good_v_[k];
            count_stored_verdict(st, v, good_n_[k], good_bytes_[k], -1);
            good_n_[k] = 0, good_bytes_[k] = 0;
        }
        good_used_ = 0;
        slots_.flush_into(st);
        slots_.clear();
    }
    void bind(EngineStats* st) { overflow_ = st; }

  private:
    // A burst rarely has more than two outcomes; an outcome's parts make
    // 2 x 3 x 10 x 10 x 2 x 2 keys.
    using Slots = VerdictSlots<16>;
    Slots slots_;
    PacketVerdict good_v_[2 * kFilled];  // by v6 * 3 + l4i, then the filled ones
    uint32_t good_n_[2 * kFilled] = {};
    uint64_t good_bytes_[2 * kFilled] = {};
    uint32_t good_used_ = 0;  // bit k: good_n_[k] may be nonzero (the flush skips the rest)
    EngineStats* overflow_ = nullptr;

    // The verdict layers a key describes, outermost first. Every lean shape
    // has its L4 header at 34 or 54 and its checksum field where l4i says:
    // the verdict is the key's alone.
    static int layers_of(uint32_t key, VerdictLayer* out) {
        const bool v6 = key & 1;
        const int l4i = (key >> 1) & 3;
        const auto ip = static_cast<LayerStatus>((key >> 3) & 0xF);
        const auto l4 = static_cast<LayerStatus>((key >> 7) & 0xF);
        const uint32_t at = v6 ? 54 : 34, field = l4i == 0 ? 16 : l4i == 1 ? 6 : 8;
        int n = 0;
        if (!v6) out[n++] = {LayerProto::ipv4, ip, 14, 24};
        out[n++] = {lean_l4_proto(l4i), l4, at, at + field};
        return n;
    }
    // Never in practice (2 x 3 protocols x a few statuses): flushed into the
    // stats early to make room.
    [[gnu::noinline]] Slots::Slot* overflow(uint32_t key, uint32_t bytes) {
        if (overflow_ != nullptr) flush_into(*overflow_);
        slots_.clear();
        return slots_.add(key, (key >> 11) & 1, (key >> 12) & 1, bytes,
                          [key](VerdictLayer* out) { return layers_of(key, out); });
    }
};

}  // namespace csum
