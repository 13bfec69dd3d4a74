// A run of TCP stream bytes: either payload inside an mbuf chain (which fill
// mode may write) or a few staged bytes replayed from a small buffer.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include <rte_mbuf.h>

#include "mbuf/crc32c_carry.h"

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

    // Bytes [at, at+n) when they lie in one piece (staged, or in the first
    // mbuf of the chain, which holds packet bytes [0, data_len) whether or
    // not more follow), else nullptr. Inline: the common case of every
    // PDU boundary.
    const uint8_t* contiguous(uint32_t at, uint32_t n) const {
        if (buf != nullptr) return buf + off + at;
        if (off + at + n <= m->data_len)
            return rte_pktmbuf_mtod_offset(m, const uint8_t*, off + at);
        return nullptr;
    }
    // Copies bytes [at, at+n) of the run into dst; refuses (false, nothing
    // copied) if n exceeds dst. Callers keep at + n <= len.
    bool copy(uint32_t at, uint32_t n, std::span<uint8_t> dst) const {
        if (n > dst.size()) return false;
        const uint8_t* p = contiguous(at, n);
        if (p == nullptr) return copy_chain(at, n, dst);
        std::memcpy(dst.data(), p, n);
        return true;
    }
    // Feeds bytes [at, at+n) to a carried CRC.
    void crc(uint32_t at, uint32_t n, detail::Crc32cCarry& c) const {
        if (const uint8_t* p = contiguous(at, n))
            detail::crc32c_carry_feed(c, p, n);
        else
            detail::crc32c_carry_feed(c, m, off + at, n);
    }
    void write(uint32_t at, std::span<const uint8_t> src) const;
    // Pointer to byte `at` and, in *n, how many bytes follow it contiguously
    // (within this run); nullptr if none.
    const uint8_t* peek(uint32_t at, uint32_t* n) const {
        if (at < len && buf == nullptr && off + at < m->data_len) {
            const uint32_t k = m->data_len - (off + at);
            *n = k < len - at ? k : len - at;
            return rte_pktmbuf_mtod_offset(m, const uint8_t*, off + at);
        }
        return peek_any(at, n);
    }

  private:
    const uint8_t* peek_any(uint32_t at, uint32_t* n) const;
    bool copy_chain(uint32_t at, uint32_t n, std::span<uint8_t> dst) const;
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
