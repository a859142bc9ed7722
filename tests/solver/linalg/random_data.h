// Random inputs and the rounding bound shared by the CPU and GPU operation tests.
#pragma once

#include <algorithm>
#include <random>

#include "solver/linalg/dense.h"

namespace ww::linalg::test {

inline constexpr double kEps = 1.2e-7;  // float unit roundoff ~ 2^-23

inline Vector randomVector(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    Vector v(n);
    for (auto& x : v) {
        x = u(rng);
    }
    return v;
}

inline Matrix randomMatrix(int r, int c, std::mt19937& rng) {
    Matrix m(r, c);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& x : m.data) {
        x = u(rng);
    }
    return m;
}

/// Bound for a float sum of k products, in any order: 2 k eps sum|a_i b_i| (the a-priori
/// bound gamma_k sum|a_i b_i| with a factor 2 of margin).
inline double dotTolerance(double sumAbs, std::size_t k) {
    return 2.0 * static_cast<double>(std::max<std::size_t>(k, 1)) * kEps * sumAbs + 1e-30;
}

}  // namespace ww::linalg::test
