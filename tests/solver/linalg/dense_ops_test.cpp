// The CPU operation set against double-precision references on random data (fixed seeds and
// a fresh one), at sizes that exercise the SIMD bodies, their tails and the threaded path.
//
// Tolerances: a float result of an elementwise op is within 2 ulp-ish of the double value
// (relative 1e-6 of the operands' magnitude); a dot product or matrix product of length k
// with O(1) entries accumulates rounding growing like sqrt(k) * eps for random signs, bounded
// here by k * eps * sum|a_i b_i| / k-style: tol = 4 * k * 1.2e-7 * (sum |a_i b_i|) / k.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "random_data.h"
#include "solver/linalg/dense.h"
#include "support/executor.h"
#include "support/seed.h"

namespace ww::linalg {
namespace {

using test::dotTolerance;
using test::kEps;
using test::randomMatrix;
using test::randomVector;

void checkElementwise(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    const auto a = randomVector(n, rng), b = randomVector(n, rng), c = randomVector(n, rng),
               d = randomVector(n, rng);
    const float s = 0.37f;
    Vector y(n);
    const std::string what = "n " + std::to_string(n) + " seed " + std::to_string(seed);
    auto expectAll = [&](auto ref, const char* op) {
        for (std::size_t i = 0; i < n; ++i) {
            const double r = ref(i);
            ASSERT_NEAR(y[i], r, 4 * kEps * (1.0 + std::abs(r))) << op << " " << what << " i " << i;
        }
    };
    copy(a, y);
    expectAll([&](std::size_t i) { return double(a[i]); }, "copy");
    add(a, b, y);
    expectAll([&](std::size_t i) { return double(a[i]) + b[i]; }, "add");
    y = c;
    accumulate(a, y);
    expectAll([&](std::size_t i) { return double(c[i]) + a[i]; }, "accumulate");
    scale(a, s, y);
    expectAll([&](std::size_t i) { return double(s) * a[i]; }, "scale");
    maxScalar(a, 0.1f, y);
    expectAll([&](std::size_t i) { return std::max(double(a[i]), 0.1); }, "max");
    y = c;
    mad(a, s, y);
    expectAll([&](std::size_t i) { return double(c[i]) + double(s) * a[i]; }, "mad");
    madTo(a, b, s, y);
    expectAll([&](std::size_t i) { return double(a[i]) + double(s) * b[i]; }, "madTo");
    y = c;
    madElem(a, b, y);
    expectAll([&](std::size_t i) { return double(c[i]) + double(a[i]) * b[i]; }, "madElem");
    madad(a, b, c, d, y);
    expectAll([&](std::size_t i) { return double(a[i]) + (double(b[i]) + c[i]) * d[i]; }, "madad");
    double dref = 0, dabs = 0, nref = 0;
    for (std::size_t i = 0; i < n; ++i) {
        dref += double(a[i]) * b[i];
        dabs += std::abs(double(a[i]) * b[i]);
        nref += double(a[i]) * a[i];
    }
    EXPECT_NEAR(dot(a, b), dref, dotTolerance(dabs, n)) << what;
    EXPECT_NEAR(norm2(a), nref, dotTolerance(nref, n)) << what;
}

TEST(DenseOps, ElementwiseAndReductionsMatchDouble) {
    for (std::size_t n : {1u, 3u, 16u, 17u, 1000u, 4099u}) {
        checkElementwise(n, 3u + static_cast<unsigned>(n));
    }
    const unsigned seed = ww::test::freshSeed();
    checkElementwise(1 + seed % 5000u, seed);
}

void checkProducts(int r, int k, int c, unsigned seed) {
    std::mt19937 rng(seed);
    const std::string what = std::to_string(r) + "x" + std::to_string(k) + "x" + std::to_string(c) +
                             " seed " + std::to_string(seed);
    const auto a = randomMatrix(r, k, rng);
    const auto x = randomVector(static_cast<std::size_t>(k), rng);
    const auto xt = randomVector(static_cast<std::size_t>(r), rng);
    Vector y(static_cast<std::size_t>(r)), ys(static_cast<std::size_t>(r)),
        yt(static_cast<std::size_t>(k));
    matVec(*ww::test::executor(), a, x, y);
    matVecScalar(a.data.data(), r, k, x.data(), ys.data());
    matTVec(*ww::test::executor(), a, xt, yt);
    for (int i = 0; i < r; ++i) {
        double ref = 0, abs = 0;
        for (int j = 0; j < k; ++j) {
            ref += double(a(i, j)) * x[static_cast<std::size_t>(j)];
            abs += std::abs(double(a(i, j)) * x[static_cast<std::size_t>(j)]);
        }
        const auto ui = static_cast<std::size_t>(i);
        ASSERT_NEAR(y[ui], ref, dotTolerance(abs, static_cast<std::size_t>(k))) << what;
        // SIMD and scalar reference paths: both within the bound of the double value.
        ASSERT_NEAR(ys[ui], ref, dotTolerance(abs, static_cast<std::size_t>(k))) << what;
    }
    for (int j = 0; j < k; ++j) {
        double ref = 0, abs = 0;
        for (int i = 0; i < r; ++i) {
            ref += double(a(i, j)) * xt[static_cast<std::size_t>(i)];
            abs += std::abs(double(a(i, j)) * xt[static_cast<std::size_t>(i)]);
        }
        ASSERT_NEAR(yt[static_cast<std::size_t>(j)], ref,
                    dotTolerance(abs, static_cast<std::size_t>(r)))
            << what;
    }
    const auto b = randomMatrix(k, c, rng);
    const auto bt = randomMatrix(r, c, rng);
    Matrix m, mt;
    matMat(*ww::test::executor(), a, b, m);
    matTMat(*ww::test::executor(), a, bt, mt);
    ASSERT_EQ(m.rows, r);
    ASSERT_EQ(mt.rows, k);
    for (int i = 0; i < r; ++i) {
        for (int j = 0; j < c; ++j) {
            double ref = 0, abs = 0;
            for (int l = 0; l < k; ++l) {
                ref += double(a(i, l)) * b(l, j);
                abs += std::abs(double(a(i, l)) * b(l, j));
            }
            ASSERT_NEAR(m(i, j), ref, dotTolerance(abs, static_cast<std::size_t>(k))) << what;
        }
    }
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < c; ++j) {
            double ref = 0, abs = 0;
            for (int l = 0; l < r; ++l) {
                ref += double(a(l, i)) * bt(l, j);
                abs += std::abs(double(a(l, i)) * bt(l, j));
            }
            ASSERT_NEAR(mt(i, j), ref, dotTolerance(abs, static_cast<std::size_t>(r))) << what;
        }
    }
}

TEST(DenseOps, ProductsMatchDouble) {
    checkProducts(1, 1, 1, 1u);
    checkProducts(5, 3, 2, 2u);
    checkProducts(37, 19, 23, 3u);
    checkProducts(130, 260, 17, 4u);
    checkProducts(600, 530, 9, 5u);  // threaded matVec / matTVec
    const unsigned seed = ww::test::freshSeed();
    std::mt19937 rng(seed);
    checkProducts(1 + static_cast<int>(rng() % 700u), 1 + static_cast<int>(rng() % 300u),
                  1 + static_cast<int>(rng() % 40u), seed);
}

TEST(DenseOps, ShapeCheckNamesTheSizes) {
    EXPECT_TRUE(checkMatVec(3, 4, 4, 3).empty());
    const auto msg = checkMatVec(3, 4, 5, 3);
    EXPECT_NE(msg.find("3x4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("x has 5"), std::string::npos) << msg;
}

}  // namespace
}  // namespace ww::linalg
