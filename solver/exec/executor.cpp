// The executor on oneTBB (see executor.h).
#include "solver/exec/executor.h"

#include "solver/exec/float_mode.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#endif

namespace ww::exec {

struct Executor::Impl {
    explicit Impl(int threads) : arena(threads) {
        // oneTBB gives all arenas together at most its default concurrency (the cores this
        // process may use) unless told otherwise; a request for more threads than cores is
        // honoured by raising that limit for as long as this executor lives.
        if (threads > oneapi::tbb::info::default_concurrency()) {
            limit = std::make_unique<oneapi::tbb::global_control>(
                oneapi::tbb::global_control::max_allowed_parallelism,
                static_cast<std::size_t>(threads));
        }
    }
    std::unique_ptr<oneapi::tbb::global_control> limit;
    oneapi::tbb::task_arena arena;
};

struct LoopAffinity::Impl {
    oneapi::tbb::affinity_partitioner partitioner;
};

LoopAffinity::LoopAffinity() : m_impl(std::make_unique<Impl>()) {}
LoopAffinity::~LoopAffinity() = default;
LoopAffinity::LoopAffinity(LoopAffinity&&) noexcept = default;
LoopAffinity& LoopAffinity::operator=(LoopAffinity&&) noexcept = default;

Executor::Executor(int threads) : m_threads(threads > 0 ? threads : hardwareThreads()) {
    if (m_threads > 1) {
        m_impl = std::make_unique<Impl>(m_threads);
    }
}

Executor::~Executor() = default;

int Executor::hardwareThreads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n > 0 ? static_cast<int>(n) : 1;
}

namespace {
/// Pieces a thread gets of a repeated pass (a loop run with a LoopAffinity): two, so that a
/// thread that falls behind (descheduled, or a slower core) leaves half its share to steal.
constexpr std::ptrdiff_t kPiecesPerThread = 2;
}  // namespace

void Executor::run(std::ptrdiff_t nChunks, RangeFn fn, void* ctx, LoopAffinity* affinity) const {
    // The chunks run in the caller's floating-point mode on every thread (float_mode.h).
    const std::uint64_t mode = floatMode();
    m_impl->arena.execute([&] {
        // Chunks are the unit of work (the caller sized them); the auto partitioner groups
        // neighbouring chunks for a thread and splits further only when others go idle, the
        // affinity partitioner does the same and then replays where the chunks went. A loop
        // with an affinity is a pass repeated over the same data with equal work per chunk:
        // it is cut into kPiecesPerThread pieces a thread, not a task per chunk, since each
        // task costs ~0.2 us to hand over, a quarter of a 400-row Jacobi pass at one task per
        // chunk (docs/lcp.md). The chunks, and so the results, do not change.
        const std::ptrdiff_t pieces = kPiecesPerThread * m_threads;
        const std::ptrdiff_t grain =
            affinity != nullptr ? std::max<std::ptrdiff_t>(1, (nChunks + pieces - 1) / pieces) : 1;
        const oneapi::tbb::blocked_range<std::ptrdiff_t> range(0, nChunks, grain);
        const auto body = [&](const oneapi::tbb::blocked_range<std::ptrdiff_t>& r) {
            const FloatModeScope callersMode(mode);
            fn(ctx, r.begin(), r.end(), oneapi::tbb::this_task_arena::current_thread_index());
        };
        if (affinity != nullptr) {
            oneapi::tbb::parallel_for(range, body, affinity->m_impl->partitioner);
        } else {
            oneapi::tbb::parallel_for(range, body);
        }
    });
}

namespace {
/// The shared state of one runStages. `published` holds the stage's number (high half) and
/// chunk count (low half; 0 ends the run). A stage's chunks are cut into one contiguous
/// segment per thread slot; `next[s]` is the next chunk of segment s to take, tagged with the
/// stage number so that a thread still holding an old stage's number never takes a chunk of a
/// newer one. `done` counts the stage's finished chunks.
struct Team {
    static constexpr std::uint64_t kLow = 0xffffffffu;
    struct alignas(64) Cursor {
        std::atomic<std::uint64_t> next{0};
    };
    explicit Team(int slots) : next(static_cast<std::size_t>(slots)) {}
    alignas(64) std::atomic<std::uint64_t> published{0};
    alignas(64) std::atomic<std::int64_t> done{0};
    std::vector<Cursor> next;
    std::mutex errorMutex;
    std::exception_ptr error;

    /// Chunk where slot s's segment of a stage of n chunks begins.
    std::int64_t segmentStart(std::int64_t n, std::size_t s) const {
        return n * static_cast<std::int64_t>(s) / static_cast<std::int64_t>(next.size());
    }
    void keepError() {
        const std::lock_guard lock(errorMutex);
        if (!error) {
            error = std::current_exception();
        }
    }
    bool failed() {
        const std::lock_guard lock(errorMutex);
        return static_cast<bool>(error);
    }
};

void relax() {
#if defined(__x86_64__) || defined(_M_X64)
    _mm_pause();
#endif
}
}  // namespace

void Executor::runStagesOnTeam(PlanFn plan, void* planCtx, ChunkFn chunk, void* chunkCtx) const {
    Team team(m_threads);
    const std::size_t slots = team.next.size();
    // Plans the stage after `stage` and publishes it (no plan after a failure); its count.
    const auto publish = [&](std::uint64_t stage) {
        std::int64_t n = 0;
        if (!team.failed()) {
            try {
                n = static_cast<std::int64_t>(plan(planCtx));
            } catch (...) {
                team.keepError();
                n = 0;
            }
        }
        const std::uint64_t following = stage + 1;
        team.done.store(0, std::memory_order_relaxed);
        for (std::size_t s = 0; s < slots; ++s) {
            team.next[s].next.store(
                (following << 32) | static_cast<std::uint64_t>(team.segmentStart(n, s)),
                std::memory_order_relaxed);
        }
        team.published.store((following << 32) | static_cast<std::uint64_t>(n),
                             std::memory_order_release);
        return n;
    };
    if (publish(0) == 0) {
        if (team.error) {
            std::rethrow_exception(team.error);
        }
        return;
    }
    // Takes up to `grain` chunks of segment s of stage `stage` (n chunks); false when none is
    // left there.
    const auto take = [&](std::size_t s, std::uint64_t stage, std::int64_t n, std::int64_t grain,
                          int worker, bool& last) {
        const std::int64_t end = team.segmentStart(n, s + 1);
        for (;;) {
            std::uint64_t c = team.next[s].next.load(std::memory_order_relaxed);
            const auto first = static_cast<std::int64_t>(c & Team::kLow);
            if ((c >> 32) != stage || first >= end) {
                return false;
            }
            const std::int64_t stop = std::min(end, first + grain);
            if (!team.next[s].next.compare_exchange_weak(
                    c, (stage << 32) | static_cast<std::uint64_t>(stop),
                    std::memory_order_relaxed)) {
                continue;
            }
            try {
                for (std::int64_t k = first; k < stop; ++k) {
                    chunk(chunkCtx, static_cast<std::ptrdiff_t>(k), worker);
                }
            } catch (...) {
                team.keepError();
            }
            // The stage's last chunks plan the next: every chunk's writes are visible to it
            // through the counter's acquire-release chain.
            last =
                team.done.fetch_add(stop - first, std::memory_order_acq_rel) + (stop - first) == n;
            return true;
        }
    };
    const auto member = [&](int worker) {
        // A thread's own segment first (the same rows each pass stay in its cache), then the
        // others' leftovers.
        const auto own = static_cast<std::size_t>(std::max(worker, 0)) % slots;
        std::uint64_t seen = 0;
        int idle = 0;
        for (;;) {
            const std::uint64_t v = team.published.load(std::memory_order_acquire);
            const std::uint64_t stage = v >> 32;
            const auto n = static_cast<std::int64_t>(v & Team::kLow);
            if (stage == seen) {
                // Waiting for the stage's last chunks elsewhere: spin briefly, then let
                // another thread have this core (a thread that holds a chunk may need it).
                if (++idle < 256) {
                    relax();
                } else {
                    std::this_thread::yield();
                }
                continue;
            }
            if (n == 0) {
                return;
            }
            seen = stage;
            idle = 0;
            // Chunks are taken a few at a time (kPiecesPerThread pieces a thread): each take
            // and each count of done chunks moves a cache line between cores.
            const std::int64_t grain = std::max<std::int64_t>(
                1, n / (kPiecesPerThread * static_cast<std::int64_t>(slots)));
            bool last = false;
            for (std::size_t k = 0; k < slots && !last; ++k) {
                const std::size_t s = (own + k) % slots;
                while (!last && take(s, stage, n, grain, worker, last)) {
                }
            }
            if (last) {
                publish(stage);
            }
        }
    };
    const std::uint64_t mode = floatMode();  // every member's, and so the plans' too
    m_impl->arena.execute([&] {
        // One task per thread; the caller runs one. A task that starts after the run ended
        // finds the end published and returns.
        oneapi::tbb::parallel_for(
            oneapi::tbb::blocked_range<int>(0, m_threads, 1),
            [&](const oneapi::tbb::blocked_range<int>&) {
                const FloatModeScope callersMode(mode);
                member(oneapi::tbb::this_task_arena::current_thread_index());
            },
            oneapi::tbb::simple_partitioner());
    });
    if (team.error) {
        std::rethrow_exception(team.error);
    }
}

}  // namespace ww::exec
