// What the bench suites' tests share: the float unit roundoff their error bounds are stated in,
// fresh seeds (printed, so that a failure can be replayed) and random vectors.
#pragma once

#include <cstddef>
#include <cstdio>
#include <random>
#include <vector>
#include "support/seed.h"

namespace ww::bench {

/// Unit roundoff of float, u = 2^-24.
inline constexpr double kU = 0x1.0p-24;

inline unsigned freshSeed() {
    const unsigned seed = ww::test::freshSeed();
    std::printf("seed %u\n", seed);
    return seed;
}

/// n values uniform in [lo, hi).
inline std::vector<float> randomVector(std::size_t n, std::mt19937& rng, float lo = -1.0f,
                                       float hi = 1.0f) {
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) {
        x = u(rng);
    }
    return v;
}

}  // namespace ww::bench
