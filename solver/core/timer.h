// Wall-clock timing helpers for per-phase statistics (milliseconds, steady clock).
#pragma once

#include <chrono>

namespace ww {

class Stopwatch {
  public:
    Stopwatch() : m_start(Clock::now()) {}
    void restart() { m_start = Clock::now(); }
    /// Milliseconds since construction or the last restart().
    double elapsedMs() const {
        return std::chrono::duration<double, std::milli>(Clock::now() - m_start).count();
    }

  private:
    using Clock = std::chrono::steady_clock;
    Clock::time_point m_start;
};

}  // namespace ww
