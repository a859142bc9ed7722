// The GPU operation set against double-precision references on random data, the row-block
// packing, and the error reporting for shapes and limits. Sizes are modest (llvmpipe).
// Tolerances as in dense_ops_test.cpp: 2 k eps sum|terms| for sums of k products (GPU fma
// and summation order differ from the CPU's, but the a-priori bound holds for any order).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "random_data.h"
#include "solver/gpu/shader_library.h"
#include "solver/linalg/gpu_dense.h"
#include "solver/linalg/gpu_layout.h"
#include "support/gpu_fixture.h"
#include "support/seed.h"

namespace ww::linalg {
namespace {

using test::dotTolerance;
using test::kEps;
using test::randomMatrix;
using test::randomVector;

GpuOps& ops() {
    static gpu::ShaderLibrary shaders;
    static GpuOps o = [] {
        auto r = GpuOps::create(shaders);
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
        return r.ok() ? std::move(r).value() : GpuOps{};
    }();
    return o;
}

GpuVector up(const Vector& v) {
    auto g = GpuVector::fromHost(v);
    EXPECT_TRUE(g.ok());
    return std::move(g).value();
}

GpuMatrix up(const Matrix& m) {
    auto g = GpuMatrix::fromHost(m);
    EXPECT_TRUE(g.ok());
    return std::move(g).value();
}

TEST(LinalgLayout, PackRoundTripAndIndex) {
    std::mt19937 rng(1);
    for (auto [r, c] : {std::pair{1, 1}, {5, 3}, {8, 2}, {13, 7}}) {
        const auto m = randomMatrix(r, c, rng);
        std::vector<float> packed(gpuMatrixFloats(r, c), -1.0f);
        packRowBlocks(m.data.data(), r, c, packed.data());
        for (int i = 0; i < r; ++i) {
            for (int j = 0; j < c; ++j) {
                // texel (i/4, j) at j * rowBlocks + i/4, lane i % 4
                const std::size_t idx =
                    (static_cast<std::size_t>(j) * rowBlocksOf(r) + i / 4) * 4 + i % 4;
                ASSERT_EQ(packed[idx], m(i, j));
            }
        }
        Matrix back(r, c);
        unpackRowBlocks(packed.data(), r, c, back.data.data());
        EXPECT_EQ(back.data, m.data);
        // Padding lanes of the last row block are zero.
        for (int j = 0; j < c; ++j) {
            for (int i = r; i < rowBlocksOf(r) * 4; ++i) {
                EXPECT_EQ(packed[gpuIndex(rowBlocksOf(r), i, j)], 0.0f);
            }
        }
    }
}

void checkElementwise(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    const auto a = randomVector(n, rng), b = randomVector(n, rng), c = randomVector(n, rng),
               d = randomVector(n, rng);
    auto ga = up(a), gb = up(b), gc = up(c), gd = up(d);
    auto gy = GpuVector::create(static_cast<int>(n)).value();
    auto result = GpuVector::create(1).value();
    const float s = -0.61f;
    const std::string what = "n " + std::to_string(n) + " seed " + std::to_string(seed);
    auto expect = [&](auto ref, const char* op) {
        const auto y = gy.download();
        for (std::size_t i = 0; i < n; ++i) {
            const double r = ref(i);
            ASSERT_NEAR(y[i], r, 4 * kEps * (1.0 + std::abs(r))) << op << " " << what;
        }
    };
    ASSERT_TRUE(ops().copy(ga, gy));
    expect([&](std::size_t i) { return double(a[i]); }, "copy");
    ASSERT_TRUE(ops().add(ga, gb, gy));
    expect([&](std::size_t i) { return double(a[i]) + b[i]; }, "add");
    ASSERT_TRUE(ops().accumulate(gc, gy));
    expect([&](std::size_t i) { return double(a[i]) + b[i] + c[i]; }, "accumulate");
    ASSERT_TRUE(ops().scale(ga, s, gy));
    expect([&](std::size_t i) { return double(s) * a[i]; }, "scale");
    ASSERT_TRUE(ops().maxScalar(ga, 0.2f, gy));
    expect([&](std::size_t i) { return std::max(double(a[i]), 0.2); }, "max");
    ASSERT_TRUE(ops().copy(gc, gy));
    ASSERT_TRUE(ops().mad(ga, s, gy));
    expect([&](std::size_t i) { return double(c[i]) + double(s) * a[i]; }, "mad");
    ASSERT_TRUE(ops().madTo(ga, gb, s, gy));
    expect([&](std::size_t i) { return double(a[i]) + double(s) * b[i]; }, "madTo");
    ASSERT_TRUE(ops().copy(gc, gy));
    ASSERT_TRUE(ops().madElem(ga, gb, gy));
    expect([&](std::size_t i) { return double(c[i]) + double(a[i]) * b[i]; }, "madElem");
    ASSERT_TRUE(ops().madad(ga, gb, gc, gd, gy));
    expect([&](std::size_t i) { return double(a[i]) + (double(b[i]) + c[i]) * d[i]; }, "madad");
    double dref = 0, dabs = 0, nref = 0;
    for (std::size_t i = 0; i < n; ++i) {
        dref += double(a[i]) * b[i];
        dabs += std::abs(double(a[i]) * b[i]);
        nref += double(a[i]) * a[i];
    }
    ASSERT_TRUE(ops().dot(ga, gb, result));
    EXPECT_NEAR(result.download()[0], dref, dotTolerance(dabs, n)) << what;
    ASSERT_TRUE(ops().norm2(ga, result));
    EXPECT_NEAR(result.download()[0], nref, dotTolerance(nref, n)) << what;
}

TEST(GpuDense, ElementwiseAndDotMatchDouble) {
    WW_REQUIRE_GPU();
    for (std::size_t n : {1u, 6u, 257u, 5000u}) {
        checkElementwise(n, 9u + static_cast<unsigned>(n));
    }
    const unsigned seed = ww::test::freshSeed();
    checkElementwise(1 + seed % 3000u, seed);
}

void checkProducts(int r, int k, int c, unsigned seed) {
    std::mt19937 rng(seed);
    const std::string what = std::to_string(r) + "x" + std::to_string(k) + "x" + std::to_string(c) +
                             " seed " + std::to_string(seed);
    const auto a = randomMatrix(r, k, rng);
    const auto x = randomVector(static_cast<std::size_t>(k), rng);
    const auto xt = randomVector(static_cast<std::size_t>(r), rng);
    const auto b = randomMatrix(k, c, rng);
    const auto bt = randomMatrix(r, c, rng);
    auto ga = up(a);
    auto gx = up(x), gxt = up(xt);
    auto gy = GpuVector::create(r).value();
    auto gyt = GpuVector::create(k).value();
    auto gb = up(b), gbt = up(bt);
    auto gc = GpuMatrix::create(r, c).value();
    auto gct = GpuMatrix::create(k, c).value();
    ASSERT_TRUE(ops().matVec(ga, gx, gy));
    ASSERT_TRUE(ops().matTVec(ga, gxt, gyt));
    ASSERT_TRUE(ops().matMat(ga, gb, gc));
    ASSERT_TRUE(ops().matTMat(ga, gbt, gct));
    const auto y = gy.download(), yt = gyt.download();
    const auto m = gc.download(), mt = gct.download();
    // A x: every row checked before failing, so that a driver's wrong rows show as a pattern
    // (which rows, how many, zeros or garbage) rather than as the first one alone.
    std::ostringstream badRows;
    int bad = 0;
    for (int i = 0; i < r; ++i) {
        double ref = 0, abs = 0;
        for (int j = 0; j < k; ++j) {
            ref += double(a(i, j)) * x[static_cast<std::size_t>(j)];
            abs += std::abs(double(a(i, j)) * x[static_cast<std::size_t>(j)]);
        }
        const float got = y[static_cast<std::size_t>(i)];
        if (!(std::abs(got - ref) <= dotTolerance(abs, k))) {
            if (++bad <= 8) {
                badRows << " [" << i << "] " << got << " vs " << ref;
            }
        }
    }
    ASSERT_EQ(bad, 0) << "Ax " << what << ": " << bad << " of " << r << " rows wrong:" << badRows.str();
    for (int i = 0; i < r; ++i) {
        for (int j = 0; j < c; ++j) {
            double rm = 0, am = 0;
            for (int l = 0; l < k; ++l) {
                rm += double(a(i, l)) * b(l, j);
                am += std::abs(double(a(i, l)) * b(l, j));
            }
            ASSERT_NEAR(m(i, j), rm, dotTolerance(am, k)) << "AB " << what;
        }
    }
    for (int j = 0; j < k; ++j) {
        double ref = 0, abs = 0;
        for (int i = 0; i < r; ++i) {
            ref += double(a(i, j)) * xt[static_cast<std::size_t>(i)];
            abs += std::abs(double(a(i, j)) * xt[static_cast<std::size_t>(i)]);
        }
        ASSERT_NEAR(yt[static_cast<std::size_t>(j)], ref, dotTolerance(abs, r)) << "A^Tx " << what;
        for (int l = 0; l < c; ++l) {
            double rm = 0, am = 0;
            for (int i = 0; i < r; ++i) {
                rm += double(a(i, j)) * bt(i, l);
                am += std::abs(double(a(i, j)) * bt(i, l));
            }
            ASSERT_NEAR(mt(j, l), rm, dotTolerance(am, r)) << "A^TB " << what;
        }
    }
}

TEST(GpuDense, ProductsMatchDouble) {
    WW_REQUIRE_GPU();
    checkProducts(1, 1, 1, 1u);
    checkProducts(5, 3, 2, 2u);
    checkProducts(37, 19, 23, 3u);
    checkProducts(130, 261, 17, 4u);
    const unsigned seed = ww::test::freshSeed();
    std::mt19937 rng(seed);
    checkProducts(1 + static_cast<int>(rng() % 150u), 1 + static_cast<int>(rng() % 150u),
                  1 + static_cast<int>(rng() % 40u), seed);
}

// A x and A^T x on shapes at the kernels' edges: row counts around a row block (4) and a
// workgroup's row blocks (64), column counts around the shared-memory tile of x (256 columns).
// Every shape is checked and the wrong ones listed together, so a driver's failure shows as a
// pattern (vendor compilers differ from Mesa's in what they do at these edges).
TEST(GpuDense, ProductsAtTileEdgesMatchDouble) {
    WW_REQUIRE_GPU();
    const unsigned seed = ww::test::freshSeed();
    std::mt19937 rng(seed);
    std::ostringstream wrong;
    for (int r : {1, 3, 4, 5, 33, 64, 65, 130, 257}) {
        for (int k : {1, 4, 255, 256, 257, 261, 512, 513}) {
            const auto a = randomMatrix(r, k, rng);
            const auto x = randomVector(static_cast<std::size_t>(k), rng);
            const auto xt = randomVector(static_cast<std::size_t>(r), rng);
            auto ga = up(a);
            auto gx = up(x), gxt = up(xt);
            auto gy = GpuVector::create(r).value();
            auto gyt = GpuVector::create(k).value();
            ASSERT_TRUE(ops().matVec(ga, gx, gy));
            ASSERT_TRUE(ops().matTVec(ga, gxt, gyt));
            const auto y = gy.download(), yt = gyt.download();
            int badY = 0, badYt = 0, firstY = -1, firstYt = -1;
            for (int i = 0; i < r; ++i) {
                double ref = 0, abs = 0;
                for (int j = 0; j < k; ++j) {
                    ref += double(a(i, j)) * x[static_cast<std::size_t>(j)];
                    abs += std::abs(double(a(i, j)) * x[static_cast<std::size_t>(j)]);
                }
                if (!(std::abs(y[static_cast<std::size_t>(i)] - ref) <= dotTolerance(abs, k))) {
                    firstY = badY++ == 0 ? i : firstY;
                }
            }
            for (int j = 0; j < k; ++j) {
                double ref = 0, abs = 0;
                for (int i = 0; i < r; ++i) {
                    ref += double(a(i, j)) * xt[static_cast<std::size_t>(i)];
                    abs += std::abs(double(a(i, j)) * xt[static_cast<std::size_t>(i)]);
                }
                if (!(std::abs(yt[static_cast<std::size_t>(j)] - ref) <= dotTolerance(abs, r))) {
                    firstYt = badYt++ == 0 ? j : firstYt;
                }
            }
            if (badY + badYt > 0) {
                wrong << " " << r << "x" << k << " (Ax " << badY << " rows from " << firstY
                      << ", A^Tx " << badYt << " from " << firstYt << ")";
            }
        }
    }
    EXPECT_TRUE(wrong.str().empty()) << "seed " << seed << ", wrong products:" << wrong.str();
}

TEST(GpuDense, ShapeAndLimitErrors) {
    WW_REQUIRE_GPU();
    auto a = GpuMatrix::create(3, 4).value();
    auto x = GpuVector::create(5).value();
    auto y = GpuVector::create(3).value();
    auto s = ops().matVec(a, x, y);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::kInput);
    EXPECT_NE(s.error().message.find("3x4"), std::string::npos) << s.error().message;
    auto c = GpuMatrix::create(3, 3).value();
    s = ops().matMat(a, a, c);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("A 3x4, B 3x4"), std::string::npos) << s.error().message;
    EXPECT_FALSE(ops().add(x, y, x).ok());
    Matrix wrong(2, 2);
    EXPECT_FALSE(a.upload(wrong).ok());
    // 60000 x 60000 floats (14 GB) is beyond any SSBO limit here.
    auto huge = GpuMatrix::create(60000, 60000);
    ASSERT_FALSE(huge.ok());
    EXPECT_EQ(huge.error().kind, ErrorKind::kGpuLimit) << huge.error().message;
}

}  // namespace
}  // namespace ww::linalg
