#include "app/cli/memory_probe.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace ww::app {

long residentKb() {
    // statm (pages: size resident ...) is one short line: cheap enough to read every few steps.
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (f == nullptr) {
        return 0;
    }
    long sizePages = 0;
    long residentPages = 0;
    const int got = std::fscanf(f, "%ld %ld", &sizePages, &residentPages);
    std::fclose(f);
    return got == 2 ? residentPages * (sysconf(_SC_PAGESIZE) / 1024) : 0;
}

long heapInUseKb() {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<long>((m.uordblks + m.hblkhd) / 1024);
}

MemoryWatch::MemoryWatch(int warmUpSteps, int totalSteps, int sampleEvery)
    : m_warmUp(std::clamp(warmUpSteps, 1, std::max(1, totalSteps))),
      m_midpoint(m_warmUp + (totalSteps - m_warmUp) / 2),
      m_every(std::max(1, sampleEvery)) {}

void MemoryWatch::afterStep(int stepsRun) {
    if (stepsRun < m_warmUp || (stepsRun > m_warmUp && (stepsRun - m_warmUp) % m_every != 0)) {
        return;
    }
    const long rss = residentKb();
    const long heap = heapInUseKb();
    if (stepsRun == m_warmUp) {
        m_rss.warm = rss;
        m_heap.warm = heap;
        return;
    }
    const bool early = stepsRun <= m_midpoint;
    for (auto [series, value] : {std::pair{&m_rss, rss}, std::pair{&m_heap, heap}}) {
        long& peak = early ? series->earlyMax : series->lateMax;
        peak = std::max(peak, value);
    }
}

nlohmann::json MemoryWatch::summary() const {
    const auto series = [](const Series& s, long final) {
        return nlohmann::json{
            {"warm", s.warm}, {"final", final}, {"early_max", s.earlyMax}, {"late_max", s.lateMax}};
    };
    return {{"rss_kb", series(m_rss, residentKb())}, {"heap_kb", series(m_heap, heapInUseKb())}};
}

}  // namespace ww::app
