// Runs `wavewall headless` end to end: invariant checks, outputs, determinism, backends.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "solver/rigid/world.h"
#include "support/gpu_fixture.h"
#include "support/sanitizer.h"
#include "support/seed.h"

namespace ww {
namespace {

namespace fs = std::filesystem;

struct Outcome {
    int code = -1;
    std::string output;
};

Outcome headless(const std::string& args, const std::string& env = "") {
    const std::string cmd = env + " " WW_WAVEWALL_EXE " headless " + args + " 2>&1";
    Outcome r;
    FILE* p = popen(cmd.c_str(), "r");
    std::array<char, 4096> buf{};
    while (p != nullptr && fgets(buf.data(), buf.size(), p) != nullptr) {
        r.output += buf.data();
    }
    const int status = p != nullptr ? pclose(p) : -1;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

class Headless : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("ww_headless_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }
    nlohmann::json readJson(const std::string& name) const {
        std::ifstream in(path(name));
        return nlohmann::json::parse(in);
    }
    fs::path m_dir;
};

TEST_F(Headless, WallWithCheckPassesAndWritesASummary) {
    Outcome r = headless(
        "--scene wall --backend cpu --steps 180 --check --event 60:shoot "
        "--event 120:remove:3,0 --warm-up-steps 40 --summary-json " +
        path("s.json"));
    ASSERT_EQ(r.code, 0) << r.output;
    const nlohmann::json s = readJson("s.json");
    for (const char* key :
         {"scene", "backend", "steps", "seed", "hash", "renderer", "step_ms", "phase_ms", "lcp",
          "max_penetration", "max_speed", "max_drift", "violations"}) {
        EXPECT_TRUE(s.contains(key)) << key;
    }
    EXPECT_EQ(s["steps"], 180);
    EXPECT_EQ(s["renderer"], "none");
    for (const char* phase : {"collide", "assemble", "solve", "integrate"}) {
        EXPECT_TRUE(s["phase_ms"].contains(phase)) << phase;
    }
    for (const char* key :
         {"n_max", "contacts_max", "islands_max", "iterations_mean", "residual_max"}) {
        EXPECT_TRUE(s["lcp"].contains(key)) << key;
    }
    EXPECT_GT(s["lcp"]["n_max"].get<int>(), 0);
    EXPECT_TRUE(s["violations"].empty());
    // Memory sampled from step 40: both halves after it have samples. (The heap in use is
    // glibc's count, which AddressSanitizer's allocator bypasses.)
    for (const char* key : {"warm", "final", "early_max", "late_max"}) {
        EXPECT_GT(s["rss_kb"][key].get<long>(), 0) << key;
#if !WW_TEST_UNDER_ASAN
        EXPECT_GT(s["heap_kb"][key].get<long>(), 0) << key;
#endif
    }
    EXPECT_GT(s["step_ms_drift"]["last_tenth_mean"].get<double>(), 0.0);
}

TEST_F(Headless, WaterWithCheckPassesAndReportsEnergy) {
    Outcome r = headless(
        "--scene water --backend cpu --grid 64x64 --steps 200 --check "
        "--event 50:drop:0.3,0.7 --summary-json " +
        path("s.json"));
    ASSERT_EQ(r.code, 0) << r.output;
    const nlohmann::json s = readJson("s.json");
    EXPECT_DOUBLE_EQ(s["dt_ratio"].get<double>(), 2.0);
    EXPECT_GT(s["cg"]["iterations_mean"].get<double>(), 0.0);
    EXPECT_GT(s["energy"]["initial"].get<double>(), 0.0);
    EXPECT_TRUE(s["phase_ms"].contains("rhs"));
    EXPECT_TRUE(s["phase_ms"].contains("solve"));
    // Undamped Crank–Nicolson conserves the discrete energy; the drop at step 50 adds some.
    EXPECT_GE(s["energy"]["final"].get<double>(), s["energy"]["initial"].get<double>() * 0.99);
}

TEST_F(Headless, OmegaFarTooLargeIsADivergence) {
    // The shot makes the solver iterate: the standing wall's warm-started steps meet the
    // tolerance before the first iteration, so a bad omega never shows there.
    Outcome r = headless(
        "--scene wall --backend cpu --steps 40 --event 1:shoot --omega 50 --adaptive-omega off");
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find("diverged"), std::string::npos) << r.output;
}

TEST_F(Headless, ExplicitWaterBeyondItsLimitFailsTheCheck) {
    Outcome r = headless(
        "--scene water --backend cpu --grid 64x64 --scheme explicit "
        "--dt-ratio 1.5 --steps 300 --check");
    EXPECT_EQ(r.code, 1) << r.output;
}

TEST_F(Headless, TraceAndCsvHoldTheExpectedEvents) {
    Outcome r = headless("--scene wall --backend cpu --steps 20 --trace " + path("t.json") +
                         " --csv " + path("t.csv"));
    ASSERT_EQ(r.code, 0) << r.output;
    const nlohmann::json t = readJson("t.json");
    std::map<std::string, int> slices;
    int counters = 0;
    for (const auto& e : t["traceEvents"]) {
        if (e["ph"] == "X") {
            ++slices[e["name"].get<std::string>()];
            EXPECT_GE(e["dur"].get<double>(), 0.0);
        } else if (e["ph"] == "C") {
            ++counters;
        }
    }
    for (const char* phase : {"step", "collide", "assemble", "solve", "integrate"}) {
        EXPECT_EQ(slices[phase], 20) << phase;
    }
    EXPECT_EQ(counters, 60);
    std::ifstream csv(path("t.csv"));
    int lines = 0;
    for (std::string line; std::getline(csv, line);) {
        ++lines;
    }
    EXPECT_EQ(lines, 21);
}

// The wall scene does not draw from the seed (its bricks stand on a grid), so its runs must
// repeat exactly; the rain of the water scene is drawn from it: the same seed gives the same
// rain and state, the next seed other drops (about 100 in 60 steps of 0.29 s at 6 per second)
// and another state.
TEST_F(Headless, SameSeedGivesTheSameHashAndADifferentSeedADifferentOne) {
    const std::string args =
        "--scene wall --backend cpu --steps 90 --event 30:shoot --seed 7 "
        "--summary-json ";
    ASSERT_EQ(headless(args + path("a.json")).code, 0);
    ASSERT_EQ(headless(args + path("b.json")).code, 0);
    EXPECT_EQ(readJson("a.json")["hash"], readJson("b.json")["hash"]);
    const auto seed = static_cast<std::uint32_t>(ww::test::freshSeed());
    const auto water = [&](std::uint64_t s, const std::string& out) {
        return headless(
            "--scene water --backend cpu --grid 48x48 --steps 60 --event 0:rain:on --seed " +
            std::to_string(s) + " --summary-json " + path(out));
    };
    ASSERT_EQ(water(seed, "c.json").code, 0);
    ASSERT_EQ(water(seed, "d.json").code, 0);
    ASSERT_EQ(water(seed + 1ull, "e.json").code, 0);
    EXPECT_EQ(readJson("c.json")["hash"], readJson("d.json")["hash"]) << "seed " << seed;
    EXPECT_NE(readJson("c.json")["hash"], readJson("e.json")["hash"]) << "seed " << seed;
}

TEST_F(Headless, CpuAndGpuWaterAgree) {
    WW_REQUIRE_GPU();
    for (const char* b : {"cpu", "gpu"}) {
        Outcome r = headless(std::string("--scene water --grid 48x48 --steps 80 --check "
                                         "--cg-tolerance 1e-6 --backend ") +
                             b + " --snapshot " + path(std::string(b) + ".json"));
        ASSERT_EQ(r.code, 0) << r.output;
    }
    const auto cpu = readJson("cpu.json")["heights"].get<std::vector<double>>();
    const auto gpu = readJson("gpu.json")["heights"].get<std::vector<double>>();
    ASSERT_EQ(cpu.size(), gpu.size());
    double peak = 0, diff = 0;
    for (std::size_t i = 0; i < cpu.size(); ++i) {
        peak = std::max(peak, std::abs(cpu[i]));
        diff = std::max(diff, std::abs(cpu[i] - gpu[i]));
    }
    // Both solve each step to a relative residual of 1e-6 in float; over 80 steps the
    // difference stays around 1e-4 of the wave's amplitude. 1e-3 leaves room for reduction
    // order differences between the backends.
    EXPECT_LT(diff, 1e-3 * peak) << "peak " << peak;
}

// A wall taller than the default solver holds is announced before the run (100 rows stand at
// rest, taller walls may fall): the note names the wall and is absent at 100 rows.
TEST_F(Headless, WallsTallerThanTheSolverHoldsAreAnnouncedBeforeTheRun) {
    Outcome tall = headless("--scene wall --backend cpu --wall 3x101 --steps 1");
    ASSERT_EQ(tall.code, 0) << tall.output;
    const std::size_t note = tall.output.find("--wall 3x101 has 101 rows");
    ASSERT_NE(note, std::string::npos) << tall.output;
    EXPECT_LT(note, tall.output.find("wavewall headless: scene wall")) << "said after the run";
    Outcome standing = headless("--scene wall --backend cpu --wall 3x100 --steps 1");
    ASSERT_EQ(standing.code, 0) << standing.output;
    EXPECT_EQ(standing.output.find("sag and fall"), std::string::npos) << standing.output;
}

// The GPU wall's traffic per step, counted by gpu::trafficCounts (the same on every GPU): the
// readbacks stay a handful whatever the wall (the results of the batch of small islands and of
// the matrix-free batch, not a transfer per island or per iteration), and the dispatches stay
// within two per iteration for the matrix-free batch plus a few, not one per island. A 6x4
// wall (one island) and a shot 14x6 wall (many islands) must show the same bounds.
TEST_F(Headless, GpuWallTrafficPerStepIsBoundedByIterationsNotIslands) {
    WW_REQUIRE_GPU();
    for (const char* wall : {"6x4", "14x6"}) {
        const std::string json = path(std::string("traffic_") + wall + ".json");
        Outcome r = headless(std::string("--scene wall --column-gap 0 --steps 50 --iterations 30 "
                                         "--backend gpu --event 10:shoot --wall ") +
                             wall + " --summary-json " + json);
        ASSERT_EQ(r.code, 0) << r.output;
        const nlohmann::json lcp = readJson(json)["lcp"];
        const int islands = lcp["islands_max"].get<int>();
        const long dispatches = lcp["dispatches_per_step_max"].get<long>();
        const long readbacks = lcp["readbacks_per_step_max"].get<long>();
        EXPECT_GT(dispatches, 0) << wall << ": the GPU solved nothing";
        // At most 200 iterations a solve (the world's cold-start rule raises --iterations 30
        // to WorldParams::coldStartIterations when few contacts are warm-started): two
        // dispatches an iteration, one for the dense islands, a final check and gather. One
        // dispatch per island and iteration would pass this only with a single island.
        const int iterations = rigid::WorldParams{}.coldStartIterations;
        EXPECT_LE(dispatches, 2 * (iterations + 2) + 4) << wall << ", " << islands << " islands";
        EXPECT_LE(readbacks, 6) << wall << ", " << islands << " islands";
        if (std::string(wall) == "14x6") {
            EXPECT_GE(islands, 3) << "the shot wall must break into islands for this to test them";
        }
    }
}

// The top brick of a 3x3 wall pushed off at step 20 (it slides off and falls 2 m), with a fixed
// iteration count so that both backends do the same work: the whole state must agree. The
// backends' float sums differ in order (~1e-6 N s per step); measured after 100 steps: 9e-6 m,
// 1e-5 in quaternion components, 8e-5 m/s (rad/s). The bounds (1 mm, 1e-3, 5e-3) leave 60x or
// more, while friction bounds halved in the GPU kernel move the pushed brick by 0.67 m.
// Plain Jacobi (--chebyshev-rho 0): Chebyshev's restart rule, a discrete decision on residuals
// that differ by rounding, parts the backends by 3 cm within these 100 steps; kept manifolds
// (--keep-manifolds off) are a decision on speeds that differ by rounding too.
TEST_F(Headless, CpuAndGpuWallAgreeAfterAPush) {
    WW_REQUIRE_GPU();
    for (const char* b : {"cpu", "gpu"}) {
        Outcome r =
            headless(std::string("--scene wall --wall 3x3 --steps 100 --check --tolerance 0 "
                                 "--iterations 30 --chebyshev-rho 0 --shock-sweeps 0 "
                                 "--keep-manifolds off "
                                 "--event 20:push:1,2,0,0,-4 --backend ") +
                     b + " --snapshot " + path(std::string(b) + ".json") + " --summary-json " +
                     path(std::string(b) + "_s.json"));
        ASSERT_EQ(r.code, 0) << r.output;
        // Bricks really moved on both backends: not a comparison of two walls at rest.
        EXPECT_GT(readJson(std::string(b) + "_s.json")["max_drift"].get<double>(), 0.5) << b;
    }
    const auto cpu = readJson("cpu.json")["bodies"];
    const auto gpu = readJson("gpu.json")["bodies"];
    ASSERT_EQ(cpu.size(), gpu.size());
    const auto worstOf = [&](const char* key, int components) {
        double worst = 0;
        for (std::size_t i = 0; i < cpu.size(); ++i) {
            for (int k = 0; k < components; ++k) {
                worst = std::max(
                    worst, std::abs(cpu[i][key][k].get<double>() - gpu[i][key][k].get<double>()));
            }
        }
        return worst;
    };
    const double pos = worstOf("position", 3);
    const double quat = worstOf("orientation", 4);
    const double vel = std::max(worstOf("linear_velocity", 3), worstOf("angular_velocity", 3));
    EXPECT_LT(pos, 1e-3);
    EXPECT_LT(quat, 1e-3);
    EXPECT_LT(vel, 5e-3);
}

TEST_F(Headless, GpuWithoutGlExits3) {
    Outcome r = headless("--scene wall --steps 5 --backend gpu",
                         "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json");
    EXPECT_EQ(r.code, 3) << r.output;
    EXPECT_NE(r.output.find("Tried"), std::string::npos) << r.output;
    // What was tried names the EGL vendor files glvnd was given, and that this one is missing.
    EXPECT_NE(r.output.find("EGL vendor files (glvnd): /nonexistent.json (missing) (from "
                            "__EGL_VENDOR_LIBRARY_FILENAMES)"),
              std::string::npos)
        << r.output;
    // auto falls back to the CPU and says why.
    Outcome a = headless("--scene wall --steps 5 --backend auto",
                         "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json");
    EXPECT_EQ(a.code, 0) << a.output;
    EXPECT_NE(a.output.find("backend auto: cpu (no GPU: "), std::string::npos) << a.output;
}

// The slide layout's summary: the brick stops after v^2 / (2 mu g) along its launch direction
// (tolerances of tests/solver/rigid/slide_test.cpp: 3 % for the time step, 0.5 degrees).
TEST_F(Headless, SlideLayoutReportsDistanceAndDirection) {
    Outcome r = headless(
        "--scene wall --layout slide --slide-speed 6 --slide-angle 45 --friction 0.6 "
        "--backend cpu --steps 120 --summary-json " +
        path("s.json"));
    ASSERT_EQ(r.code, 0) << r.output;
    const nlohmann::json s = readJson("s.json");
    ASSERT_TRUE(s.contains("slide")) << s.dump();
    const double closedForm = 6.0 * 6.0 / (2.0 * 0.6 * 9.81);
    EXPECT_NEAR(s["slide"]["distance_m"].get<double>(), closedForm, 0.03 * closedForm);
    EXPECT_LT(s["slide"]["direction_error_deg"].get<double>(), 0.5);
    r = headless("--scene wall --layout slide --slide-angle 400 --steps 2");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("--slide-angle"), std::string::npos) << r.output;
}

TEST_F(Headless, BadInputsExit2BeforeTheRun) {
    std::ofstream(path("bad.json")) << "{\n  \"scene\": \"wall\",\n  \"omegaa\": 0.3\n}\n";
    Outcome r = headless("--config " + path("bad.json"));
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find(path("bad.json") + ":3:"), std::string::npos) << r.output;

    std::ofstream(path("range.json")) << "{\"dt\": -0.01}";
    r = headless("--config " + path("range.json"));
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("--dt"), std::string::npos) << r.output;

    for (const std::string& args :
         {std::string("--scene wall --event 10:explode"),
          std::string("--scene wall --event x:shoot"),
          std::string("--scene water --event 5:drop:2,0.5"), std::string("--scene wall --wall 0x3"),
          std::string("--scene water --grid 64"), std::string("--scene wall --omega -0.5"),
          std::string("--scene wall --trace /nonexistent-dir/t.json"),
          std::string("--scene wall --summary-json /nonexistent-dir/s.json"),
          std::string("--scene wall --steps 0"), std::string("--scene wall --warm-up-steps -1"),
          std::string("--scene wall --lcp-operator sparse"),
          std::string("--scene wall --column-gap -0.1")}) {
        Outcome o = headless(args);
        EXPECT_EQ(o.code, 2) << args << "\n" << o.output;
        EXPECT_NE(o.output.find("error"), std::string::npos) << args << "\n" << o.output;
    }
    // A 64 x 64 touching wall posed as one dense matrix needs 192 792^2 floats (149 GB): refused
    // before the run, saying what it would need and what to use instead.
    for (const std::string& args : {std::string("--wall 64x64 --lcp-mode dense"),
                                    std::string("--wall 64x64 --lcp-operator dense")}) {
        Outcome o = headless("--scene wall --backend cpu --steps 1 " + args);
        EXPECT_EQ(o.code, 2) << args << "\n" << o.output;
        EXPECT_NE(o.output.find("GB"), std::string::npos) << args << "\n" << o.output;
        EXPECT_NE(o.output.find("matrix-free"), std::string::npos) << args << "\n" << o.output;
    }
}

TEST_F(Headless, EveryAssetPresetLoadsAndRuns) {
    const char* source = std::getenv("WAVEWALL_SOURCE_DIR");
    ASSERT_NE(source, nullptr) << "ctest sets WAVEWALL_SOURCE_DIR";
    int presets = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(source) / "assets")) {
        if (entry.path().extension() != ".json") {
            continue;
        }
        ++presets;
        Outcome r =
            headless("--config " + entry.path().string() + " --backend cpu --steps 1 --check");
        EXPECT_EQ(r.code, 0) << entry.path() << "\n" << r.output;
    }
    EXPECT_GE(presets, 5);
}

TEST_F(Headless, CtrlCStillWritesCompleteOutputs) {
    // SIGINT after 6 s of a run far too long to finish: the outputs must be complete documents.
    // (2 s was too short on a loaded machine: set-up alone took that long, and the run was
    // interrupted before its first step, with load averages of 10-15.)
    const std::string cmd = "timeout --preserve-status -s INT 6 " WW_WAVEWALL_EXE
                            " headless --scene wall --backend cpu --steps 100000000 --trace " +
                            path("t.json") + " --csv " + path("t.csv") + " --summary-json " +
                            path("s.json") + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::array<char, 4096> buf{};
    std::string output;
    while (fgets(buf.data(), buf.size(), p) != nullptr) {
        output += buf.data();
    }
    const int status = pclose(p);
    ASSERT_TRUE(WIFEXITED(status)) << output;
    EXPECT_EQ(WEXITSTATUS(status), 0) << output;
    EXPECT_NE(output.find("interrupted"), std::string::npos) << output;
    const nlohmann::json s = readJson("s.json");
    EXPECT_TRUE(s["interrupted"].get<bool>());
    const int steps = s["steps"].get<int>();
    EXPECT_GT(steps, 0);
    const nlohmann::json t = readJson("t.json");  // throws (fails) if the JSON is cut short
    int stepSlices = 0;
    for (const auto& e : t["traceEvents"]) {
        stepSlices += e["ph"] == "X" && e["name"] == "step" ? 1 : 0;
    }
    EXPECT_EQ(stepSlices, steps);
}

TEST_F(Headless, ScreenshotRendersTheFinalFrame) {
    WW_REQUIRE_GPU();
    Outcome r = headless("--scene wall --backend cpu --steps 10 --screenshot " + path("f.png"));
    ASSERT_EQ(r.code, 0) << r.output;
    ASSERT_TRUE(fs::exists(path("f.png")));
    EXPECT_GT(fs::file_size(path("f.png")), 10000u);  // a real picture, not an empty PNG
}

}  // namespace
}  // namespace ww
