// The one executor of all CPU parallel work (dense LCP, CG, wave model, rigid world).
//
// An Executor runs a loop of nChunks independent chunks, fn(chunk), on N threads (the caller
// takes part; oneTBB's work stealing balances the chunks, so a descheduled thread never holds
// up the others). Results never depend on N: callers cut their work into chunks of a constant
// size (rows or elements, fixed by the problem size, never by the thread count), and
// reductions go through reduce(), which keeps one partial per chunk and combines the partials
// in chunk order on the caller. So a run gives the same bits with 1, 2, 3 or 8 threads.
//
// Executors are created by the application (one per process, from --threads / config
// `threads` / WAVEWALL_THREADS / the hardware thread count, see docs/cli.md) and handed to
// the solvers and the world that use them; there is no global executor.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace ww::exec {

/// Work (multiply-adds, or elements streamed) below which a loop runs on the caller alone:
/// handing chunks to other threads costs a few microseconds, the time of about this much work
/// on one core. The same on every machine; callers pass their loop's work to parallelFor.
inline constexpr std::ptrdiff_t kMinParallelWork = std::ptrdiff_t{1} << 15;

/// Which thread ran which chunks of a loop that runs again and again over the same data (the
/// passes of an iterative solver), so that the next run gives each thread the same chunks and
/// it finds their data still in its own cache (oneTBB's affinity_partitioner: a hint, idle
/// threads still steal). Results never depend on it. One per loop site, owned by the caller
/// (a solver's workspace); not shared by loops that run at the same time.
class LoopAffinity {
  public:
    LoopAffinity();
    ~LoopAffinity();
    LoopAffinity(const LoopAffinity&) = delete;
    LoopAffinity& operator=(const LoopAffinity&) = delete;
    LoopAffinity(LoopAffinity&&) noexcept;
    LoopAffinity& operator=(LoopAffinity&&) noexcept;

  private:
    friend class Executor;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

class Executor {
  public:
    /// N threads including the caller; N <= 0 means hardwareThreads(). N may exceed the
    /// number of cores (threads are then time-shared; results are unchanged).
    explicit Executor(int threads = 0);
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    /// std::thread::hardware_concurrency(), at least 1.
    static int hardwareThreads();

    int threads() const { return m_threads; }
    /// True when a loop of this much work runs on the caller alone (threads() == 1, or work
    /// below kMinParallelWork): a caller may then cut it into one chunk instead of many.
    bool runsAlone(std::ptrdiff_t work) const { return m_threads == 1 || work < kMinParallelWork; }
    /// Whether forEachChunk(nChunks, fn, work) runs fn on the caller, chunk 0 first, each chunk
    /// after the one before (then a loop may append its chunks' output straight to one list).
    bool runsInOrder(std::ptrdiff_t nChunks, std::ptrdiff_t work) const {
        return runsAlone(work) || nChunks == 1;
    }

    /// Runs fn(chunk, worker) for chunk in [0, nChunks); worker in [0, threads()) identifies
    /// the thread (for per-thread scratch) and is the only thing that differs between runs.
    /// Runs on the caller alone when threads() == 1, nChunks == 1 or work < kMinParallelWork
    /// (work: the whole loop's work, in the units of kMinParallelWork). Nested calls are
    /// allowed. Returns when every chunk is done. With an affinity, the chunks go where that
    /// loop's chunks went last time (LoopAffinity).
    template <typename F>
    void forEachChunk(std::ptrdiff_t nChunks, F&& fn, std::ptrdiff_t work = kMinParallelWork,
                      LoopAffinity* affinity = nullptr) const {
        if (nChunks <= 0) {
            return;
        }
        if (runsInOrder(nChunks, work)) {
            for (std::ptrdiff_t c = 0; c < nChunks; ++c) {
                fn(c, 0);
            }
            return;
        }
        using Fn = std::remove_reference_t<F>;
        run(
            nChunks,
            [](void* ctx, std::ptrdiff_t b, std::ptrdiff_t e, int worker) {
                for (std::ptrdiff_t c = b; c < e; ++c) {
                    (*static_cast<Fn*>(ctx))(c, worker);
                }
            },
            const_cast<void*>(static_cast<const void*>(&fn)), affinity);
    }

    /// Runs fn(chunk) for chunk in [0, nChunks) (see forEachChunk).
    template <typename F>
    void parallelFor(std::ptrdiff_t nChunks, F&& fn, std::ptrdiff_t work = kMinParallelWork,
                     LoopAffinity* affinity = nullptr) const {
        forEachChunk(
            nChunks, [&](std::ptrdiff_t c, int) { fn(c); }, work, affinity);
    }

    /// Deterministic reduction: partial[c] = chunkFn(c) for every chunk (in parallel), then
    /// init combined with partial[0], partial[1], ... in chunk order on the caller.
    template <typename T, typename ChunkFn, typename Combine>
    T reduce(std::ptrdiff_t nChunks, T init, ChunkFn&& chunkFn, Combine&& combine,
             std::ptrdiff_t work = kMinParallelWork, LoopAffinity* affinity = nullptr) const {
        // Each partial its own object: a std::vector<bool> would pack neighbouring chunks'
        // partials into one word, and threads writing them at once would lose bits.
        struct Partial {
            T value;
        };
        thread_local std::vector<Partial> partial;
        // A nested reduce on this thread must not reuse the outer one's partials.
        std::vector<Partial> own;
        std::vector<Partial>& out = m_depth() == 0 ? partial : own;
        ++m_depth();
        out.resize(static_cast<std::size_t>(std::max<std::ptrdiff_t>(nChunks, 0)));
        parallelFor(
            nChunks, [&](std::ptrdiff_t c) { out[static_cast<std::size_t>(c)].value = chunkFn(c); },
            work, affinity);
        --m_depth();
        T acc = std::move(init);
        for (std::ptrdiff_t c = 0; c < nChunks; ++c) {
            acc = combine(std::move(acc), out[static_cast<std::size_t>(c)].value);
        }
        return acc;
    }

    /// Loops run back to back in one hand-off, for an iterative solver whose passes are a few
    /// short loops each (a loop costs a few microseconds to hand to the threads and to join,
    /// as much as a small pass's work). plan() returns the next stage's chunk count, or 0 to
    /// end; then chunk(c, worker) runs for every c of it. plan() runs on one thread at a time,
    /// after every chunk of the stage before has returned and its writes are visible, and
    /// chunk() sees what plan() wrote, so plan() may combine the stage's per-chunk partials in
    /// chunk order, decide, and say what the next stage is (the chunks read that from state
    /// plan() set). Between stages the threads wait spinning briefly, then yielding; a thread
    /// that joins late (descheduled, or busy) takes whatever chunks are left, so no chunk
    /// waits on a thread that never came. Runs everything on the caller when threads() == 1
    /// or work < kMinParallelWork (work: one stage's, as for forEachChunk). An exception from
    /// either ends the run and is rethrown on the caller. Neither may run loops on this
    /// executor: a thread waiting for a nested loop may be given another member's task of the
    /// same run, which would then wait for the chunk that thread has left half done.
    template <typename Plan, typename Chunk>
    void runStages(Plan&& plan, Chunk&& chunk, std::ptrdiff_t work = kMinParallelWork) const {
        if (runsAlone(work)) {
            for (std::ptrdiff_t n = plan(); n > 0; n = plan()) {
                for (std::ptrdiff_t c = 0; c < n; ++c) {
                    chunk(c, 0);
                }
            }
            return;
        }
        using P = std::remove_reference_t<Plan>;
        using C = std::remove_reference_t<Chunk>;
        runStagesOnTeam(
            [](void* ctx) { return (*static_cast<P*>(ctx))(); },
            const_cast<void*>(static_cast<const void*>(&plan)),
            [](void* ctx, std::ptrdiff_t c, int worker) { (*static_cast<C*>(ctx))(c, worker); },
            const_cast<void*>(static_cast<const void*>(&chunk)));
    }

  private:
    using RangeFn = void (*)(void* ctx, std::ptrdiff_t begin, std::ptrdiff_t end, int worker);
    void run(std::ptrdiff_t nChunks, RangeFn fn, void* ctx, LoopAffinity* affinity) const;
    using PlanFn = std::ptrdiff_t (*)(void* ctx);
    using ChunkFn = void (*)(void* ctx, std::ptrdiff_t chunk, int worker);
    void runStagesOnTeam(PlanFn plan, void* planCtx, ChunkFn chunk, void* chunkCtx) const;
    static int& m_depth() {
        thread_local int depth = 0;
        return depth;
    }

    int m_threads = 1;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

/// Executor::parallelFor on `ex`, or every chunk in order on the calling thread when ex is null
/// (solvers take an optional executor).
template <typename F>
void forChunks(const Executor* ex, std::ptrdiff_t nChunks, F&& fn,
               std::ptrdiff_t work = kMinParallelWork, LoopAffinity* affinity = nullptr) {
    if (ex != nullptr) {
        ex->parallelFor(nChunks, fn, work, affinity);
        return;
    }
    for (std::ptrdiff_t c = 0; c < nChunks; ++c) {
        fn(c);
    }
}

/// forChunks over the items [0, count) cut into chunks of `chunk` items: fn(begin, end) for
/// each chunk's range (the chunks, so what each call sees, do not depend on the threads).
template <typename F>
void forRanges(const Executor* ex, std::ptrdiff_t count, std::ptrdiff_t chunk, F&& fn,
               std::ptrdiff_t work = kMinParallelWork) {
    forChunks(
        ex, count <= 0 ? 0 : (count + chunk - 1) / chunk,
        [&](std::ptrdiff_t c) { fn(c * chunk, std::min(count, (c + 1) * chunk)); }, work);
}

/// Executor::runStages on `ex`, or every stage's chunks in order on the calling thread when ex
/// is null.
template <typename Plan, typename Chunk>
void runStages(const Executor* ex, Plan&& plan, Chunk&& chunk,
               std::ptrdiff_t work = kMinParallelWork) {
    if (ex != nullptr) {
        ex->runStages(plan, chunk, work);
        return;
    }
    for (std::ptrdiff_t n = plan(); n > 0; n = plan()) {
        for (std::ptrdiff_t c = 0; c < n; ++c) {
            chunk(c, 0);
        }
    }
}

/// Executor::reduce on `ex`, or the same chunks combined in chunk order on the calling thread
/// when ex is null: the same result either way.
template <typename T, typename ChunkFn, typename Combine>
T reduceChunks(const Executor* ex, std::ptrdiff_t nChunks, T init, ChunkFn&& chunkFn,
               Combine&& combine, std::ptrdiff_t work = kMinParallelWork,
               LoopAffinity* affinity = nullptr) {
    if (ex != nullptr) {
        return ex->reduce(nChunks, std::move(init), chunkFn, combine, work, affinity);
    }
    T acc = std::move(init);
    for (std::ptrdiff_t c = 0; c < nChunks; ++c) {
        acc = combine(std::move(acc), chunkFn(c));
    }
    return acc;
}

/// Chunks of `chunk` items covering [0, count): ceil(count / chunk).
inline std::ptrdiff_t chunkCount(std::ptrdiff_t count, std::ptrdiff_t chunk) {
    return count <= 0 ? 0 : (count + chunk - 1) / chunk;
}

/// Items per chunk of copyChunked and equalChunked.
inline constexpr std::ptrdiff_t kCopyChunkItems = 16384;

/// to = from, copied in fixed chunks on `ex` (or on the calling thread when ex is null): the
/// caches that keep last step's compact arrays copy them this way.
template <typename T>
void copyChunked(const Executor* ex, const std::vector<T>& from, std::vector<T>& to) {
    to.resize(from.size());
    forRanges(
        ex, static_cast<std::ptrdiff_t>(from.size()), kCopyChunkItems,
        [&](std::ptrdiff_t first, std::ptrdiff_t last) {
            std::copy(from.begin() + first, from.begin() + last, to.begin() + first);
        },
        static_cast<std::ptrdiff_t>(from.size()));
}

/// a == b, compared in fixed chunks on `ex` (or on the calling thread when ex is null).
template <typename T>
bool equalChunked(const Executor* ex, const std::vector<T>& a, const std::vector<T>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    const auto count = static_cast<std::ptrdiff_t>(a.size());
    return reduceChunks(
        ex, chunkCount(count, kCopyChunkItems), true,
        [&](std::ptrdiff_t c) {
            const std::ptrdiff_t first = c * kCopyChunkItems;
            const std::ptrdiff_t last = std::min(count, first + kCopyChunkItems);
            return std::equal(a.begin() + first, a.begin() + last, b.begin() + first);
        },
        [](bool x, bool y) { return x && y; }, count);
}

}  // namespace ww::exec
