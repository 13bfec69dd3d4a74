// The lean path's verdicts, written once per outcome and copied to each
// packet, and its per-burst counts by outcome, flushed into the stats.
#pragma once

#include <cstdint>
#include <cstring>

#include "csum/engine.h"
#include "engine/lean_path.h"
#include "engine/tally.h"
#include "engine/verdict_writer.h"

namespace csum {

// The lean path's per-burst tally: packets grouped by outcome, whose verdict
// is the same for the whole group, written once by the one verdict writer
// and copied to each packet. A burst rarely has more than two outcomes.
class LeanOutcomes {
  public:
    LeanOutcomes() {
        // The commonest outcome, every checksum good, written once for all bursts.
        for (int k = 0; k < 6; ++k) {
            VerdictLayer layers[2];
            int n = 0;
            const bool v6 = k >= 3;
            const uint32_t l4 = v6 ? 54 : 34;
            if (!v6) layers[n++] = {LayerProto::ipv4, LayerStatus::good, 14, 24};
            layers[n++] = {lean_l4_proto(k % 3), LayerStatus::good, l4, l4};
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
        return good_v_[k];
    }
    // ... and for the all-good run, which counts in registers and adds its
    // counts here when the shape changes.
    const PacketVerdict& good_verdict(int k) const { return good_v_[k]; }
    void add_good(int k, uint32_t n, uint64_t bytes) {
        good_n_[k] += n;
        good_bytes_[k] += bytes;
    }
    // The verdict for this outcome, counted once more.
    const PacketVerdict& record(const LeanBurst& b, const PacketShape& s, const LeanOutcome& o,
                                uint32_t bytes) {
        const uint32_t key = uint32_t(s.v6) | uint32_t(s.l4i) << 1 | uint32_t(o.ip) << 3 |
                             uint32_t(o.l4) << 7 | uint32_t(o.drop) << 11 |
                             uint32_t(b.trusted) << 12;
        Slot* sl = &slot_[last_];
        if (unlikely(n_ == 0 || sl->key != key)) sl = find(b.trusted, s.v6, s.l4i, o, key);
        ++sl->count;
        sl->bytes += bytes;
        return sl->v;
    }
    void flush_into(EngineStats& st) {
        for (int k = 0; k < 6; ++k) {
            if (good_n_[k] == 0) continue;
            const PacketVerdict& v = good_v_[k];
            count_stored_verdict(st, v, good_n_[k], good_bytes_[k], -1);
            good_n_[k] = 0, good_bytes_[k] = 0;
        }
        for (int i = 0; i < n_; ++i) {
            const Slot& sl = slot_[i];
            count_stored_verdict(st, sl.v, sl.count, sl.bytes,
                                 sl.drop ? static_cast<int>(DropReason::bad_checksum) : -1);
        }
        n_ = 0, last_ = 0;
    }

  private:
    struct Slot {
        uint32_t key;
        bool drop;
        uint32_t count;
        uint64_t bytes;
        PacketVerdict v;
    };
    static constexpr int kSlots = 16;  // an outcome's parts: 2 x 3 x 10 x 10 x 2 x 2 keys
    Slot slot_[kSlots];
    int n_ = 0, last_ = 0;
    PacketVerdict good_v_[6];  // by v6 * 3 + l4i
    uint32_t good_n_[6] = {};
    uint64_t good_bytes_[6] = {};
    EngineStats* overflow_ = nullptr;

    // By value: a reference would keep the caller's shape out of registers.
    Slot* find(bool trusted, bool v6, uint8_t l4i, LeanOutcome o, uint32_t key) {
        for (int i = 0; i < n_; ++i)
            if (slot_[i].key == key) return &slot_[last_ = i];
        if (n_ == kSlots) overflow();
        Slot& sl = slot_[last_ = n_++];
        sl.key = key, sl.drop = o.drop, sl.count = 0, sl.bytes = 0;
        VerdictLayer layers[2];
        int n = 0;
        // Every lean shape has its L4 header at 34 or 54 and its checksum
        // field where l4i says: the verdict is the key's alone.
        const uint32_t l4 = v6 ? 54 : 34, field = l4i == 0 ? 16 : l4i == 1 ? 6 : 8;
        if (!v6) layers[n++] = {LayerProto::ipv4, o.ip, 14, 24};
        layers[n++] = {lean_l4_proto(l4i), o.l4, l4, l4 + field};
        write_verdict(&sl.v, n, ParseError::none, trusted, [&](int i) { return layers[i]; });
        std::memset(sl.v.layers + n, 0, kMaxVerdictLayers - n);
        return &sl;
    }
    // Never in practice (2 x 3 protocols x a few statuses): flushed into the stats early.
    void overflow() {
        if (overflow_ != nullptr) flush_into(*overflow_);
        n_ = 0;
    }

  public:
    void bind(EngineStats* st) { overflow_ = st; }
};

}  // namespace csum
