#include "app/cli/trace_recorder.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "solver/io/matrix_market.h"

namespace ww::app {

Result<TraceRecorder> TraceRecorder::create(std::string tracePath, std::string csvPath,
                                            std::string scene, std::string backend) {
    if (!tracePath.empty()) {
        if (Status s = io::checkWritable(tracePath, "--trace"); !s) {
            return s.error();
        }
    }
    if (!csvPath.empty()) {
        if (Status s = io::checkWritable(csvPath, "--csv"); !s) {
            return s.error();
        }
    }
    TraceRecorder r;
    r.m_tracePath = std::move(tracePath);
    r.m_csvPath = std::move(csvPath);
    r.m_scene = std::move(scene);
    r.m_backend = std::move(backend);
    return r;
}

TraceRecorder::TraceRecorder(TraceRecorder&& o) noexcept
    : m_tracePath(std::move(o.m_tracePath)),
      m_csvPath(std::move(o.m_csvPath)),
      m_scene(std::move(o.m_scene)),
      m_backend(std::move(o.m_backend)),
      m_steps(std::move(o.m_steps)) {}

void TraceRecorder::record(StepTrace step) {
    if (!enabled()) {
        return;
    }
    std::lock_guard lock(m_mutex);
    m_steps.push_back(std::move(step));
}

void TraceRecorder::setBackend(std::string backend) {
    std::lock_guard lock(m_mutex);
    m_backend = std::move(backend);
}

Status TraceRecorder::flush() {
    std::lock_guard lock(m_mutex);
    if (!m_tracePath.empty()) {
        if (Status s = writeTrace(); !s) {
            return s;
        }
    }
    if (!m_csvPath.empty()) {
        return writeCsv();
    }
    return {};
}

Status TraceRecorder::writeTrace() const {
    using nlohmann::json;
    json events = json::array();
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"args", {{"name", "wavewall " + m_scene}}}});
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", 1},
                      {"args", {{"name", "simulation (" + m_backend + ")"}}}});
    for (const StepTrace& s : m_steps) {
        json args = {{"step", s.step}, {"backend", m_backend}};
        for (const auto& [k, v] : s.values) {
            args[k] = v;
        }
        events.push_back({{"name", "step"},
                          {"cat", m_scene},
                          {"ph", "X"},
                          {"pid", 1},
                          {"tid", 1},
                          {"ts", s.startUs},
                          {"dur", s.stepMs * 1000.0},
                          {"args", args}});
        for (const PhaseSlice& p : s.phases) {
            events.push_back({{"name", p.name},
                              {"cat", m_scene},
                              {"ph", "X"},
                              {"pid", 1},
                              {"tid", 1},
                              {"ts", p.startUs},
                              {"dur", p.durationUs},
                              {"args", args}});
        }
        events.push_back({{"name", "step_ms"},
                          {"ph", "C"},
                          {"pid", 1},
                          {"ts", s.startUs},
                          {"args", {{"step_ms", s.stepMs}}}});
        for (const auto& [k, v] : s.values) {
            if (k == "iterations" || k == "residual") {
                events.push_back(
                    {{"name", k}, {"ph", "C"}, {"pid", 1}, {"ts", s.startUs}, {"args", {{k, v}}}});
            }
        }
    }
    json doc = {
        {"traceEvents", events},
        {"displayTimeUnit", "ms"},
        {"otherData", {{"scene", m_scene}, {"backend", m_backend}, {"steps", m_steps.size()}}}};
    // Write to a temporary file and rename, so an interrupted write never leaves half a file.
    const std::string tmp = m_tracePath + ".partial";
    {
        std::ofstream out(tmp);
        out << doc.dump() << "\n";
        if (!out) {
            return Error{ErrorKind::kIo, m_tracePath + ": writing the trace failed"};
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, m_tracePath, ec);
    if (ec) {
        return Error{ErrorKind::kIo, m_tracePath + ": " + ec.message()};
    }
    return {};
}

Status TraceRecorder::writeCsv() const {
    std::vector<std::string> columns;
    auto addColumn = [&](const std::string& c) {
        if (std::find(columns.begin(), columns.end(), c) == columns.end()) {
            columns.push_back(c);
        }
    };
    for (const StepTrace& s : m_steps) {
        for (const PhaseSlice& p : s.phases) {
            addColumn(p.name + "_ms");
        }
        for (const auto& kv : s.values) {
            addColumn(kv.first);
        }
    }
    const std::string tmp = m_csvPath + ".partial";
    {
        std::ofstream out(tmp);
        out << "step,step_ms";
        for (const std::string& c : columns) {
            out << "," << c;
        }
        out << "\n";
        char buf[64];
        for (const StepTrace& s : m_steps) {
            std::snprintf(buf, sizeof buf, "%d,%.6g", s.step, s.stepMs);
            out << buf;
            for (const std::string& c : columns) {
                double v = 0;
                bool found = false;
                for (const PhaseSlice& p : s.phases) {
                    if (p.name + "_ms" == c) {
                        v = p.durationUs / 1000.0;
                        found = true;
                    }
                }
                for (const auto& [k, x] : s.values) {
                    if (k == c) {
                        v = x;
                        found = true;
                    }
                }
                if (found) {
                    std::snprintf(buf, sizeof buf, ",%.6g", v);
                    out << buf;
                } else {
                    out << ",";
                }
            }
            out << "\n";
        }
        if (!out) {
            return Error{ErrorKind::kIo, m_csvPath + ": writing the CSV failed"};
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, m_csvPath, ec);
    if (ec) {
        return Error{ErrorKind::kIo, m_csvPath + ": " + ec.message()};
    }
    return {};
}

}  // namespace ww::app
