// A byte-at-a-time Internet checksum: the oracle for every kernel. Bytes at
// even offsets are the low byte of a host-order word, as in the kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace csum::test {

// Running, unfolded sum; add bytes one at a time at their packet offset.
struct RefSum {
    uint64_t s = 0;
    void add_byte(uint8_t b, size_t offset) {
        uint8_t pair[2] = {0, 0};
        pair[offset & 1] = b;
        uint16_t w;
        std::memcpy(&w, pair, 2);
        s += w;
    }
    uint16_t folded() const {
        uint64_t t = s;
        while (t >> 16) t = (t & 0xFFFF) + (t >> 16);
        return static_cast<uint16_t>(t);
    }
};

inline uint16_t ref_sum(const uint8_t* p, size_t n, uint32_t init = 0) {
    RefSum r{init};
    for (size_t i = 0; i < n; ++i) r.add_byte(p[i], i);
    return r.folded();
}

inline std::vector<uint8_t> from_hex(std::string_view hex) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
        auto nib = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
        out.push_back(static_cast<uint8_t>(nib(hex[i]) << 4 | nib(hex[i + 1])));
    }
    return out;
}

// The 16-bit value as it would be stored in memory, read back big-endian:
// how RFCs write checksums.
inline uint16_t as_wire(uint16_t host_order_value) {
    uint8_t b[2];
    std::memcpy(b, &host_order_value, 2);
    return static_cast<uint16_t>(b[0] << 8 | b[1]);
}

}  // namespace csum::test
