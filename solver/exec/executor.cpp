// The executor on oneTBB (see executor.h).
#include "solver/exec/executor.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <thread>

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
            fn(ctx, r.begin(), r.end(), oneapi::tbb::this_task_arena::current_thread_index());
        };
        if (affinity != nullptr) {
            oneapi::tbb::parallel_for(range, body, affinity->m_impl->partitioner);
        } else {
            oneapi::tbb::parallel_for(range, body);
        }
    });
}

}  // namespace ww::exec
