// CRC32C (Castagnoli), the checksum of SCTP and of NVMe/TCP digests.
//
// Standard convention: reflected, init and final XOR 0xFFFFFFFF, so
// crc32c("123456789", 9) == 0xE3069283. Calls extend one another:
// crc32c(b, nb, crc32c(a, na)) == crc32c(a || b).
#pragma once

#include "csum/export.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

struct rte_mbuf;

namespace csum {

CSUM_API uint32_t crc32c(const void* data, size_t len, uint32_t crc = 0) noexcept;

// CRC over `len` bytes of a segment chain starting at packet byte `offset`,
// chained from segment to segment with one direct kernel call per segment.
// Bytes past pkt_len are never read: if offset + len > pkt_len the CRC covers
// only the bytes that exist. Use crc32c_mbuf_checked to learn of that.
CSUM_API uint32_t crc32c_mbuf(const struct rte_mbuf* m, uint32_t offset, uint32_t len,
                              uint32_t crc = 0) noexcept;

// As crc32c_mbuf, but returns -1 (and leaves *crc untouched) when
// offset + len passes pkt_len; 0 otherwise, with the extended CRC in *crc.
// Also -1 if the chain ends before pkt_len bytes (a lying pkt_len or nb_segs),
// or a segment of the range claims data past its buffer (data_off + data_len
// > buf_len), or the chain does not hold the range within the head's nb_segs
// segments (links that loop). crc32c_mbuf trusts those descriptor fields
// (on a looped chain it may not return): for chains already checked (the
// engine checks every segment it reads).
CSUM_API int crc32c_mbuf_checked(const struct rte_mbuf* m, uint32_t offset, uint32_t len,
                                 uint32_t* crc) noexcept;

// CRC of a||b from crc(a), crc(b) and len(b). O(log n); not for the hot path.
CSUM_API uint32_t crc32c_combine(uint32_t crc_a, uint32_t crc_b, size_t len_b) noexcept;

// Kernels, for tests and benchmarks. The active one is chosen once from
// CPUID; CSUM_CRC32C_KERNEL=<name> in the environment overrides it.
enum class Crc32cKernel : uint8_t { portable, sse42, pclmul, vpclmul_avx2, avx512 };

CSUM_API std::string_view crc32c_kernel_name(Crc32cKernel k) noexcept;
// Kernels this CPU can run, fastest last.
CSUM_API std::span<const Crc32cKernel> crc32c_available_kernels() noexcept;
CSUM_API Crc32cKernel crc32c_active_kernel() noexcept;
// Returns false (and changes nothing) if this CPU can't run `k`.
CSUM_API bool crc32c_force_kernel(Crc32cKernel k) noexcept;
// Parses a kernel name; false if unknown.
CSUM_API bool crc32c_kernel_from_name(std::string_view name, Crc32cKernel* out) noexcept;
// Runs one specific kernel, bypassing dispatch (tests, benchmarks).
CSUM_API uint32_t crc32c_with(Crc32cKernel k, const void* data, size_t len,
                              uint32_t crc = 0) noexcept;

}  // namespace csum
