// The split-or-not decision of parallelFor (parallel.h), per job size, from measured job times.
// Internal to linalg; a header of its own so that tests can drive it with made-up times.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace ww::linalg::detail {

// Chooses, per job size, between the caller alone and caller + helper from measured times.
// The preferred mode runs every job; the other one is re-tried now and then in a burst of 4 jobs
// so that a change in machine load is noticed. On a free machine the split wins; when other
// processes keep the second core busy the helper's chunks arrive late and the caller alone wins.
//
// What this virtual machine taught the rules (job traces of `wavewall bench --suite lcp`):
//  - Now and then both vCPUs stall for a few milliseconds (four 1000x1000 jobs of 520-740 us
//    where 26 us is usual). A period fixed by how much worse a mode looked read that as "split
//    is 10x worse" and kept the size on one core for the next 4096 jobs. So a bad stretch now
//    makes the other mode preferred only until the next burst, 16 jobs later, and each burst
//    that confirms the choice doubles the wait, up to 4096 jobs.
//  - Waking a helper that went to sleep takes longer than a 400x400 job (tens of us for an idle
//    vCPU): a burst of four split jobs then ran entirely on the caller and "showed" that the
//    split does not pay. The helper is therefore woken a few jobs before a split burst, and a
//    split job it took no part in says nothing about the split: a burst with none is re-tried
//    16 jobs later instead of counting against the split.
//  - While the caller works alone for good, the helper must not wait for work by spinning: in
//    some periods the two vCPUs share one core's throughput, and a spinning helper then slows
//    the caller (a 400-row serial job went from 6 to 7 us). kSerial lets it sleep at once.
class ModeChooser {
  public:
    enum class Mode {
        kSerial,             ///< the caller alone; no split job is due soon: the helper may sleep
        kSerialHelperReady,  ///< the caller alone, but a split job is due within a few jobs
        kSplit,              ///< caller and helper
    };

    Mode choose(std::ptrdiff_t count) {
        Entry& e = entry(count);
        ++e.jobs;
        // Start-up: the first jobs of a size run on cold caches and a sleeping helper, so
        // they are not recorded; then the modes alternate until each has kMinSamples times.
        // (Deciding from a single cold sample once locked a size into the slower mode for
        // hundreds of jobs.)
        if (e.period == 0) {
            if (e.jobs <= kWarmUpJobs || e.parallel.filled < kMinSamples ||
                e.serial.filled < kMinSamples) {
                return e.jobs % 2 == 1 ? Mode::kSplit : Mode::kSerialHelperReady;
            }
            e.preferParallel = e.parallel.median() < e.serial.median();
            restartBackOff(e);
        }
        if (e.burst == 0) {
            // The preferred mode's window is fresh, the other's is from its last burst: if the
            // preferred one has become the slower, switch and re-try it soon.
            if (otherIsFaster(e)) {
                e.preferParallel = !e.preferParallel;
                restartBackOff(e);
            } else if (--e.untilRetry == 0) {
                // A burst starts from an empty window: the old times are from another load.
                (e.preferParallel ? e.serial : e.parallel).clear();
                e.burst = kBurstJobs;
            }
        }
        if (e.burst > 0 ? !e.preferParallel : e.preferParallel) {
            return Mode::kSplit;
        }
        // A serial re-try burst returns to the split within 4 jobs; a split burst is woken for
        // kWakeAheadJobs ahead.
        return e.preferParallel || e.untilRetry <= kWakeAheadJobs ? Mode::kSerialHelperReady
                                                                  : Mode::kSerial;
    }

    /// helperJoined: whether the helper ran any chunk of a split job.
    void record(std::ptrdiff_t count, bool split, bool helperJoined, double ns) {
        Entry& e = entry(count);
        if (e.jobs <= kWarmUpJobs) {
            return;
        }
        const bool retry = e.burst > 0 && split != e.preferParallel;
        if (!retry || !split || helperJoined) {
            (split ? e.parallel : e.serial).add(ns);
        }
        if (retry && --e.burst == 0) {
            const Samples& other = e.preferParallel ? e.serial : e.parallel;
            if (other.filled == 0) {
                e.untilRetry = kMinPeriod;  // the helper never came: no evidence either way
            } else if (otherIsFaster(e)) {
                // The burst's median (the 3rd of 4 when all count: a helper woken from sleep
                // makes the first split job slow) beat the preferred mode's recent jobs.
                e.preferParallel = !e.preferParallel;
                restartBackOff(e);
            } else {
                e.period = std::min(2 * e.period, kMaxPeriod);
                e.untilRetry = e.period;
            }
        }
    }

  private:
    static constexpr unsigned kWarmUpJobs = 2;
    static constexpr unsigned kMinSamples = 3;
    static constexpr unsigned kBurstJobs = 4;
    static constexpr unsigned kMinPeriod = 16;
    static constexpr unsigned kWakeAheadJobs = 3;
    // A helper preempted while holding a chunk costs a scheduler time slice (milliseconds), so
    // on a busy machine a split re-try is expensive: at most 4 such jobs in 4096.
    static constexpr unsigned kMaxPeriod = 4096;
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
        void clear() {
            next = 0;
            filled = 0;
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
        std::uint64_t lastUse = 0;
        Samples serial, parallel;
        unsigned jobs = 0;
        bool preferParallel = false;
        unsigned period = 0;  // jobs between re-tries of the other mode; 0 while warming up
        unsigned untilRetry = 0;
        unsigned burst = 0;  // re-try jobs left
    };
    static bool otherIsFaster(const Entry& e) {
        const Samples& preferred = e.preferParallel ? e.parallel : e.serial;
        const Samples& other = e.preferParallel ? e.serial : e.parallel;
        return other.filled > 0 && other.median() < preferred.median();
    }
    static void restartBackOff(Entry& e) {
        e.period = kMinPeriod;
        e.untilRetry = kMinPeriod;
        e.burst = 0;
    }
    // The sizes seen last, least recently used replaced. (A table indexed by count % 16 let
    // the benchmark's 400x400 solve and its 160000-float read of the same matrix evict each
    // other, so every round started the 400 solve from scratch.)
    Entry& entry(std::ptrdiff_t count) {
        ++m_tick;
        Entry* victim = &m_entries[0];
        for (Entry& e : m_entries) {
            if (e.count == count) {
                e.lastUse = m_tick;
                return e;
            }
            if (e.lastUse < victim->lastUse) {
                victim = &e;
            }
        }
        *victim = Entry{};
        victim->count = count;
        victim->lastUse = m_tick;
        return *victim;
    }
    std::array<Entry, 16> m_entries{};
    std::uint64_t m_tick = 0;
};

}  // namespace ww::linalg::detail
