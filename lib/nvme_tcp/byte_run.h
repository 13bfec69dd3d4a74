// A run of TCP stream bytes: either payload inside an mbuf chain (which fill
// mode may write) or a few staged bytes replayed from a small buffer.
#pragma once

#include <cstdint>
#include <span>

struct rte_mbuf;

namespace csum::detail {
struct Crc32cCarry;
}

namespace csum::nvme {

// The part of buf from pos on (empty if pos lies past its end).
inline std::span<uint8_t> tail(std::span<uint8_t> buf, uint32_t pos) {
    return pos <= buf.size() ? buf.subspan(pos) : std::span<uint8_t>{};
}

struct ByteRun {
    rte_mbuf* m = nullptr;         // packet bytes, or
    const uint8_t* buf = nullptr;  // staged bytes (never writable)
    uint32_t off = 0;              // offset of byte 0 in the packet (or buf)
    uint32_t len = 0;
    uint32_t seq = 0;  // TCP sequence number of byte 0

    static ByteRun packet(rte_mbuf* m, uint32_t off, uint32_t len, uint32_t seq) {
        return ByteRun{m, nullptr, off, len, seq};
    }
    static ByteRun staged(const uint8_t* p, uint32_t len, uint32_t seq) {
        return ByteRun{nullptr, p, 0, len, seq};
    }
    bool writable() const { return m != nullptr; }

    // Copies bytes [at, at+n) of the run into dst; refuses (false, nothing
    // copied) if n exceeds dst. Callers keep at + n <= len.
    bool copy(uint32_t at, uint32_t n, std::span<uint8_t> dst) const;
    // Feeds bytes [at, at+n) to a carried CRC.
    void crc(uint32_t at, uint32_t n, detail::Crc32cCarry& c) const;
    void write(uint32_t at, std::span<const uint8_t> src) const;
    // Pointer to byte `at` and, in *n, how many bytes follow it contiguously
    // (within this run); nullptr if none.
    const uint8_t* peek(uint32_t at, uint32_t* n) const;
};

// Walks a run as contiguous chunks, for byte-by-byte scanning.
class ChunkCursor {
  public:
    ChunkCursor(const ByteRun& r, uint32_t at);
    // Next chunk: *p and *n; false at the end.
    bool next(const uint8_t** p, uint32_t* n);

  private:
    const rte_mbuf* seg_ = nullptr;
    const uint8_t* buf_ = nullptr;
    uint32_t seg_off_ = 0;
    uint32_t left_ = 0;
};

}  // namespace csum::nvme
