// app/bench/simple_c.h (Figure 3's "simple C" column) against double-precision references on
// fresh random matrices: the products against double loops, CG and projected Jacobi against a
// direct solve (Gaussian elimination with partial pivoting, in double).
//
// Tolerances: a float dot product of n terms errs by at most n u sum |a_k b_k| (Higham 3.1),
// so every product entry is checked against n u sum |terms| computed from the data. CG and
// projected Jacobi run to their fixed points on well-conditioned matrices (diagonal 2n..3n
// against off-diagonal entries in [-1, 1]: Gershgorin puts the spectrum in [n, 4n], condition
// <= 4); float iterates then agree with the direct solution to a few hundred u relative,
// so 1e-4 relative to ||x||_inf leaves a wide margin yet would catch a wrong sign or index.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "app/bench/simple_c.h"
#include "bench_test_support.h"

namespace ww::bench {
namespace {

// Symmetric, diagonal 2n..3n, off-diagonal in [-1, 1].
std::vector<float> spdMatrix(int n, std::mt19937& rng) {
    std::vector<float> a = randomVector(static_cast<std::size_t>(n) * n, rng);
    std::uniform_real_distribution<float> d(2.0f * float(n), 3.0f * float(n));
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < i; ++j) {
            a[static_cast<std::size_t>(i) * n + j] = a[static_cast<std::size_t>(j) * n + i];
        }
        a[static_cast<std::size_t>(i) * n + i] = d(rng);
    }
    return a;
}

std::vector<double> directSolve(const std::vector<float>& a, const std::vector<float>& b, int n) {
    std::vector<double> m(a.begin(), a.end());
    std::vector<double> x(b.begin(), b.end());
    for (int k = 0; k < n; ++k) {
        int p = k;
        for (int i = k + 1; i < n; ++i) {
            if (std::abs(m[i * n + k]) > std::abs(m[p * n + k])) {
                p = i;
            }
        }
        for (int j = 0; j < n; ++j) {
            std::swap(m[k * n + j], m[p * n + j]);
        }
        std::swap(x[k], x[p]);
        for (int i = k + 1; i < n; ++i) {
            const double f = m[i * n + k] / m[k * n + k];
            for (int j = k; j < n; ++j) {
                m[i * n + j] -= f * m[k * n + j];
            }
            x[i] -= f * x[k];
        }
    }
    for (int i = n - 1; i >= 0; --i) {
        for (int j = i + 1; j < n; ++j) {
            x[i] -= m[i * n + j] * x[j];
        }
        x[i] /= m[i * n + i];
    }
    return x;
}

TEST(SimpleC, ProductsMatchDoubleLoops) {
    std::mt19937 rng(freshSeed());
    const int n = std::uniform_int_distribution<int>(3, 60)(rng);
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    const std::vector<float> a = randomVector(nn, rng);
    const std::vector<float> b = randomVector(nn, rng);
    const std::vector<float> x = randomVector(static_cast<std::size_t>(n), rng);
    std::vector<float> y(static_cast<std::size_t>(n)), yt(y.size()), c(nn), ct(nn), cp(nn), s(nn);
    simple::matVec(a.data(), x.data(), y.data(), n);
    simple::matTVec(a.data(), x.data(), yt.data(), n);
    simple::matMat(a.data(), b.data(), c.data(), n);
    simple::matTMat(a.data(), b.data(), ct.data(), n);
    simple::copy(a.data(), cp.data(), n * n);
    simple::add(a.data(), b.data(), s.data(), n * n);
    const auto at = [&](const std::vector<float>& m, int i, int j) {
        return double(m[static_cast<std::size_t>(i) * n + j]);
    };
    for (int i = 0; i < n; ++i) {
        double ref = 0.0, mag = 0.0, reft = 0.0, magt = 0.0;
        for (int k = 0; k < n; ++k) {
            ref += at(a, i, k) * x[k];
            mag += std::abs(at(a, i, k) * x[k]);
            reft += at(a, k, i) * x[k];
            magt += std::abs(at(a, k, i) * x[k]);
        }
        EXPECT_NEAR(y[i], ref, n * kU * mag) << "A x, row " << i;
        EXPECT_NEAR(yt[i], reft, n * kU * magt) << "A^T x, row " << i;
        for (int j = 0; j < n; ++j) {
            double r = 0.0, m = 0.0, rt = 0.0, mt = 0.0;
            for (int k = 0; k < n; ++k) {
                r += at(a, i, k) * at(b, k, j);
                m += std::abs(at(a, i, k) * at(b, k, j));
                rt += at(a, k, i) * at(b, k, j);
                mt += std::abs(at(a, k, i) * at(b, k, j));
            }
            ASSERT_NEAR(at(c, i, j), r, n * kU * m) << "A B (" << i << ", " << j << ")";
            ASSERT_NEAR(at(ct, i, j), rt, n * kU * mt) << "A^T B (" << i << ", " << j << ")";
            ASSERT_EQ(at(cp, i, j), at(a, i, j));
            ASSERT_NEAR(at(s, i, j), at(a, i, j) + at(b, i, j),
                        kU * std::abs(at(a, i, j) + at(b, i, j)));
        }
    }
}

TEST(SimpleC, ConjugateGradientsAndProjectedJacobiReachTheDirectSolution) {
    std::mt19937 rng(freshSeed());
    const int n = std::uniform_int_distribution<int>(5, 80)(rng);
    const std::vector<float> a = spdMatrix(n, rng);
    const std::vector<float> b = randomVector(static_cast<std::size_t>(n), rng);
    // A x = b; projected Jacobi solves A x + b' = 0 with b' = -b and infinite bounds.
    const std::vector<double> ref = directSolve(a, b, n);
    double scale = 0.0;
    for (double v : ref) {
        scale = std::max(scale, std::abs(v));
    }
    std::vector<float> x(static_cast<std::size_t>(n));
    simple::conjugateGradients(a.data(), b.data(), x.data(), n, 2 * n);
    for (int i = 0; i < n; ++i) {
        EXPECT_NEAR(x[i], ref[i], 1e-4 * scale) << "CG, i " << i;
    }
    std::vector<float> minusB(b.size()), lo(b.size(), -std::numeric_limits<float>::infinity()),
        hi(b.size(), std::numeric_limits<float>::infinity());
    for (std::size_t i = 0; i < b.size(); ++i) {
        minusB[i] = -b[i];
    }
    // Jacobi with omega = 1 contracts by at most n / 2n = 1/2 per sweep here: 60 sweeps reach
    // float precision.
    simple::projectedJacobi(a.data(), minusB.data(), lo.data(), hi.data(), 1.0f, x.data(), n, 60);
    for (int i = 0; i < n; ++i) {
        EXPECT_NEAR(x[i], ref[i], 1e-4 * scale) << "projected Jacobi, i " << i;
    }
    // With bounds [0, inf) the result must satisfy them.
    std::vector<float> zero(b.size(), 0.0f);
    simple::projectedJacobi(a.data(), minusB.data(), zero.data(), hi.data(), 1.0f, x.data(), n, 60);
    for (int i = 0; i < n; ++i) {
        EXPECT_GE(x[i], 0.0f) << "i " << i;
    }
}

}  // namespace
}  // namespace ww::bench
