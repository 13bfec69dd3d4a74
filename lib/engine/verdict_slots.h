// The lean paths' verdict slots: packets grouped by outcome, whose verdict
// is the same for the whole group, written once by the one verdict writer
// and copied to each packet, their counts flushed into the stats per burst.
#pragma once

#include <cstdint>
#include <cstring>

#include "csum/engine.h"
#include "engine/tally.h"
#include "engine/verdict_writer.h"

namespace csum {

// kSlots outcomes, each a key (all its verdict depends on) with its verdict
// and this burst's count. A burst rarely has more than two outcomes: the
// last slot hit is tried first, then (out of the caller's per-packet loop)
// the others in turn.
template <int kSlots>
class VerdictSlots {
  public:
    struct Slot {
        uint32_t key;
        bool drop;
        uint32_t count;
        uint64_t bytes;
        PacketVerdict v;
    };

    // key's slot, counted once more: a new one, or one no packet of this
    // burst holds, gets the verdict of layers(VerdictLayer* out) -> n, the
    // key's layers outermost first. Null, nothing counted, when every slot
    // holds this burst's packets.
    template <typename Layers>
    [[gnu::always_inline]] Slot* add(uint32_t key, bool drop, bool trusted, uint32_t bytes,
                                     Layers&& layers) {
        Slot* sl = &slot_[last_];
        if (__builtin_expect(n_ == 0 || sl->key != key, 0)) {
            sl = find(key, drop, trusted, layers);
            if (__builtin_expect(sl == nullptr, 0)) return nullptr;
        }
        ++sl->count;
        sl->bytes += bytes;
        return sl;
    }

    // Counts the burst's slots; their verdicts stay for the next bursts.
    void flush_into(EngineStats& st) {
        for (int i = 0; i < n_; ++i) {
            Slot& sl = slot_[i];
            if (sl.count == 0) continue;
            count_stored_verdict(st, sl.v, sl.count, sl.bytes,
                                 sl.drop ? static_cast<int>(DropReason::bad_checksum) : -1);
            sl.count = 0, sl.bytes = 0;
        }
    }
    // Forgets every slot, its verdict and its count.
    void clear() { n_ = 0, last_ = 0; }

  private:
    Slot slot_[kSlots];
    int n_ = 0, last_ = 0;

    template <typename Layers>
    [[gnu::noinline]] Slot* find(uint32_t key, bool drop, bool trusted, Layers& layers) {
        for (int i = 0; i < n_; ++i)
            if (slot_[i].key == key) return &slot_[last_ = i];
        int at = n_;
        if (n_ == kSlots) {
            for (at = 0; at < kSlots && slot_[at].count != 0; ++at) {
            }
            if (at == kSlots) return nullptr;
        } else {
            ++n_;
        }
        Slot& sl = slot_[last_ = at];
        sl.key = key, sl.drop = drop, sl.count = 0, sl.bytes = 0;
        VerdictLayer l[kMaxVerdictLayers];
        const int n = layers(l);
        write_verdict(&sl.v, n, ParseError::none, trusted, [&](int i) { return l[i]; });
        std::memset(sl.v.layers + n, 0, kMaxVerdictLayers - n);
        return &sl;
    }
};

}  // namespace csum
