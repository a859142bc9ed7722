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

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WW_PAUSE() _mm_pause()
#else
#define WW_PAUSE() std::this_thread::yield()
#endif

namespace ww::linalg {

namespace {

// The shared claim word packs (job id, chunk count, next chunk), so a claim is valid only for
// the job it names: a helper that wakes late sees the finished job as exhausted and can never
// take a chunk of a job whose fields are not yet published.
constexpr int kNextBits = 22;
// About 50 us of pause instructions: far longer than any chunk, so the helper was preempted
// while holding one; such a job counts 4x its time against the split mode.
constexpr long kLongWaitSpins = 20000;
constexpr std::uint64_t kFieldMask = (std::uint64_t{1} << kNextBits) - 1;

inline std::uint64_t pack(std::uint64_t job, std::uint64_t chunks, std::uint64_t next) {
    return (job << (2 * kNextBits)) | (chunks << kNextBits) | next;
}
inline std::uint64_t chunksOf(std::uint64_t v) {
    return (v >> kNextBits) & kFieldMask;
}
inline std::uint64_t nextOf(std::uint64_t v) {
    return v & kFieldMask;
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
        m_claim.store(pack(++m_job & ((std::uint64_t{1} << 20) - 1), chunks, 0));
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
    void work(int worker) {
        std::uint64_t v = m_claim.load();
        for (;;) {
            if (nextOf(v) >= chunksOf(v)) {
                return;
            }
            if (!m_claim.compare_exchange_weak(v, v + 1)) {
                continue;  // v now holds the current word
            }
            const auto begin = static_cast<std::ptrdiff_t>(nextOf(v)) * m_grain;
            m_fn(m_context, begin, std::min(begin + m_grain, m_count), worker);
            v = m_claim.load();
        }
    }

    void loop() {
        std::uint64_t seen = 0;
        for (;;) {
            // Wait ~50 us for the next job of a solver loop, then sleep. Yielding (not
            // pausing) while waiting: if the scheduler put this thread on the caller's core,
            // the caller runs instead of watching the helper spin.
            const auto waitStart = std::chrono::steady_clock::now();
            while (m_generation.load() == seen &&
                   std::chrono::steady_clock::now() - waitStart < std::chrono::microseconds(50)) {
                std::this_thread::yield();
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
    std::atomic<std::uint64_t> m_claim{0};
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
        if (e.parallel.filled == 0) {
            return true;
        }
        if (e.serial.filled == 0) {
            return false;
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
        (parallel ? e.parallel : e.serial).add(ns);
    }

  private:
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
