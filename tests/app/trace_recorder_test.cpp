#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/cli/trace_recorder.h"

namespace ww {
namespace {

namespace fs = std::filesystem;

TEST(TraceRecorder, WritesChromeTraceAndCsv) {
    const fs::path dir = fs::temp_directory_path() / ("ww_trace_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto rec = app::TraceRecorder::create((dir / "t.json").string(), (dir / "t.csv").string(),
                                          "wall", "cpu");
    ASSERT_TRUE(rec.ok()) << rec.error().message;
    for (int i = 0; i < 3; ++i) {
        app::StepTrace s;
        s.step = i;
        s.startUs = 1000.0 * i;
        s.stepMs = 0.5 + i;
        s.phases = {{"collide", s.startUs, 100}, {"solve", s.startUs + 100, 300}};
        s.values = {{"n", 12.0 + i}, {"iterations", 24.0}, {"residual", 1e-4}};
        rec->record(s);
    }
    ASSERT_TRUE(rec->flush().ok());

    std::ifstream in(dir / "t.json");
    const nlohmann::json doc = nlohmann::json::parse(in);
    int slices = 0;
    int counters = 0;
    for (const auto& e : doc["traceEvents"]) {
        if (e["ph"] == "X" && e["name"] == "solve") {
            ++slices;
            EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 300.0);
            EXPECT_EQ(e["args"]["backend"], "cpu");
        }
        if (e["ph"] == "C") {
            ++counters;
        }
    }
    EXPECT_EQ(slices, 3);
    EXPECT_EQ(counters, 9);  // step_ms, iterations, residual per step

    std::ifstream csv(dir / "t.csv");
    std::string header, row;
    std::getline(csv, header);
    EXPECT_EQ(header, "step,step_ms,collide_ms,solve_ms,n,iterations,residual");
    std::getline(csv, row);
    EXPECT_EQ(row, "0,0.5,0.1,0.3,12,24,0.0001");
    fs::remove_all(dir);
}

TEST(TraceRecorder, UnwritablePathFailsBeforeTheRun) {
    auto rec = app::TraceRecorder::create("/nonexistent-dir/t.json", "", "wall", "cpu");
    ASSERT_FALSE(rec.ok());
    EXPECT_NE(rec.error().message.find("--trace"), std::string::npos);
}

}  // namespace
}  // namespace ww
