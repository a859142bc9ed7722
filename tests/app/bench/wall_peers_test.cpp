// Smoke test of the wall suite's peer table: `wavewall bench --suite wall --quick` prints a row
// for every engine this build has (ours, Bullet, ODE, Box3D) on the 10x6 wall at rest and shot, and
// writes a record for each with finite numbers; a peer the build lacks gets its skip line.
// No timing is checked.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/run_command.h"
#include "support/seed.h"

namespace ww {
namespace {

struct Engine {
    std::string backend;   ///< the records' backend and the rows' first column
    bool built;            ///< this build has it
    std::string skipLine;  ///< printed when it does not
};

std::vector<Engine> engines() {
    return {{"wavewall-cpu", true, ""},
            {"bullet", WW_TEST_HAVE_BULLET != 0,
             "peers skipped: Bullet not found (install libbullet-dev)"},
            {"ode", WW_TEST_HAVE_ODE != 0, "peers skipped: ODE not found (install libode-dev)"},
            {"box3d", WW_TEST_HAVE_BOX3D != 0, "peers skipped: Box3D not found"}};
}

// The start of an engine's table row: the engine, wall and scene columns.
std::string rowStart(const std::string& engine, const std::string& wall, const std::string& scene) {
    constexpr std::size_t kEngineColumn = 24;  // app/bench/wall_peers.cpp's %-24s
    constexpr std::size_t kWallColumn = 7;
    return engine + std::string(kEngineColumn + 1 - engine.size(), ' ') + wall +
           std::string(kWallColumn + 1 - wall.size(), ' ') + scene;
}

// Per engine (the records' backend): its peers-* records, and its collapse's max drift.
std::pair<std::map<std::string, int>, std::map<std::string, double>> tallyEngines(
    const nlohmann::json& doc) {
    std::map<std::string, int> perEngine;
    std::map<std::string, double> collapseDrift;
    for (const auto& r : doc["records"]) {
        if (r["name"].get<std::string>().rfind("peers-", 0) == 0) {
            ++perEngine[r["backend"].get<std::string>()];
        }
        if (r["name"] == "peers-collapse") {
            collapseDrift[r["backend"]] = r["metrics"]["max_drift_m"].get<double>();
        }
    }
    return {perEngine, collapseDrift};
}

// Runs `wavewall bench --quick --backend cpu --repeat 1 --suite wall ARGS --json F` into `run`
// and returns F parsed (null, with the failure added, when the run or its file failed).
nlohmann::json runWallSuite(const std::string& args, test::CommandResult& run) {
    const std::filesystem::path json =
        std::filesystem::temp_directory_path() /
        ("ww_wall_peers_" + std::to_string(ww::test::freshSeed()) + ".json");
    run = test::runShell(std::string(WW_WAVEWALL_EXE) +
                         " bench --quick --backend cpu --repeat 1 --suite wall " + args +
                         " --json " + json.string());
    if (run.code != 0) {
        ADD_FAILURE() << "exit " << run.code << "\n" << run.output;
        return nullptr;
    }
    std::ifstream in(json);
    if (!in) {
        ADD_FAILURE() << "no " << json << "\n" << run.output;
        return nullptr;
    }
    nlohmann::json doc = nlohmann::json::parse(in);
    in.close();
    std::filesystem::remove(json);
    return doc;
}

TEST(WallPeers, QuickSuitePrintsARowAndARecordPerEngineAndScene) {
    test::CommandResult run;
    const nlohmann::json doc = runWallSuite("", run);
    ASSERT_FALSE(doc.is_null());
    const std::string& out = run.output;
    for (const char* column : {"engine", "wall", "scene", "p50 ms", "p95 ms", "max ms",
                               "max drift m", "overlap m", "peak MiB", "verdict"}) {
        EXPECT_NE(out.find(column), std::string::npos) << column << "\n" << out;
    }

    std::map<std::string, nlohmann::json> records;  // "name backend"
    for (const auto& r : doc["records"]) {
        if (r["name"].get<std::string>().rfind("peers-", 0) == 0) {
            EXPECT_EQ(r["size"], "10x6") << r.dump();  // --quick: the smallest wall only
            records[r["name"].get<std::string>() + " " + r["backend"].get<std::string>()] = r;
        }
    }

    for (const Engine& e : engines()) {
        SCOPED_TRACE(e.backend);
        if (!e.built) {
            EXPECT_NE(out.find(e.skipLine), std::string::npos) << out;
            EXPECT_EQ(records.count("peers-rest " + e.backend), 0u);
            continue;
        }
        if (!e.skipLine.empty()) {
            EXPECT_EQ(out.find(e.skipLine), std::string::npos) << out;
        }
        double drift[2] = {0.0, 0.0};
        int k = 0;
        for (const std::string scene : {"rest", "collapse"}) {
            SCOPED_TRACE(scene);
            // The printed row: engine, wall, scene first.
            const std::string row = rowStart(e.backend, "10x6", scene);
            EXPECT_NE(out.find(row), std::string::npos) << "no row \"" << row << "\"\n" << out;
            const auto it = records.find("peers-" + scene + " " + e.backend);
            ASSERT_NE(it, records.end()) << out;
            const nlohmann::json& r = it->second;
            const nlohmann::json& m = r["metrics"];
            for (const char* key :
                 {"p95_ms", "max_ms", "cpu_time_p50_ms", "max_drift_m", "steps", "steps_planned",
                  "simulated_s", "peak_rss_mib", "rss_growth_mib"}) {
                ASSERT_TRUE(m.contains(key)) << key << " in " << r.dump();
                ASSERT_TRUE(m[key].is_number()) << key << " in " << r.dump();  // NaN/inf: null
                EXPECT_TRUE(std::isfinite(m[key].get<double>())) << key;
                EXPECT_GE(m[key].get<double>(), 0.0) << key;
            }
            const double p50 = r["median_ms"].get<double>();
            EXPECT_TRUE(std::isfinite(p50));
            EXPECT_LE(p50, m["p95_ms"].get<double>());
            EXPECT_LE(m["p95_ms"].get<double>(), m["max_ms"].get<double>());
            EXPECT_GE(m["steps"].get<double>(), 1.0);
            EXPECT_LE(m["steps"].get<double>(), m["steps_planned"].get<double>());
            EXPECT_EQ(r["repeats"].get<double>(), m["steps"].get<double>());
            drift[k++] = m["max_drift_m"].get<double>();
            // Overlap: every step of a collapse; at rest once a simulated second, which the quick
            // run's 30 steps do not reach. Every engine keeps bricks within half a brick of each
            // other (measured in the quick collapse: 2-12 cm).
            if (scene == "collapse") {
                ASSERT_TRUE(m.contains("max_overlap_m")) << r.dump();
                EXPECT_GE(m["max_overlap_m"].get<double>(), 0.0);
                EXPECT_LT(m["max_overlap_m"].get<double>(), 0.5);
                EXPECT_GE(m["max_overlap_step"].get<double>(), 1.0);
                EXPECT_LE(m["max_overlap_step"].get<double>(), m["steps"].get<double>());
            } else {
                EXPECT_FALSE(m.contains("max_overlap_m")) << r.dump();
            }
        }
        // Every engine got the same wall and the same shot: at rest no brick moves a decimetre
        // in the quick run's half second (measured: 1-4 cm; a brick built half or twice its
        // size, or overlapping, drops or jumps by decimetres), and the sphere, aimed at the
        // wall's middle, reaches it (at 20 m/s, at step 22 of 30) and throws a brick farther
        // than 20 cm in the 8 steps left (measured: 1.3-2.3 m; a shot that misses leaves the
        // rest run's few centimetres).
        EXPECT_LE(drift[0], 0.1) << out;
        EXPECT_GT(drift[1], 0.2) << out;
    }

    // Under each scene's rows, our p50 over each built peer's, as the records have them.
    int peers = 0;
    for (const Engine& e : engines()) {
        peers += e.built && e.backend != "wavewall-cpu" ? 1 : 0;
    }
    for (const std::string scene : {"rest", "collapse"}) {
        SCOPED_TRACE(scene);
        const std::string head = "  10x6 " + scene + ", wavewall-cpu p50 / peer p50 in this run:";
        const std::size_t at = out.find(head);
        if (peers == 0) {
            EXPECT_EQ(at, std::string::npos) << out;
            continue;
        }
        ASSERT_NE(at, std::string::npos) << "no line \"" << head << "\"\n" << out;
        const std::string line = out.substr(at, out.find('\n', at) - at);
        const double ours =
            records.at("peers-" + scene + " wavewall-cpu")["median_ms"].get<double>();
        for (const Engine& e : engines()) {
            if (!e.built || e.backend == "wavewall-cpu") {
                continue;
            }
            const std::size_t p = line.find(" " + e.backend + " ");
            ASSERT_NE(p, std::string::npos) << e.backend << " in \"" << line << "\"";
            const double printed = std::stod(line.substr(p + e.backend.size() + 2));
            const double peer =
                records.at("peers-" + scene + " " + e.backend)["median_ms"].get<double>();
            EXPECT_NEAR(printed, ours / peer, 0.005 + 1e-9 * ours / peer) << line;
        }
    }
}

// --walls chooses the engines' walls; --quick keeps the first of them.
TEST(WallPeers, WallsOptionSetsTheComparedWall) {
    test::CommandResult run;
    const nlohmann::json doc = runWallSuite("--walls 12x4,20x20", run);
    ASSERT_FALSE(doc.is_null());
    std::map<std::string, int> perEngine;
    for (const auto& r : doc["records"]) {
        if (r["name"].get<std::string>().rfind("peers-", 0) == 0) {
            EXPECT_EQ(r["size"], "12x4") << r.dump();
            ++perEngine[r["backend"].get<std::string>()];
        }
    }
    for (const Engine& e : engines()) {
        EXPECT_EQ(perEngine[e.backend], e.built ? 2 : 0) << e.backend << "\n" << run.output;
    }
    EXPECT_NE(run.output.find(rowStart("wavewall-cpu", "12x4", "rest")), std::string::npos)
        << run.output;
}

// --wall-iterations adds our engine at those caps beside its default, each with its rows,
// records and ratio lines; a bad list is refused with the item named.
TEST(WallPeers, WallIterationsAddOurEngineAtThoseCaps) {
    test::CommandResult run;
    const nlohmann::json doc = runWallSuite("--wall-iterations 7,3", run);
    ASSERT_FALSE(doc.is_null());
    auto [perEngine, collapseDrift] = tallyEngines(doc);
    // The capped runs are other simulations (a run repeats bit for bit: the same settings
    // would give the same drift).
    EXPECT_NE(collapseDrift["wavewall-cpu-i3"], collapseDrift["wavewall-cpu"]) << run.output;
    int peers = 0;
    for (const Engine& e : engines()) {
        peers += e.built && e.backend != "wavewall-cpu" ? 1 : 0;
    }
    for (const std::string name : {"wavewall-cpu", "wavewall-cpu-i7", "wavewall-cpu-i3"}) {
        EXPECT_EQ(perEngine[name], 2) << name << "\n" << run.output;
        for (const std::string scene : {"rest", "collapse"}) {
            const std::string row = rowStart(name, "10x6", scene);
            EXPECT_NE(run.output.find(row), std::string::npos) << row << "\n" << run.output;
            const std::string ratios = "  10x6 " + scene + ", " + name + " p50 / peer p50";
            EXPECT_EQ(run.output.find(ratios) != std::string::npos, peers > 0) << ratios << "\n"
                                                                               << run.output;
        }
    }
    EXPECT_NE(run.output.find("wavewall-cpu-i7: the same with <= 7 iterations"), std::string::npos)
        << run.output;

    for (const std::string bad : {"0", "7,x", "7,", "20000", "-3", "7,7"}) {
        const test::CommandResult r =
            test::runShell(std::string(WW_WAVEWALL_EXE) +
                           " bench --quick --backend cpu --suite wall --wall-iterations=" + bad);
        EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
        EXPECT_NE(r.output.find("--wall-iterations " + bad + ":"), std::string::npos) << r.output;
    }
}

// --wall-local-steps adds our engine with local step scales at its default cap and at each
// --wall-iterations cap, each with its rows, records and description; a bad omega is refused.
TEST(WallPeers, WallLocalStepsAddOurEngineWithLocalStepScales) {
    test::CommandResult run;
    const nlohmann::json doc = runWallSuite("--wall-iterations 7 --wall-local-steps 1.9", run);
    ASSERT_FALSE(doc.is_null());
    auto [perEngine, collapseDrift] = tallyEngines(doc);
    for (const std::string name :
         {"wavewall-cpu", "wavewall-cpu-i7", "wavewall-cpu-local", "wavewall-cpu-local-i7"}) {
        EXPECT_EQ(perEngine[name], 2) << name << "\n" << run.output;
        EXPECT_NE(run.output.find(rowStart(name, "10x6", "collapse")), std::string::npos)
            << name << "\n"
            << run.output;
    }
    // Other simulations than the global omega's at the same caps (a run repeats bit for bit).
    EXPECT_NE(collapseDrift["wavewall-cpu-local"], collapseDrift["wavewall-cpu"]) << run.output;
    EXPECT_NE(collapseDrift["wavewall-cpu-local-i7"], collapseDrift["wavewall-cpu-i7"])
        << run.output;
    EXPECT_NE(run.output.find("wavewall-cpu-local-i7: the same with local step scales, omega 1.9 "
                              "and <= 7 iterations a step"),
              std::string::npos)
        << run.output;

    for (const std::string bad : {"2", "-0.5", "nan", "x"}) {
        const test::CommandResult r =
            test::runShell(std::string(WW_WAVEWALL_EXE) +
                           " bench --quick --backend cpu --suite wall --wall-local-steps=" + bad);
        EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
        EXPECT_NE(r.output.find("--wall-local-steps"), std::string::npos) << r.output;
    }
}

}  // namespace
}  // namespace ww
