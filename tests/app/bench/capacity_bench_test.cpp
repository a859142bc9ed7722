// The capacity suite's search (app/bench/capacity_bench.h) as pure functions: the largest size
// within a budget against a brute-force scan of the same cost, the p95 early stop against
// stats.h's quantile, and the limits' errors. No timing is measured.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "app/bench/capacity_bench.h"
#include "app/bench/stats.h"
#include "support/seed.h"

namespace ww {
namespace {

/// The reference: scan every size from minSize up.
int bruteForceLargest(int minSize, int maxSize, double budget, const std::vector<double>& cost) {
    int largest = 0;
    for (int s = minSize; s <= maxSize; ++s) {
        if (cost[static_cast<std::size_t>(s)] <= budget) {
            largest = s;
        }
    }
    return largest;
}

TEST(CapacitySearch, FindsTheBruteForceLargestSizeOfRandomIncreasingCosts) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("WAVEWALL_TEST_SEED=" + std::to_string(seed));
    std::mt19937 rng(seed);
    for (int trial = 0; trial < 2000; ++trial) {
        const int minSize = std::uniform_int_distribution<int>(1, 40)(rng);
        const int maxSize = minSize + std::uniform_int_distribution<int>(0, 300)(rng);
        const double growth = std::uniform_real_distribution<double>(1.05, 3.0)(rng);
        // A strictly increasing cost with random steps; the budget anywhere from below the
        // smallest size's cost to above the largest's, and half the time exactly one size's
        // cost (a size whose cost equals the budget holds).
        std::vector<double> cost(static_cast<std::size_t>(maxSize) + 1, 0.0);
        double c = std::uniform_real_distribution<double>(0.1, 5.0)(rng);
        for (int s = 1; s <= maxSize; ++s) {
            c += std::uniform_real_distribution<double>(0.01, 2.0)(rng);
            cost[static_cast<std::size_t>(s)] = c;
        }
        const int at = std::uniform_int_distribution<int>(minSize, maxSize)(rng);
        const double budget = trial % 2 == 0
                                  ? cost[static_cast<std::size_t>(at)]
                                  : std::uniform_real_distribution<double>(
                                        cost[static_cast<std::size_t>(minSize)] - 3.0,
                                        cost[static_cast<std::size_t>(maxSize)] + 3.0)(rng);
        std::multiset<int> measured;
        const bench::CapacityResult r =
            bench::largestWithinBudget(minSize, maxSize, growth, budget, [&](int s) {
                EXPECT_GE(s, minSize);
                EXPECT_LE(s, maxSize);
                measured.insert(s);
                return cost[static_cast<std::size_t>(s)];
            });
        const int expected = bruteForceLargest(minSize, maxSize, budget, cost);
        ASSERT_EQ(r.largest, expected)
            << "trial " << trial << ": sizes [" << minSize << ", " << maxSize << "], growth "
            << growth << ", budget " << budget;
        // The first size over budget is the one after the largest (none: the bound held).
        const int firstOver = expected == maxSize ? 0 : (expected == 0 ? minSize : expected + 1);
        EXPECT_EQ(r.firstOver, firstOver) << "trial " << trial;
        // Each size measured once, and the probes list them in that order with their cost.
        ASSERT_EQ(r.probes.size(), measured.size());
        for (const bench::CapacityProbe& p : r.probes) {
            EXPECT_EQ(measured.count(p.size), 1u) << "size " << p.size << " measured twice";
            EXPECT_EQ(p.costMs, cost[static_cast<std::size_t>(p.size)]);
        }
        // Geometric growth then bisection: the growth phase takes at most
        // log_growth(max/min) + (steps where +1 beats the growth) probes, the bisection
        // log2 of the last gap; a linear scan would take up to 300.
        const double bound =
            std::ceil(std::log(static_cast<double>(maxSize) / minSize) / std::log(growth)) +
            1.0 / (growth - 1.0) + std::log2(maxSize) + 3.0;
        EXPECT_LE(static_cast<double>(r.probes.size()), bound) << "trial " << trial;
    }
}

TEST(CapacitySearch, EdgesNoneHoldsAllHoldAndOneSize) {
    const auto costOf = [](double c) { return [c](int) { return c; }; };
    bench::CapacityResult r = bench::largestWithinBudget(10, 100, 1.414, 16.7, costOf(17.0));
    EXPECT_EQ(r.largest, 0);
    EXPECT_EQ(r.firstOver, 10);
    EXPECT_EQ(r.probes.size(), 1u);

    r = bench::largestWithinBudget(10, 100, 1.414, 16.7, costOf(16.7));  // equal holds
    EXPECT_EQ(r.largest, 100);
    EXPECT_EQ(r.firstOver, 0);
    // 10, 14, 20, 28, 40, 57, 81, 100 (capped at the bound).
    ASSERT_EQ(r.probes.size(), 8u);
    EXPECT_EQ(r.probes[1].size, 14);
    EXPECT_EQ(r.probes[2].size, 20);
    EXPECT_EQ(r.probes[7].size, 100);

    r = bench::largestWithinBudget(7, 7, 2.0, 1.0, costOf(0.5));
    EXPECT_EQ(r.largest, 7);
    EXPECT_EQ(r.probes.size(), 1u);
}

TEST(CapacitySearch, P95StopsExactlyWhenTheRemainingStepsCannotBringItUnderBudget) {
    // For every run length and count of over-budget steps: the p95 (stats.h's quantile) of the
    // run whose other steps all take 0 ms and whose over-budget steps are barely over is the
    // lowest p95 any run with that many over-budget steps can have; p95Exceeds says "over"
    // exactly when even that one is over.
    const double budget = 16.7;
    const double barelyOver = budget * (1.0 + 1e-9);
    for (int planned = 1; planned <= 400; ++planned) {
        for (int over = 0; over <= planned; ++over) {
            std::vector<double> steps(static_cast<std::size_t>(planned), 0.0);
            std::fill(steps.begin(), steps.begin() + over, barelyOver);
            const bool lowestOver = bench::quantile(steps, 0.95) > budget;
            ASSERT_EQ(bench::p95Exceeds(over, planned), lowestOver)
                << over << " of " << planned << " steps over budget";
        }
    }
    EXPECT_FALSE(bench::p95Exceeds(0, 0));
}

TEST(CapacityLimits, NonsensicalLimitsAreInputErrorsNamingTheFlag) {
    const bench::CapacityLimits defaults;
    EXPECT_TRUE(bench::checkCapacityLimits(defaults).ok());
    for (double ms : {0.0, -16.7, std::numeric_limits<double>::quiet_NaN(),
                      std::numeric_limits<double>::infinity()}) {
        bench::CapacityLimits l;
        l.frameMs = ms;
        const Status s = bench::checkCapacityLimits(l);
        ASSERT_FALSE(s.ok()) << ms;
        EXPECT_EQ(s.error().kind, ErrorKind::kInput);
        EXPECT_NE(s.error().message.find("--frame-ms"), std::string::npos) << s.error().message;
    }
    bench::CapacityLimits l;
    l.maxBricks = 2 * bench::kCapacityMinRows * bench::kCapacityMinRows - 1;  // 199
    Status s = bench::checkCapacityLimits(l);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("--max-bricks 199 is below the capacity search's smallest "
                                     "wall (20x10 = 200 bricks)"),
              std::string::npos)
        << s.error().message;
    l.maxBricks = 200;
    EXPECT_TRUE(bench::checkCapacityLimits(l).ok());
    l.maxGrid = bench::kCapacityMinGrid - 1;
    s = bench::checkCapacityLimits(l);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("--max-grid 63 is below"), std::string::npos)
        << s.error().message;
    l.maxGrid = bench::kCapacityMinGrid;
    EXPECT_TRUE(bench::checkCapacityLimits(l).ok());
}

}  // namespace
}  // namespace ww
