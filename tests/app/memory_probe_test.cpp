// The soak's memory measure: a block that is kept after the first half of a run shows as
// growth of both the heap in use and RSS; one that is freed again (a high-water mark reached
// early) does not.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "app/cli/memory_probe.h"
#include "support/sanitizer.h"
#include "support/seed.h"

namespace ww::app {
namespace {

// AddressSanitizer has its own allocator (mallinfo2 does not see it) and a quarantine that
// keeps freed memory resident, so neither number means anything there.
constexpr bool kMeasure = !WW_TEST_UNDER_ASAN;

// 16 MiB, every page written (an untouched allocation is not resident).
std::unique_ptr<std::vector<char>> touchedBlock(std::mt19937& rng) {
    auto block = std::make_unique<std::vector<char>>(std::size_t{16} << 20);
    for (std::size_t i = 0; i < block->size(); i += 4096) {
        (*block)[i] = static_cast<char>(rng());
    }
    return block;
}

TEST(MemoryProbe, ReadsThisProcess) {
    EXPECT_GT(residentKb(), 1000);  // any process with libstdc++ and gtest mapped
    if (!kMeasure) {
        GTEST_SKIP() << "heap in use is not measured under AddressSanitizer";
    }
    const long before = heapInUseKb();
    std::mt19937 rng(ww::test::freshSeed());
    auto block = touchedBlock(rng);
    EXPECT_GE(heapInUseKb() - before, 16 * 1024 - 64);
}

TEST(MemoryProbe, BlockKeptInTheSecondHalfIsGrowth) {
    if (!kMeasure) {
        GTEST_SKIP() << "RSS and heap are not measured under AddressSanitizer";
    }
    std::mt19937 rng(ww::test::freshSeed());
    // 10 warm-up steps, then halves of 45 steps; the block comes at step 70 and stays.
    MemoryWatch watch(10, 100, 1);
    std::unique_ptr<std::vector<char>> kept;
    for (int step = 1; step <= 100; ++step) {
        if (step == 70) {
            kept = touchedBlock(rng);
        }
        watch.afterStep(step);
    }
    const nlohmann::json s = watch.summary();
    for (const char* key : {"heap_kb", "rss_kb"}) {
        const long growth = s[key]["late_max"].get<long>() - s[key]["early_max"].get<long>();
        // 16 MiB minus slack for whatever else the process did meanwhile.
        EXPECT_GT(growth, 15 * 1024) << key << ": " << s.dump();
        EXPECT_GT(s[key]["warm"].get<long>(), 0) << key;
    }
}

TEST(MemoryProbe, HighWaterMarkReachedEarlyIsNotGrowth) {
    if (!kMeasure) {
        GTEST_SKIP() << "RSS and heap are not measured under AddressSanitizer";
    }
    std::mt19937 rng(ww::test::freshSeed());
    MemoryWatch watch(10, 100, 1);
    std::unique_ptr<std::vector<char>> scratch;
    for (int step = 1; step <= 100; ++step) {
        if (step == 20) {
            scratch = touchedBlock(rng);
        }
        if (step == 30) {
            scratch.reset();
        }
        watch.afterStep(step);
    }
    const nlohmann::json s = watch.summary();
    const long early = s["heap_kb"]["early_max"].get<long>();
    EXPECT_GT(early - s["heap_kb"]["warm"].get<long>(), 15 * 1024) << s.dump();
    // 1 MiB: the soak's bound; the block was freed, so the second half holds nothing of it.
    EXPECT_LT(s["heap_kb"]["late_max"].get<long>() - early, 1024) << s.dump();
    EXPECT_LT(s["rss_kb"]["late_max"].get<long>() - s["rss_kb"]["early_max"].get<long>(), 1024)
        << s.dump();
}

TEST(MemoryProbe, ShortRunReportsEmptyWindows) {
    MemoryWatch watch(10, 100, 1);
    for (int step = 1; step <= 40; ++step) {  // interrupted before the second half
        watch.afterStep(step);
    }
    const nlohmann::json s = watch.summary();
    EXPECT_EQ(s["rss_kb"]["late_max"].get<long>(), -1);
    EXPECT_GT(s["rss_kb"]["early_max"].get<long>(), 0);
}

}  // namespace
}  // namespace ww::app
