#include "app/demo/frame_trace.h"

#include <fstream>
#include <nlohmann/json.hpp>

namespace ww::demo {

Status FrameTrace::start(std::string path, std::string scene) {
    std::ofstream probe(path, std::ios::app);
    if (!probe) {
        return Error{ErrorKind::kIo, "cannot write trace " + path};
    }
    m_path = std::move(path);
    m_scene = std::move(scene);
    m_frames.clear();
    return {};
}

void FrameTrace::record(int frame, double startUs, const FrameTiming& timing,
                        const std::vector<std::pair<std::string, double>>& values) {
    if (recording()) {
        m_frames.push_back({frame, startUs, timing, values});
    }
}

Status FrameTrace::stop() {
    if (!recording()) {
        return {};
    }
    nlohmann::json events = nlohmann::json::array();
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"args", {{"name", "wavewall demo: " + m_scene}}}});
    for (const Frame& f : m_frames) {
        double at = f.startUs;
        const std::pair<const char*, double> phases[] = {{"sim", f.timing.simMs},
                                                         {"render", f.timing.renderMs},
                                                         {"ui", f.timing.uiMs},
                                                         {"present", f.timing.swapMs}};
        for (const auto& [name, ms] : phases) {
            events.push_back({{"name", name},
                              {"ph", "X"},
                              {"pid", 1},
                              {"tid", 1},
                              {"ts", at},
                              {"dur", ms * 1000.0},
                              {"args", {{"frame", f.index}, {"steps", f.timing.steps}}}});
            at += ms * 1000.0;
        }
        nlohmann::json counters = {{"frame_ms", f.timing.frameMs}};
        if (f.timing.gpuRenderMs >= 0.0) {
            counters["render_gpu_ms"] = f.timing.gpuRenderMs;
        }
        for (const auto& [name, v] : f.values) {
            counters[name] = v;
        }
        events.push_back(
            {{"name", "stats"}, {"ph", "C"}, {"pid", 1}, {"ts", f.startUs}, {"args", counters}});
    }
    const std::string path = m_path;
    m_path.clear();
    m_frames.clear();
    std::ofstream out(path, std::ios::trunc);
    out << nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() << '\n';
    if (!out) {
        return Error{ErrorKind::kIo, "could not write trace " + path};
    }
    return {};
}

}  // namespace ww::demo
