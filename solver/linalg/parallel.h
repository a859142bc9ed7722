// Splitting a loop over both cores without stalling when the second core is busy.
//
// parallelFor(count, grain, f) runs f(begin, end, worker) over chunks of `grain` items. The
// calling thread (worker 0) claims chunks from the front and one persistent helper (worker 1)
// from the back of a shared atomic claim word, so the caller never waits for the helper to
// wake up: if the helper is descheduled (the machine is shared) the caller simply does every
// chunk itself, and only a chunk the helper already claimed is waited for. Claiming from both
// ends gives each core the same rows job after job (cache locality across solver iterations).
// The helper spins briefly between jobs (iterations of a solver come back to back), then
// sleeps on a condition variable, and is kept off the CPU the caller runs on.
// Whether to split at all is measured, per job size: the faster of "caller alone" and
// "caller + helper" (median wall time of the last 7 jobs; the other mode re-tried in bursts of 4
// every 16th to 4096th job, the rarer the worse it was) is used, so
// a loaded machine, where the helper's chunks arrive late, falls back to one core.
// This replaces fork/join teams (OpenMP), whose barrier waits for every thread to be
// scheduled and costs milliseconds on a loaded 2-core machine.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace ww::linalg {

using ChunkFn = void (*)(void* context, std::ptrdiff_t begin, std::ptrdiff_t end, int worker);

/// Runs fn over [0, count) in chunks of `grain` on the caller and the helper thread. Safe to
/// call from several threads or from inside fn: a call made while the helper is taken runs
/// serially on its caller (same chunks, worker 0).
void parallelForChunks(std::ptrdiff_t count, std::ptrdiff_t grain, ChunkFn fn, void* context);

/// Convenience wrapper for a callable f(begin, end, worker).
template <typename F>
void parallelFor(std::ptrdiff_t count, std::ptrdiff_t grain, F&& f) {
    using Fn = std::remove_reference_t<F>;
    parallelForChunks(
        count, grain,
        [](void* c, std::ptrdiff_t b, std::ptrdiff_t e, int w) { (*static_cast<Fn*>(c))(b, e, w); },
        const_cast<void*>(static_cast<const void*>(&f)));
}

/// Number of workers parallelFor uses (2: caller and helper).
inline constexpr int kWorkers = 2;

}  // namespace ww::linalg
