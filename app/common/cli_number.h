// Option values for the programs in app/: one parser, one error wording.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace csum_app {

// v as an integer in [lo, hi] into *out; else the message naming opt.
template <typename T>
std::optional<std::string> parse_uint(std::string_view opt, std::string_view v, uint64_t lo,
                                      uint64_t hi, T* out) {
    uint64_t x = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || p != v.data() + v.size() || x < lo || x > hi)
        return std::string(opt) + ": expected an integer in [" + std::to_string(lo) + ", " +
               std::to_string(hi) + "], got '" + std::string(v) + "'";
    *out = static_cast<T>(x);
    return std::nullopt;
}

}  // namespace csum_app
