// The chunk scheduler visits every index exactly once, job after job, with varying sizes and
// grains (the claim word must never hand out a chunk of a finished or unpublished job).
#include <gtest/gtest.h>

#include <atomic>
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
