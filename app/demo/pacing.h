// How many fixed simulation steps a frame takes.
//
// Real time (the default in the window): the wall-clock time of each frame is added to an
// accumulator, and the frame takes floor(accumulator / dt) steps of the scene's fixed dt, at
// most maxSteps; the remainder carries to the next frame (Fiedler, "Fix your timestep!").
// When a frame cannot take all it owes (the steps or the rendering are too slow), the backlog
// is dropped rather than carried, so a slow machine runs in slow motion instead of spiralling
// into ever longer frames; speed() then says how much slower than real time it runs.
// Fixed steps per frame (`--pacing fixed`, and always with `--frames N` unless real time is
// asked for): the same number of steps every frame whatever the clock says, so scripted runs
// are reproducible.
#pragma once

#include <algorithm>
#include <cmath>

namespace ww::demo {

enum class Pacing {
    kRealTime,  ///< steps follow the wall clock, at most maxSteps a frame
    kFixed,     ///< stepsPerFrame steps a frame (fractions accumulate)
};

class RealTimePacer {
  public:
    static constexpr int kDefaultMaxSteps = 4;
    /// A frame longer than this (a stall, a breakpoint, a dragged window) counts as this long.
    static constexpr double kMaxFrameSeconds = 0.25;
    /// Below this fraction of real time the view says the simulation is slower.
    static constexpr double kSlowBelow = 0.95;

    /// Steps to take for a frame that lasted `wallSeconds`, with steps of `dtSeconds`, at most
    /// `maxSteps`.
    int stepsFor(double wallSeconds, double dtSeconds, int maxSteps) {
        wallSeconds = std::max(0.0, wallSeconds);
        m_accumulator += std::min(wallSeconds, kMaxFrameSeconds);
        int n = dtSeconds > 0.0 ? static_cast<int>(std::floor(m_accumulator / dtSeconds)) : 0;
        n = std::clamp(n, 0, std::max(1, maxSteps));
        m_accumulator -= n * dtSeconds;
        // What could not be taken is dropped (at most one step's worth is kept).
        m_accumulator = std::min(m_accumulator, dtSeconds);
        // Simulated over wall time, averaged over the last second or so of frames.
        const double keep = std::exp(-wallSeconds / kAverageSeconds);
        m_simSum = keep * m_simSum + n * dtSeconds;
        m_wallSum = keep * m_wallSum + wallSeconds;
        return n;
    }
    /// Simulated seconds per wall-clock second over the recent frames (1 = real time).
    double speed() const { return m_wallSum > 0.0 ? m_simSum / m_wallSum : 1.0; }
    bool slowerThanRealTime() const { return speed() < kSlowBelow; }
    /// Forgets the accumulated time and the speed (after a pause or a change of mode).
    void restart() { *this = RealTimePacer{}; }

  private:
    static constexpr double kAverageSeconds = 1.0;
    double m_accumulator = 0.0;
    double m_simSum = 0.0;
    double m_wallSum = 0.0;
};

}  // namespace ww::demo
