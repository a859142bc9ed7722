// The executor: every chunk runs exactly once, on a valid worker, nested loops work, and a
// reduction gives the bits of the serial chunk-order fold at any thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "solver/exec/executor.h"
#include "solver/exec/float_mode.h"
#include "support/seed.h"

namespace ww::exec {
namespace {

std::uint32_t freshSeed() {
    const std::uint32_t seed = ww::test::freshSeed();
    std::printf("seed %u\n", seed);  // traced, so a failure can be replayed
    return seed;
}

const int kThreadCounts[] = {1, 2, 3, 8};  // 3 and 8 oversubscribe a 2-core machine

TEST(Executor, RunsEveryChunkOnceOnAValidWorker) {
    for (int threads : kThreadCounts) {
        const Executor ex(threads);
        EXPECT_EQ(ex.threads(), threads);
        constexpr std::ptrdiff_t kChunks = 1000;
        std::vector<std::atomic<int>> runs(kChunks);
        std::atomic<bool> badWorker{false};
        ex.forEachChunk(kChunks, [&](std::ptrdiff_t c, int worker) {
            runs[static_cast<std::size_t>(c)].fetch_add(1);
            if (worker < 0 || worker >= threads) {
                badWorker = true;
            }
        });
        for (std::ptrdiff_t c = 0; c < kChunks; ++c) {
            EXPECT_EQ(runs[static_cast<std::size_t>(c)].load(), 1) << threads << " threads";
        }
        EXPECT_FALSE(badWorker.load()) << threads << " threads";
    }
}

TEST(Executor, NestedLoopsCompleteAndCountEveryInnerChunk) {
    const Executor ex(3);
    std::atomic<long> inner{0};
    ex.parallelFor(40, [&](std::ptrdiff_t) {
        ex.parallelFor(25, [&](std::ptrdiff_t) { inner.fetch_add(1); });
    });
    EXPECT_EQ(inner.load(), 40 * 25);
}

// Float addition is not associative: summing the chunks' partials in another order, or
// splitting chunks differently, changes the low bits for these fresh random magnitudes
// (spread over 12 binades), so only a chunk-order fold matches the serial one exactly.
TEST(Executor, ReduceEqualsTheSerialChunkOrderFoldAtAnyThreadCount) {
    const std::uint32_t seed = freshSeed();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-6, 6);
    std::vector<float> v(200'000);
    for (float& x : v) {
        x = std::ldexp(mantissa(rng), exponent(rng)) * (rng() % 2 ? 1.0f : -1.0f);
    }
    constexpr std::ptrdiff_t kChunk = 1024;
    const std::ptrdiff_t chunks = chunkCount(static_cast<std::ptrdiff_t>(v.size()), kChunk);
    auto chunkSum = [&](std::ptrdiff_t c) {
        float s = 0.0f;
        const auto end =
            std::min<std::size_t>(v.size(), static_cast<std::size_t>((c + 1) * kChunk));
        for (auto i = static_cast<std::size_t>(c * kChunk); i < end; ++i) {
            s += v[i];
        }
        return s;
    };
    float serial = 0.0f;
    for (std::ptrdiff_t c = 0; c < chunks; ++c) {
        serial += chunkSum(c);
    }
    for (int threads : kThreadCounts) {
        const Executor ex(threads);
        LoopAffinity affinity;  // replays where the chunks ran: still the same bits
        for (int round = 0; round < 20; ++round) {
            const float r = ex.reduce(
                chunks, 0.0f, chunkSum, [](float acc, float x) { return acc + x; },
                static_cast<std::ptrdiff_t>(v.size()), round % 2 == 1 ? &affinity : nullptr);
            ASSERT_EQ(r, serial) << threads << " threads, round " << round << ", seed " << seed;
        }
        // The free forms: on an executor, and on the caller alone without one.
        const auto add = [](float acc, float x) { return acc + x; };
        for (const Executor* on : {&ex, static_cast<const Executor*>(nullptr)}) {
            ASSERT_EQ(reduceChunks(on, chunks, 0.0f, chunkSum, add,
                                   static_cast<std::ptrdiff_t>(v.size())),
                      serial)
                << threads << " threads, seed " << seed;
            std::vector<float> partial(static_cast<std::size_t>(chunks), 0.0f);
            forChunks(
                on, chunks,
                [&](std::ptrdiff_t c) { partial[static_cast<std::size_t>(c)] = chunkSum(c); },
                static_cast<std::ptrdiff_t>(v.size()));
            float folded = 0.0f;
            for (const float x : partial) {
                folded += x;
            }
            ASSERT_EQ(folded, serial) << threads << " threads, seed " << seed;
        }
    }
}

// bool partials: each chunk's verdict must reach the fold. The chunks are many and tiny, so
// threads write neighbouring partials at the same moments (std::vector<bool> packs them into
// shared words, and such writes lose each other's bits); each round's lone dissenting chunk,
// or none, is drawn afresh, so a lost write shows as a stale verdict from an earlier round.
TEST(Executor, ReduceOfBoolsKeepsEveryChunksVerdict) {
    const std::uint32_t seed = freshSeed();
    std::mt19937 rng(seed);
    for (int threads : kThreadCounts) {
        const Executor ex(threads);
        for (int round = 0; round < 400; ++round) {
            // Odd counts too, so that the threads' ranges meet inside a packed word.
            const auto kChunks = static_cast<std::ptrdiff_t>(100 + rng() % 5000);
            const std::ptrdiff_t odd =
                rng() % 2 == 0 ? -1 : static_cast<std::ptrdiff_t>(rng() % kChunks);
            const bool all = ex.reduce(
                kChunks, true, [&](std::ptrdiff_t c) { return c != odd; },
                [](bool acc, bool x) { return acc && x; }, kChunks * kMinParallelWork);
            const bool any = ex.reduce(
                kChunks, false, [&](std::ptrdiff_t c) { return c == odd; },
                [](bool acc, bool x) { return acc || x; }, kChunks * kMinParallelWork);
            ASSERT_EQ(all, odd < 0) << threads << " threads, round " << round << ", " << kChunks
                                    << " chunks, seed " << seed;
            ASSERT_EQ(any, odd >= 0) << threads << " threads, round " << round << ", " << kChunks
                                     << " chunks, seed " << seed;
        }
    }
}

// A loop with an affinity still runs every chunk exactly once, round after round, also when
// the chunk count changes between rounds (the affinity is a hint, not a schedule).
TEST(Executor, AffinityLoopsRunEveryChunkOnce) {
    for (int threads : kThreadCounts) {
        const Executor ex(threads);
        LoopAffinity affinity;
        for (std::ptrdiff_t chunks : {64, 64, 64, 7, 200, 64}) {
            std::vector<std::atomic<int>> runs(static_cast<std::size_t>(chunks));
            ex.parallelFor(
                chunks, [&](std::ptrdiff_t c) { runs[static_cast<std::size_t>(c)].fetch_add(1); },
                kMinParallelWork, &affinity);
            for (std::ptrdiff_t c = 0; c < chunks; ++c) {
                ASSERT_EQ(runs[static_cast<std::size_t>(c)].load(), 1)
                    << threads << " threads, " << chunks << " chunks";
            }
        }
    }
}

// With more than one thread, a loop's chunks run on more than one thread: every loop form
// (forEachChunk, parallelFor, reduce) at 2, 3 and 8 threads. No timing: the first chunks to
// start wait until a second thread has started one, so a caller that ran the chunks alone would
// wait for ever; the wait gives up after 60 s (a thread not scheduled for a minute, even on a
// loaded machine, would be a failure anyway), and the loop then reports one thread. The
// worker indices the chunks are given (per-thread scratch) differ between those threads too.
TEST(Executor, ChunksRunOnMoreThanOneThreadWhenMoreAreAsked) {
    for (int threads : {2, 3, 8}) {
        const Executor ex(threads);
        for (int form = 0; form < 3; ++form) {
            SCOPED_TRACE(std::to_string(threads) + " threads, loop form " + std::to_string(form));
            std::mutex m;
            std::condition_variable joined;
            std::set<std::thread::id> ids;
            std::set<int> workers;
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
            const auto chunk = [&](int worker) {
                std::unique_lock lock(m);
                ids.insert(std::this_thread::get_id());
                workers.insert(worker);
                joined.notify_all();
                joined.wait_until(lock, deadline, [&] { return ids.size() >= 2; });
            };
            constexpr std::ptrdiff_t kChunks = 64;
            if (form == 0) {
                ex.forEachChunk(kChunks, [&](std::ptrdiff_t, int worker) { chunk(worker); });
            } else if (form == 1) {
                ex.parallelFor(kChunks, [&](std::ptrdiff_t) { chunk(-1); });
            } else {
                const long sum = ex.reduce(
                    kChunks, 0L,
                    [&](std::ptrdiff_t c) {
                        chunk(-1);
                        return static_cast<long>(c);
                    },
                    [](long acc, long c) { return acc + c; });
                EXPECT_EQ(sum, kChunks * (kChunks - 1) / 2);
            }
            // The first failure ends the test: a second loop would wait out the deadline too.
            ASSERT_GE(ids.size(), 2u);
            if (form == 0) {
                ASSERT_GE(workers.size(), 2u);
            }
        }
    }
}

// runStages: a fresh random sequence of stages; every chunk of a stage runs exactly once, after
// every chunk of the stage before returned (each chunk reads the previous stage's outputs and
// the plan checks them all), and sees what the plan wrote for its stage; the plan runs once
// between stages, and the run ends where it says.
TEST(Executor, StagesRunInOrderWithEveryChunkOnceAndThePlanBetween) {
    const std::uint32_t seed = freshSeed();
    std::mt19937 rng(seed);
    for (int threads : kThreadCounts) {
        SCOPED_TRACE(std::to_string(threads) + " threads");
        const Executor ex(threads);
        std::vector<std::ptrdiff_t> sizes(std::uniform_int_distribution<int>(5, 40)(rng));
        for (auto& n : sizes) {
            n = std::uniform_int_distribution<int>(1, 300)(rng);
        }
        std::size_t stage = 0;  // written by the plan only
        bool begun = false;
        long previousSum = 0;   // the sum of the previous stage's outputs, as the plan saw it
        std::vector<long> out;  // this stage's outputs: one per chunk
        std::vector<std::atomic<int>> runs(300);
        std::atomic<int> strays{0};  // chunks on a bad worker or past their stage's count
        int plans = 0;
        const auto plan = [&]() -> std::ptrdiff_t {
            ++plans;
            if (begun) {
                long sum = 0;
                for (std::ptrdiff_t c = 0; c < sizes[stage]; ++c) {
                    EXPECT_EQ(runs[static_cast<std::size_t>(c)].load(), 1)
                        << "stage " << stage << ", chunk " << c;
                    EXPECT_EQ(out[static_cast<std::size_t>(c)],
                              previousSum + static_cast<long>(stage * 1000 + c))
                        << "stage " << stage << ", chunk " << c;
                    sum += out[static_cast<std::size_t>(c)];
                }
                previousSum = sum % 1000003;
                ++stage;
            }
            begun = true;
            if (stage == sizes.size()) {
                return 0;
            }
            out.assign(static_cast<std::size_t>(sizes[stage]), -1);
            for (auto& r : runs) {
                r.store(0);
            }
            return sizes[stage];
        };
        const auto chunk = [&](std::ptrdiff_t c, int worker) {
            if (worker < 0 || worker >= threads) {
                strays.fetch_add(1);
            }
            if (c >= static_cast<std::ptrdiff_t>(out.size())) {
                strays.fetch_add(1);  // a chunk of another stage's size
                return;
            }
            runs[static_cast<std::size_t>(c)].fetch_add(1);
            // Spread the chunks' lengths so that threads finish out of order.
            volatile long spin = 0;
            for (long k = 0; k < (c * 7919 + static_cast<long>(stage)) % 2000; ++k) {
                spin = spin + k;
            }
            out[static_cast<std::size_t>(c)] = previousSum + static_cast<long>(stage * 1000 + c);
        };
        // A lost chunk or a miscounted stage leaves the team waiting forever: fail loudly
        // instead of hanging the suite.
        std::mutex m;
        std::condition_variable returned;
        bool finished = false;
        std::thread watchdog([&] {
            std::unique_lock lock(m);
            if (!returned.wait_for(lock, std::chrono::seconds(120), [&] { return finished; })) {
                std::fprintf(stderr, "runStages did not return within 120 s (%d threads)\n",
                             threads);
                std::abort();
            }
        });
        ex.runStages(plan, chunk, kMinParallelWork);
        {
            const std::lock_guard lock(m);
            finished = true;
        }
        returned.notify_all();
        watchdog.join();
        EXPECT_EQ(stage, sizes.size());
        EXPECT_EQ(plans, static_cast<int>(sizes.size()) + 1);
        EXPECT_EQ(strays.load(), 0);
    }
}

// The stages run on the team, not on the caller alone: with two threads or more a stage's
// chunks are taken by at least two threads (each chunk waits, up to a deadline, until a second
// thread has joined).
TEST(Executor, StagesRunOnMoreThanOneThreadWhenMoreAreAsked) {
    for (int threads : {2, 3, 8}) {
        SCOPED_TRACE(std::to_string(threads) + " threads");
        const Executor ex(threads);
        std::mutex m;
        std::condition_variable joined;
        std::set<std::thread::id> ids;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        int stages = 0;
        ex.runStages([&]() -> std::ptrdiff_t { return stages++ < 3 ? 16 : 0; },
                     [&](std::ptrdiff_t, int) {
                         std::unique_lock lock(m);
                         ids.insert(std::this_thread::get_id());
                         joined.notify_all();
                         joined.wait_until(lock, deadline, [&] { return ids.size() >= 2; });
                     });
        ASSERT_GE(ids.size(), 2u);
    }
}

// Every thread of a loop or a stage run computes in the caller's floating-point mode: under
// FlushSubnormals a product that underflows to a subnormal (1e-20 * 1e-20) is 0 on each thread
// that ran a chunk, and so is a subnormal operand (1e-40 * 1); without it both stay subnormal.
// Each chunk waits, up to a deadline, until a second thread has joined, so that the workers'
// mode is tested and not the caller's alone.
TEST(Executor, EveryThreadComputesInTheCallersFloatMode) {
    if (kFlushSubnormalBits == 0) {
        GTEST_SKIP() << "no flush-to-zero control on this architecture";
    }
    for (int threads : {2, 3}) {
        const Executor ex(threads);
        for (const bool flush : {true, false}) {
            for (int form = 0; form < 2; ++form) {
                SCOPED_TRACE(std::to_string(threads) + " threads, flush " + std::to_string(flush) +
                             ", form " + std::to_string(form));
                std::mutex m;
                std::condition_variable joined;
                std::set<std::thread::id> ids;
                std::vector<float> products;
                const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
                const auto chunk = [&] {
                    volatile float tiny = 1e-20f;
                    volatile float subnormal = 1e-40f;
                    volatile float one = 1.0f;
                    const float underflow = tiny * tiny;
                    const float operand = subnormal * one;
                    std::unique_lock lock(m);
                    ids.insert(std::this_thread::get_id());
                    products.push_back(underflow);
                    products.push_back(operand);
                    joined.notify_all();
                    joined.wait_until(lock, deadline, [&] { return ids.size() >= 2; });
                };
                {
                    const std::optional<FlushSubnormals> mode =
                        flush ? std::optional<FlushSubnormals>(std::in_place) : std::nullopt;
                    if (form == 0) {
                        ex.parallelFor(16, [&](std::ptrdiff_t) { chunk(); });
                    } else {
                        int stages = 0;
                        ex.runStages([&]() -> std::ptrdiff_t { return stages++ < 2 ? 8 : 0; },
                                     [&](std::ptrdiff_t, int) { chunk(); });
                    }
                }
                ASSERT_GE(ids.size(), 2u);
                for (const float v : products) {
                    if (flush) {
                        ASSERT_EQ(v, 0.0f);
                    } else {
                        ASSERT_GT(v, 0.0f);
                        ASSERT_LT(v, 1.2e-38f);
                    }
                }
            }
        }
        // The caller's mode is restored after the scope.
        volatile float tiny = 1e-20f;
        EXPECT_GT(tiny * tiny, 0.0f);
    }
}

// An exception in a chunk ends the run after its stage (no later plan) and reaches the caller;
// one in the plan too. The executor runs the next loop normally.
TEST(Executor, StagesRethrowWhatAChunkOrThePlanThrew) {
    for (int threads : kThreadCounts) {
        SCOPED_TRACE(std::to_string(threads) + " threads");
        const Executor ex(threads);
        int plans = 0;
        EXPECT_THROW(ex.runStages([&]() -> std::ptrdiff_t { return ++plans < 10 ? 64 : 0; },
                                  [&](std::ptrdiff_t c, int) {
                                      if (plans == 3 && c == 17) {
                                          throw std::runtime_error("chunk 17");
                                      }
                                  }),
                     std::runtime_error);
        EXPECT_EQ(plans, 3);
        int thrownAt = 0;
        EXPECT_THROW(ex.runStages(
                         [&]() -> std::ptrdiff_t {
                             if (++thrownAt == 4) {
                                 throw std::runtime_error("plan");
                             }
                             return 64;
                         },
                         [](std::ptrdiff_t, int) {}),
                     std::runtime_error);
        EXPECT_EQ(thrownAt, 4);
        std::atomic<int> after{0};
        int stages = 0;
        ex.runStages([&]() -> std::ptrdiff_t { return stages++ < 2 ? 64 : 0; },
                     [&](std::ptrdiff_t, int) { after.fetch_add(1); });
        EXPECT_EQ(after.load(), 128);
    }
}

TEST(Executor, DefaultIsEveryHardwareThread) {
    EXPECT_EQ(Executor().threads(), Executor::hardwareThreads());
    EXPECT_GE(Executor::hardwareThreads(), 1);
}

}  // namespace
}  // namespace ww::exec
