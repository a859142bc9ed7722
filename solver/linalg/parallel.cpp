// The caller + one helper chunk scheduler (see parallel.h).
#include "solver/linalg/parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "solver/linalg/mode_chooser.h"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WW_PAUSE() _mm_pause()
#else
#define WW_PAUSE() std::this_thread::yield()
#endif

namespace ww::linalg {

namespace {

// Claiming. A job's chunks are split at the middle into two regions, one per worker, each
// with an atomic claim word packing (job id, high, low): the remaining chunks are [low, high).
// A worker claims from its own region first and then steals from the other one, always from the
// same end (low ends on its ascending jobs, high ends on its descending ones), and the two
// workers always go in opposite directions, so each region is claimed from both ends at most.
// Directions alternate every job:
//   even jobs: caller 0 -> middle, helper n -> middle;  odd jobs: caller middle -> 0, helper
//   middle -> n.
// So with both threads at the same speed each core works on the same rows job after job, and
// starts each job where it ended the previous one. A matrix of up to twice one core's L2 stays
// split between the two L2s, and when a half is a little larger than L2 the rows touched last
// are the ones reused first (the same direction every job misses all of L2 under LRU: 12-15 %
// slower for 500 rows of 1000 floats here). The first version claimed from one shared counter,
// which shuffled the rows between the cores every job and ran from L3 at no gain over one core
// (47-54 us instead of 27 us per 1000x1000 matVec).
// A claim is valid only for the job it names: a helper that wakes late sees the finished job as
// exhausted and can never take a chunk of a job whose fields are not yet published.
constexpr int kIndexBits = 22;
constexpr int kJobBits = 64 - 2 * kIndexBits;
// About 50 us of pause instructions: far longer than any chunk, so the helper was preempted
// while holding one; such a job counts 4x its time against the split mode.
constexpr long kLongWaitSpins = 20000;
// How long the helper waits for the next job before it sleeps. Longer than one job of a solver
// loop, so a split solve keeps it awake; a sleeping helper's wake-up (tens of microseconds on
// a virtual machine) would cost as much as the job.
constexpr auto kHelperSpin = std::chrono::microseconds(300);
// The first part of that wait uses pause instructions, the rest sched_yield.
constexpr auto kHelperPauseSpin = std::chrono::microseconds(20);
constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << kIndexBits) - 1;
constexpr std::uint64_t kHighOne = std::uint64_t{1} << kIndexBits;

inline std::uint64_t pack(std::uint64_t job, std::uint64_t high, std::uint64_t low) {
    return (job << (2 * kIndexBits)) | (high << kIndexBits) | low;
}
inline std::uint64_t jobOf(std::uint64_t v) {
    return v >> (2 * kIndexBits);
}
inline std::uint64_t highOf(std::uint64_t v) {
    return (v >> kIndexBits) & kIndexMask;
}
inline std::uint64_t lowOf(std::uint64_t v) {
    return v & kIndexMask;
}

class Helper {
  public:
    Helper() : m_thread([this] { loop(); }) {}
    ~Helper() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
            m_generation.fetch_add(1);
        }
        m_wake.notify_one();
        m_thread.join();
    }

    struct Outcome {
        bool longWait = false;      ///< the helper was descheduled holding a chunk (busy machine)
        bool helperJoined = false;  ///< the helper ran at least one chunk
    };

    Outcome run(std::ptrdiff_t count, std::ptrdiff_t grain, ChunkFn fn, void* context) {
        m_fn = fn;
        m_context = context;
        m_count = count;
        m_grain = grain;
        const auto chunks = static_cast<std::uint64_t>((count + grain - 1) / grain);
        const std::uint64_t job = ++m_job & ((std::uint64_t{1} << kJobBits) - 1);
        const std::uint64_t middle = chunks / 2;
        m_region[0].store(pack(job, middle, 0));
        m_region[1].store(pack(job, chunks, middle));
        keepHelperOffCallerCpu();
        wake();
        const std::uint64_t callerChunks = work(0);
        // Only chunks the helper has already claimed are waited for.
        long spins = 0;
        while (m_active.load() != 0) {
            WW_PAUSE();
            ++spins;
        }
        return {spins > kLongWaitSpins, callerChunks < chunks};
    }

    /// Gets a sleeping helper going without giving it work: it runs an empty round over the
    /// finished job's claim words and then waits for the next job, spinning. Waking a thread
    /// on an idle vCPU of this virtual machine takes longer than a 400x400 job (tens of us).
    /// Lets a helper that is waiting for a job by spinning go to sleep now (see ModeChooser).
    void rest() { m_keepSpinning.store(false, std::memory_order_relaxed); }

    void wake() {
        m_keepSpinning.store(true, std::memory_order_relaxed);
        m_generation.fetch_add(1);
        if (m_sleeping.load()) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_wake.notify_one();
        }
    }

  private:
    // Worker 0 (the caller) owns region 0, worker 1 (the helper) region 1; see "Claiming".
    // Returns the number of chunks this worker ran.
    std::uint64_t work(int worker) {
        std::uint64_t ran = 0;
        for (int r : {worker, 1 - worker}) {
            std::atomic<std::uint64_t>& region = m_region[r];
            std::uint64_t v = region.load();
            // Ascending: the caller on even jobs, the helper on odd ones.
            const bool ascending = ((jobOf(v) & 1) == 0) == (worker == 0);
            for (;;) {
                const std::uint64_t low = lowOf(v);
                const std::uint64_t high = highOf(v);
                if (low >= high) {
                    break;
                }
                // Guided claims: a quarter of what is left (at least one chunk), so a job
                // takes a handful of claims instead of one per chunk; each claim moves the
                // claim word's cache line between the cores (~0.1 us).
                const std::uint64_t take = std::max<std::uint64_t>(1, (high - low) / 4);
                if (!region.compare_exchange_weak(v, ascending ? v + take : v - take * kHighOne)) {
                    continue;  // v now holds the current word
                }
                ran += take;
                const auto first = static_cast<std::ptrdiff_t>(ascending ? low : high - take);
                const auto last = first + static_cast<std::ptrdiff_t>(take);
                for (std::ptrdiff_t i = 0; i < last - first; ++i) {
                    const std::ptrdiff_t c = ascending ? first + i : last - 1 - i;
                    const std::ptrdiff_t begin = c * m_grain;
                    m_fn(m_context, begin, std::min(begin + m_grain, m_count), worker);
                }
                v = region.load();
            }
        }
        return ran;
    }

    // The kernel may wake the helper on the caller's CPU and, while the caller never blocks,
    // leave it there with the other core idle (seen here for hundreds of jobs in a row). The
    // helper is therefore kept off the CPU the caller runs on; the mask changes only when the
    // caller migrates.
    void keepHelperOffCallerCpu() {
#if defined(__linux__)
        const int cpu = sched_getcpu();
        if (cpu < 0 || cpu == m_callerCpu) {
            return;
        }
        m_callerCpu = cpu;
        cpu_set_t allowed;
        CPU_ZERO(&allowed);
        if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) {
            return;  // one CPU: nowhere else to go
        }
        CPU_CLR(cpu, &allowed);
        pthread_setaffinity_np(m_thread.native_handle(), sizeof allowed, &allowed);
#endif
    }

    void loop() {
        std::uint64_t seen = 0;
        for (;;) {
            // Wait for the next job of a solver loop: first with pause instructions (it is
            // seen within nanoseconds; a sched_yield costs about a microsecond here, a fifth
            // of a 400x400 matVec), then yielding so that a process sharing this core runs,
            // and after kHelperSpin asleep. The helper is kept off the caller's CPU, so the
            // pause phase never takes time from the caller.
            const auto waitStart = std::chrono::steady_clock::now();
            for (;;) {
                for (int i = 0; i < 64 && m_generation.load() == seen; ++i) {
                    WW_PAUSE();
                }
                if (m_generation.load() != seen) {
                    break;
                }
                const auto waited = std::chrono::steady_clock::now() - waitStart;
                if (waited >= kHelperSpin || !m_keepSpinning.load(std::memory_order_relaxed)) {
                    break;
                }
                if (waited >= kHelperPauseSpin) {
                    std::this_thread::yield();
                }
            }
            if (m_generation.load() == seen) {
                std::unique_lock<std::mutex> lock(m_mutex);
                m_sleeping.store(true);
                m_wake.wait(lock, [&] { return m_generation.load() != seen; });
                m_sleeping.store(false);
            }
            seen = m_generation.load();
            if (m_stop) {
                return;
            }
            m_active.fetch_add(1);
            (void)work(1);
            m_active.fetch_sub(1);
        }
    }

    ChunkFn m_fn = nullptr;
    void* m_context = nullptr;
    std::ptrdiff_t m_count = 0;
    std::ptrdiff_t m_grain = 1;
    std::uint64_t m_job = 0;
    int m_callerCpu = -1;
    std::atomic<std::uint64_t> m_region[2] = {0, 0};
    std::atomic<std::uint64_t> m_generation{0};
    std::atomic<int> m_active{0};
    std::atomic<bool> m_sleeping{false};
    std::atomic<bool> m_keepSpinning{true};
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::thread m_thread;
};

// The same chunks, in order, on the caller.
void runSerially(std::ptrdiff_t count, std::ptrdiff_t grain, ChunkFn fn, void* context) {
    for (std::ptrdiff_t b = 0; b < count; b += grain) {
        fn(context, b, std::min(b + grain, count), 0);
    }
}

}  // namespace

void parallelForChunks(std::ptrdiff_t count, std::ptrdiff_t grain, ChunkFn fn, void* context) {
    grain = std::max<std::ptrdiff_t>(grain, 1);
    if (count <= grain) {
        if (count > 0) {
            fn(context, 0, count, 0);
        }
        return;
    }
    static Helper helper;
    static std::atomic<bool> busy{false};
    static detail::ModeChooser chooser;
    // One job at a time owns the helper; a concurrent caller (another thread, or a nested
    // call from inside a chunk) runs its loop alone instead of corrupting the shared job.
    if (busy.exchange(true)) {
        runSerially(count, grain, fn, context);
        return;
    }
    const detail::ModeChooser::Mode mode = chooser.choose(count);
    const bool split = mode == detail::ModeChooser::Mode::kSplit;
    const auto start = std::chrono::steady_clock::now();
    Helper::Outcome outcome;
    if (split) {
        outcome = helper.run(count, grain, fn, context);
    } else {
        if (mode == detail::ModeChooser::Mode::kSerialHelperReady) {
            helper.wake();
        } else {
            helper.rest();
        }
        runSerially(count, grain, fn, context);
    }
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    chooser.record(count, split, outcome.helperJoined, outcome.longWait ? 4.0 * ns : ns);
    busy.store(false);
}

}  // namespace ww::linalg
