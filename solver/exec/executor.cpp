// The executor on oneTBB (see executor.h).
#include "solver/exec/executor.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

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

void Executor::run(std::ptrdiff_t nChunks, RangeFn fn, void* ctx, LoopAffinity* affinity) const {
    m_impl->arena.execute([&] {
        // Chunks are the unit of work (the caller sized them); the auto partitioner groups
        // neighbouring chunks for a thread and splits further only when others go idle, the
        // affinity partitioner does the same and then replays where the chunks went.
        const oneapi::tbb::blocked_range<std::ptrdiff_t> range(0, nChunks, 1);
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
