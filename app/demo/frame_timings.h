// Where each frame's time goes (simulation, rendering, UI, present), kept for the last
// few seconds for the panel's plots and summed over the whole run for the exit report.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

namespace ww::demo {

/// One frame, milliseconds of wall-clock time on the CPU (the GPU's own time in gpuRenderMs).
struct FrameTiming {
    double frameMs = 0.0;   ///< start of this frame to start of the next
    double simMs = 0.0;     ///< scene step(s)
    double renderMs = 0.0;  ///< fillDrawData + Renderer::render (submission; with sync, execution)
    double gpuRenderMs = -1.0;  ///< GL timer query of the renderer's passes; −1 if unknown
    double uiMs = 0.0;          ///< ImGui: build the panel and draw it
    double swapMs = 0.0;        ///< present (includes waiting for vsync)
    int steps = 0;              ///< simulation steps taken this frame
};

/// Ring buffer of the last kCapacity frames plus running totals.
class FrameTimings {
  public:
    static constexpr std::size_t kCapacity = 300;

    void push(const FrameTiming& t) {
        m_ring[m_next] = t;
        m_next = (m_next + 1) % kCapacity;
        m_count = std::min(m_count + 1, kCapacity);
        ++m_total.steps;
        m_total.frameMs += t.frameMs;
        m_total.simMs += t.simMs;
        m_total.renderMs += t.renderMs;
        m_total.uiMs += t.uiMs;
        m_total.swapMs += t.swapMs;
        if (t.gpuRenderMs >= 0.0) {
            m_gpuSum += t.gpuRenderMs;
            ++m_gpuCount;
        }
        if (t.steps > 0) {
            m_simPerStepSum += t.simMs / t.steps;
            ++m_simFrames;
        }
    }

    std::size_t size() const { return m_count; }
    /// Frame i of the kept ones, oldest first.
    const FrameTiming& at(std::size_t i) const {
        return m_ring[(m_next + kCapacity - m_count + i) % kCapacity];
    }
    /// Mean over the last `n` kept frames of one field.
    template <typename F>
    double recentMean(std::size_t n, F field) const {
        n = std::min(n, m_count);
        double sum = 0.0;
        for (std::size_t i = m_count - n; i < m_count; ++i) {
            sum += field(at(i));
        }
        return n > 0 ? sum / static_cast<double>(n) : 0.0;
    }

    /// Means over every frame pushed so far (frameMs … swapMs); `steps` holds the count.
    FrameTiming totalMean() const {
        FrameTiming m = m_total;
        const double n = std::max(1, m_total.steps);
        m.frameMs /= n;
        m.simMs /= n;
        m.renderMs /= n;
        m.uiMs /= n;
        m.swapMs /= n;
        m.gpuRenderMs = m_gpuCount > 0 ? m_gpuSum / m_gpuCount : -1.0;
        return m;
    }
    /// Median frame time over the kept frames (robust to the first frames' warm-up).
    double medianFrameMs() const {
        std::array<double, kCapacity> ms{};
        for (std::size_t i = 0; i < m_count; ++i) {
            ms[i] = at(i).frameMs;
        }
        if (m_count == 0) {
            return 0.0;
        }
        const auto mid = ms.begin() + static_cast<std::ptrdiff_t>(m_count / 2);
        std::nth_element(ms.begin(), mid, ms.begin() + static_cast<std::ptrdiff_t>(m_count));
        return *mid;
    }
    /// Mean simulation ms per step over frames that stepped.
    double meanMsPerStep() const { return m_simFrames > 0 ? m_simPerStepSum / m_simFrames : 0.0; }

  private:
    std::array<FrameTiming, kCapacity> m_ring{};
    std::size_t m_next = 0;
    std::size_t m_count = 0;
    FrameTiming m_total{};
    double m_gpuSum = 0.0;
    int m_gpuCount = 0;
    double m_simPerStepSum = 0.0;
    int m_simFrames = 0;
};

}  // namespace ww::demo
