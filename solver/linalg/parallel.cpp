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

    /// Returns true when the caller had to wait long for a chunk the helper held (the
    /// helper was descheduled mid-chunk: the machine is busy).
    bool run(std::ptrdiff_t count, std::ptrdiff_t grain, ChunkFn fn, void* context) {
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
        m_generation.fetch_add(1);
        if (m_sleeping.load()) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_wake.notify_one();
        }
        work(0);
        // Only chunks the helper has already claimed are waited for.
        long spins = 0;
        while (m_active.load() != 0) {
            WW_PAUSE();
            ++spins;
        }
        return spins > kLongWaitSpins;
    }

  private:
    // Worker 0 (the caller) owns region 0, worker 1 (the helper) region 1; see "Claiming".
    void work(int worker) {
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
                if (waited >= kHelperSpin) {
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
            work(1);
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
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::thread m_thread;
};

// Chooses, per job size, between the caller alone and caller + helper from measured times
// (the median of each mode's last 7 jobs), re-trying the other mode now and then so that a
// change in machine load is noticed. On a free machine the split wins; when other processes keep
// the second core busy the helper's chunks arrive late and the caller alone wins.
class ModeChooser {
  public:
    bool chooseParallel(std::ptrdiff_t count) {
        Entry& e = entry(count);
        ++e.jobs;
        // Start-up: the first jobs of a size run on cold caches and a sleeping helper, so
        // they are not recorded; then the modes alternate until each has kMinSamples times.
        // (Deciding from a single cold sample once locked a size into the slower mode for
        // hundreds of jobs.)
        if (e.jobs <= kWarmUpJobs || e.parallel.filled < kMinSamples ||
            e.serial.filled < kMinSamples) {
            return e.jobs % 2 == 1;
        }
        const double p = e.parallel.median();
        const double q = e.serial.median();
        bool parallel = p < q;
        // Re-try the other mode rarely when it was much worse: a helper preempted while
        // holding a chunk costs a whole scheduler time slice (milliseconds).
        const double worse = parallel ? q / p : p / q;
        const unsigned period = worse < 1.5 ? 16u : worse < 8.0 ? 256u : 4096u;
        // Re-tries come in bursts of 4 so that the helper is awake for most of them: after a
        // stretch of caller-alone jobs it sleeps, and its wake-up would bias a single try.
        if (e.jobs % period == 0) {
            e.burst = 4;
        }
        if (e.burst > 0) {
            --e.burst;
            parallel = !parallel;
        }
        return parallel;
    }
    void record(std::ptrdiff_t count, bool parallel, double ns) {
        Entry& e = entry(count);
        if (e.jobs > kWarmUpJobs) {
            (parallel ? e.parallel : e.serial).add(ns);
        }
    }

  private:
    static constexpr unsigned kWarmUpJobs = 2;
    static constexpr unsigned kMinSamples = 3;
    // The last 7 times of one mode. Their median is compared: the caller being preempted
    // hits both modes alike and must not decide; a helper preempted while holding a chunk
    // is caught separately (the job counts 4x against the split mode).
    struct Samples {
        static constexpr unsigned kCount = 7;
        std::array<double, kCount> ns{};
        unsigned next = 0;
        unsigned filled = 0;
        void add(double v) {
            ns[next] = v;
            next = next + 1 == kCount ? 0 : next + 1;
            filled = std::min(filled + 1, kCount);
        }
        double median() const {
            double sorted[kCount];
            for (unsigned i = 0; i < filled; ++i) {  // insertion sort of at most 7 values
                unsigned k = i;
                for (; k > 0 && sorted[k - 1] > ns[i]; --k) {
                    sorted[k] = sorted[k - 1];
                }
                sorted[k] = ns[i];
            }
            return sorted[filled / 2];
        }
    };
    struct Entry {
        std::ptrdiff_t count = -1;
        Samples serial, parallel;
        unsigned jobs = 0;
        unsigned burst = 0;
    };
    Entry& entry(std::ptrdiff_t count) {
        Entry& e = m_entries[static_cast<std::size_t>(count) % m_entries.size()];
        if (e.count != count) {
            e = Entry{};
            e.count = count;
        }
        return e;
    }
    std::array<Entry, 16> m_entries{};
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
    static ModeChooser chooser;
    // One job at a time owns the helper; a concurrent caller (another thread, or a nested
    // call from inside a chunk) runs its loop alone instead of corrupting the shared job.
    if (busy.exchange(true)) {
        runSerially(count, grain, fn, context);
        return;
    }
    const bool split = chooser.chooseParallel(count);
    const auto start = std::chrono::steady_clock::now();
    bool longWait = false;
    if (split) {
        longWait = helper.run(count, grain, fn, context);
    } else {
        runSerially(count, grain, fn, context);
    }
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    chooser.record(count, split, longWait ? 4.0 * ns : ns);
    busy.store(false);
}

}  // namespace ww::linalg
