// The chunk scheduler visits every index exactly once, job after job, with varying sizes and
// grains (the claim word must never hand out a chunk of a finished or unpublished job).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "solver/linalg/parallel.h"

namespace ww::linalg {
namespace {

TEST(Parallel, EveryIndexExactlyOnceAcrossManyJobs) {
    const unsigned seed = std::random_device{}();
    std::mt19937 rng(seed);
    std::vector<std::atomic<int>> hits(5000);
    for (int job = 0; job < 3000; ++job) {
        const auto count = static_cast<std::ptrdiff_t>(rng() % 5000u);
        const auto grain = static_cast<std::ptrdiff_t>(1 + rng() % 97u);
        for (std::ptrdiff_t i = 0; i < count; ++i) {
            hits[static_cast<std::size_t>(i)].store(0);
        }
        std::atomic<int> workersSeen{0};
        parallelFor(count, grain, [&](std::ptrdiff_t b, std::ptrdiff_t e, int worker) {
            ASSERT_TRUE(worker == 0 || worker == 1);
            ASSERT_LE(e - b, grain);
            workersSeen.fetch_or(1 << worker);
            for (std::ptrdiff_t i = b; i < e; ++i) {
                hits[static_cast<std::size_t>(i)].fetch_add(1);
            }
        });
        for (std::ptrdiff_t i = 0; i < count; ++i) {
            ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1)
                << "job " << job << " index " << i << " count " << count << " grain " << grain
                << " seed " << seed;
        }
    }
}

// The helper (worker 1) really runs chunks. Whether a job is split is the ModeChooser's call
// from measured times, but the first job of a size it has not seen is always split (its
// start-up alternates, beginning with the split), so each job here has a size not used before
// in this process. The caller's first chunk waits until the helper has run one, so the helper
// must take a chunk from its half; the wait is bounded (5 s) so that a scheduler that never
// starts the helper fails instead of hanging. Three jobs, in case the machine starved the
// helper of a core for the whole wait.
TEST(Parallel, TheHelperRunsChunksOfASplitJob) {
    static std::ptrdiff_t nextCount = 65537;  // above the other tests' sizes; new per job
    constexpr std::ptrdiff_t kGrain = 64;
    bool helperRan = false;
    for (int job = 0; job < 3 && !helperRan; ++job) {
        const std::ptrdiff_t count = nextCount++;
        std::vector<int> hits(static_cast<std::size_t>(count));
        std::atomic<long> helperChunks{0};
        std::atomic<bool> callerWaited{false};
        parallelFor(count, kGrain, [&](std::ptrdiff_t b, std::ptrdiff_t e, int worker) {
            if (worker == 1) {
                helperChunks.fetch_add(1);
            } else if (!callerWaited.exchange(true)) {
                const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
                while (helperChunks.load() == 0 && std::chrono::steady_clock::now() < until) {
                    std::this_thread::yield();
                }
            }
            for (std::ptrdiff_t i = b; i < e; ++i) {
                ++hits[static_cast<std::size_t>(i)];  // chunks are disjoint: no race
            }
        });
        for (std::ptrdiff_t i = 0; i < count; ++i) {
            ASSERT_EQ(hits[static_cast<std::size_t>(i)], 1) << "job " << job << " index " << i;
        }
        helperRan = helperChunks.load() > 0;
    }
    EXPECT_TRUE(helperRan) << "worker 1 never ran a chunk of a split job";
}

TEST(Parallel, ConcurrentCallersAndNestedCallsStayCorrect) {
    auto job = [](int salt, int* failures) {
        std::vector<int> out(3000);
        for (int rep = 0; rep < 300; ++rep) {
            std::fill(out.begin(), out.end(), 0);
            parallelFor(3000, 64, [&](std::ptrdiff_t b, std::ptrdiff_t e, int) {
                // A nested call runs serially inside the chunk.
                parallelFor(e - b, 8, [&](std::ptrdiff_t nb, std::ptrdiff_t ne, int) {
                    for (std::ptrdiff_t i = b + nb; i < b + ne; ++i) {
                        out[static_cast<std::size_t>(i)] += salt;
                    }
                });
            });
            for (int v : out) {
                *failures += v != salt ? 1 : 0;
            }
        }
    };
    int failA = 0, failB = 0;
    std::thread a(job, 1, &failA), b(job, 7, &failB);
    a.join();
    b.join();
    EXPECT_EQ(failA, 0);
    EXPECT_EQ(failB, 0);
}

}  // namespace
}  // namespace ww::linalg
