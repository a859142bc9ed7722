// The split-or-not policy of parallelFor, driven with made-up job times: it follows the faster
// mode, recovers from a short stall within one re-try, backs off re-tries of a mode that stays
// slower, and does not count split jobs the helper never joined against the split.
#include "solver/linalg/mode_chooser.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

namespace ww::linalg::detail {
namespace {

using Mode = ModeChooser::Mode;

// Times of one job in each mode; jitter of +-10 % from a fresh seed.
struct Machine {
    std::function<double(int job)> split;
    std::function<double(int job)> serial;
    std::function<bool(int job)> helperJoins = [](int) { return true; };
};

struct Trace {
    std::vector<Mode> modes;
    int splits(int from, int to) const {
        int k = 0;
        for (int j = from; j < to; ++j) {
            k += modes[static_cast<std::size_t>(j)] == Mode::kSplit ? 1 : 0;
        }
        return k;
    }
    /// The first job at or after `from` that starts 16 split jobs in a row, or -1.
    int splitStreakFrom(int from) const {
        for (int j = from; j + 16 <= static_cast<int>(modes.size()); ++j) {
            if (splits(j, j + 16) == 16) {
                return j;
            }
        }
        return -1;
    }
};

Trace run(ModeChooser& chooser, const Machine& m, int jobs, std::ptrdiff_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> jitter(0.9, 1.1);
    Trace t;
    for (int j = 0; j < jobs; ++j) {
        const Mode mode = chooser.choose(count);
        const bool split = mode == Mode::kSplit;
        const bool joined = split && m.helperJoins(j);
        // A split job the helper did not join runs at the serial speed, plus the hand-off.
        const double ns = (joined  ? m.split(j)
                           : split ? 1.15 * m.serial(j)
                                   : m.serial(j)) *
                          jitter(rng);
        chooser.record(count, split, joined, ns);
        t.modes.push_back(mode);
    }
    return t;
}

unsigned freshSeed() {
    const unsigned seed = std::random_device{}();
    std::printf("seed %u\n", seed);
    return seed;
}

TEST(ModeChooser, FollowsTheFasterModeAndRetriesTheOtherRarely) {
    const unsigned seed = freshSeed();
    {
        ModeChooser c;
        const Machine fastSplit{[](int) { return 25e3; }, [](int) { return 50e3; }};
        const Trace t = run(c, fastSplit, 5000, 1000, seed);
        EXPECT_GE(t.splits(100, 5000), 4900 - 100) << "seed " << seed;
    }
    {
        ModeChooser c;
        const Machine slowSplit{[](int) { return 80e3; }, [](int) { return 50e3; }};
        const Trace t = run(c, slowSplit, 9000, 1000, seed);
        // Re-tries back off 16, 32, ..., 4096 jobs apart, 4 jobs each: 9 bursts in 9000 jobs.
        EXPECT_LE(t.splits(20, 9000), 9 * 4) << "seed " << seed;
        EXPECT_LE(t.splits(5000, 9000), 2 * 4) << "seed " << seed;
    }
}

TEST(ModeChooser, AStallOfAFewSplitJobsCostsOneRetryPeriodNotThousands) {
    const unsigned seed = freshSeed();
    ModeChooser c;
    // Both vCPUs stall for four jobs at job 500 (20x slower), then the split is fast again.
    const Machine m{[](int j) { return j >= 500 && j < 504 ? 600e3 : 26e3; },
                    [](int) { return 54e3; }};
    const Trace t = run(c, m, 1500, 1000, seed);
    const int back = t.splitStreakFrom(504);
    ASSERT_GE(back, 0) << "never returned to the split, seed " << seed;
    // One re-try period (16 jobs) and its burst (4), plus the jobs it takes the stalled times
    // to leave the split's window of 7.
    EXPECT_LE(back - 504, 40) << "seed " << seed;
}

TEST(ModeChooser, SplitJobsTheHelperMissedDoNotCountAgainstTheSplit) {
    const unsigned seed = freshSeed();
    ModeChooser c;
    // The split looked slow while warming up (job times of 90 us), so the caller works alone;
    // the helper then sleeps through the first three bursts (those jobs run at serial speed
    // and are not evidence), and from job 200 on it joins and the split is twice as fast.
    const Machine m{[](int j) { return j < 12 ? 90e3 : 25e3; }, [](int) { return 50e3; },
                    [](int j) { return j < 12 || j >= 200; }};
    const Trace t = run(c, m, 400, 400, seed);
    const int back = t.splitStreakFrom(200);
    ASSERT_GE(back, 0) << "never returned to the split, seed " << seed;
    // Missed bursts are re-tried 16 jobs later; had they counted, the wait would have doubled
    // to 128 jobs by now.
    EXPECT_LE(back - 200, 16 + 4 + 8) << "seed " << seed;
}

TEST(ModeChooser, KeepsTheHelperReadyOnlyWhenASplitJobIsDue) {
    const unsigned seed = freshSeed();
    // Serial preferred: the helper may sleep, except in the 3 jobs before each split burst.
    ModeChooser c;
    const Machine slowSplit{[](int) { return 80e3; }, [](int) { return 50e3; }};
    const Trace t = run(c, slowSplit, 3000, 400, seed);
    int ready = 0;
    for (std::size_t j = 20; j < t.modes.size(); ++j) {
        if (t.modes[j] == Mode::kSerialHelperReady) {
            ++ready;
            bool burst = false;
            for (std::size_t k = j + 1; k <= j + 3 && k < t.modes.size(); ++k) {
                burst = burst || t.modes[k] == Mode::kSplit;
            }
            EXPECT_TRUE(burst || j + 3 >= t.modes.size()) << "job " << j << " seed " << seed;
        }
    }
    EXPECT_GT(ready, 0);
    EXPECT_LE(ready, 3 * 9) << "seed " << seed;  // 3 per burst, at most 9 bursts
    // Split preferred: its serial re-try bursts keep the helper ready (it is back in 4 jobs).
    ModeChooser d;
    const Machine fastSplit{[](int) { return 25e3; }, [](int) { return 50e3; }};
    const Trace u = run(d, fastSplit, 3000, 400, seed);
    int serial = 0;
    for (std::size_t j = 20; j < u.modes.size(); ++j) {
        EXPECT_NE(u.modes[j], Mode::kSerial) << "job " << j << " seed " << seed;
        serial += u.modes[j] == Mode::kSerialHelperReady ? 1 : 0;
    }
    EXPECT_GT(serial, 0);
}

TEST(ModeChooser, KeepsSeveralSizesApart) {
    const unsigned seed = freshSeed();
    ModeChooser c;
    // 400 splits well, 160000 (another size, same count % 16) does not; interleaved they must
    // not reset each other (the old table indexed by count % 16 did).
    const Machine fast{[](int) { return 4e3; }, [](int) { return 7e3; }};
    const Machine slow{[](int) { return 9e3; }, [](int) { return 6e3; }};
    Trace a, b;
    for (int round = 0; round < 20; ++round) {
        const Trace ta = run(c, fast, 100, 400, seed + static_cast<unsigned>(round));
        const Trace tb = run(c, slow, 100, 160000, seed + 7u * static_cast<unsigned>(round));
        a.modes.insert(a.modes.end(), ta.modes.begin(), ta.modes.end());
        b.modes.insert(b.modes.end(), tb.modes.begin(), tb.modes.end());
    }
    // After the first round, neither size warms up again (warm-up alternates modes).
    EXPECT_GE(a.splits(100, 2000), 1900 - 4 * 8) << "seed " << seed;
    EXPECT_LE(b.splits(100, 2000), 4 * 8) << "seed " << seed;
}

}  // namespace
}  // namespace ww::linalg::detail
