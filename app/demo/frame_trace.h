// Records the demo's frames as a Chrome Trace Event Format JSON (opens in Perfetto and
// chrome://tracing): one complete slice ("ph":"X") per phase per frame (sim, render, ui,
// present) and counter tracks ("ph":"C") for the scene's per-step values. Events are kept
// in memory and written by stop(), so recording does not distort the timings it records.
// The headless runner's app::TraceRecorder writes the same format for solver steps; this
// one is the demo's, kept free of the solver libraries.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "app/demo/frame_timings.h"
#include "solver/core/result.h"

namespace ww::demo {

class FrameTrace {
  public:
    /// Starts recording to `path` (checked writable now, written by stop()).
    Status start(std::string path, std::string scene);
    /// Adds one frame that began `startUs` after the demo started.
    void record(int frame, double startUs, const FrameTiming& timing,
                const std::vector<std::pair<std::string, double>>& values);
    /// Writes the file and stops recording.
    Status stop();
    bool recording() const { return !m_path.empty(); }
    const std::string& path() const { return m_path; }

  private:
    struct Frame {
        int index = 0;
        double startUs = 0.0;
        FrameTiming timing;
        std::vector<std::pair<std::string, double>> values;
    };
    std::string m_path;
    std::string m_scene;
    std::vector<Frame> m_frames;
};

}  // namespace ww::demo
