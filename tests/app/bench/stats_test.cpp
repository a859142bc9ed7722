// app/bench/stats.h against closed forms: the samples 1..n in a fresh random order, whose
// type-7 quantile is 1 + q (n - 1) exactly. Tolerances: every expected value is an integer or
// a half or a few hundredths of one, computed in double from exact small integers, so 1e-12
// only allows the rounding of q (n - 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "app/bench/bench.h"
#include "app/bench/stats.h"
#include "bench_test_support.h"

namespace ww::bench {
namespace {

constexpr double kTol = 1e-12;

// 1, 2, ..., n shuffled with `seed`: the statistics must not depend on the input order.
std::vector<double> shuffledOneTo(int n, unsigned seed) {
    std::vector<double> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 1.0);
    std::mt19937 rng(seed);
    std::shuffle(v.begin(), v.end(), rng);
    return v;
}

TEST(BenchStats, MedianOfAnOddCountIsTheMiddleSample) {
    const unsigned seed = freshSeed();
    EXPECT_NEAR(median(shuffledOneTo(1, seed)), 1.0, kTol);
    EXPECT_NEAR(median(shuffledOneTo(5, seed)), 3.0, kTol);
    EXPECT_NEAR(median(shuffledOneTo(101, seed)), 51.0, kTol);
}

TEST(BenchStats, MedianOfAnEvenCountIsTheMeanOfTheTwoMiddleSamples) {
    const unsigned seed = freshSeed();
    EXPECT_NEAR(median(shuffledOneTo(2, seed)), 1.5, kTol);
    EXPECT_NEAR(median(shuffledOneTo(6, seed)), 3.5, kTol);
    EXPECT_NEAR(median(shuffledOneTo(100, seed)), 50.5, kTol);
    EXPECT_NEAR(median({7.0, -1.0, 3.0, 100.0}), 5.0, kTol);
}

TEST(BenchStats, PercentilesOfOneToHundredInterpolateBetweenRanks) {
    const std::vector<double> v = shuffledOneTo(100, freshSeed());
    // Type 7: position 1 + p/100 * 99 among 1..100.
    EXPECT_NEAR(percentile(v, 0.0), 1.0, kTol);
    EXPECT_NEAR(percentile(v, 25.0), 25.75, kTol);
    EXPECT_NEAR(percentile(v, 50.0), 50.5, kTol);
    EXPECT_NEAR(percentile(v, 95.0), 95.05, kTol);
    EXPECT_NEAR(percentile(v, 99.0), 99.01, kTol);
    EXPECT_NEAR(percentile(v, 100.0), 100.0, kTol);
    for (int p = 0; p <= 100; ++p) {
        EXPECT_NEAR(percentile(v, p), 1.0 + 0.99 * p, kTol) << "p = " << p;
        EXPECT_NEAR(quantile(v, p / 100.0), percentile(v, p), kTol) << "p = " << p;
    }
}

TEST(BenchStats, QuantilesOutsideZeroToOneClampToTheExtremes) {
    const std::vector<double> v = shuffledOneTo(10, freshSeed());
    EXPECT_NEAR(quantile(v, -0.5), 1.0, kTol);
    EXPECT_NEAR(quantile(v, 1.5), 10.0, kTol);
}

TEST(BenchStats, EmptyInputGivesZero) {
    EXPECT_EQ(median({}), 0.0);
    EXPECT_EQ(quantile({}, 0.95), 0.0);
    EXPECT_EQ(percentile({}, 50.0), 0.0);
}

// medianMs times each call after one warm-up call: f runs repeats + 1 times, and the median
// of non-negative times is non-negative.
TEST(BenchStats, MedianMsCallsOnceToWarmUpThenRepeatsTimes) {
    const int repeats = 1 + static_cast<int>(freshSeed() % 7u);
    int calls = 0;
    const double ms = medianMs(repeats, [&] { ++calls; });
    EXPECT_EQ(calls, repeats + 1);
    EXPECT_GE(ms, 0.0);
}

}  // namespace
}  // namespace ww::bench
