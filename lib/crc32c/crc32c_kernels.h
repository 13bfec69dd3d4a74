// Raw CRC32C kernels: no pre/post inversion; state in, state out.
// crc32c(data) == ~kernel(~0u, data, len). All handle any length, including 0.
#pragma once

#include <cstddef>
#include <cstdint>

#include "csum/crc32c.h"

namespace csum::detail {

using Crc32cFn = uint32_t (*)(uint32_t state, const uint8_t* p, size_t len) noexcept;

uint32_t crc32c_portable(uint32_t state, const uint8_t* p, size_t len) noexcept;
uint32_t crc32c_sse42(uint32_t state, const uint8_t* p, size_t len) noexcept;
uint32_t crc32c_pclmul(uint32_t state, const uint8_t* p, size_t len) noexcept;
uint32_t crc32c_vpclmul_avx2(uint32_t state, const uint8_t* p, size_t len) noexcept;
uint32_t crc32c_avx512(uint32_t state, const uint8_t* p, size_t len) noexcept;

// Folding only, no short-length hand-over; len >= 128. For measuring the
// crossover (bench/crc32c).
uint32_t crc32c_vpclmul_avx2_fold(uint32_t state, const uint8_t* p, size_t len) noexcept;
// The mixed crc32 + fold loop with s qwords per crc32 lane (s in 2,4,5,6,8,12;
// else fold only); len >= 128. For tuning kAvx2MixQwords.
uint32_t crc32c_vpclmul_avx2_mix(size_t s, uint32_t state, const uint8_t* p, size_t len) noexcept;
// The pclmul kernel's loop with s qwords per crc32 lane (s in 1, 2, 4, 8; else
// fold only); len >= 64. For tuning kFold128MixQwords.
uint32_t crc32c_pclmul_mix(size_t s, uint32_t state, const uint8_t* p, size_t len) noexcept;
// The two candidate short paths, out of line, for the benchmark: three crc32
// lanes (len <= 256) and the tree fold (len < 128).
uint32_t crc32c_short_lanes(uint32_t state, const uint8_t* p, size_t len) noexcept;
uint32_t crc32c_short_tree(uint32_t state, const uint8_t* p, size_t len) noexcept;
// avx512 loop variants for tuning (bench, tests), at every length: v = 0
// fold only; lanes of 1: 12 qwords per 512 folded bytes, 2: 16 with the CRC
// moved through memory, 3: 24 per 768; 16 per 512 4: plain, 5: with
// prefetch, 6: with the first lane aligning the loads; else the default.
uint32_t crc32c_avx512_mix(size_t v, uint32_t state, const uint8_t* p, size_t len) noexcept;
// crc32 lane length per 512 folded bytes in the avx512 loop, in qwords.
inline constexpr size_t kAvx512LaneQwords = 16;
// crc32 lane length in the vpclmul_avx2 mixed loop, in qwords.
inline constexpr size_t kAvx2MixQwords = 8;

// Below these lengths the folding kernels hand over to the 3-way crc32 path.
inline constexpr size_t kAvx2FoldMin = 128;
inline constexpr size_t kAvx512FoldMin = 256;
// From here to kAvx512FoldMin the avx512 kernel folds one accumulator.
inline constexpr size_t kAvx512ShortMin = 128;
// That one-accumulator fold on two buffers of one length (kAvx512ShortMin
// <= len < kAvx512PairEnd), for SCTP runs: raw states in, s's state in the
// low half of the result and t's in the high. CPUs with the avx512 kernel.
inline constexpr size_t kAvx512PairEnd = 320;
uint64_t crc32c_avx512_pair(uint32_t s, const uint8_t* p, uint32_t t, const uint8_t* q,
                            size_t len) noexcept;
// The same fold on one buffer (kAvx512ShortMin <= len < kAvx512PairEnd).
uint32_t crc32c_avx512_short(uint32_t s, const uint8_t* p, size_t len) noexcept;

Crc32cFn crc32c_kernel_fn(Crc32cKernel k) noexcept;

}  // namespace csum::detail
