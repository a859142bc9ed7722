// Process memory as soak runs and resource tests see it: the resident set (what the OS charges)
// and the C heap's bytes in use (what the program holds). RSS also counts memory the allocator
// keeps after it was freed — glibc raises its mmap threshold when a large block is freed, so the
// next large blocks come from the heap and stay resident after they are freed — and it swings
// with the phase of a scene's cycle (a wall that is rebuilt frees and reallocates its dense LCP
// blocks). A leak shows as heap in use that keeps growing; a high-water mark does not.
#pragma once

#include <nlohmann/json.hpp>

namespace ww::app {

/// Resident set size of this process, kB (0 when /proc is unavailable).
long residentKb();

/// Bytes malloc has handed out and not got back, over all arenas and mmapped blocks
/// (mallinfo2), kB. Not meaningful under AddressSanitizer, which has its own allocator.
long heapInUseKb();

/// Samples RSS and heap in use over a run of `totalSteps` steps: once at the warm-up step (at
/// least the first), then every `sampleEvery` steps, keeping the largest value of the first and
/// of the second half of the steps after warm-up. A leak makes the second half's peak higher than
/// the first one's; a scratch buffer's high-water mark (reached in the first half when each half
/// holds a full cycle of the scene) or the allocator's retention does not.
class MemoryWatch {
  public:
    MemoryWatch(int warmUpSteps, int totalSteps, int sampleEvery = 10);

    /// Call after each step with the number of steps run so far.
    void afterStep(int stepsRun);

    /// {"rss_kb": {warm, final, early_max, late_max}, "heap_kb": {same}}; a window with no
    /// samples (a run cut short) reports -1 there.
    nlohmann::json summary() const;

  private:
    struct Series {
        long warm = 0;
        long earlyMax = -1;
        long lateMax = -1;
    };
    int m_warmUp;
    int m_midpoint;
    int m_every;
    Series m_rss;
    Series m_heap;
};

}  // namespace ww::app
