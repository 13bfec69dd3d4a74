// Where a burst of n gets its one hostile member: every kind at three
// random places, then every place with some random kind. Kind 0 is the
// good member and is never chosen.
#pragma once

#include <random>
#include <utility>
#include <vector>

namespace csum::test {

inline std::vector<std::pair<int, int>> hostile_places(std::mt19937& rng, int n, int kinds) {
    std::vector<std::pair<int, int>> places;
    for (int k = 1; k < kinds; ++k)
        for (int r = 0; r < 3; ++r) places.push_back({int(rng() % unsigned(n)), k});
    for (int at = 0; at < n; ++at) places.push_back({at, 1 + int(rng() % unsigned(kinds - 1))});
    return places;
}

}  // namespace csum::test
