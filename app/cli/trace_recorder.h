// Records what a run did, step by step, for later study:
//  - a Chrome Trace Event Format JSON (opens in Perfetto and chrome://tracing): one complete
//    slice ("ph":"X") per phase per step with args (n, iterations, residual, backend), and
//    counter tracks ("ph":"C") for step ms, iterations and residual;
//  - a CSV with one row per step and one column per phase/statistic.
// Events are buffered in memory and written at the end (or by flush() from a SIGINT handler),
// so recording does not distort the timings it records.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "solver/core/result.h"

namespace ww::app {

/// One phase of one step: its name, start (µs since the run began) and duration.
struct PhaseSlice {
    std::string name;
    double startUs = 0;
    double durationUs = 0;
};

/// What the recorder keeps of one step.
struct StepTrace {
    int step = 0;
    double startUs = 0;
    double stepMs = 0;
    std::vector<PhaseSlice> phases;
    std::vector<std::pair<std::string, double>> values;  ///< n, iterations, residual, ...
};

class TraceRecorder {
  public:
    /// `tracePath` or `csvPath` may be empty (that output is not written). Checks up front
    /// that both paths are writable.
    static Result<TraceRecorder> create(std::string tracePath, std::string csvPath,
                                        std::string scene, std::string backend);
    TraceRecorder(TraceRecorder&& o) noexcept;
    TraceRecorder& operator=(TraceRecorder&&) = delete;

    void record(StepTrace step);
    void setBackend(std::string backend);
    /// Writes both files (complete, valid documents) with everything recorded so far.
    /// Safe to call more than once; the last call wins.
    Status flush();
    bool enabled() const { return !m_tracePath.empty() || !m_csvPath.empty(); }

  private:
    TraceRecorder() = default;
    Status writeTrace() const;
    Status writeCsv() const;

    std::string m_tracePath;
    std::string m_csvPath;
    std::string m_scene;
    std::string m_backend;
    std::vector<StepTrace> m_steps;
    mutable std::mutex m_mutex;
};

}  // namespace ww::app
