// Test helpers: double-precision direct solves (Cholesky) and random SPD matrices, the
// ground truth the CG tests compare against.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "solver/cg/operators.h"
#include "support/seed.h"

namespace ww::cg::test {

/// Dense double copy of an operator given by triplets.
inline std::vector<double> toDense(int n, const std::vector<Triplet>& t) {
    std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0);
    for (const Triplet& e : t) {
        a[static_cast<std::size_t>(e.row) * n + e.col] += e.value;
    }
    return a;
}

/// Solves A x = b for SPD A (row-major, double) by Cholesky; returns an empty vector if A
/// is not positive definite.
inline std::vector<double> choleskySolve(int n, std::vector<double> a, std::vector<double> b) {
    const auto at = [n](int i, int j) { return static_cast<std::size_t>(i) * n + j; };
    for (int j = 0; j < n; ++j) {
        double d = a[at(j, j)];
        for (int k = 0; k < j; ++k) {
            d -= a[at(j, k)] * a[at(j, k)];
        }
        if (!(d > 0.0)) {
            return {};
        }
        a[at(j, j)] = std::sqrt(d);
        for (int i = j + 1; i < n; ++i) {
            double s = a[at(i, j)];
            for (int k = 0; k < j; ++k) {
                s -= a[at(i, k)] * a[at(j, k)];
            }
            a[at(i, j)] = s / a[at(j, j)];
        }
    }
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < i; ++k) {
            b[i] -= a[at(i, k)] * b[k];
        }
        b[i] /= a[at(i, i)];
    }
    for (int i = n - 1; i >= 0; --i) {
        for (int k = i + 1; k < n; ++k) {
            b[i] -= a[at(k, i)] * b[k];
        }
        b[i] /= a[at(i, i)];
    }
    return b;
}

/// A random sparse SPD matrix: symmetric off-diagonal entries in [-1, 1] with about
/// `perRow` per row, diagonal = sum of |off-diagonals| + margin (strictly dominant).
inline std::vector<Triplet> randomSparseSpd(int n, int perRow, float margin, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> col(0, n - 1);
    std::uniform_real_distribution<float> val(-1.0f, 1.0f);
    std::vector<Triplet> t;
    std::vector<float> diag(static_cast<std::size_t>(n), margin);
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < perRow / 2; ++k) {
            const int j = col(rng);
            if (j == i) {
                continue;
            }
            const float v = val(rng);
            t.push_back({i, j, v});
            t.push_back({j, i, v});
            diag[static_cast<std::size_t>(i)] += std::fabs(v);
            diag[static_cast<std::size_t>(j)] += std::fabs(v);
        }
    }
    for (int i = 0; i < n; ++i) {
        t.push_back({i, i, diag[static_cast<std::size_t>(i)]});
    }
    return t;
}

inline std::vector<float> randomVector(std::size_t n, std::uint64_t seed, float lo = -1.0f,
                                       float hi = 1.0f) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) {
        x = d(rng);
    }
    return v;
}

inline std::uint64_t freshSeed() {
    return ww::test::freshSeed64();
}

/// ||b - A x|| / ||b|| in double with A applied by its double reference path.
template <typename Op>
double trueResidual(const Op& a, const std::vector<float>& b, const std::vector<float>& x) {
    std::vector<double> ax(a.size());
    a.applyReference(std::vector<double>(x.begin(), x.end()), ax);
    double rr = 0.0;
    double bb = 0.0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        rr += (double(b[i]) - ax[i]) * (double(b[i]) - ax[i]);
        bb += double(b[i]) * b[i];
    }
    return std::sqrt(rr / bb);
}

/// ||x - y|| / ||y|| in double.
template <typename A, typename B>
double relativeError(const A& x, const B& y) {
    double num = 0.0;
    double den = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        num += (double(x[i]) - double(y[i])) * (double(x[i]) - double(y[i]));
        den += double(y[i]) * double(y[i]);
    }
    return std::sqrt(num / den);
}

}  // namespace ww::cg::test
