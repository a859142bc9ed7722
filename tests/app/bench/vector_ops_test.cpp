// app/bench/vector_ops.h (the Table 44-1 operations) against double-precision references on
// fresh random vectors: the CPU and GPU sum, dot product and b <- a + beta b.
//
// Tolerances. A float sum whose terms enter a summation tree of height d has an error of at
// most d u sum|terms| (u = 2^-24, Higham, "Accuracy and Stability of Numerical Algorithms",
// 4.2). CPU: each block of cg::detail::kBlock terms is summed in float (height <= kBlock),
// blocks are added in double, so d = kBlock. GPU (vector_sum.comp, cg_dot.comp): 4 terms per
// invocation, a 256-wide tree (8), a strided pass over the workgroup partials
// (ceil(groups / 256)) and a second 256-wide tree (8), so d = 20 + ceil(groups / 256); the dot
// product adds one rounding per product. b <- a + beta b: one multiply-add, so 2 u |a| + |beta b|
// per element.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "app/bench/vector_ops.h"
#include "bench_test_support.h"
#include "solver/cg/vector_kernels.h"
#include "support/executor.h"
#include "tests/support/gpu_fixture.h"

namespace ww::bench {
namespace {

// Values of both signs and a non-zero mean, so the sum is neither trivially 0 nor dominated
// by cancellation.
std::vector<float> signedVector(std::size_t n, std::mt19937& rng) {
    return randomVector(n, rng, -1.0f, 2.0f);
}

struct Reference {
    double sum = 0.0;
    double absSum = 0.0;
};

Reference sumOf(const std::vector<float>& a) {
    Reference r;
    for (float x : a) {
        r.sum += x;
        r.absSum += std::abs(double(x));
    }
    return r;
}

Reference dotOf(const std::vector<float>& a, const std::vector<float>& b) {
    Reference r;
    for (std::size_t i = 0; i < a.size(); ++i) {
        r.sum += double(a[i]) * double(b[i]);
        r.absSum += std::abs(double(a[i]) * double(b[i]));
    }
    return r;
}

double gpuTreeHeight(std::size_t n) {
    const std::size_t groups = (n + 1023) / 1024;
    return 20.0 + double((groups + 255) / 256) + 1.0;
}

// Sizes that are not multiples of a block or a workgroup, and one spanning many blocks.
std::vector<std::size_t> sizesFor(std::mt19937& rng) {
    return {1, 1000, 4096 + 7, 65536 + std::uniform_int_distribution<std::size_t>(1, 5000)(rng)};
}

TEST(VectorOps, CpuSumMatchesADoubleSum) {
    std::mt19937 rng(freshSeed());
    for (std::size_t n : sizesFor(rng)) {
        const std::vector<float> a = signedVector(n, rng);
        const Reference ref = sumOf(a);
        EXPECT_NEAR(vectorSum(*test::executor(), a), ref.sum,
                    double(cg::detail::kBlock) * kU * ref.absSum)
            << "n = " << n;
    }
}

TEST(VectorOps, CpuDotAndAxpbyMatchDoubleReferences) {
    std::mt19937 rng(freshSeed());
    for (std::size_t n : sizesFor(rng)) {
        const std::vector<float> a = signedVector(n, rng);
        std::vector<float> b = signedVector(n, rng);
        const Reference ref = dotOf(a, b);
        EXPECT_NEAR(vectorDot(*test::executor(), a, b), ref.sum,
                    double(cg::detail::kBlock + 1) * kU * ref.absSum)
            << "n = " << n;
        const std::vector<float> b0 = b;
        vectorAxpby(*test::executor(), a, b, 0.75f);
        for (std::size_t i = 0; i < n; ++i) {
            const double expect = double(a[i]) + 0.75 * double(b0[i]);
            ASSERT_NEAR(b[i], expect, 2.0 * kU * (std::abs(a[i]) + 0.75 * std::abs(b0[i])))
                << "i = " << i;
        }
    }
}

// The GPU sum is the sum of a (not a . a, not a . b), the dot product is a . b (not a . a),
// and the vector-vector op updates b from a: each on the same data as the CPU row.
TEST(VectorOps, GpuSumDotAndAxpbyMatchDoubleReferences) {
    WW_REQUIRE_GPU();
    const gpu::ShaderLibrary library;
    std::mt19937 rng(freshSeed());
    for (std::size_t n : sizesFor(rng)) {
        const std::vector<float> a = signedVector(n, rng);
        const std::vector<float> b = signedVector(n, rng);
        auto ops = GpuVectorOps::create(library, a, b);
        ASSERT_TRUE(ops) << ops.error().message;
        const double height = gpuTreeHeight(n);

        ops->sum();
        const Reference sum = sumOf(a);
        EXPECT_NEAR(ops->readScalar(), sum.sum, height * kU * sum.absSum + kU * std::abs(sum.sum))
            << "n = " << n;

        ops->dot();
        const Reference dot = dotOf(a, b);
        EXPECT_NEAR(ops->readScalar(), dot.sum,
                    (height + 1.0) * kU * dot.absSum + kU * std::abs(dot.sum))
            << "n = " << n;

        ops->axpby(-0.5f);
        const std::vector<float> out = ops->readB();
        ASSERT_EQ(out.size(), n);
        for (std::size_t i = 0; i < n; ++i) {
            const double expect = double(a[i]) - 0.5 * double(b[i]);
            ASSERT_NEAR(out[i], expect, 2.0 * kU * (std::abs(a[i]) + 0.5 * std::abs(b[i])))
                << "i = " << i;
        }
    }
}

TEST(VectorOps, MismatchedLengthsAreAnInputError) {
    WW_REQUIRE_GPU();
    const gpu::ShaderLibrary library;
    const std::vector<float> a(10, 1.0f);
    const std::vector<float> b(11, 1.0f);
    auto ops = GpuVectorOps::create(library, a, b);
    ASSERT_FALSE(ops);
    EXPECT_EQ(ops.error().kind, ErrorKind::kInput);
}

}  // namespace
}  // namespace ww::bench
