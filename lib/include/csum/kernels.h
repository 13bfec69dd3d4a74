// Which checksum kernels this process runs, and why.
//
// At first use each family (CRC32C, the Internet sum) times every kernel
// this CPU can run at a few lengths and keeps the fastest per length class.
// CSUM_CRC32C_KERNEL / CSUM_INET_KERNEL force one kernel; CSUM_CALIBRATE=0
// skips the timing and takes a fixed choice (CRC32C: the widest kernel; the
// Internet sum: avx2 below 4 KiB, the widest above), for reproducible runs.
// CSUM_MAX_SIMD_BITS=256 (or 128) keeps every kernel and engine loop at or
// under that vector width; so does DPDK's --force-max-simd-bitwidth=N on the
// process's command line (the variable wins where both are set; DPDK's
// default of 256 without the option does not count). Read once per process.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "csum/export.h"

namespace csum {

struct KernelChoice {
    std::string_view family;  // "crc32c" or "inet"
    uint32_t min_bytes;       // the class covers lengths from here to the next class
    uint32_t probe_bytes;     // the length calibration timed for this class
    std::string_view kernel;  // the chosen kernel
    double bytes_per_tick;    // its measured speed in TSC ticks; 0 if not measured
    bool measured;
};

// Makes the choice if not made yet (calibration: a few hundred µs).
CSUM_API std::vector<KernelChoice> kernel_choices();
// One line, e.g. for a banner: family, how chosen, class: kernel and B/tick.
CSUM_API std::string kernel_choice_summary();
// Every candidate's ticks per probe length, the chosen ones marked '*'.
CSUM_API std::string kernel_calibration_table();
CSUM_API bool kernels_calibrated() noexcept;

}  // namespace csum
