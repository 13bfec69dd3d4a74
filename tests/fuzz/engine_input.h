// The engine fuzzers' shared set-up: engines by configuration, the PMD
// flags and port policies an input asks for, and a fill pass that gives a
// generated frame right checksums before it is damaged.
#pragma once

#include <cstdint>
#include <vector>

#include <rte_mbuf.h>

#include "csum/engine.h"
#include "frame_gen.h"

namespace csum::fuzz {

struct EngineInput {
    uint64_t ol_flags = 0;
    uint32_t packet_type = 0;
    RxPortPolicy rx;
    TxPortPolicy tx;
    bool complete = false;        // hand a CHECKSUM_COMPLETE verdict in
    uint16_t complete_noise = 0;  // xor-ed into that sum (0: the right sum)
};

// Every RX flag combination (IP, L4 and outer L4 each unknown/good/bad/none,
// outer IP bad), tunnel packet type, trusted/drop/verify-mask/COMPLETE policy
// and TX offload set, from the cursor.
EngineInput read_engine_input(Cursor& c);

// Sets the mbuf's flags, packet type and incoming verdict for `in`; f is the
// frame it holds (for the COMPLETE sum).
void prime(rte_mbuf* m, const EngineInput& in, int verdict_off, const Frame& f);

// An engine for the configuration, made once and kept. variant 1 is a
// parser with a tunnel depth of 1 and RFC 6935 zero-checksum ports.
Engine& engine_for(Mode mode, bool fast_path, int variant, bool nvme);

// Runs the frame through a fill-mode engine (software only) so its
// checksums are right; damage comes after.
void prefill(std::vector<uint8_t>& f);

// The verdict is well formed: counts, codes and enums in range.
bool verdict_sane(const PacketVerdict& v);

}  // namespace csum::fuzz
