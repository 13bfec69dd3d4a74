// Kernel choice shared by CRC32C and the Internet sum: length classes, the
// plan word the hot paths read with one relaxed load, and calibration (each
// kernel this CPU can run timed once at a few lengths, the fastest kept per
// class, as Linux picks its RAID-6 and XOR routines at boot).
#pragma once

#include <cstddef>
#include <cstdint>

namespace csum::detail {

// Below 128 bytes both families run inline short paths. Above, four classes,
// each decided by timing one probe length. 128..287 has its own: there a
// fold kernel pays its set-up and reduction on few bytes, and whether that
// beats three crc32 lanes depends on the CPU (AMD Zen 5: lanes 16.7 ticks
// at 222 B, the ymm fold 43.6; Emerald Rapids the other way round). The
// 288..767 probe sits mid-class, not at its low end: chains hand it pieces
// anywhere in it (a 1420-B packet in 2 or 4 segments), and a kernel that
// only ties at 256 B loses 1.5x at 700 B. The first class ends at 288, not
// 256: on Zen 5 the lanes still win at 256 B with the state chained through
// calls (16.9 against 24.0 ticks for avx512), not at 300 B (35.4 vs 23.6);
// where both classes chose one kernel the edge changes nothing.
inline constexpr size_t kNumClasses = 4;
inline constexpr uint32_t kClassFrom[kNumClasses] = {128, 288, 768, 4096};
// 222: an SCTP packet of 256 B; 1420: a TCP segment.
inline constexpr uint32_t kProbeLen[kNumClasses] = {222, 512, 1420, 9000};
inline constexpr uint32_t kShortProbe = 64;  // timed and reported only

inline unsigned class_of(size_t len) {
    return len < kClassFrom[1] ? 0 : len < kClassFrom[2] ? 1 : len < kClassFrom[3] ? 2 : 3;
}

// Plan word: one kernel id per class in 4 bits each (bits 0..15), flags
// from bit 24. 0 means "not chosen yet".
inline constexpr uint32_t kPlanReady = 1u << 24;
inline constexpr uint32_t kPlanVex = 1u << 25;          // run the VEX-encoded entry
inline constexpr uint32_t kPlanShortInline = 1u << 26;  // crc32c: inline short paths
inline constexpr uint32_t kPlanStream = 1u << 27;       // crc32c chains: carried avx512 state
inline constexpr uint32_t kPlanAdxRest = 1u << 31;      // inet: the runs' adcx/adox rest loop

inline uint8_t plan_kernel(uint32_t plan, size_t len) {
    return static_cast<uint8_t>((plan >> (4 * class_of(len))) & 0xF);
}
inline uint32_t plan_pack(const uint8_t chosen[kNumClasses]) {
    uint32_t p = 0;
    for (size_t i = 0; i < kNumClasses; ++i) p |= uint32_t{chosen[i] & 0xFu} << (4 * i);
    return p;
}

// False when CSUM_CALIBRATE=0: a fixed choice, for reproducible runs.
bool calibration_enabled() noexcept;

using ProbeFn = uint32_t (*)(const uint8_t* p, size_t len, uint32_t state) noexcept;

struct Candidate {
    uint8_t id;
    const char* name;
    ProbeFn fn;
};

inline constexpr size_t kMaxCandidates = 6;
// A wider kernel replaces a narrower one only if at least 5% faster.
inline constexpr double kWiderMargin = 0.95;
inline constexpr size_t kNumProbes = kNumClasses + 1;  // kShortProbe, then kProbeLen

// What was chosen and why; kept for csumd's banner, --stats-json and benches.
struct FamilyReport {
    const char* family = "";
    bool calibrated = false;  // false: forced by the environment, or CSUM_CALIBRATE=0
    const char* why = "";     // how the choice was made
    double micros = 0;        // wall time calibration took
    size_t n = 0;
    Candidate cand[kMaxCandidates]{};
    double ticks[kMaxCandidates][kNumProbes]{};  // min ticks per call
    uint8_t chosen[kNumClasses]{};
};

// Rounds of every timing here (calibrate, time_probes, time_pair_probes):
// round 0 warms up (caches, AVX-512 power-up), the min of the others counts.
// Each timed batch starts from one vector state (select.cpp, batch_start):
// where the SIMD cap allows 512 bits, zmm16..31 zeroed; the upper halves
// cleared.
inline constexpr unsigned kTimedRounds = 20;

// Times every candidate at every probe length: interleaved rounds, min per
// call; then picks the fastest per class into r->chosen. A few hundred µs.
void calibrate(const Candidate* c, size_t n, FamilyReport* r) noexcept;

// Min ticks per call of each of n probes at `len` bytes: dependent calls in
// interleaved rounds, as calibrate() times them.
void time_probes(const ProbeFn* fn, size_t n, uint32_t len, double* min_ticks) noexcept;

// A choice between two ways of one path, timed once with calibration: the
// second (the wider) must win by kWiderMargin. Untimed (CSUM_CALIBRATE=0, or
// the CPU lacks a way), the first.
struct PathChoice {
    bool timed = false;
    const char* what = "";      // the calibration table's label
    const char* key = "";       // kernel_choice_summary's
    const char* per = "";       // what a figure is per, if not a call
    uint32_t from = 0, to = 0;  // the lengths it decides
    uint32_t probe = 0;         // timed at this length
    const char* way[2] = {};    // the table's names, the first way first
    const char* tag[2] = {};    // the summary's
    double ticks[2] = {};
    bool second_chosen = false;
};

// A PathChoice timed: both ways' figures, the second chosen by the wider
// kernels' rule (kWiderMargin).
PathChoice path_decided(PathChoice c, const double t[2]) noexcept;

// The same-shape runs' inline sums past their unrolled words (regions of
// kRunShortRegion..kRunInlineRegion bytes): one adc chain, or adcx and adox
// in two (kPlanAdxRest), timed as dependent sums of kRestProbe bytes on
// CPUs with ADX.
inline constexpr uint32_t kRestProbe = 232, kRestFrom = 129, kRestTo = 256;
const PathChoice& inet_rest_report() noexcept;

// crc32c's short path above x86::kTreeMax: the crc32 lanes or the tree fold
// (kPlanTree), timed as dependent calls at kShortPathProbe bytes.
inline constexpr uint32_t kShortPathProbe = 96;
const PathChoice& crc32c_short_report() noexcept;

// crc32c_pair from kAvx512ShortMin to kPairMax bytes: the crc32 lanes or the
// avx512 short fold (kPlanPairFold), timed at kPairPathProbe bytes as a
// burst of independent pairs (an SCTP run's use), on CPUs with the avx512
// kernel.
inline constexpr uint32_t kPairPathProbe = 222;
const PathChoice& crc32c_pair_report() noexcept;

using PairProbeFn = uint64_t (*)(const uint8_t* p, const uint8_t* q, size_t len) noexcept;
// Min ticks a buffer of each of n pair probes at `len` bytes: a batch of
// independent pairs on separate buffers (a burst), interleaved rounds.
void time_pair_probes(const PairProbeFn* fn, size_t n, uint32_t len, double* min_ticks) noexcept;

const FamilyReport& crc32c_report() noexcept;
const FamilyReport& inet_report() noexcept;
// Both families' plans chosen now (calibration takes a fraction of a
// millisecond): by whatever is made before packets flow (an Engine, a port
// attach), so that no packet pays for it.
void choose_kernel_plans() noexcept;
// Whether each family's plan is chosen yet (without choosing it).
bool crc32c_plan_chosen() noexcept;
bool inet_plan_chosen() noexcept;

}  // namespace csum::detail

namespace csum::detail {

// The plan now in force, and a way to put one back (tests restore the
// calibrated plan after forcing kernels).
uint32_t crc32c_plan_now() noexcept;
void crc32c_plan_set(uint32_t plan) noexcept;
uint32_t inet_plan_now() noexcept;
void inet_plan_set(uint32_t plan) noexcept;

// Runs a fresh calibration (ignoring the environment) and returns the plan
// it would install, without installing it. For tests.
uint32_t crc32c_calibrate_fresh(FamilyReport* r) noexcept;
uint32_t inet_calibrate_fresh(FamilyReport* r) noexcept;

}  // namespace csum::detail
