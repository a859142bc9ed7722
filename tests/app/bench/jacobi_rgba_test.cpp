// app/bench/jacobi_rgba.h: Göddeke's RGBA layout solves four systems at once and must give
// the same four iterates as four single-channel solves. Reference: BandedOperator's
// jacobiSweepReference (each sweep in double, stored in float) run per channel, on fresh
// random nine-banded Q1 systems (random alpha per channel), right-hand sides and start vectors.
//
// Tolerance: one float sweep of row i differs from the exact sweep of the same input by at
// most (bands + 3) u (|x_i| + |1/a_ii| (|b_i| + sum_j |a_ij x_j|)) (a sum of bands + 1 terms,
// a multiply-add and the rounding of 1/a_ii; Higham 3.1); the reference adds u |x_i| by
// storing in float. The Jacobi iteration matrix I - D^-1 A has infinity norm
// (8 alpha / 3) / (1 + 8 alpha / 3) < 1 for these systems, so earlier sweeps' errors shrink
// and k sweeps stay within k times the largest one-sweep bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "app/bench/jacobi_rgba.h"
#include "bench_test_support.h"
#include "support/executor.h"
#include "tests/support/gpu_fixture.h"

namespace ww::bench {
namespace {

constexpr double kU = 0x1.0p-24;
constexpr int kSweeps = 7;

struct Case {
    std::array<cg::BandedOperator, 4> ops;
    std::array<std::vector<float>, 4> rhs;
    std::array<std::vector<float>, 4> x0;
    std::array<std::vector<float>, 4> expected;  ///< kSweeps reference sweeps per channel
    std::array<double, 4> tolerance{};
};

Case makeCase(std::mt19937& rng) {
    const int nx = std::uniform_int_distribution<int>(5, 40)(rng);
    const int ny = std::uniform_int_distribution<int>(5, 40)(rng);
    std::uniform_real_distribution<float> alpha(0.2f, 3.0f);
    Case k{{cg::BandedOperator::nineBandedQ1(nx, ny, alpha(rng)),
            cg::BandedOperator::nineBandedQ1(nx, ny, alpha(rng)),
            cg::BandedOperator::nineBandedQ1(nx, ny, alpha(rng)),
            cg::BandedOperator::nineBandedQ1(nx, ny, alpha(rng))},
           {},
           {},
           {},
           {}};
    const std::size_t n = k.ops[0].size();
    for (int c = 0; c < kChannels; ++c) {
        const cg::BandedOperator& op = k.ops[c];
        k.rhs[c] = randomVector(n, rng);
        k.x0[c] = randomVector(n, rng);
        std::vector<float> x = k.x0[c];
        std::vector<float> next(n);
        const std::vector<float> inv = op.inverseDiagonal();
        double worst = 0.0;
        for (int s = 0; s < kSweeps; ++s) {
            for (std::size_t i = 0; i < n; ++i) {
                double absAx = 0.0;
                for (std::size_t d = 0; d < op.offsets().size(); ++d) {
                    const long j = static_cast<long>(i) + op.offsets()[d];
                    if (j >= 0 && j < static_cast<long>(n)) {
                        absAx += std::abs(double(op.band(d)[i]) * x[static_cast<std::size_t>(j)]);
                    }
                }
                worst = std::max(
                    worst, std::abs(double(x[i])) +
                               std::abs(double(inv[i])) * (std::abs(double(k.rhs[c][i])) + absAx));
            }
            op.jacobiSweepReference(k.rhs[c].data(), x.data(), next.data());
            std::swap(x, next);
        }
        k.expected[c] = x;
        k.tolerance[c] = kSweeps * double(op.offsets().size() + 4) * kU * worst;
    }
    return k;
}

TEST(JacobiRgba, CpuRgbaSweepsGiveTheFourSingleChannelIterates) {
    std::mt19937 rng(freshSeed());
    for (int trial = 0; trial < 3; ++trial) {
        const Case k = makeCase(rng);
        auto sys = RgbaBandedSystems::interleave(k.ops, k.rhs);
        ASSERT_TRUE(sys) << sys.error().message;
        std::vector<float> x = interleave(k.x0);
        std::vector<float> next(x.size());
        for (int s = 0; s < kSweeps; ++s) {
            sys->jacobiSweep(*test::executor(), x.data(), next.data());
            std::swap(x, next);
        }
        for (int c = 0; c < kChannels; ++c) {
            const std::vector<float> got = channel(x, c);
            for (std::size_t i = 0; i < got.size(); ++i) {
                ASSERT_NEAR(got[i], k.expected[c][i], k.tolerance[c])
                    << "channel " << c << " i " << i;
            }
        }
    }
}

TEST(JacobiRgba, GpuRgbaSweepsGiveTheFourSingleChannelIterates) {
    WW_REQUIRE_GPU();
    const gpu::ShaderLibrary library;
    std::mt19937 rng(freshSeed());
    for (int trial = 0; trial < 3; ++trial) {
        const Case k = makeCase(rng);
        auto sys = RgbaBandedSystems::interleave(k.ops, k.rhs);
        ASSERT_TRUE(sys) << sys.error().message;
        auto jac = GpuRgbaJacobi::create(library, *sys, interleave(k.x0));
        ASSERT_TRUE(jac) << jac.error().message;
        ASSERT_TRUE(jac->run(kSweeps));
        const std::vector<float> x = jac->solution();
        for (int c = 0; c < kChannels; ++c) {
            const std::vector<float> got = channel(x, c);
            for (std::size_t i = 0; i < got.size(); ++i) {
                ASSERT_NEAR(got[i], k.expected[c][i], k.tolerance[c])
                    << "channel " << c << " i " << i;
            }
        }
    }
}

TEST(JacobiRgba, SystemsOfDifferentShapesAreAnInputError) {
    std::mt19937 rng(freshSeed());
    const std::array<cg::BandedOperator, 4> ops = {
        cg::BandedOperator::nineBandedQ1(8, 8, 1.0f), cg::BandedOperator::nineBandedQ1(8, 8, 1.0f),
        cg::BandedOperator::nineBandedQ1(8, 9, 1.0f), cg::BandedOperator::nineBandedQ1(8, 8, 1.0f)};
    const std::array<std::vector<float>, 4> rhs = {randomVector(64, rng), randomVector(64, rng),
                                                   randomVector(72, rng), randomVector(64, rng)};
    auto sys = RgbaBandedSystems::interleave(ops, rhs);
    ASSERT_FALSE(sys);
    EXPECT_EQ(sys.error().kind, ErrorKind::kInput);
    EXPECT_NE(sys.error().message.find("system 2"), std::string::npos) << sys.error().message;
}

}  // namespace
}  // namespace ww::bench
